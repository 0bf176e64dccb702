"""Tic-tac-toe (rules/tic-tac-toe.md): the first game on the contract and the native kernel."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from magboard.firmware import native
from magboard.firmware.engine.linegames import (
    SMALL_BOARD,
    Kind,
    LineRules,
    declare_line_game,
    place_of,
)

from .core import Action, Game, Outcome, State
from .grid import Cell, cell_name, draw_grid, parse_cell
from .phrasing import Phrase

SIZE = 3
SHAPE = native.LineShape(SIZE, SIZE, SIZE)
MARKS = "XO"


@dataclass(frozen=True)
class Place(Action):
    """Put the mover's mark on an empty cell."""

    cell: Cell

    def __str__(self) -> str:
        return cell_name(self.cell)

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


PLACES = tuple(Place((i % SIZE, i // SIZE)) for i in range(SIZE * SIZE))


@dataclass(frozen=True)
class TicTacToeState(State):
    board: bytes = bytes(SIZE * SIZE)
    """Per cell, row-major from a1: 0 empty, else the owner's label bit (1 for X, 2 for O),
    exactly the layout the line kernel reads."""
    to_move: int = 0
    turn: int = 0

    def _legal(self) -> tuple[Action, ...]:
        if self.outcome() is not None:
            return ()
        return tuple(place for place, mark in zip(PLACES, self.board, strict=True) if not mark)

    def _play(self, action: Action) -> State:
        assert isinstance(action, Place)
        col, row = action.cell
        i = row * SIZE + col
        board = self.board[:i] + bytes((1 << self.to_move,)) + self.board[i + 1 :]
        return TicTacToeState(board, 1 - self.to_move, self.turn + 1)

    @cached_property
    def _outcome(self) -> Outcome | None:
        line_owners = native.winners(SHAPE, self.board)
        if line_owners:
            winner = line_owners.bit_length() - 1
            cells = native.find_lines(SHAPE, self.board).cells(winner)
            return Outcome((winner,), "three in a row", cells)
        if all(self.board):
            return Outcome((), "the board is full")
        return None

    def outcome(self) -> Outcome | None:
        return self._outcome

    def key(self) -> tuple[bytes, int]:
        return self.board, self.to_move

    def why_illegal(self, action: Action) -> str:
        if isinstance(action, Place):
            col, row = action.cell
            if not (0 <= col < SIZE and 0 <= row < SIZE):
                return f"{action} is not on the 3x3 board"
            mark = self.board[row * SIZE + col]
            if mark:
                return f"{action} is already taken by {MARKS[mark.bit_length() - 1]}"
        return super().why_illegal(action)

    def mark_at(self, cell: Cell) -> str | None:
        mark = self.board[cell[1] * SIZE + cell[0]]
        return MARKS[mark.bit_length() - 1] if mark else None

    def __str__(self) -> str:
        return draw_grid(SIZE, SIZE, lambda cell: self.mark_at(cell) or ".")


def _start(options: Mapping[str, Any]) -> TicTacToeState:
    return TicTacToeState()


def parse_action(text: str) -> Action:
    return Place(parse_cell(text))


def _universe(state: State) -> tuple[Action, ...]:
    return tuple(Place((col, row)) for row in range(SIZE) for col in range(SIZE))


def _phrase(action: Action, state: State | None) -> Phrase | None:
    if not isinstance(action, Place):
        return None
    square = cell_name(action.cell)
    return Phrase(f"play {square}", f"played {square}")


GAME = Game(
    name="tic-tac-toe",
    title="Tic-tac-toe",
    summary="Three in a row on a 3x3 board; X moves first.",
    seats=("X", "O"),
    board=(SIZE, SIZE),
    options=(),
    start=_start,
    parse_action=parse_action,
    aliases=("ttt", "noughts-and-crosses"),
    rules_file="tic-tac-toe.md",
    universe=_universe,
    phrase=_phrase,
)
TicTacToeState.game = GAME


def _fill(state: TicTacToeState, position: bytearray) -> None:
    """The board's marks as the compact engine keeps them: the owner bit, on the first nine
    cells."""
    for i, mark in zip(SMALL_BOARD, state.board, strict=True):
        position[i] = mark


declare_line_game(
    GAME, LineRules(Kind.TIC_TAC_TOE, fill=_fill, action=lambda move: Place(place_of(move)[1]))
)
