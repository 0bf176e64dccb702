"""The NeoPixel wire on a pin other than SPI MOSI, captured: the real adafruit_neopixel class runs,
and only the last step, `neopixel_write(pin, buffer)`, is replaced by a recorder. A chain on SPI
MOSI is driven over a `SimSPI` instead; sim/ws2812.py reads both back.

Off a Pi, Blinka has neither a `neopixel_write` for the board nor pins for `digitalio`, so the
capture stands in for both at the lowest level: a fake `neopixel_write` module is registered
before `neopixel` is imported (or the function is swapped if it already was), and `neopixel`'s
`digitalio` is given a pin wrapper that accepts a `SimLedPin`. Everything between (pixel order,
brightness scaling, the buffer) is the driver's own code.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
from enum import Enum

from .ws2812 import LedFrames


class SimLedPin(LedFrames):
    """The data pin of a chain; keeps the frames written to it."""

    def __init__(self, name: str = "D18") -> None:
        super().__init__()
        self.id = name


class _Direction(Enum):
    INPUT = "input"
    OUTPUT = "output"


class _PinIO:
    """What `neopixel.NeoPixel` wraps its pin in: direction and deinit, nothing else."""

    def __init__(self, pin: SimLedPin) -> None:
        self.pin = pin
        self.direction = _Direction.INPUT

    def deinit(self) -> None:
        pass


def _neopixel_write(pin_io: _PinIO, buffer: bytearray) -> None:
    pin_io.pin.receive(bytes(buffer))


def install() -> None:
    """Makes `import neopixel` work here and its writes land on SimLedPins. Idempotent."""
    if "neopixel" not in sys.modules:
        fake = types.ModuleType("neopixel_write")
        fake.neopixel_write = _neopixel_write  # type: ignore[attr-defined]
        sys.modules["neopixel_write"] = fake
    # Blinka prints an "x86 is not fully supported" line on stdout when its board module is
    # imported off a Pi: expected here, and it would corrupt the JSON the simulator prints.
    with contextlib.redirect_stdout(io.StringIO()):
        import neopixel

    neopixel.neopixel_write = _neopixel_write
    neopixel.digitalio = types.SimpleNamespace(DigitalInOut=_PinIO, Direction=_Direction)
