"""Inference: which legal continuation of the current turn the board shows.

Every position the turn can physically reach from its start is rendered once, when the turn
starts, into a table keyed by frame. A stable frame is then one dictionary lookup. A quick player
who does two actions of a turn without a pause is still understood, because every prefix and
every complete turn is in the table; a reply so fast that the board never settled between two
turns is looked up in a second table, built only when the first one misses, and told apart by the
frames the board passed through on the way.
"""

from __future__ import annotations

from dataclasses import dataclass

from magboard.firmware.games import Action, State
from magboard.firmware.profiles import Profile

MAX_CONTINUATIONS = 200_000
"""A bound on one turn's table, far above any game here, so a bug cannot exhaust memory."""


class AmbiguousFrameError(RuntimeError):
    """Two different positions would look the same to the sensors: the board must sense more.
    The per-profile no-ambiguity tests make sure play never meets this."""


@dataclass(frozen=True)
class Continuation:
    state: State
    actions: tuple[Action, ...]
    """The actions from the start of its turn."""
    complete: bool
    """The turn is over (or the game is): the position is final for this turn."""
    previous: Continuation | None = None
    """For a two-turn match, the first turn (this one is the reply)."""


def is_over(start: State, state: State) -> bool:
    return state.turn != start.turn or state.outcome() is not None


class TurnCandidates:
    """The frames of every physical continuation of the turn that starts at `start`."""

    def __init__(self, profile: Profile, start: State) -> None:
        self.profile = profile
        self.start = start
        self.by_frame: dict[int, Continuation] = {}
        self.ambiguous: dict[int, list[Continuation]] = {}
        self._second: dict[int, list[Continuation]] | None = None
        self._build()

    def _build(self) -> None:
        start = self.start
        render = self.profile.render
        first = Continuation(start, (), start.outcome() is not None)
        self.by_frame[render(start)] = first
        if first.complete:
            return
        seen = {start.key()}
        pending = [first]
        while pending:
            current = pending.pop()
            for action in current.state.legal_actions():
                after = current.state.apply(action)
                if render(after) == render(current.state):
                    continue  # not physical (end turn, pass): the buttons and the referee do it
                key = after.key()
                if key in seen:
                    continue
                seen.add(key)
                follow = Continuation(after, (*current.actions, action), is_over(start, after))
                self._add(render(after), follow)
                if not follow.complete:
                    pending.append(follow)
                if len(seen) > MAX_CONTINUATIONS:
                    raise RuntimeError(f"more than {MAX_CONTINUATIONS} continuations of a turn")

    def _add(self, frame: int, follow: Continuation) -> None:
        known = self.by_frame.get(frame)
        if known is None:
            self.by_frame[frame] = follow
        elif known.state.key() != follow.state.key():
            self.ambiguous.setdefault(frame, [known]).append(follow)

    def match(self, frame: int) -> Continuation | None:
        """The continuation the (canonical) frame shows, if any."""
        if frame in self.ambiguous:
            shown = ", ".join(" ".join(map(str, c.actions)) for c in self.ambiguous[frame])
            raise AmbiguousFrameError(f"one frame, several positions: {shown}")
        return self.by_frame.get(frame)

    def match_two_turns(self, frame: int) -> list[Continuation]:
        """This turn and the next one, both complete, for a reply made before the board
        settled: every pair whose end shows `frame`, one per distinct final position. Built on
        first use: most turns never need it."""
        if self._second is None:
            self._second = {}
            for first in list(self.by_frame.values()):
                if not first.complete or first.state.outcome() is not None:
                    continue
                for second in TurnCandidates(self.profile, first.state).by_frame.values():
                    if second.complete:
                        both = Continuation(second.state, second.actions, True, previous=first)
                        self._second.setdefault(self.profile.render(second.state), []).append(both)
        return self._second.get(frame, [])
