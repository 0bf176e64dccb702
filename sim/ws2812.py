"""The LED chain's data line read back: what the WS2812s receive, and the colours they show.

A chain on SPI MOSI gets each of its bits as one SPI byte, whose high part is the bit's pulse:
`SPI_BIT0` for a 0, `SPI_BIT1` for a 1 (`hardware/leds.py`). Between frames the line is held low,
a run of zero bytes: the reset that latches the frame. `from_spi` reads a frame's SPI stream back
into the bytes the chain receives (and rejects one the LEDs could not read), `colours` those bytes
into a colour per LED; `SpiLedWire` listens on a bus's MOSI and keeps the frames, as `SimLedPin`
(sim/neopixel_wire.py) does for a chain on any other pin, so the rest of the simulator reads
both alike.

Decoding is table work (`bytes.translate`, one `int` parse), not a loop over bits: a frame of
r1's 185 LEDs is 4,920 SPI bytes, and the simulator decodes every frame sent.
"""

from __future__ import annotations

from collections.abc import Callable

from magboard.hardware.interface import RGB
from magboard.hardware.leds import SPI_BIT0, SPI_BIT1

from .spi import SimSPI


class MalformedStreamError(ValueError):
    """An SPI stream that is not a frame the LEDs can read."""


_BAD = ord("x")
_tables: dict[tuple[int, int], bytes] = {}


def _table(bit0: int, bit1: int) -> bytes:
    table = _tables.get((bit0, bit1))
    if table is None:
        if not bit0 or not bit1 or bit0 == bit1:
            raise ValueError(f"0x{bit0:02x} and 0x{bit1:02x} are not two patterns with a pulse")
        entries = bytearray([_BAD]) * 256
        entries[bit0], entries[bit1] = ord("0"), ord("1")
        table = _tables[(bit0, bit1)] = bytes(entries)
    return table


def from_spi(stream: bytes, width: int = 3, *, bit0: int = SPI_BIT0, bit1: int = SPI_BIT1) -> bytes:
    """The bytes a chain of `width`-colour LEDs receives from one frame's SPI stream: the zero
    bytes at either end are the reset; every byte between must be the 0 or the 1 pattern, and
    they must make whole pixels. Raises `MalformedStreamError` otherwise."""
    body = stream.strip(b"\0")
    if not body:
        return b""
    bits = body.translate(_table(bit0, bit1))
    bad = bits.find(b"x")
    if bad >= 0:
        at = len(stream) - len(stream.lstrip(b"\0")) + bad
        value = stream[at]
        what = "the line held low inside a frame" if value == 0 else "no WS2812 bit"
        raise MalformedStreamError(
            f"SPI byte {at} of {len(stream)} is 0x{value:02x}: {what} (a 0 is 0x{bit0:02x}, "
            f"a 1 is 0x{bit1:02x})"
        )
    pixel_bits = 8 * width
    if len(bits) % pixel_bits:
        raise MalformedStreamError(
            f"{len(bits)} bits is not a whole number of {width}-byte pixels: "
            f"{len(bits) // pixel_bits} pixels and {len(bits) % pixel_bits} bits more"
        )
    return int(bits, 2).to_bytes(len(bits) // 8, "big")


def colours(data: bytes, order: str) -> list[RGB]:
    """Colours per LED from the bytes the chain received, undoing the pixel order (brightness
    stays: these are the levels the LEDs really show; a W channel is left out)."""
    width = len(order)
    if len(data) % width:
        raise ValueError(f"{len(data)} bytes is not a whole number of {order} pixels")
    red, green, blue = (data[order.index(c) :: width] for c in "RGB")
    return list(zip(red, green, blue, strict=True))


class LedFrames:
    """The chain's data line as the simulator sees it, whatever drives it: what the chain
    received, frame by frame, and who is told of each."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        """Each frame the chain received, as the bytes it received (pixel order, brightness
        applied), oldest first; callers may trim it in place."""
        self.listeners: list[Callable[[bytes], None]] = []
        """Called with each frame's bytes as it arrives."""

    def receive(self, data: bytes) -> None:
        self.frames.append(data)
        for listener in self.listeners:
            listener(data)

    @property
    def last(self) -> bytes:
        return self.frames[-1] if self.frames else b""


class SpiLedWire(LedFrames):
    """The chain on a bus's MOSI: each frame decoded from the SPI stream."""

    def __init__(self, spi: SimSPI, width: int = 3) -> None:
        super().__init__()
        self.width = width
        spi.listeners.append(self.receive_stream)

    def receive_stream(self, stream: bytes) -> None:
        self.receive(from_spi(stream, self.width))
