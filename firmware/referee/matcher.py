"""Judging by difference: which readings of the turn explain a stable frame.

Nothing is built when a turn starts. When the board settles, the cells that changed since the
turn began (in any frame the board passed through, not only the last) pick the candidate
actions: an action that changes a cell the board never saw change cannot have been made. Only
those are applied and rendered, action by action, so the cost follows what the hands did, not
how many continuations the turn has (Lance Assembly's have tens of thousands).

A reply made before the board settled is the same search carried across the turn boundary. A
turn that ends the game is not carried across: what came after it is only something to clear.
A turn that leaves an obligation is not either (the obligation comes before any reply), but
the frame may show its pieces carried off already, in part or whole: that still shows the turn.
Every search is bounded in nodes and in time; past the bound the board asks for the position
to be put back rather than freeze.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

from magboard.firmware.games import PASS, Action, Cell, State
from magboard.firmware.profiles import Profile

from .carrying import carrying, seen_done

MAX_NODES = 4000
"""Positions one search may expand: far above what a turn's changed cells allow in any game
here, so only a board far from every legal reading meets it."""
MAX_SECONDS = 0.25
"""Computing time one search may take before the board gives up and asks for a put-back: a
safety net far above what any reading here takes (a few milliseconds on this machine, ten
times that on a Pi), short enough that the board never seems to freeze. Counted in the
process's own CPU time (`time.process_time`), and with the garbage collector paused for the
search (which its node bound keeps small), so neither a machine busy with other work nor a
collection of a large heap turns a search the board can make into a put-back."""
CLOCK_EVERY = 16
"""Positions expanded between two looks at the clock: reading the process's CPU time is a
system call, on a virtual machine several microseconds, and at every position it cost a
search more than the positions themselves; sixteen positions take a few milliseconds at most,
far inside MAX_SECONDS."""


class SearchLimitError(RuntimeError):
    """The board changed in too many places to be read within the bounds."""


@dataclass(frozen=True)
class Reading:
    """One way the hands may have got from the turn's start to the frame."""

    state: State
    actions: tuple[Action, ...]
    """The actions of its own turn, from that turn's start."""
    complete: bool
    """Its turn is over (or the game is)."""
    start: State
    """Where its own turn began."""
    previous: Reading | None = None
    """For a reply made before the board settled: the first turn (this one is the reply)."""

    @property
    def turns(self) -> tuple[Reading, ...]:
        return (self,) if self.previous is None else (*self.previous.turns, self)


@dataclass(frozen=True)
class Found:
    exact: tuple[Reading, ...]
    """Readings whose position shows the frame exactly."""
    endings: tuple[Reading, ...]
    """Complete first turns that end the game, whatever else the frame shows."""


def forced_passes(state: State) -> State:
    """A player with no legal placement passes at once (Tic-Tac-Cap): nothing to see."""
    while state.must_pass:
        state = state.apply(PASS)
    return state


