"""Time in the lights: which phase of each blink or run a view is in at `now`, and when it next
changes.

Every animation is a sequence of steady steps counted from when its meaning began
(`View.began`: the event that started that meaning, not whatever changed last), so the frame
between two step boundaries never changes. That lets a writer sleep until the next boundary
instead of redrawing at the full frame rate, and makes every phase a plain function of `now`.
"""

from __future__ import annotations

import math

from .palette import DEFAULT, Meaning, Palette, Pattern
from .view import View

_EPSILON = 1e-9
"""Tolerance in steps: a boundary computed as since + k * step counts as reached at itself."""


def steps(since: float, now: float, step: float) -> int:
    """Whole steps of `step` seconds from `since` to `now` (0 before `since`)."""
    elapsed = max(0.0, now - since)
    return math.floor(elapsed / step + _EPSILON)


def _next_boundary(since: float, now: float, step: float) -> float:
    return since + (steps(since, now, step) + 1) * step


def _fast_half(palette: Palette) -> float:
    return 0.5 / palette.fast_blink_hz


def _pulse_step(palette: Palette) -> float:
    return palette.draw_pulse_seconds / palette.draw_pulse_steps


def level(view: View, now: float, meaning: Meaning, palette: Palette = DEFAULT) -> float:
    """The level of `meaning`'s pattern at `now`, counted from when that meaning began."""
    pattern = palette.pattern(meaning)
    if pattern.step is None:
        return pattern.levels[0]
    return pattern.level(steps(view.began(meaning), now, pattern.step))


def pattern_change(view: View, now: float, meaning: Meaning, palette: Palette) -> float | None:
    """The first step boundary after `now` at which `meaning`'s pattern shows another level;
    None for a steady pattern. Exact, so a writer sleeps through steps that repeat a level."""
    pattern: Pattern = palette.pattern(meaning)
    if pattern.step is None:
        return None
    since = view.began(meaning)
    step = steps(since, now, pattern.step)
    ahead = pattern.steps_to_change(step)
    return None if ahead is None else since + (step + ahead) * pattern.step


def error_blinking(view: View, now: float, palette: Palette) -> bool:
    """A mistake blinks only for a moment; after that its places show what must be put right."""
    return bool(view.error) and steps(view.began(Meaning.ERROR), now, palette.error_seconds) == 0


def fast_on(view: View, now: float, palette: Palette) -> bool:
    """On in the first half of every fast period, so a mistake lights at once."""
    return steps(view.began(Meaning.ERROR), now, _fast_half(palette)) % 2 == 0


CLOCK_MEANINGS = {
    "reserve": Meaning.CLOCK_RESERVE,
    "last-seconds": Meaning.CLOCK_LAST_SECONDS,
}


def clock_meaning(view: View) -> Meaning:
    """The mover's seat LED: steady on the turn's own time, a slow blink on the reserve, a fast
    one in the last seconds."""
    return CLOCK_MEANINGS.get(view.clock or "", Meaning.CLOCK_TURN)


def blinking(view: View) -> tuple[Meaning, ...]:
    """The blinking meanings `view` shows beyond the error's own moment."""
    found = []
    if view.remove:
        found.append(Meaning.REMOVE)
    if view.put_back:
        found.append(Meaning.PUT_BACK)
    if view.obligation:
        found.append(Meaning.OBLIGATION)
    if view.to_move is not None and view.winner is None and not view.draw:
        found.append(clock_meaning(view))
    if view.flagged is not None and view.winner is None and not view.draw:
        found.append(Meaning.FLAGGED)
    return tuple(found)


def flag_flashing(view: View, now: float, palette: Palette) -> bool:
    """A fallen flag flashes only for a while, as a win runs: then its seat LED holds still."""
    return view.flagged is not None and _within(view, Meaning.FLAGGED, now, palette)


def _blinking_now(view: View, now: float, palette: Palette) -> tuple[Meaning, ...]:
    found = list(blinking(view))
    if Meaning.FLAGGED in found and not flag_flashing(view, now, palette):
        found.remove(Meaning.FLAGGED)
    return tuple(found)


def _within(view: View, meaning: Meaning, now: float, palette: Palette) -> bool:
    """Still in the while (`celebration_seconds`) that `meaning` is animated for."""
    return now < view.began(meaning) + palette.celebration_seconds


def _ending(view: View) -> Meaning:
    """The meaning that shows the game's end: the winning line, or the draw's breath."""
    return Meaning.DRAW if view.draw else Meaning.WIN_LINE


def celebrating(view: View, now: float, palette: Palette) -> bool:
    """The end of a game is animated only for a while: a board left standing goes still."""
    return _within(view, _ending(view), now, palette)


def win_head(view: View, now: float, palette: Palette) -> int | None:
    """Position along the winning line of the light that runs along it, from its first cell;
    None once the celebration is over (the line then stays lit, without the running light)."""
    if not celebrating(view, now, palette):
        return None
    return steps(view.began(Meaning.WIN_LINE), now, palette.win_step_seconds) % len(view.win)


def draw_level(view: View, now: float, palette: Palette) -> float:
    """Level of the seat LEDs' pulse after a draw: starts low, rises and falls like a breath,
    and rests at its highest once the celebration is over."""
    low, high = palette.draw_levels
    if not celebrating(view, now, palette):
        return high
    phase = steps(view.began(Meaning.DRAW), now, _pulse_step(palette)) % palette.draw_pulse_steps
    rise = (1 - math.cos(2 * math.pi * phase / palette.draw_pulse_steps)) / 2
    return low + (high - low) * rise


def attract_levels(view: View, now: float, palette: Palette) -> list[tuple[int, float]]:
    """Each attract place's (seat colour, level) at `now`: a slow breath that travels along
    the places, changing colour at each place's darkest moment."""
    elapsed = max(0.0, now - view.attract_since)
    step = math.floor(elapsed / palette.attract_step_seconds + _EPSILON)
    wave = palette.attract_wave_steps
    low, high = palette.attract_levels
    found = []
    for i in range(len(view.attract)):
        phase = step - i * palette.attract_lag_steps
        rise = (1 - math.cos(2 * math.pi * (phase % wave) / wave)) / 2
        found.append(((phase // wave) % view.players, low + (high - low) * rise))
    return found


def next_change(view: View, now: float, palette: Palette = DEFAULT) -> float | None:
    """The first time after `now` at which the frame of `view` may differ from the one at `now`;
    None when it stays as it is."""
    times = []
    if error_blinking(view, now, palette):
        began = view.began(Meaning.ERROR)
        times.append(_next_boundary(began, now, _fast_half(palette)))
        times.append(began + palette.error_seconds)
    for meaning in _blinking_now(view, now, palette):
        change = pattern_change(view, now, meaning, palette)
        if change is not None:
            times.append(change)
    if (len(view.win) > 1 or view.draw) and celebrating(view, now, palette):
        step = palette.win_step_seconds if len(view.win) > 1 else _pulse_step(palette)
        began = view.began(_ending(view))
        times.append(min(_next_boundary(began, now, step), began + palette.celebration_seconds))
    if view.attract:
        step = palette.attract_step_seconds
        elapsed = max(0.0, now - view.attract_since)
        times.append(view.attract_since + (math.floor(elapsed / step + _EPSILON) + 1) * step)
    return min(times, default=None)


def animating(view: View, now: float, palette: Palette = DEFAULT) -> bool:
    """Whether the frame of `view` will still change after `now` without a new view."""
    return next_change(view, now, palette) is not None
