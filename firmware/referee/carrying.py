"""How far hands have carried out a position's obligations, read from one frame.

The rules settle an obligation all at once (`CARRY_OUT`), but hands carry its pieces off one at
a time, in any order: some at once, inside the settle window of the turn that made them, some
later. The profile's plan for carrying out says where each piece goes (one `Step` a piece, from
the cell it stands on to its place). A frame shows each piece still where it stood, or gone from
there: in its place, or still in a hand. Which pieces are gone is read from their cells alone;
whether the rest of the board agrees is then one comparison with the frame that shows those
pieces in their places, so a piece put anywhere else is seen as a mistake.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from magboard.firmware.games import CARRY_OUT, State
from magboard.firmware.profiles import Layout, Profile, Spot, Step


@dataclass(frozen=True)
class Carrying:
    """An obligation with some of its pieces (perhaps none, perhaps all) gone from their cells."""

    frame: int
    """The canonical frame with the pieces gone from their cells in their places."""
    gone: tuple[Step, ...]
    """The steps whose pieces have left their cells."""
    left: tuple[Step, ...]
    """The steps whose pieces still stand where they were (and any from a supply, which count
    only once the whole obligation is done)."""

    def in_hands(self, profile: Profile, frame: int) -> frozenset[Spot] | None:
        """If the canonical `frame` is this with pieces taken away and nothing added (pieces on
        their way, or another piece already lifted), where they were taken from; else None."""
        return profile.sensors.lifted_from(frame, self.frame)


def carrying(profile: Profile, state: State, frame: int) -> Carrying:
    """What the canonical `frame` shows of carrying out `state`'s obligations."""
    steps = tuple(
        step for step in profile.plan(state, CARRY_OUT) if isinstance(step, Step) and not step.slide
    )
    before, sensors = profile.render(state), profile.sensors
    gone = tuple(
        step
        for step in steps
        if not isinstance(step.source, str) and (frame ^ before) & sensors.spot_mask(step.source)
    )
    left = tuple(step for step in steps if step not in gone)
    if not gone:
        return Carrying(before, (), left)
    return Carrying(profile.frame_of(_carried(profile.layout(state), gone)), gone, left)


def seen_done(profile: Profile, state: State, passed: Iterable[int]) -> bool:
    """Whether one of the frames `passed` through shows `state` (a turn just ended) before
    any of its obligation was carried out: exactly, or with pieces only lifted from supplies
    (a hand already holding the next player's piece). Pieces are captured when the turn ends,
    so the board must have seen it end with them still in place."""
    shown, sensors = profile.render(state), profile.sensors
    for frame in passed:
        if frame == shown:
            return True
        lifted = sensors.lifted_from(frame, shown)
        if lifted is not None and all(isinstance(spot, str) for spot in lifted):
            return True
    return False


def step_places(profile: Profile, steps: Iterable[Step]) -> frozenset:
    """The board places the steps move pieces from and to (every slot of a supply)."""
    return profile.places_of(spot for step in steps for spot in (step.source, step.target))


def _carried(layout: Layout, steps: Iterable[Step]) -> Layout:
    """`layout` with the top piece of each step's cell moved to the step's place."""
    cells = dict(layout.cells)
    supplies = dict(layout.supplies)
    for step in steps:
        assert not isinstance(step.source, str)
        stack = cells.get(step.source, ())
        if not stack:
            continue
        piece, cells[step.source] = stack[-1], stack[:-1]
        if isinstance(step.target, str):
            supplies[step.target] = supplies.get(step.target, 0) + 1
        else:
            cells[step.target] = (*cells.get(step.target, ()), piece)
    return Layout(cells, supplies, layout.tiles)
