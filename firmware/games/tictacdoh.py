"""Tic Tac Doh! (rules/tic-tac-doh.md): three in a row of one size, with stacks that count as
several sizes, on an imaginary 3x3 grid.

The imaginary grid is played on a 5x5 area, columns a-e and rows 1-5, whose centre c3 takes the
first piece; every occupied cell then stays inside one 3x3 box, which the first pieces fix.

Notation, one action per turn: `Sc3`, `Mc3`, `Lc3` put a Small, Medium or Large pyramid from the
shared stash on c3, on an empty cell or on top of the stack there. The size letter may be typed
in either case. There is no passing.

Stacks, bottom to top, are written by their size letters: trees `LM`, `MS`, `LMS` count as any
of their sizes; nests `SM`, `ML`, `SML` count only as their outermost (largest) piece.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from magboard.firmware import native
from magboard.firmware.engine.linegames import (
    CELLS,
    SUPPLY,
    Kind,
    LineRules,
    StackTables,
    declare_line_game,
    place_of,
)

from .core import Action, Game, Outcome, State
from .grid import Cell, cell_name, draw_grid
from .search import SearchHooks, declare_search
from .sized import (
    LARGE,
    LETTERS,
    MEDIUM,
    NAMES,
    SIZES,
    SMALL,
    Place,
    every_place,
    parse_place,
    places,
    said,
)

SIDE = 5
BOX = 3
"""Every occupied cell fits in one BOX x BOX square."""
CENTRE_CELL = (SIDE // 2, SIDE // 2)
CENTRE = CENTRE_CELL[1] * SIDE + CENTRE_CELL[0]
SHAPE = native.LineShape(SIDE, SIDE, 3)
SEATS = ("A", "B")
STASH = (5, 5, 5)
"""The shared stash at the start: Small, Medium, Large."""
PLACES = places(SIDE, SIDE)

S, M, L = SMALL, MEDIUM, LARGE
TREES = ((L, M), (M, S), (L, M, S))
NESTS = ((S, M), (M, L), (S, M, L))
STACKS: tuple[tuple[int, ...], ...] = ((), (S,), (M,), (L,), *TREES, *NESTS)
"""Every legal stack, bottom to top; a cell stores its stack's index here (0: empty)."""


def _counts_as(stack: tuple[int, ...]) -> int:
    """The mask of sizes a stack counts as (bit 0 Small, 1 Medium, 2 Large)."""
    if not stack:
        return 0
    if stack in NESTS:
        return 1 << max(stack)
    mask = 0
    for size in stack:  # a single piece, or a tree: any of its sizes
        mask |= 1 << size
    return mask


COUNTS_AS = bytes(_counts_as(stack) for stack in STACKS)
"""Per stack index, the mask the line kernel reads."""
_COUNTS_TABLE = COUNTS_AS.ljust(256, b"\0")  # for bytes.translate
ON_TOP = tuple(
    tuple(STACKS.index((*stack, size)) if (*stack, size) in STACKS else 0 for size in SIZES)
    for stack in STACKS
)
"""Per stack index and size, the stack index after putting that size on it (0: not allowed)."""


def _neighbours(i: int) -> tuple[int, ...]:
    col, row = i % SIDE, i // SIDE
    return tuple(
        r * SIDE + c
        for r in range(max(0, row - 1), min(SIDE, row + 2))
        for c in range(max(0, col - 1), min(SIDE, col + 2))
        if (c, r) != (col, row)
    )


NEIGHBOURS = tuple(_neighbours(i) for i in range(SIDE * SIDE))


def stack_name(stack: tuple[int, ...]) -> str:
    return "".join(LETTERS[size] for size in stack)


