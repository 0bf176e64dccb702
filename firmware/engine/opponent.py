"""The board as a player: a whole turn for a seat, chosen within a time budget.

The turn comes back as actions in the rules' own terms, exactly as a remote board's turn would,
so the referee shows it as an obligation (the piece to take and where it goes) and waits for
hands to make it: the board never moves a piece itself, and never accepts a move it did not see.

Levels: `strong` searches the whole budget, or, where the game is solved, plays perfectly: the
fastest win; where there is none, the move that leaves the other player the most ways to go
wrong, then the longest game; `normal` searches a quarter of the budget (or plays a move of the best
value, any of them); `easy` a tenth, and sometimes plays any legal action instead; in a solved
game it looks one move ahead only (a child can beat it: it misses wins and blocks now and then).
A game with a planner of its own (`SearchHooks.planner`: a look-ahead over whole turns) is planned
rather than searched at `normal` and `strong`; `easy` keeps the search.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from magboard.firmware.games import CARRY_OUT, Action, Game, GameError, IllegalActionError, State
from magboard.firmware.games.search import Planner, search_hooks

from .ends import ended
from .mcts import Search, actor, settle
from .solve import Solver, solver_for

DEFAULT_BUDGET = 1.0
"""Seconds of thinking per turn."""


class Level(Enum):
    EASY = "easy"
    NORMAL = "normal"
    STRONG = "strong"


@dataclass(frozen=True)
class Effort:
    """What a level spends: a share of the budget, a cap on playouts (so a fast machine does
    not play a weaker level stronger than meant), and how often it plays any legal action."""

    share: float
    playouts: int
    blunder: float


EFFORT = {
    Level.EASY: Effort(share=0.1, playouts=60, blunder=0.3),
    Level.NORMAL: Effort(share=0.25, playouts=2_000, blunder=0.0),
    Level.STRONG: Effort(share=1.0, playouts=1_000_000, blunder=0.0),
}


class AiSpecError(GameError, ValueError):
    """A seat for the board to play that the game does not have, or a level it does not know."""


@dataclass(frozen=True)
class AiSeat:
    """The seat the board plays, and how well."""

    seat: int
    level: Level = Level.NORMAL


def parse_ai(text: str, game: Game) -> AiSeat:
    """Reads `SEAT[:LEVEL]`: a seat by its name in the game (`O`, `b`) or its number from 1."""
    name, _, level_text = text.strip().partition(":")
    seats = [seat.lower() for seat in game.seats]
    name = name.strip().lower()
    if name in seats:
        seat = seats.index(name)
    elif name.isdigit() and 1 <= int(name) <= len(seats):
        seat = int(name) - 1
    else:
        raise AiSpecError(
            f"{game.title} has no seat {name!r} for the board to play "
            f"(seats: {', '.join(game.seats)}, or 1-{len(seats)})"
        )
    level_text = level_text.strip().lower() or Level.NORMAL.value
    try:
        level = Level(level_text)
    except ValueError:
        known = ", ".join(level.value for level in Level)
        raise AiSpecError(f"no level {level_text!r} (levels: {known})") from None
    return AiSeat(seat, level)


class Opponent:
    """Chooses turns for whichever seat is to move; `clock` is the thinking clock (seconds)."""

    def __init__(
        self,
        level: Level,
        *,
        clock: Callable[[], float],
        budget: float = DEFAULT_BUDGET,
        seed: int | None = None,
    ) -> None:
        if budget <= 0:
            raise AiSpecError(f"a thinking time is more than 0 s, not {budget}")
        self.level = level
        self.effort = EFFORT[level]
        self.clock = clock
        self.budget = budget
        self.rng = random.Random(seed)

    def choose(self, state: State) -> tuple[Action, ...]:
        """One whole turn for the seat that decides now, ending the turn, then `done` for each
        obligation it leaves (what a remote board would send)."""
        if ended(state) is not None or state.outcome() is not None:
            raise IllegalActionError("the game is over: there is no turn to play")
        # A search makes and drops many small objects that hold no cycles; a full collection of
        # a large heap in the middle of one could spend a good part of the budget.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._choose(state)
        finally:
            if collecting:
                gc.enable()

    def _choose(self, state: State) -> tuple[Action, ...]:
        start = self.clock()
        deadline = start + self.budget * self.effort.share
        seat, turn = actor(state), state.turn
        solver = solver_for(state)
        if solver is not None:
            action = self._solved(state, solver)
            return _with_obligations(state.advance(action), [action])
        planner = search_hooks(state.game).planner
        if planner is not None and self.level is not Level.EASY:
            return self._planned(state, planner, deadline)
        search: Search | None = None
        actions: list[Action] = []
        while True:
            action, search = self._decide(state, search, deadline, seat, turn)
            actions.append(action)
            state = state.advance(action)
            if search is not None:
                search.descend(action)
            if not _keeps_turn(state, seat, turn):
                return _with_obligations(state, actions)

    def _planned(self, state: State, planner: Planner, deadline: float) -> tuple[Action, ...]:
        """A turn from the game's own planner, with `done` for each obligation it leaves."""
        careful = self.level is Level.STRONG
        actions = planner(state, self.rng, self.clock, deadline, careful=careful)
        for action in actions:
            state = state.advance(action)
        return _with_obligations(state, list(actions))

    def _solved(self, state: State, solver: Solver) -> Action:
        """The move of a solved game: every move's value is known, so `strong` needs no search
        (the games solved are those whose every turn is one action)."""
        legal = state.legal_actions()
        seat = state.to_move
        if self.level is Level.EASY:
            return self._near_sighted(state, legal, seat)
        values = {action: _value_for(seat, state.advance(action), solver) for action in legal}
        best = max(result for result, _ in values.values())
        if self.level is not Level.STRONG:
            return self.rng.choice([a for a in legal if values[a][0] == best])

        # The fastest win; else (a draw, or a loss against perfect play) the move that leaves
        # the other player the most replies that lose, then the longest game.
        def merit(action: Action) -> tuple[float, ...]:
            result, plies = values[action]
            if result > 0:
                return (-plies,)
            return (_pitfalls(seat, settle(state.advance(action)), solver), plies)

        top = [a for a in legal if values[a][0] == best]
        most = max(merit(a) for a in top)
        return self.rng.choice([a for a in top if merit(a) == most])

    def _near_sighted(self, state: State, legal: tuple[Action, ...], seat: int) -> Action:
        """`easy` in a solved game: perfect values would make it a master of the games a first
        player wins, so it looks one move ahead only, and even then, now and then, misses the
        win it sees or the block it needs."""
        careful = self.rng.random() >= self.effort.blunder
        after = {action: settle(state.advance(action)) for action in legal}
        wins = [a for a in legal if _reward(after[a], seat) == 1.0]
        if wins and careful:
            return self.rng.choice(wins)
        safe = [a for a in legal if not _gives_a_win(after[a], seat)]
        if safe and len(safe) < len(legal) and careful:
            return self.rng.choice(safe)
        return self.rng.choice(legal)

    def _decide(
        self, state: State, search: Search | None, deadline: float, seat: int, turn: int
    ) -> tuple[Action, Search | None]:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0], search
        if self.effort.blunder and self.rng.random() < self.effort.blunder:
            return self.rng.choice(legal), search
        if search is None:
            search = Search(state, self.rng)
        now = self.clock()
        if now >= deadline:  # out of time: what the tree already says
            return search.best(), search
        # Half of what is left for this decision when the turn may go on after it, so the
        # turn's later decisions (a slide after a placement) still get time; all of it when
        # every action ends the turn.
        goes_on = any(_keeps_turn(state.advance(a), seat, turn) for a in legal)
        until = now + (deadline - now) / 2 if goes_on else deadline
        search.run(self.clock, until, self.effort.playouts)
        return search.best(), search


