"""A tiny game for tests of multi-action turns: a turn places one stone or two, and the seat's
button (END_TURN) ends it after the first. None of the registered games has such a turn yet,
but the referee, the loop and the link must handle it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from magboard.firmware.games import END_TURN, Action, Game, Outcome, State
from magboard.firmware.games.core import match_notation
from magboard.firmware.profiles import Layout, PieceKind, Profile, Supply
from magboard.hardware.spec import BoardSpec, Slot

CELLS = 4


@dataclass(frozen=True)
class Stone(Action):
    cell: int

    def __str__(self) -> str:
        return f"s{self.cell}"


@dataclass(frozen=True)
class StonesState(State):
    board: tuple[int, ...] = (0,) * CELLS
    to_move: int = 0
    turn: int = 0
    placed: int = 0

    @property
    def can_end_turn(self) -> bool:
        return self.placed > 0

    def _legal(self) -> tuple[Action, ...]:
        if self.outcome():
            return ()
        stones = tuple(Stone(i) for i, v in enumerate(self.board) if not v)
        return stones + ((END_TURN,) if self.placed else ())

    def _play(self, action: Action) -> StonesState:
        if action == END_TURN:
            return StonesState(self.board, 1 - self.to_move, self.turn + 1)
        assert isinstance(action, Stone)
        board = list(self.board)
        board[action.cell] = self.to_move + 1
        if self.placed == 1 or all(board):
            return StonesState(tuple(board), 1 - self.to_move, self.turn + 1)
        return StonesState(tuple(board), self.to_move, self.turn, 1)

    def outcome(self) -> Outcome | None:
        return Outcome((), "full") if all(self.board) else None

    def key(self) -> tuple:
        return self.board, self.to_move, self.placed


def parse(text: str) -> Action:
    if text.strip() == "end":
        return END_TURN
    return Stone(int(match_notation(re.compile(r"s(\d)"), text, "a stone")[1]))


STONES = Game("stones", "Stones", "test", ("A", "B"), (3, 2), (), lambda o: StonesState(), parse)
StonesState.game = STONES


def stones(*cells: int) -> StonesState:
    """The position after placing stones on `cells` in order (-1: the end-turn button)."""
    state = StonesState()
    for cell in cells:
        state = state.apply(END_TURN if cell == -1 else Stone(cell))
    return state


class StonesProfile(Profile):
    def layout(self, state: State) -> Layout:
        assert isinstance(state, StonesState)
        cells = {(i % 3, i // 3): (self.kinds[v - 1],) for i, v in enumerate(state.board) if v}
        used = [sum(1 for v in state.board if v == p + 1) for p in (0, 1)]
        return Layout(cells, {s.name: CELLS - used[p] for p, s in enumerate(self.supplies)})


def stones_profile(spec: BoardSpec) -> StonesProfile:
    """On mini: A's stones trip the centre channel and wait in tray A, B's the inner ring."""
    kinds = (PieceKind("A", frozenset({"s"}), 0), PieceKind("B", frozenset({"m"}), 1))
    supplies = tuple(
        Supply(k.name, k, tuple(Slot(k.name, n) for n in range(1, CELLS + 1))) for k in kinds
    )
    return StonesProfile(STONES, spec, (0, 0), kinds, supplies)