class Matcher:
    def __init__(
        self,
        profile: Profile,
        *,
        max_nodes: int = MAX_NODES,
        max_seconds: float = MAX_SECONDS,
        timer: Callable[[], float] = time.process_time,
    ) -> None:
        self.profile = profile
        self.max_nodes = max_nodes
        self.max_seconds = max_seconds
        self.timer = timer

    def game_cells(self, spots: Collection[Cell | str]) -> frozenset[Cell]:
        """The game cells under the board cells among `spots` (supplies left out)."""
        to_game = self.profile.to_game
        cells = (to_game(s) for s in spots if not isinstance(s, str))
        return frozenset(c for c in cells if c is not None)

    def any_reply(self, reading: Reading) -> frozenset[Cell]:
        """For `search`'s `across`, where no frames are at hand: any complete turn may be
        followed by a reply anywhere in the game's area."""
        return self.profile.area

    def search(
        self,
        start: State,
        frame: int,
        changed: frozenset[Cell],
        *,
        across: Callable[[Reading], frozenset[Cell | str] | None] | None = None,
        passed: Collection[int] = (),
    ) -> Found:
        """Readings from `start` (a turn's start) to the canonical `frame`, using only actions
        that touch the game cells in `changed`; with `across`, also a complete turn followed
        by a reply: `across` says, for a complete turn, the board places its reply may touch
        (those that changed after the frames showed the turn done), or None where the frames
        never showed it, and then no reply is sought. Keeping to what the frames show keeps the
        search small. A position from which the profile says the frame cannot be reached is
        left unexplored; with `across`, a first turn may also be heading for one of the frames
        `passed` through (where its reply began), and without them it is not pruned."""
        collecting = gc.isenabled()
        gc.disable()  # a collection of the whole heap mid-search is no part of its cost
        try:
            return self._search(start, frame, changed, across, passed)
        finally:
            if collecting:
                gc.enable()

    def _search(
        self,
        start: State,
        frame: int,
        changed: frozenset[Cell],
        across: Callable[[Reading], frozenset[Cell | str] | None] | None,
        passed: Collection[int],
    ) -> Found:
        render, may_become_any = self.profile.render, self.profile.may_become_any
        # Frozen once for the whole search: a profile may look its targets up by the set of
        # frames asked about, and a frozen set's hash is worked out only once.
        alone = frozenset((frame,))
        heading = alone
        if across is not None:
            heading = frozenset((frame, *passed)) if passed else frozenset()
        deadline = self.timer() + self.max_seconds
        exact: list[Reading] = []
        endings: list[Reading] = []
        origin = Reading(start, (), False, start)
        pending: list[tuple[Reading, frozenset[Cell]]] = [(origin, changed)]
        expanded = {start}
        nodes = 0
        while pending:
            node, cells = pending.pop()
            nodes += 1
            if nodes > self.max_nodes or (nodes % CLOCK_EVERY == 0 and self.timer() > deadline):
                raise SearchLimitError(
                    f"more than {self.max_nodes} positions or {self.max_seconds * 1000:g} ms"
                )
            # Hoisted out of the loop over actions: a search makes up thousands of positions.
            state, turn, previous = node.state, node.start.turn, node.previous
            goals = heading if previous is None else alone
            for action in state.actions_within(cells):
                after = state.successor(action)
                over = after.outcome() is not None
                done = over or after.turn != turn
                if not done:
                    # Not drawn where the profile rules out every goal, the frame among them:
                    # stopping there is one way on, so the position cannot show the frame.
                    if after in expanded:
                        if render(after) == frame:
                            exact.append(self._reading(node, action, after, done))
                    elif not goals or may_become_any(after, goals):
                        expanded.add(after)
                        reading = self._reading(node, action, after, done)
                        pending.append((reading, cells))
                        if render(after) == frame:
                            exact.append(reading)
                    continue
                reading = self._reading(node, action, after, done)
                if render(after) == frame or (
                    after.obligations and self._carrying(after, frame, passed)
                ):
                    exact.append(reading)
                if previous is not None:
                    continue
                if over:
                    endings.append(reading)
                elif across is not None and not after.obligations:
                    following = forced_passes(after)
                    if following.outcome() is not None or following in expanded:
                        continue  # asked first: `across` reads the frames, which costs more
                    reply = across(reading)
                    if reply:
                        expanded.add(following)
                        second = Reading(following, (), False, following, reading)
                        pending.append((second, self.game_cells(reply) & changed))
        return Found(tuple(exact), tuple(endings))

    def _carrying(self, after: State, frame: int, passed: Collection[int]) -> bool:
        """Whether `frame` shows the turn ended in `after` with some of the obligation it made
        carried out already, by another hand before the board settled: the frames `passed`
        showed the turn done first, and each piece since gone from its cell is in its place or
        in a hand, nothing else changed."""
        carried = carrying(self.profile, after, frame)
        if not carried.gone or not seen_done(self.profile, after, passed):
            return False
        if frame == carried.frame:
            return True
        held = carried.in_hands(self.profile, frame)
        return held is not None and held <= {step.target for step in carried.gone}

    @staticmethod
    def _reading(node: Reading, action: Action, after: State, done: bool) -> Reading:
        """`node` taken on by `action`: made only for the positions a search keeps, as most of
        those it makes up are neither shown nor explored further."""
        return Reading(after, (*node.actions, action), done, node.start, node.previous)