def _keeps_turn(state: State, seat: int, turn: int) -> bool:
    return state.turn == turn and state.outcome() is None and actor(state) == seat


def _with_obligations(state: State, actions: list[Action]) -> tuple[Action, ...]:
    """The turn, with `done` for each obligation it leaves (`state` is after `actions`)."""
    while state.obligations and state.outcome() is None:
        actions.append(CARRY_OUT)
        state = state.advance(CARRY_OUT)
    return tuple(actions)


def _value_for(seat: int, state: State, solver: Solver) -> tuple[int, int]:
    """(+1 win, 0 draw, -1 loss, plies to the end) for `seat`, `state` being after its move."""
    state = settle(state)
    reward = ended(state)
    if reward is not None:
        return (1 if reward[seat] == 1 else -1 if reward[seat] == 0 else 0), 0
    value = solver.value(state)
    result = value.result if state.to_move == seat else -value.result
    return result, value.plies + 1


def _gives_a_win(state: State, seat: int) -> bool:
    """Whether the player to move in `state` can win at once, against `seat`."""
    if ended(state) is not None or state.to_move == seat:
        return False
    return any(
        _reward(settle(state.advance(reply)), seat) == 0.0 for reply in state.legal_actions()
    )


def _reward(state: State, seat: int) -> float | None:
    """`seat`'s reward if the game is over at `state`, else None."""
    reward = ended(state)
    return None if reward is None else reward[seat]


def _pitfalls(seat: int, state: State, solver: Solver) -> float:
    """The share of the other player's replies after which `seat` wins with best play."""
    if ended(state) is not None or state.to_move == seat:
        return 0.0
    replies = state.legal_actions()
    lost = sum(_value_for(seat, state.advance(r), solver)[0] > 0 for r in replies)
    return lost / len(replies)
