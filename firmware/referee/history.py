"""The turns of a game so far: what a journal replays and what a takeback restores."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from magboard.firmware.games import Action, State


@dataclass(frozen=True)
class Turn:
    start: State
    player: int
    actions: tuple[Action, ...]


def notation(actions: Sequence[Action]) -> tuple[str, ...]:
    return tuple(str(a) for a in actions)


class History(list[Turn]):
    """Completed turns, oldest first."""

    def played(self) -> list[str]:
        return [str(a) for turn in self for a in turn.actions]

    def takeback_depth(self, frame: int, current: State, render: Callable[[State], int]) -> int:
        """How many turns back `frame` shows: the last move, plus any turns after it that show
        nothing on the board (forced passes, obligations carried out); 0 if it is not that."""
        now = render(current)
        for depth, turn in enumerate(reversed(self), start=1):
            shown = render(turn.start)
            if shown != now:
                return depth if shown == frame else 0
        return 0
