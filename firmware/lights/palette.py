"""The visual language as data: one colour per seat, and the levels and rhythms every game shares.

A player learns the board once: dim and steady is "you may go here", soft is "this just moved",
a fast red blink is "that was a mistake", a slow blink "take this off", a double flash "put this
back", a long wink "do what the rules require", a light running along a line "game over". Each
meaning has its own rhythm as well as its colour (`Meaning`, `Palette.pattern`), so a player who
cannot tell red from green reads the rhythm. Games never choose colours; the referee says what
to show (a `View`) and this palette says how it looks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from magboard.hardware.interface import RGB

OFF: RGB = (0, 0, 0)
RED: RGB = (255, 0, 0)
WHITE: RGB = (255, 255, 255)
BLUE: RGB = (0, 90, 255)
ORANGE: RGB = (255, 180, 0)
GREEN: RGB = (0, 200, 140)
MAGENTA: RGB = (230, 0, 200)

PRECEDENCE = (
    "out_of_order",
    "error",
    "remove",
    "put_back",
    "obligation",
    "win",
    "due",
    "targets",
    "last_move",
    "attract",
)
"""Which meaning a place shows when several apply, most urgent first. A layer owns its places in
both phases of a blink (dark in the off phase), so a blink never flickers with a lower meaning."""


@dataclass(frozen=True)
class Palette:
    """Colours, levels (fractions of full) and rhythms (seconds, hertz) of the lights.

    Seat colours are far apart in hue so that even dim, under a piece, nobody mistakes one for
    another; red is kept for mistakes and white for what the rules require done by hand. The
    orange leans to amber and the green to teal so that they stay apart from each other and from
    red for players with red-green colour blindness too (tests/firmware/lights/
    test_lights_colour_vision.py); every meaning also has a rhythm of its own (`pattern`). Dim
    targets and soft last moves stay well below a blink, so a blink is always what catches the eye.
    """

    players: tuple[RGB, ...] = (BLUE, ORANGE, GREEN, MAGENTA)
    """Seat 0, 1, 2, 3."""
    error: RGB = RED
    remove: RGB = RED
    obligation: RGB = WHITE
    alert: RGB = RED

    target_level: float = 0.15
    due_level: float = 0.6
    """What a turn must still move glows well above targets and the last move, without the
    blink that means something is wrong."""
    last_move_level: float = 0.30
    blink_level: float = 1.0
    win_line_level: float = 0.30
    """The winning line under the bright head that runs along it."""
    status_level: float = 0.5
    """Whose turn, and the alert: status LEDs face the players, so they need less light."""
    out_of_order_level: float = 0.4
    """A board out of order: a steady cross in the alert colour, the one steady red, with
    nothing else lit (red that blinks is a mistake; red that holds still is a board not in
    service)."""
    draw_levels: tuple[float, float] = (0.05, 0.5)
    """Lowest and highest level of the seat LEDs' pulse after a draw."""

    fast_blink_hz: float = 4.0
    slow_blink_hz: float = 1.0
    flash_step_seconds: float = 0.125
    """One step of the flash patterns below, each a shape of on (#) and off (.) steps."""
    double_flash: str = "#.#....."
    """Put this piece back (and a fallen flag): two short flashes a second, a rhythm of its own
    beside the even slow blink of "remove" and the long on of an obligation."""
    wink: str = "######.."
    """An obligation: on most of the second, off briefly; white, so bright as well."""
    error_seconds: float = 1.5
    """How long a mistake blinks; then its places show what must be removed or put back."""
    win_step_seconds: float = 0.15
    """Time the running light spends on each cell of the winning line."""
    draw_pulse_seconds: float = 2.0
    draw_pulse_steps: int = 40
    """The pulse moves in steady steps, so the lights always know when they next change."""
    attract_levels: tuple[float, float] = (0.0, 0.12)
    """A board nobody has touched for a while breathes slowly in the seats' colours, a wave
    across the game's area: low enough to stay calm, and below every meaning a game shows."""
    attract_step_seconds: float = 0.2
    attract_wave_steps: int = 30
    """One breath of a square takes this many steps (6 s)."""
    attract_lag_steps: int = 2
    """Each square along the wave breathes this many steps after the one before it."""
    celebration_seconds: float = 30.0
    """How long the win and draw animations run; then they hold still, and a board left
    standing after a game goes idle (no frames, no scans) until someone touches it."""

    def pattern(self, meaning: Meaning) -> Pattern:
        """How `meaning` looks over time, in this palette's levels and rhythms."""
        return _PATTERNS[meaning](self)


class Where(Enum):
    """Which LEDs a meaning appears on: meanings on the same kind of LED can show at once, so
    their patterns must differ; a status LED is told apart by where it sits."""

    SQUARES = "squares"
    SEATS = "seat LEDs"
    ALERT = "alert LED"


