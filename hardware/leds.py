"""The LED chain: one buffered frame, one `show()` per frame.

On the SPI MOSI pin (GPIO10, `pin = "D10"` in a board file) the chain is driven by
adafruit_neopixel_spi's `NeoPixel_SPI` over an SPI bus (`busio.SPI` on the Pi, through the
kernel's /dev/spidev0.0; the simulator passes its own bus): every bit for the LEDs becomes one
SPI byte whose high part is the bit's pulse. It needs no root (the `spi` group) and works on every
Pi, the Pi 5 included. On any other pin the chain is driven by adafruit_neopixel's `NeoPixel`,
which on a Pi goes through the rpi_ws281x library: it needs root on the PWM and PCM pins (GPIO12,
GPIO18, GPIO21), and the service runs without it.

`auto_write=False` because the drivers would otherwise send the whole chain on every pixel
assignment (a 185-LED chain is about 6 ms on the wire). Brightness is the spec's cap, applied by
the driver as it builds the bytes, exactly as the chain will receive them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .interface import RGB
from .spec import BoardSpec, Leds

SPI_MOSI_GPIO = 10
"""The Pi's SPI0 MOSI: a chain whose data line is there is driven over SPI."""

# One SPI byte per bit for the LEDs, at 6.4 MHz: 1.25 us a bit (800 kHz), 156.25 ns an SPI bit.
SPI_FREQUENCY = 6_400_000
SPI_BIT0 = 0b1100_0000
"""A 0: 312.5 ns high, 937.5 ns low (WS2812B: 220-380 ns high in the V5 datasheet, 400 +-150 ns
in the first one; the low time is not critical). The driver's default."""
SPI_BIT1 = 0b1111_1000
"""A 1: 781 ns high, 469 ns low (WS2812B: 580-1000 ns high in V5, 800 +-150 ns in the first
datasheet). The driver's default, 0b11110000, gives 625 ns: inside V5's window but under the
first datasheet's; 781 ns sits inside both."""
SPI_RESET_SECONDS = 300e-6
"""The low time that latches a frame, sent before and after it (WS2812B V5: at least 280 us; the
driver's default of 80 us suits only the older parts)."""
SPI_RESET_BYTES = round(SPI_FREQUENCY * SPI_RESET_SECONDS / 8)


def on_spi(leds: Leds) -> bool:
    """Whether the chain is driven over SPI: its data line is on SPI0 MOSI."""
    return leds.gpio == SPI_MOSI_GPIO


def spi_stream_bytes(count: int, width: int = 3) -> int:
    """The bytes of one frame on the SPI bus for `count` LEDs of `width` colours: the reset,
    8 SPI bytes per byte for the LEDs, the reset again. The kernel's spidev takes at most its
    `bufsiz` bytes in one message (4096 unless raised on the kernel command line)."""
    return SPI_RESET_BYTES + 8 * width * count + SPI_RESET_BYTES


@functools.cache
def spi_patterns(bit0: int = SPI_BIT0, bit1: int = SPI_BIT1) -> tuple[bytes, ...]:
    """For each byte value, the 8 SPI bytes that send it to the chain, most significant bit
    first, as NeoPixel_SPI sends them."""
    return tuple(
        bytes(bit1 if value >> i & 1 else bit0 for i in range(7, -1, -1)) for value in range(256)
    )


@functools.cache
def _neopixel_spi() -> type:
    """NeoPixel_SPI with its encoding done by table: the same bytes, over ten times faster.
    The driver turns each bit into its SPI byte in a Python loop over bits: about 0.4 ms a frame
    of r1's 185 LEDs on a desktop x86 core, more on a Pi's, on the thread that scans the sensors.
    A table of the 256 byte values' 8-byte patterns does it in one join (tests/hardware/
    test_leds.py holds it to the driver's own)."""
    import neopixel_spi

    class NeoPixelSPI(neopixel_spi.NeoPixel_SPI):
        def _transmogrify(self, buffer: bytearray) -> None:
            patterns = spi_patterns(self._bit0, self._bit1)
            self._spibuf[:] = b"".join(map(patterns.__getitem__, buffer))

    return NeoPixelSPI


class LedChain:
    def __init__(self, spec: BoardSpec, line: Any) -> None:
        """`line`: for a chain on the SPI MOSI pin (`on_spi(spec.leds)`), the SPI bus
        (`busio.SPI(board.SCK, MOSI=board.MOSI)`, or the simulator's); for any other pin, the
        pin (`board.D18`, say), which rpi_ws281x drives as root only."""
        self.count = spec.leds.count
        self.spi = on_spi(spec.leds)
        if self.spi:
            self._pixels = _neopixel_spi()(
                line,
                self.count,
                brightness=spec.power.max_brightness,
                auto_write=False,
                pixel_order=spec.leds.order,
                frequency=SPI_FREQUENCY,
                reset_time=SPI_RESET_SECONDS,
                bit0=SPI_BIT0,
                bit1=SPI_BIT1,
            )
        else:
            import neopixel  # on a Pi this needs rpi_ws281x (and root); see sim/ for CI

            self._pixels = neopixel.NeoPixel(
                line,
                self.count,
                brightness=spec.power.max_brightness,
                auto_write=False,
                pixel_order=spec.leds.order,
            )

    def show(self, pixels: Sequence[RGB]) -> None:
        if len(pixels) != self.count:
            raise ValueError(f"an LED frame has {self.count} colours, not {len(pixels)}")
        self._pixels[:] = pixels
        self._pixels.show()

    def close(self) -> None:
        """Blanks the chain and deinits the driver (the SPI bus is its owner's to close)."""
        self._pixels.fill((0, 0, 0))
        self._pixels.show()
        self._pixels.deinit()
