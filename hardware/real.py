"""The real board on a Raspberry Pi: Blinka's I2C and SPI, the RPi.GPIO API.

Only this module imports the board's pins and RPi.GPIO and makes the buses; it is never imported
in CI. The LED chain on GPIO10 goes out through Blinka's SPI (Adafruit_PureIO on /dev/spidev0.0),
which needs no root; on another pin through adafruit_neopixel (rpi_ws281x), which needs root on
the PWM and PCM pins, and the service has none (hardware/leds.py). On Raspberry Pi OS Bookworm
(kernel 6.6+) RPi.GPIO's edge detection fails and on a Pi 5 it cannot start: install the `pi`
extra, which brings rpi-lgpio, the same `RPi.GPIO` module on lgpio (it conflicts with the
RPi.GPIO package: have only one).

Threads: RPi.GPIO calls edge callbacks on its own thread; they only set an event and queue button
events. The buses are touched only by the thread that calls `scan` and `show`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .expanders import ExpanderArray
from .interface import RGB, ButtonEvent, Fault, Scan
from .leds import LedChain, on_spi, spi_stream_bytes
from .spec import BoardSpec

BUTTON_BOUNCE_MS = 20
SPIDEV = Path("/dev/spidev0.0")
SPIDEV_BUFSIZ = Path("/sys/module/spidev/parameters/bufsiz")


class HardwareUnavailableError(RuntimeError):
    """This machine cannot drive a real board (not a Pi, or a library is missing)."""


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


class PiBoard:
    """Implements `hardware.interface.Board` on a Raspberry Pi."""

    def __init__(self, spec: BoardSpec) -> None:
        # Blinka may offer to pip-install platform packages at `import board` on a terminal.
        os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
        try:
            import board
            import busio
            import RPi.GPIO as GPIO
        except (ImportError, RuntimeError, NotImplementedError) as error:
            raise HardwareUnavailableError(
                f"cannot drive a real board here ({error}); on a Pi install the pi extra "
                "(pip install 'magboard[pi]'), elsewhere run with --sim"
            ) from error
        if not on_spi(spec.leds) and os.geteuid() != 0:
            raise HardwareUnavailableError(
                f"the LED chain is on {spec.leds.pin}, which adafruit_neopixel drives through "
                "rpi_ws281x, as root only, and only on GPIO12, GPIO18 or GPIO21 (PWM, PCM); "
                "the service runs without root: wire the data line to GPIO10 (SPI0 MOSI, "
                'pin 19) and set pin = "D10"'
            )
        self.spec = spec
        self.clock = MonotonicClock()
        self._gpio = GPIO
        self._wake = threading.Event()
        self._events: deque[ButtonEvent] = deque()
        # No `frequency=`: on Linux the kernel sets the bus speed (`dtparam=i2c_arm_baudrate` in
        # config.txt, hardware/README.md), and Blinka warns at every start that it ignores it.
        self.buses: dict[str, Any] = {
            bus.name: busio.I2C(getattr(board, bus.scl), getattr(board, bus.sda))
            for bus in spec.buses
        }
        self.spi: Any = _led_spi(spec, board, busio) if on_spi(spec.leds) else None
        self.expanders = ExpanderArray(spec, self.buses, self.clock)
        self._interrupts = sorted({e.interrupt for e in spec.expanders if e.interrupt is not None})
        self._buttons = {b.gpio: b.name for b in spec.buttons}
        try:
            GPIO.setmode(GPIO.BCM)
            for pin in self._interrupts:
                GPIO.setup(pin, GPIO.IN, pull_up_down=GPIO.PUD_UP)
                GPIO.add_event_detect(pin, GPIO.FALLING, callback=self._on_interrupt)
            for pin in self._buttons:
                GPIO.setup(pin, GPIO.IN, pull_up_down=GPIO.PUD_UP)
                GPIO.add_event_detect(
                    pin, GPIO.BOTH, callback=self._on_button, bouncetime=BUTTON_BOUNCE_MS
                )
        except _gpio_errors() as error:
            raise HardwareUnavailableError(
                f"cannot use the GPIO lines ({error}): the user must be in group gpio, and "
                "RPI_LGPIO_CHIP, where set, must name the header's chip"
            ) from error
        self.leds = LedChain(spec, self.spi or getattr(board, spec.leds.pin))

    def _on_interrupt(self, pin: int) -> None:
        self._wake.set()

    def _on_button(self, pin: int) -> None:
        pressed = self._gpio.input(pin) == 0
        self._events.append(ButtonEvent(self._buttons[pin], pressed, self.clock.now()))
        self._wake.set()

    def scan(self) -> Scan:
        return self.expanders.scan()

    def verify(self) -> tuple[Fault, ...]:
        return self.expanders.verify()

    def wait_for_change(self, timeout: float) -> bool:
        if not self._interrupts:  # no INT line wired: a poll, woken early only by a button
            self._wake.wait(timeout)
            self._wake.clear()
            return True
        # Level first: an INT line still low means a change not yet read, edge or no edge.
        if any(self._gpio.input(pin) == 0 for pin in self._interrupts):
            return True
        fired = self._wake.wait(timeout)
        self._wake.clear()
        return fired

    def show(self, pixels: Sequence[RGB]) -> None:
        self.leds.show(pixels)

    def button_events(self) -> list[ButtonEvent]:
        events = []
        while self._events:
            events.append(self._events.popleft())
        return events

    def held_buttons(self) -> frozenset[str]:
        return frozenset(name for pin, name in self._buttons.items() if self._gpio.input(pin) == 0)

    def close(self) -> None:
        """Lets go of the LEDs, the lines and the buses. A line still busy does not fail the
        command that closes (the self-test's report is made by then): rpi-lgpio's cleanup can
        find one held while its edge thread lets go of it ('GPIO busy'), and the process's exit
        frees it anyway."""
        self.leds.close()
        try:
            self._gpio.cleanup([*self._interrupts, *self._buttons])
        except _gpio_errors() as error:
            print(f"magboard: GPIO lines left to the exit to free ({error})", file=sys.stderr)
        for bus in self.buses.values():
            bus.deinit()
        if self.spi is not None:
            self.spi.deinit()


def _led_spi(spec: BoardSpec, board: Any, busio: Any) -> Any:
    """SPI0, whose MOSI is the LED chain's data line, set to send a frame in one message.

    Blinka's SPI (Adafruit_PureIO) cuts a write into messages of `SPI_BUFSIZE` bytes (4096
    unless set), and between two the line idles low, which the LEDs may take for the reset: the
    rest of the frame would then start the chain over. r1's frame is 4,920 bytes. So it is told
    the frame's size; the kernel's spidev takes a message of at most its `bufsiz` (4096 unless
    the kernel command line raises it), which is checked here rather than at the first frame.
    """
    if not SPIDEV.exists():
        raise HardwareUnavailableError(
            f"the LED chain is on GPIO10 (SPI0 MOSI) and there is no {SPIDEV}: enable SPI "
            "(dtparam=spi=on in config.txt) and reboot"
        )
    frame = spi_stream_bytes(spec.leds.count, spec.leds.colours)
    try:
        limit = int(SPIDEV_BUFSIZ.read_text())
    except (OSError, ValueError):
        limit = None  # not to be read here: a frame too long for it fails on the first show
    if limit is not None and limit < frame:
        raise HardwareUnavailableError(
            f"an LED frame of board {spec.name} is {frame} bytes on SPI and the kernel's spidev "
            f"sends at most {limit} in one message: add spidev.bufsiz=65536 to the kernel "
            "command line (/boot/firmware/cmdline.txt) and reboot"
        )
    os.environ["SPI_BUFSIZE"] = str(frame)  # read by Adafruit_PureIO when the bus is made
    return busio.SPI(board.SCK, MOSI=board.MOSI)


def _gpio_errors() -> tuple[type[Exception], ...]:
    """What the RPi.GPIO API raises when it cannot reach the GPIO lines: rpi-lgpio lets lgpio's
    own `error`, which is no OSError, out of `setmode` when the chip cannot be opened."""
    try:
        import lgpio
    except ImportError:
        return (RuntimeError, OSError)
    return (RuntimeError, OSError, lgpio.error)