class Meaning(Enum):
    """Everything the lights tell, each with a pattern of its own (`Palette.pattern`), so a
    player who cannot tell the colours apart reads the rhythm instead."""

    TARGET = ("target", Where.SQUARES)
    DUE = ("due", Where.SQUARES)
    LAST_MOVE = ("last move", Where.SQUARES)
    ERROR = ("mistake", Where.SQUARES)
    REMOVE = ("remove", Where.SQUARES)
    PUT_BACK = ("put back", Where.SQUARES)
    OBLIGATION = ("obligation", Where.SQUARES)
    WIN_LINE = ("win line", Where.SQUARES)
    ATTRACT = ("attract wave", Where.SQUARES)
    OUT_OF_ORDER = ("out of order", Where.SQUARES)
    CLOCK_TURN = ("clock: turn's time", Where.SEATS)
    CLOCK_RESERVE = ("clock: reserve", Where.SEATS)
    CLOCK_LAST_SECONDS = ("clock: last seconds", Where.SEATS)
    FLAGGED = ("flag fallen", Where.SEATS)
    WINNER = ("winner", Where.SEATS)
    DRAW = ("draw", Where.SEATS)
    ALERT = ("alert", Where.ALERT)

    @property
    def where(self) -> Where:
        return self.value[1]


@dataclass(frozen=True)
class Pattern:
    """A rhythm as data: the level (fraction of full) for each step of `step` seconds, repeated
    from the moment the meaning began. One level is a steady light. A running light's first
    level is its head, which travels along the places; a wave's steps lag place by place."""

    name: str
    step: float | None
    levels: tuple[float, ...]

    @property
    def steady(self) -> bool:
        return len(set(self.levels)) <= 1

    def level(self, step: int) -> float:
        """The level in whole step `step` since the meaning began."""
        return self.levels[step % len(self.levels)]

    def steps_to_change(self, step: int) -> int | None:
        """Whole steps from `step` to the next step whose level differs; None if steady."""
        if self.steady:
            return None
        now = self.level(step)
        ahead = 1
        while self.level(step + ahead) == now:
            ahead += 1
        return ahead

    def signature(self) -> tuple[str, float | None, tuple[float, ...]]:
        """What a player sees of the pattern: its kind, its rhythm and its levels."""
        return (self.name, self.step, self.levels)


def _steady(level: float) -> Pattern:
    return Pattern("steady", None, (level,))


def _blink(name: str, step: float, on: float, shape: str) -> Pattern:
    """A blink from a shape of on (#) and off (.) steps."""
    return Pattern(name, step, tuple(on if mark == "#" else 0.0 for mark in shape))


def _breath(low: float, high: float, count: int) -> tuple[float, ...]:
    return tuple(
        low + (high - low) * (1 - math.cos(2 * math.pi * i / count)) / 2 for i in range(count)
    )


_PATTERNS = {
    Meaning.TARGET: lambda p: _steady(p.target_level),
    Meaning.DUE: lambda p: _steady(p.due_level),
    Meaning.LAST_MOVE: lambda p: _steady(p.last_move_level),
    Meaning.ERROR: lambda p: _blink("fast blink", 0.5 / p.fast_blink_hz, p.blink_level, "#."),
    Meaning.REMOVE: lambda p: _blink("slow blink", 0.5 / p.slow_blink_hz, p.blink_level, "#."),
    Meaning.PUT_BACK: lambda p: _blink(
        "double flash", p.flash_step_seconds, p.blink_level, p.double_flash
    ),
    Meaning.OBLIGATION: lambda p: _blink("wink", p.flash_step_seconds, p.blink_level, p.wink),
    Meaning.WIN_LINE: lambda p: Pattern(
        "running light", p.win_step_seconds, (p.blink_level, p.win_line_level)
    ),
    Meaning.ATTRACT: lambda p: Pattern(
        "wave", p.attract_step_seconds, _breath(*p.attract_levels, p.attract_wave_steps)
    ),
    Meaning.OUT_OF_ORDER: lambda p: _steady(p.out_of_order_level),
    Meaning.CLOCK_TURN: lambda p: _steady(p.status_level),
    Meaning.CLOCK_RESERVE: lambda p: _blink(
        "slow blink", 0.5 / p.slow_blink_hz, p.status_level, "#."
    ),
    Meaning.CLOCK_LAST_SECONDS: lambda p: _blink(
        "fast blink", 0.5 / p.fast_blink_hz, p.status_level, "#."
    ),
    Meaning.FLAGGED: lambda p: _blink(
        "double flash", p.flash_step_seconds, p.status_level, p.double_flash
    ),
    Meaning.WINNER: lambda p: _steady(p.blink_level),
    Meaning.DRAW: lambda p: Pattern(
        "breathing",
        p.draw_pulse_seconds / p.draw_pulse_steps,
        _breath(*p.draw_levels, p.draw_pulse_steps),
    ),
    Meaning.ALERT: lambda p: _steady(p.status_level),
}
"""The patterns table: each meaning's rhythm, drawn from the palette's levels and timings."""


DEFAULT = Palette()


def dimmed(colour: RGB, level: float) -> RGB:
    """`colour` at `level` of its full value, rounded to the nearest step."""
    r, g, b = colour
    return (int(r * level + 0.5), int(g * level + 0.5), int(b * level + 0.5))
