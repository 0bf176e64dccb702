"""Stones: a small game made to hold the referee to every part of the contract that the real
games need, on the mini board.

- 3x3 cells; players A and B, `STONES` stones each. A's wait in tray A (sensed slots), B's in a
  box no sensor sees (an unsensed supply).
- A turn: place one of your stones on an empty cell (`b2`). Then either end the turn with your
  seat button (`end`), or push: the stones lying side by side in the placed stone's row, the
  placed stone among them, move together one cell left or right onto an empty cell (`a1>2`:
  the two stones from a1 pushed right; `b1<2`: the two from b1 pushed left; the cell is the
  group's leftmost). A push moves several pieces at once and ends the turn.
- After the turn, every stone of the other player with the mover's stones on both sides of it,
  in its row or its column, is captured: an obligation to take it back to its owner's supply
  before the next turn (`done` once the board shows it).
- The game ends when the player to move has no stone left or no empty cell, or after option
  `turns` turns. Score: stones on the board; the higher wins; equal is a draw.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from magboard.firmware.games import (
    CARRY_OUT,
    END_TURN,
    Action,
    Cell,
    Game,
    Obligation,
    Option,
    Outcome,
    State,
    cell_name,
    parse_cell,
    register,
)
from magboard.firmware.games.core import match_notation
from magboard.firmware.profiles import (
    Layout,
    PieceKind,
    Profile,
    Step,
    Supply,
    register_profile,
)
from magboard.hardware.spec import BoardSpec, Slot

SIDE = 3
STONES = 4
SEATS = ("A", "B")


def index(cell: Cell) -> int:
    return cell[1] * SIDE + cell[0]


def cell_of(i: int) -> Cell:
    return i % SIDE, i // SIDE


@dataclass(frozen=True)
class Stone(Action):
    cell: Cell

    def __str__(self) -> str:
        return cell_name(self.cell)

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


@dataclass(frozen=True)
class Push(Action):
    """The `length` stones from `cell` rightwards, moved one cell right (or left)."""

    cell: Cell
    length: int
    right: bool

    def __str__(self) -> str:
        return f"{cell_name(self.cell)}{'>' if self.right else '<'}{self.length}"

    @property
    def cells(self) -> tuple[Cell, ...]:
        col, row = self.cell
        return tuple((col + k, row) for k in range(self.length))

    @property
    def touches(self) -> frozenset[Cell]:
        col, row = self.cell
        if self.right:
            return frozenset({(col, row), (col + self.length, row)})
        return frozenset({(col - 1, row), (col + self.length - 1, row)})


@dataclass(frozen=True)
class StonesState(State):
    board: tuple[int, ...] = (0,) * SIDE * SIDE
    """Per cell, row-major from a1: 0 empty, 1 A's stone, 2 B's stone."""
    to_move: int = 0
    turn: int = 0
    supplies: tuple[int, int] = (STONES, STONES)
    placed: int | None = None
    """The cell of the stone placed this turn, until the turn ends."""
    captured: tuple[int, ...] = ()
    """Captured stones still on the board: the obligation."""
    turns: int = 6

    @property
    def can_end_turn(self) -> bool:
        return self.placed is not None

    @property
    def obligations(self) -> tuple[Obligation, ...]:
        if not self.captured:
            return ()
        owner = SEATS[self.board[self.captured[0]] - 1]
        return (
            Obligation(
                f"return the captured stones to {owner}'s supply",
                frozenset(cell_of(i) for i in self.captured),
                frozenset({owner}),
            ),
        )

    def _legal(self) -> tuple[Action, ...]:
        if self.captured:
            return (CARRY_OUT,)
        if self.outcome() is not None:
            return ()
        if self.placed is None:
            return tuple(Stone(cell_of(i)) for i, v in enumerate(self.board) if not v)
        return (*self._pushes(), END_TURN)

    def _pushes(self) -> list[Push]:
        assert self.placed is not None
        col, row = cell_of(self.placed)
        left = right = col
        while left > 0 and self.board[index((left - 1, row))]:
            left -= 1
        while right < SIDE - 1 and self.board[index((right + 1, row))]:
            right += 1
        pushes = []
        for start in range(left, col + 1):
            for end in range(col, right + 1):
                length = end - start + 1
                if end + 1 < SIDE and not self.board[index((end + 1, row))]:
                    pushes.append(Push((start, row), length, True))
                if start > 0 and not self.board[index((start - 1, row))]:
                    pushes.append(Push((start, row), length, False))
        return pushes

    def _play(self, action: Action) -> State:
        board = list(self.board)
        if action == CARRY_OUT:
            supplies = list(self.supplies)
            for i in self.captured:
                supplies[board[i] - 1] += 1
                board[i] = 0
            return StonesState(
                tuple(board), self.to_move, self.turn, tuple(supplies), None, (), self.turns
            )
        if isinstance(action, Stone):
            board[index(action.cell)] = self.to_move + 1
            supplies = list(self.supplies)
            supplies[self.to_move] -= 1
            return StonesState(
                tuple(board),
                self.to_move,
                self.turn,
                tuple(supplies),
                index(action.cell),
                (),
                self.turns,
            )
        if isinstance(action, Push):
            step = 1 if action.right else -1
            cells = action.cells if not action.right else tuple(reversed(action.cells))
            for cell in cells:
                board[index((cell[0] + step, cell[1]))] = board[index(cell)]
                board[index(cell)] = 0
        return self._end_turn(tuple(board))

    def _end_turn(self, board: tuple[int, ...]) -> StonesState:
        mover, other = self.to_move + 1, 2 - self.to_move
        captured = []
        for i, v in enumerate(board):
            if v != other:
                continue
            col, row = cell_of(i)
            for dx, dy in ((1, 0), (0, 1)):
                a, b = (col - dx, row - dy), (col + dx, row + dy)
                if (
                    all(0 <= c < SIDE for c in (*a, *b))
                    and board[index(a)] == board[index(b)] == mover
                ):
                    captured.append(i)
                    break
        return StonesState(
            board,
            1 - self.to_move,
            self.turn + 1,
            self.supplies,
            None,
            tuple(captured),
            self.turns,
        )

    def scores(self) -> tuple[int, int]:
        return self.board.count(1), self.board.count(2)

    def outcome(self) -> Outcome | None:
        if self.captured or self.placed is not None:
            return None
        if self.turn < self.turns and self.supplies[self.to_move] and not all(self.board):
            return None
        scores = self.scores()
        if scores[0] == scores[1]:
            return Outcome((), "equal stones", scores=scores)
        winner = 0 if scores[0] > scores[1] else 1
        return Outcome((winner,), "more stones", scores=scores)

    def key(self) -> Hashable:
        return self.board, self.to_move, self.turn, self.supplies, self.placed, self.captured

    def __str__(self) -> str:
        rows = []
        for row in reversed(range(SIDE)):
            rows.append("".join(".AB"[self.board[index((c, row))]] for c in range(SIDE)))
        return "\n".join(rows)


_PUSH = re.compile(r"([a-c][1-3])([<>])([1-3])")


def parse(text: str) -> Action:
    text = text.strip()
    if text in ("end", "done"):
        return END_TURN if text == "end" else CARRY_OUT
    if any(mark in text for mark in "<>"):
        found = match_notation(_PUSH, text, "a push (a cell, > or <, a length, like a1>2)")
        return Push(parse_cell(found[1]), int(found[3]), found[2] == ">")
    return Stone(parse_cell(text))


def _start(options: Mapping[str, Any]) -> StonesState:
    return StonesState(turns=options["turns"])


def _universe(state: State) -> tuple[Action, ...]:
    """Every stone and every push a position can have, for a search that numbers actions."""
    cells = [cell_of(i) for i in range(SIDE * SIDE)]
    pushes = (Push(c, n, way) for c in cells for n in range(1, SIDE + 1) for way in (True, False))
    return (*(Stone(cell) for cell in cells), *pushes)


GAME = Game(
    "stones",
    "Stones",
    "A test game: place, push a row, end with the button, captures to put back.",
    SEATS,
    (SIDE, SIDE),
    (Option("turns", 6, "turns before the game is scored", minimum=1, maximum=40),),
    _start,
    parse,
    universe=_universe,
)
StonesState.game = GAME


def stones(*moves: str, turns: int = 6) -> StonesState:
    """The position after `moves` in notation ("done" carries out captures)."""
    state: State = StonesState(turns=turns)
    for text in moves:
        state = state.apply(state.parse_action(text))
    assert isinstance(state, StonesState)
    return state


class StonesProfile(Profile):
    def layout(self, state: State) -> Layout:
        assert isinstance(state, StonesState)
        cells = {
            self.to_board(cell_of(i)): (self.kinds[v - 1],) for i, v in enumerate(state.board) if v
        }
        return Layout(cells, {s.name: state.supplies[p] for p, s in enumerate(self.supplies)})

    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        game_cell = self.to_game(cell)
        return None if game_cell is None else Stone(game_cell)

    def plan(self, state: State, action: Action) -> tuple[Step, ...]:
        assert isinstance(state, StonesState)
        if isinstance(action, Stone):
            return (Step(SEATS[state.to_move], self.to_board(action.cell)),)
        if isinstance(action, Push):
            step = 1 if action.right else -1
            return tuple(
                Step(self.to_board(c), self.to_board((c[0] + step, c[1])), slide=True)
                for c in action.cells
            )
        if action == CARRY_OUT:
            return tuple(
                Step(self.to_board(cell_of(i)), SEATS[state.board[i] - 1]) for i in state.captured
            )
        return ()


def stones_profile(spec: BoardSpec, options: Mapping[str, Any] | None = None) -> StonesProfile:
    """On mini: A's stones trip the centre channel and wait in tray A; B's trip the middle ring
    and wait in a box."""
    kinds = (PieceKind("A", frozenset({"s"}), 0, "A"), PieceKind("B", frozenset({"m"}), 1, "B"))
    supplies = (
        Supply("A", (kinds[0],), tuple(Slot("A", n) for n in range(1, STONES + 1))),
        Supply("B", (kinds[1],)),
    )
    return StonesProfile(GAME, spec, (0, 0), kinds, supplies)


register(GAME)
register_profile(GAME, stones_profile)
