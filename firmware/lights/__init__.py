"""Lights: what the referee wants shown (a `View`) turned into LED frames in one visual language.

Every meaning has a colour and a rhythm of its own (`Meaning`, `Palette.pattern`), so a player
who cannot tell the colours apart reads the rhythm. `render` draws a view at a moment;
`cap_current` keeps a frame within the board's power budget; `LedWriter` writes frames to the
board only when they change and no faster than a frame rate, and says when an animation next
needs a frame. Hardware is seen only through the BoardSpec and anything with `show(pixels)`.
"""

from .animation import animating, next_change
from .palette import DEFAULT, PRECEDENCE, Meaning, Palette, Pattern
from .power import cap_current, current_ma
from .render import render
from .rhythm import Rhythms
from .view import View
from .writer import FRAME_INTERVAL, Display, LedWriter, LevelError

__all__ = [
    "DEFAULT",
    "FRAME_INTERVAL",
    "PRECEDENCE",
    "Display",
    "LedWriter",
    "LevelError",
    "Meaning",
    "Palette",
    "Pattern",
    "Rhythms",
    "View",
    "animating",
    "cap_current",
    "current_ma",
    "next_change",
    "render",
]
