"""The board playing a seat in a running game: when that seat's decision is due, the opponent
chooses and the referee is handed the turn as a remote board's turn is handed to it, so the
lights show it and people make it by hand (the board never moves a piece itself).

The engine is loaded only when the board plays someone: a board refereeing people never needs it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from magboard.firmware.referee import Referee

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat


@dataclass(frozen=True)
class Thinking:
    """How the board thinks: the clock its search runs by (real seconds on a board; a stepped
    one where a run must be reproducible), the seconds per turn, and the search's seed."""

    clock: Callable[[], float] = time.perf_counter
    budget: float | None = None
    """Seconds per turn; None: the opponent's default."""
    seed: int | None = None


def stepped_clock(step: float = 0.001) -> Callable[[], float]:
    """A thinking clock that moves on `step` seconds each time it is read: a search by it is
    the same on any machine, and never waits."""
    ticks = itertools.count()
    return lambda: next(ticks) * step


class BoardPlayer:
    """The seat the board plays, and the opponent that chooses its turns."""

    def __init__(self, seat: AiSeat, thinking: Thinking) -> None:
        from magboard.firmware.engine.opponent import DEFAULT_BUDGET, Opponent

        self.seat = seat
        self.thinking = thinking
        budget = DEFAULT_BUDGET if thinking.budget is None else thinking.budget
        self.opponent = Opponent(
            seat.level, clock=thinking.clock, budget=budget, seed=thinking.seed
        )

    @property
    def label(self) -> str:
        return f"{self.seat.seat + 1}:{self.seat.level.value}"

    def fits(self, referee: Referee) -> bool:
        """Whether the game on `referee` has this seat."""
        return self.seat.seat < referee.initial.players

    def join(self, referee: Referee, now: float | None = None, raw: int | None = None) -> None:
        """Tells the referee which seat the board plays (see `Referee.board_plays`)."""
        referee.board_plays((self.seat.seat,), now, raw)

    def play(self, referee: Referee, now: float, raw: int) -> bool:
        """Plays the board's turn if it is due now; True if it played."""
        if referee.board_to_play != self.seat.seat:
            return False
        actions = self.opponent.choose(referee.position)
        referee.board_move([str(action) for action in actions], now, raw)
        return True
