"""The LED chain through adafruit_neopixel: one buffered frame, one `show()` per frame.

`auto_write=False` because the driver would otherwise send the whole chain on every pixel
assignment (a 185-LED chain is about 5.6 ms on the wire). Brightness is the spec's cap, applied by
the driver as it builds the bytes, exactly as the chain will receive them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .interface import RGB
from .spec import BoardSpec


class LedChain:
    def __init__(self, spec: BoardSpec, pin: Any) -> None:
        import neopixel  # on a Pi this needs the platform's neopixel_write; see sim/ for CI

        self.count = spec.leds.count
        self._pixels = neopixel.NeoPixel(
            pin,
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
        self._pixels.fill((0, 0, 0))
        self._pixels.show()
        self._pixels.deinit()