@dataclass(frozen=True)
class TicTacDohState(State):
    board: bytes = bytes(SIDE * SIDE)
    """Per cell, row-major from a1, the index of its stack in `STACKS` (0 when empty)."""
    stash: tuple[int, int, int] = STASH
    """Small, Medium and Large pieces left in the shared stash."""
    to_move: int = 0
    turn: int = 0

    @cached_property
    def _open_cells(self) -> frozenset[int]:
        """Empty cells a piece may go on: touching an occupied cell and keeping every occupied
        cell inside one 3x3 box (the centre, on an empty area)."""
        occupied = [i for i, code in enumerate(self.board) if code]
        if not occupied:
            return frozenset((CENTRE,))
        cols = [i % SIDE for i in occupied]
        rows = [i // SIDE for i in occupied]
        low_col, high_col = max(cols) - BOX + 1, min(cols) + BOX - 1
        low_row, high_row = max(rows) - BOX + 1, min(rows) + BOX - 1
        board = self.board
        return frozenset(
            i
            for i in range(SIDE * SIDE)
            if not board[i]
            and low_col <= i % SIDE <= high_col
            and low_row <= i // SIDE <= high_row
            and any(board[n] for n in NEIGHBOURS[i])
        )

    @cached_property
    def placements(self) -> tuple[Place, ...]:
        """The legal placements, Smalls first, cells row-major from a1."""
        found: list[Place] = []
        open_cells = self._open_cells
        for size in SIZES:
            if not self.stash[size]:
                continue
            by_cell = PLACES[size]
            found.extend(
                by_cell[i]
                for i, code in enumerate(self.board)
                if (ON_TOP[code][size] if code else i in open_cells)
            )
        return tuple(found)

    def _legal(self) -> tuple[Action, ...]:
        if self.outcome() is not None:
            return ()
        return self.placements

    def _play(self, action: Action) -> State:
        assert isinstance(action, Place)
        col, row = action.cell
        i = row * SIDE + col
        board = bytearray(self.board)
        board[i] = ON_TOP[board[i]][action.size]  # on an empty cell: the single piece
        stash = list(self.stash)
        stash[action.size] -= 1
        return TicTacDohState(
            bytes(board), (stash[0], stash[1], stash[2]), 1 - self.to_move, self.turn + 1
        )

    @cached_property
    def counts_as(self) -> bytes:
        """Per cell the mask of sizes it counts as: what the line kernel reads."""
        return self.board.translate(_COUNTS_TABLE)

    @cached_property
    def _outcome(self) -> Outcome | None:
        sizes = native.winners(SHAPE, self.counts_as)
        if sizes:
            lines = native.find_lines(SHAPE, self.counts_as)
            named = [NAMES[s] for s in SIZES if sizes >> s & 1]
            cells = frozenset().union(*(lines.cells(s) for s in SIZES if sizes >> s & 1))
            return Outcome(
                (1 - self.to_move,), f"three in a row that count as {' and '.join(named)}", cells
            )
        if not any(self.stash):
            return Outcome((), "all fifteen pieces are placed")
        if not self.placements:
            return Outcome(
                (1 - self.to_move,), f"{SEATS[self.to_move]} has pieces left but no legal placement"
            )
        return None

    def outcome(self) -> Outcome | None:
        return self._outcome

    def key(self) -> Hashable:
        return self.board, self.stash, self.to_move

    def why_illegal(self, action: Action) -> str:
        if isinstance(action, Place):
            reason = self._why_not_place(action)
            if reason:
                return reason
        return super().why_illegal(action)

    def _why_not_place(self, action: Place) -> str | None:
        col, row = action.cell
        where = cell_name(action.cell)
        name = NAMES[action.size]
        if not (0 <= col < SIDE and 0 <= row < SIDE):
            return f"{where} is off the 5x5 area (a1 to e5)"
        if not self.stash[action.size]:
            return f"no {name} is left in the stash"
        i = row * SIDE + col
        code = self.board[i]
        if not code:
            if not any(self.board):
                return f"the first piece goes on the centre, {cell_name(CENTRE_CELL)}"
            if not any(self.board[n] for n in NEIGHBOURS[i]):
                return f"{where} touches no piece (diagonals count)"
            if i not in self._open_cells:
                return f"a piece on {where} would not fit in one 3x3 box with the others"
            return None
        stack = STACKS[code]
        top = stack[-1]
        if ON_TOP[code][action.size]:
            return None
        if len(stack) == 3:
            return f"{where} holds a full {stack_name(stack)}: nothing more goes on it"
        if action.size == top:
            return f"a {name} cannot go on a {NAMES[top]}"
        if abs(action.size - top) > 1:
            return f"a {name} cannot go on a {NAMES[top]}: stacks grow one size at a time"
        kind = "tree" if stack in TREES else "nest"
        return (
            f"{where} holds the {kind} {stack_name(stack)}: a {name} on it would mix a tree and "
            f"a nest"
        )

    def stack_at(self, cell: Cell) -> tuple[int, ...]:
        """The sizes on `cell`, bottom to top."""
        return STACKS[self.board[cell[1] * SIDE + cell[0]]]

    def __str__(self) -> str:
        """The 5x5 area, each cell's stack bottom to top, then the stash."""
        grid = draw_grid(SIDE, SIDE, lambda cell: stack_name(self.stack_at(cell)) or ".")
        left = " ".join(f"{LETTERS[s]}{self.stash[s]}" for s in SIZES)
        return f"{grid}\nstash: {left}"


def _start(options: Mapping[str, Any]) -> TicTacDohState:
    return TicTacDohState()


GAME = Game(
    name="tic-tac-doh",
    title="Tic Tac Doh!",
    summary=(
        "Pyramids from one shared stash on an imaginary 3x3 grid; trees count as any of their "
        "sizes, nests as their largest. Place the third of a size in a row to win; A moves first."
    ),
    seats=SEATS,
    board=(SIDE, SIDE),
    options=(),
    start=_start,
    parse_action=parse_place,
    aliases=("tictacdoh",),
    rules_file="tic-tac-doh.md",
    universe=lambda state: every_place(state.extent),
    phrase=said,
)
TicTacDohState.game = GAME

__all__ = ["GAME", "STACKS", "Place", "TicTacDohState"]

# Its whole solve takes more than a moment: it ships an opening table.
declare_search(GAME, SearchHooks(tabled=({},), perft=(({}, 5),)))


def _fill(state: TicTacDohState, position: bytearray) -> None:
    """The board's stacks by index in `STACKS` and the shared stash, as the compact engine keeps
    them."""
    position[:CELLS] = state.board
    position[SUPPLY : SUPPLY + 3] = bytes(state.stash)


declare_line_game(
    GAME,
    LineRules(
        Kind.TIC_TAC_DOH,
        fill=_fill,
        action=lambda move: Place(*place_of(move)),
        options=lambda state: (STASH, True),
        stacks=StackTables(ON_TOP, COUNTS_AS, NEIGHBOURS),
    ),
)
