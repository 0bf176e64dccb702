"""The LED chain's data line read back: what the WS2812s receive, and the colours they show.

`colours` turns the bytes a chain received into a colour per LED; `LedWire` is what the simulator
reads them from (`SimLedPin`, sim/neopixel_wire.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from magboard.hardware.interface import RGB


class LedWire(Protocol):
    """The chain's data line as the simulator sees it, whatever drives it."""

    frames: list[bytes]
    """Each frame the chain received, as the bytes it received (pixel order, brightness
    applied), oldest first; callers may trim it in place."""
    listeners: list[Callable[[bytes], None]]
    """Called with each frame's bytes as it arrives."""

    @property
    def last(self) -> bytes: ...


def colours(data: bytes, order: str) -> list[RGB]:
    """Colours per LED from the bytes the chain received, undoing the pixel order (brightness
    stays: these are the levels the LEDs really show; a W channel is left out)."""
    width = len(order)
    if len(data) % width:
        raise ValueError(f"{len(data)} bytes is not a whole number of {order} pixels")
    red, green, blue = (data[order.index(c) :: width] for c in "RGB")
    return list(zip(red, green, blue, strict=True))
