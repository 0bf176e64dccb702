"""What the frames passed through say about a reading: the board saw every step happen in an
order the reading allows.

A final frame can fit several stories. On a board whose cells cannot tell one player's mark
from the other's, a piece knocked onto the next square and the opponent's piece put where it
stood look, at the end, exactly like the opponent playing on the next square; two replies made
in the wrong order end on the same board as two made in turn. The debounced frames since the
turn began tell these apart. Two checks, both only ever refusing a reading:

- a hand puts down only what it took: a place that gains a lifted piece must not already show
  it, for good, before the place the piece comes from lets it go (slides are exempt: a slid
  magnet may trip the next square before it leaves its own);
- turns happen one after the other: before a reply counts, the board must have shown the first
  turn complete (with, at most, pieces already lifted for the reply).
"""

from __future__ import annotations

from collections.abc import Sequence

from magboard.firmware.profiles import Profile

from .matcher import Reading


def witnessed(profile: Profile, trail: Sequence[int], anchor: int, reading: Reading) -> bool:
    """Whether some frame of `trail` shows `reading`'s position, from the turn anchored at the
    `anchor` frame, with nothing added and only pieces in hands missing elsewhere."""
    shown = profile.render(reading.state)
    cells = profile.sensors.cells_mask
    changed = 0
    for spot in profile.sensors.spots((anchor ^ shown) & cells):
        changed |= profile.sensors.spot_mask(spot)
    return any(not (f ^ shown) & changed and not f & ~shown for f in trail)


def in_order(profile: Profile, trail: Sequence[int], reading: Reading) -> bool:
    """Whether no piece of `reading` landed for good before it was taken from its place."""
    sensors = profile.sensors
    for turn in reading.turns:
        state = turn.start
        for action in turn.actions:
            after = state.apply(action)
            shown = profile.render(after)
            for step in profile.plan(state, action):
                if step.slide or isinstance(step.target, str):
                    continue
                if isinstance(step.source, str) and not profile.supply(step.source).sensed:
                    continue
                source = sensors.spot_mask(step.source)
                target = sensors.spot_mask(step.target)
                if _landed_first(trail, source, target, shown & target):
                    return False
            state = after
    return True


def _landed_first(trail: Sequence[int], source: int, target: int, landed: int) -> bool:
    """The target shows `landed` from before the source first changed to the end of the trail:
    the piece there cannot be the one taken from the source."""
    if not trail:
        return False
    left = next((i for i in range(1, len(trail)) if (trail[i] ^ trail[0]) & source), None)
    if left is None:
        return True
    return all(f & target == landed for f in trail[left - 1 :])
