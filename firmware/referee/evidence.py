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

And where readings remain that the frames do not refuse, the board prefers the one that explains
more of the sensor changes it saw (a tile placed on d3 and slid to d1 tripped d3's sensor on the
way, a tile placed straight on d1 did not), then the one that claims fewer changes it never saw.
"""

from __future__ import annotations

from collections.abc import Sequence

from magboard.firmware.profiles import Profile, Step

from .matcher import Reading


def witness(profile: Profile, trail: Sequence[int], reading: Reading) -> int | None:
    """The first frame of `trail` (whose first frame shows the turn's start) that shows
    `reading`'s position with nothing added, and only pieces in hands missing elsewhere; None
    if no frame does."""
    shown = profile.render(reading.state)
    if all(frame & ~shown for frame in trail):
        # Every frame adds a piece the position lacks: the usual answer where the search asks
        # of every turn it completes (is a reply to it to be sought?), found before the places
        # that changed are worked out.
        return None
    changed = profile.sensors.cover((trail[0] ^ shown) & profile.sensors.cells_mask)
    for index, frame in enumerate(trail):
        if not (frame ^ shown) & changed and not frame & ~shown:
            return index
    return None


def reply_cells(profile: Profile, trail: Sequence[int], reading: Reading) -> frozenset | None:
    """Where a reply to the complete turn `reading` may have acted: the cells that differ
    from its position in any frame from the first that shows it; None if no frame shows it."""
    index = witness(profile, trail, reading)
    if index is None:
        return None
    shown, changed = profile.render(reading.state), 0
    for frame in trail[index:]:
        changed |= frame ^ shown
    return profile.sensors.spots(changed)


def in_order(
    profile: Profile, trail: Sequence[int], reading: Reading, accepted: int | None = None
) -> bool:
    """Whether no piece of `reading` landed for good before it was taken from its place, and
    pieces from boxes no sensor sees landed for good in the order the frames show."""
    return _taken_before_landing(profile, trail, reading) and _boxes_in_order(
        profile, trail, reading, accepted
    )


def _boxes_in_order(
    profile: Profile, trail: Sequence[int], reading: Reading, accepted: int | None
) -> bool:
    """Pieces from unsensed boxes (Magnetmen's tokens, Lance Assembly's tiles) leave no trace
    where they come from, so when each landed for good is all the order there is: a reading
    that puts one down after another that the frames show landing later is refused (two
    tokens put down 0.1 s apart by two players are not one player's two collections the other
    way round). Readings with a slide are left alone: a slid piece passes over cells. Pieces
    the part of the turn already accepted put down (the frame `accepted`) have their order
    already: a knock that lifted one and put it back does not make it land again."""
    landings: list[int] = []
    sensors = profile.sensors
    for turn in reading.turns:
        state = turn.start
        for action in turn.actions:
            after = state.successor(action)
            for step in profile.plan(state, action):
                if not isinstance(step, Step) or step.slide:
                    return True
                if isinstance(step.target, str) or not isinstance(step.source, str):
                    continue
                if profile.supply(step.source).sensed:
                    continue
                mask = sensors.spot_mask(step.target)
                shown = profile.render(after) & mask
                if accepted is not None and accepted & mask == shown:
                    continue
                landed = _landed_for_good(trail, mask, shown)
                if landed is not None:
                    landings.append(landed)
            state = after
    return landings == sorted(landings)


def _landed_for_good(trail: Sequence[int], mask: int, shown: int) -> int | None:
    """The first frame from which the place `mask` shows `shown` to the end of the trail; None
    if the last frame does not show it, or the first already did (nothing landed)."""
    if not trail or trail[-1] & mask != shown:
        return None
    index = len(trail) - 1
    while index > 0 and trail[index - 1] & mask == shown:
        index -= 1
    return index or None


def _taken_before_landing(profile: Profile, trail: Sequence[int], reading: Reading) -> bool:
    sensors = profile.sensors
    for turn in reading.turns:
        state = turn.start
        for action in turn.actions:
            after = state.successor(action)
            shown = profile.render(after)
            for step in profile.plan(state, action):
                if not isinstance(step, Step) or step.slide or isinstance(step.target, str):
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


def path_bits(profile: Profile, reading: Reading) -> int:
    """Every sensor bit the positions along `reading` change from where its first turn began."""
    anchor = profile.render(reading.turns[0].start)
    bits = 0
    for turn in reading.turns:
        state = turn.start
        for action in turn.actions:
            state = state.successor(action)
            bits |= profile.render(state) ^ anchor
    return bits


def best_explained(
    profile: Profile, readings: Sequence[Reading], seen: int, trail: Sequence[int] = ()
) -> list[Reading]:
    """One reading per final position, each the way to it that explains the most of the sensor
    bits `seen` change, then claims the fewest changes the board never saw, then passes through
    the most positions the board showed (`trail`, the frames passed through); of those, the
    positions whose best way scores highest (all of them where they tie). A tile placed on d1
    and slid to d6 explains d1's sensor, a neutral tile put on d1 and slid away does not,
    though both end the same; a grid tile shifted then turned passes through the shifted tile,
    turned then shifted through the turned one; two Magnetmen Pilots collected one after the
    other end with the same tokens down either way, but with a different square owed next, and
    the frames say which came first."""
    if len(readings) < 2:
        return list(readings)
    shown = set(trail)
    best: dict[object, tuple[tuple[int, int, int], Reading]] = {}
    for reading in readings:
        bits = path_bits(profile, reading)
        witnessed = positions_witnessed(profile, reading, shown) if shown else 0
        score = ((bits & seen).bit_count(), -(bits & ~seen).bit_count(), witnessed)
        key = reading.state.key()
        if key not in best or score > best[key][0]:
            best[key] = (score, reading)
    top = max(score for score, _ in best.values())
    return [reading for score, reading in best.values() if score == top]


def positions_witnessed(profile: Profile, reading: Reading, shown: set[int]) -> int:
    """How many of the positions `reading` passes through the board showed."""
    count = 0
    for turn in reading.turns:
        state = turn.start
        for action in turn.actions[:-1]:
            state = state.successor(action)
            count += profile.render(state) in shown
    return count
