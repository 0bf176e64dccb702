"""LedWriter: sends frames to the LED chain only when they change, and no faster than a frame
rate.

Sending a frame holds the data line for milliseconds (about 5.6 ms for 185 LEDs), time the scan
loop would rather spend reading sensors, and the eye gains nothing from more than about 30
frames a second or from a frame identical to the last. So the caller offers a view after every
stable scan and whenever `next_deadline` comes; the writer decides whether anything goes out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from magboard.hardware.interface import RGB
from magboard.hardware.spec import BoardSpec

from .animation import next_change
from .palette import DEFAULT, Palette
from .power import cap_current
from .render import render
from .view import View

FRAME_INTERVAL = 1 / 30
"""Shortest time between two writes."""


class LevelError(ValueError):
    """A light level outside (0, 1]: a board that went dark would referee without a word."""


class Display(Protocol):
    """Anything that shows a frame: a Board, or the LED chain alone."""

    def show(self, pixels: Sequence[RGB]) -> None: ...


class LedWriter:
    """Renders views, caps their current, and writes what changed to one display."""

    def __init__(
        self,
        board: Display,
        spec: BoardSpec,
        palette: Palette = DEFAULT,
        min_interval: float = FRAME_INTERVAL,
    ) -> None:
        self.board = board
        self.spec = spec
        self.palette = palette
        self.min_interval = min_interval
        self._written: list[RGB] | None = None
        self._written_at: float | None = None
        self._held_back = False
        self._change: float | None = None
        self._level = 1.0

    @property
    def level(self) -> float:
        """The operator's dimming, over the board's own cap (a cafe by day, a dim room at night):
        every frame is scaled by it before the power cap, so colours keep their relations."""
        return self._level

    def set_level(self, level: float) -> None:
        """Sets the dimming; the next `update` writes the frame at the new level."""
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level <= 1:
            raise LevelError(f"a light level is above 0 and at most 1, not {level!r}")
        self._level = float(level)

    def update(self, view: View, now: float) -> list[RGB] | None:
        """Writes the frame of `view` at `now` if it differs from the last one written and the
        rate allows; returns it, or None when nothing was written."""
        frame = render(view, self.spec, now, self.palette)
        if self._level < 1:
            level = self._level
            frame = [(round(r * level), round(g * level), round(b * level)) for r, g, b in frame]
        frame = cap_current(frame, self.spec)
        self._change = next_change(view, now, self.palette)
        if frame == self._written:
            self._held_back = False
            return None
        if self._written_at is not None and now < self._written_at + self.min_interval:
            self._held_back = True
            return None
        self.board.show(frame)
        self._written = frame
        self._written_at = now
        self._held_back = False
        return frame

    def forget(self) -> None:
        """The chain shows something this writer did not send (a self-test's lights): the
        next frame goes out whatever it is."""
        self._written = None
        self._written_at = None

    def next_deadline(self) -> float | None:
        """When to call `update` again with the current view: a frame held back by the rate
        limit, or the next step of an animation (never sooner than the rate allows). None when
        the board shows what it should until the view changes."""
        earliest = self._written_at + self.min_interval if self._written_at is not None else None
        if self._held_back:
            return earliest
        if self._change is None:
            return None
        return self._change if earliest is None else max(self._change, earliest)
