"""The order of a turn's actions, as the frames show them made.

The actions of one turn are judged in the order the frames show them (`in_frame_order`): a
reading that tells them in another order is retold in the frames' order, and refused where that
order breaks a rule (a Lance Assembly slide before the turn's placement, a Meeple Maneuver tile
turned before the meeple is placed), though the same actions told the other way round would be
a legal turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from magboard.firmware.games import Action, State
from magboard.firmware.profiles import Profile

from .evidence import positions_witnessed
from .matcher import Reading


@dataclass(frozen=True)
class Misordered:
    """A turn the frames show made in an order the rules refuse: made in that order, it comes
    to `state`, where the rules forbid its next action, `action`."""

    state: State
    action: Action
    rewrites: bool = False
    """The turn so told is not the part of it the board already accepted, extended: the hands
    would have taken that part back and made the turn another way."""


def in_frame_order(
    profile: Profile, trail: Sequence[int], reading: Reading, fixed: int = 0
) -> Reading | Misordered | None:
    """`reading` with each turn's actions in the order the frames show them made: itself where
    they agree; retold where that order is legal and ends the same (two tokens put down, told
    the other way round); `Misordered` where that order breaks a rule; None where it ends
    elsewhere. The first `fixed` actions (the part of the turn already accepted, whose order the
    frames showed then) keep their place: a knock that lifts one of them and puts it back late
    does not make it come after the rest."""
    loose = [len(turn.actions) for turn in reading.turns]
    loose[0] -= fixed
    if max(loose) < 2:
        return reading  # no two actions of a turn whose order is open: the common case, at once
    marks = _marks(profile, reading)
    told: list[tuple[Action, ...]] = []
    offset = 0
    for number, turn in enumerate(reading.turns):
        own = marks[offset : offset + len(turn.actions)]
        offset += len(turn.actions)
        order = _frames_order(trail, own, fixed if number == 0 else 0)
        told.append(tuple(turn.actions[k] for k in order))
    if all(t == turn.actions for t, turn in zip(told, reading.turns, strict=True)):
        return _as_shown(profile, trail, reading, fixed)
    previous: Reading | None = None
    for actions, turn in zip(told, reading.turns, strict=True):
        state = _replayed(turn, actions)
        if not isinstance(state, State):
            return _shown_way(profile, trail, reading) or state
        previous = replace(turn, actions=actions, state=state, previous=previous)
    return previous


def _as_shown(profile: Profile, trail: Sequence[int], reading: Reading, fixed: int) -> Reading:
    """`reading`, or where the board never showed a position it passes through, the same
    turns the way the frames show them made, if they show one that keeps the first `fixed`
    actions: a half turn made clockwise is not told as made anticlockwise."""
    between = sum(len(turn.actions) - 1 for turn in reading.turns)
    if positions_witnessed(profile, reading, set(trail)) == between:
        return reading
    shown = _shown_way(profile, trail, reading)
    if shown is None or shown.turns[0].actions[:fixed] != reading.turns[0].actions[:fixed]:
        return reading
    return shown


def _passed(profile: Profile, reading: Reading) -> set[int]:
    """The frames of the positions `reading` passes through before its end."""
    frames = set()
    for turn in reading.turns:
        state = turn.start
        for action in turn.actions[:-1]:
            state = state.successor(action)
            frames.add(profile.render(state))
    return frames


def _shown_way(profile: Profile, trail: Sequence[int], reading: Reading) -> Reading | None:
    """`reading` told by the way the frames show it made, step by step, where the search told
    it by another way to the same end (a tile turned twice anticlockwise for twice clockwise):
    its marks then say nothing of the order, and the frames do. Each position counts where the
    frames last show it, as an action counts from where it last began: a tile put down, lifted
    and put down again after a slide was put down after the slide. A way that leaves out a
    position the reading passes and the board showed is no better told (a tile knocked off
    c2 onto b2 and back does not make c2 a tile put on b2 and slid)."""
    last = {frame: index for index, frame in enumerate(trail)}
    cells = _changed_cells(profile, trail, reading)
    previous: Reading | None = None
    for turn in reading.turns:
        way = _Way(profile, last, turn, cells)
        actions = _shown_actions(way, turn.start, len(turn.actions))
        if actions is None:
            return None
        previous = replace(turn, actions=actions, previous=previous)
    if previous is None or not (_passed(profile, reading) & last.keys()) <= _passed(
        profile, previous
    ):
        return None  # it leaves out a position the reading passes and the board showed
    return previous


def _changed_cells(profile: Profile, trail: Sequence[int], reading: Reading) -> frozenset:
    """The game cells any frame of `trail`, or any turn's start, shows changed from the first
    frame: a step from one shown position to another changes only those, so only actions
    within them can make one (as the search by difference finds its candidates)."""
    anchor, changed = trail[0], 0
    for frame in trail:
        changed |= frame ^ anchor
    for turn in reading.turns:
        changed |= profile.render(turn.start) ^ anchor
    to_game = profile.to_game
    cells = (to_game(s) for s in profile.sensors.spots(changed) if not isinstance(s, str))
    return frozenset(c for c in cells if c is not None)


@dataclass
class _Way:
    """What a walk by the frames through one turn needs at every step: each frame's last
    place in the trail (`last`), the cells that changed (`cells`), and the positions already
    found to lead nowhere with as many actions left (`dead`), as a tile game's turn reaches
    one position by many ways."""

    profile: Profile
    last: dict[int, int]
    turn: Reading
    cells: frozenset
    dead: set[tuple[State, int]] = field(default_factory=set)

    @cached_property
    def end(self) -> int:
        """Where the frames last show the turn's end: every position on the way is shown
        before it, one frame each at least."""
        return self.last.get(self.profile.render(self.turn.state), -1)


def _shown_actions(way: _Way, state: State, left: int) -> tuple[Action, ...] | None:
    """`left` actions from `state` to the turn's end within the one turn, each to a position
    the frames last show later than the one before. Only actions within the changed cells are
    made (tried in the order of the legal actions): any other changes a place no frame shows
    changed."""
    turn, render, last = way.turn, way.profile.render, way.last
    if left == 0:
        return () if state == turn.state else None
    if (state, left) in way.dead:
        return None
    at = last.get(render(state), -1)
    if way.end - at < left:
        return None  # too few frames shown after this one for the actions left
    steps = []
    for action in state.actions_within(way.cells):
        following = state.successor(action)
        if left > 1 and (following.turn != turn.start.turn or following.outcome() is not None):
            continue
        if last.get(render(following), -1) <= at:
            continue
        steps.append((action, following))
    if len(steps) > 1:  # listing every legal action costs more than the rest: only to order
        rank = {action: number for number, action in enumerate(state.legal_actions())}
        steps.sort(key=lambda step: rank[step[0]])
    for action, following in steps:
        rest = _shown_actions(way, following, left - 1)
        if rest is not None:
            return (action, *rest)
    way.dead.add((state, left))
    return None


@dataclass(frozen=True)
class _Mark:
    """What tells when one action of a reading began: the sensor bits it changes and no other
    action of the reading does (`bits`), as they are before it. Only those a piece leaves, where
    it has any: an action begins when its first piece leaves (a meeple its slot, a tile its
    key's corner), while a place it lands on may show a piece another action brought there
    (the neutral puppy a turned tile carries onto the cell the meeple is placed on)."""

    bits: int
    before: int


def _marks(profile: Profile, reading: Reading) -> list[_Mark]:
    changes: list[tuple[int, int]] = []
    for turn in reading.turns:
        state, shown = turn.start, profile.render(turn.start)
        for action in turn.actions:
            state = state.successor(action)
            after = profile.render(state)
            changes.append((shown ^ after, shown))
            shown = after
    seen = twice = 0
    for changed, _ in changes:
        twice |= seen & changed
        seen |= changed
    marks = []
    for changed, before in changes:
        own = changed & ~twice
        leaving = own & before
        bits = leaving or own
        marks.append(_Mark(bits, before & bits))
    return marks


def _frames_order(trail: Sequence[int], marks: Sequence[_Mark], fixed: int) -> list[int]:
    """The actions' indices in the order the frames show them begun: each from the frame
    after the last that shows none of its own changes (a piece put down, lifted again and put
    back began when it was put back). Begun, not complete: a tile turned before its meeple was
    placed shows the turn of the tile and of the meeples it held, not of the meeple put on it
    later. Actions that leave no mark of their own (a meeple moved onto the tile it then turns
    with), that the frames never show made, or among the first `fixed`, keep their place."""
    began: dict[int, int] = {}
    for index, mark in enumerate(marks):
        if index < fixed or not mark.bits:
            continue
        untouched = _last_untouched(trail, mark)
        if untouched is not None and untouched < len(trail) - 1:
            began[index] = untouched + 1
    order = list(range(len(marks)))
    places = sorted(began)
    for place, index in zip(places, sorted(places, key=lambda i: (began[i], i)), strict=True):
        order[place] = index
    return order


def _last_untouched(trail: Sequence[int], mark: _Mark) -> int | None:
    """The last frame that shows none of `mark`'s changes made."""
    for index in range(len(trail) - 1, -1, -1):
        if trail[index] & mark.bits == mark.before:
            return index
    return None


def _replayed(turn: Reading, actions: Sequence[Action]) -> State | Misordered | None:
    """Where `actions` lead from `turn`'s start, if legal one after the other within the one
    turn and ending where `turn` ends; `Misordered` at the first the rules forbid."""
    state = turn.start
    for number, action in enumerate(actions):
        if number and (state.turn != turn.start.turn or state.outcome() is not None):
            return None
        if not state.is_legal(action):
            return Misordered(state, action)
        state = state.successor(action)
    return state if state == turn.state else None
