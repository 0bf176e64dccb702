"""The visual language as data: one colour per seat, and the levels and rhythms every game shares.

A player learns the board once: dim and steady is "you may go here", soft is "this just moved",
a fast red blink is "that was a mistake", a slow blink is "put this right", a light running along
a line is "game over". Games never choose colours; the referee says what to show (a `View`) and
this palette says how it looks.
"""

from __future__ import annotations

from dataclasses import dataclass

from magboard.hardware.interface import RGB

OFF: RGB = (0, 0, 0)
RED: RGB = (255, 0, 0)
WHITE: RGB = (255, 255, 255)
BLUE: RGB = (0, 90, 255)
ORANGE: RGB = (255, 110, 0)
GREEN: RGB = (0, 210, 60)
MAGENTA: RGB = (230, 0, 200)

PRECEDENCE = (
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
    another; red is kept for mistakes and white for what the rules require done by hand. Dim
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
    draw_levels: tuple[float, float] = (0.05, 0.5)
    """Lowest and highest level of the seat LEDs' pulse after a draw."""

    fast_blink_hz: float = 4.0
    slow_blink_hz: float = 1.0
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


DEFAULT = Palette()


def dimmed(colour: RGB, level: float) -> RGB:
    """`colour` at `level` of its full value, rounded to the nearest step."""
    r, g, b = colour
    return (int(r * level + 0.5), int(g * level + 0.5), int(b * level + 0.5))
