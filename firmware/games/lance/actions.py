"""Lance Assembly's board and actions: its lattice and the bit layout the rules' scans use, the
actions of a turn and their notation (the rules themselves are in `rules`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from magboard.firmware import native

from ..core import CARRY_OUT, END_TURN, Action, State, match_notation
from ..grid import Cell, cell_name, parse_cell
from ..phrasing import BACK, WAYS, Phrase, count, inside, put

SIDE = 6
CELLS = SIDE * SIDE
TILES = 18
LANCE = 5
SHAPE = native.LineShape(SIDE, SIDE, LANCE)
NEUTRAL = 4
"""The neutral tile's label bit: never part of a player's line."""
MIN_EMPTY_TO_PLACE = 5
"""Placing (a tile or the neutral) needs more than four empty cells."""
DIRECTIONS = {">": (1, 0), "<": (-1, 0), "^": (0, 1), "v": (0, -1)}
SEATS = ("A", "B")
BOUTS_TO_WIN = 2
BOXES = ("A", "B", "N")
"""Where tiles wait off the board, by seat and then the neutral tile's: the supplies' names."""

CELL_BITS = 8
"""A board read as one integer (`int.from_bytes(board, "little")`) holds cell i's label in bits
8i to 8i+2; a mask of cells in that form (bit 8i for cell i) is a spread mask. Whole-board
questions then take a few integer operations instead of a Python loop over 36 cells."""
ROW_BITS = CELL_BITS * SIDE
SPREAD = sum(1 << CELL_BITS * i for i in range(CELLS))
"""The spread mask of every cell."""
ROWS = tuple(sum(1 << CELL_BITS * (r * SIDE + c) for c in range(SIDE)) for r in range(SIDE))
COLUMNS = tuple(sum(1 << CELL_BITS * (r * SIDE + c) for r in range(SIDE)) for c in range(SIDE))
FIRST_COLUMN, LAST_COLUMN = COLUMNS[0], COLUMNS[-1]


def occupied(board: bytes) -> int:
    """The spread mask of the cells with a tile (any label: 1, 2 or 4)."""
    x = int.from_bytes(board, "little")
    return (x | x >> 1 | x >> 2) & SPREAD


def labelled(board: bytes, label: int) -> int:
    """The spread mask of the cells holding `label` (1, 2 or NEUTRAL, each a single bit)."""
    return (int.from_bytes(board, "little") >> (label.bit_length() - 1)) & SPREAD


Seen = tuple[bytes, int, bool]
"""What the repetition rule compares: the board, the player to move, the neutral tile in hand."""
NO_POSITIONS: frozenset[Seen] = frozenset()


def _index(cell: Cell) -> int:
    return cell[1] * SIDE + cell[0]


def _cell(i: int) -> Cell:
    return i % SIDE, i // SIDE


@dataclass(frozen=True)
class Place(Action):
    """One of the mover's own tiles from their supply onto an empty cell."""

    cell: Cell

    def __str__(self) -> str:
        return cell_name(self.cell)

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


@dataclass(frozen=True)
class PlaceNeutral(Action):
    """B's neutral tile onto an empty cell, at any moment of B's turn."""

    cell: Cell

    def __str__(self) -> str:
        return f"N{cell_name(self.cell)}"

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


@dataclass(frozen=True)
class Slide(Action):
    """`length` tiles side by side from `cell` (the group's rear) moved `distance` cells in
    `way` (one of > < ^ v), all together."""

    cell: Cell
    length: int
    way: str
    distance: int

    def __str__(self) -> str:
        return f"{cell_name(self.cell)}{self.way}{self.length}:{self.distance}"

    @property
    def cells(self) -> tuple[Cell, ...]:
        dx, dy = DIRECTIONS[self.way]
        col, row = self.cell
        return tuple((col + k * dx, row + k * dy) for k in range(self.length))

    @cached_property
    def moved(self) -> tuple[Cell, ...]:
        dx, dy = DIRECTIONS[self.way]
        return tuple((c + self.distance * dx, r + self.distance * dy) for c, r in self.cells)

    @cached_property
    def touches(self) -> frozenset[Cell]:
        return frozenset(set(self.cells) ^ set(self.moved))

    @cached_property
    def steps(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The cells (row-major indices) the tiles leave, and those they land on, in order.
        Worked out ahead for every slide the board allows (`_SLIDES_FROM`), where it is then
        read as a plain attribute."""
        return tuple(_index(c) for c in self.cells), tuple(_index(c) for c in self.moved)


@dataclass(frozen=True)
class FlagFell(Action):
    """`seat`'s time ran out: it loses the bout. Its clock reports it; no turn lists it."""

    seat: int
    seen: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"flag {SEATS[self.seat]}"


_NOTATION = re.compile(r"(N)?([a-f][1-6])|([a-f][1-6])([<>^v])([1-6]):([1-5])|flag ([AB])")


def parse_action(text: str) -> Action:
    if text.strip() == "end":
        return END_TURN
    if text.strip() == "done":
        return CARRY_OUT
    found = match_notation(
        _NOTATION,
        text,
        "a placement (c3), the neutral tile (Nc3), a slide (b2>3:1), end, done or flag A",
    )
    if found[7]:
        return FlagFell(SEATS.index(found[7]))
    if found[3]:
        return Slide(parse_cell(found[3]), int(found[5]), found[4], int(found[6]))
    cell = parse_cell(found[2])
    return PlaceNeutral(cell) if found[1] else Place(cell)


def universe(state: State) -> tuple[Action, ...]:
    """Every action of a bout, in the order of the engine's compact codes: each cell's place,
    each cell's neutral place, the end of a turn, then every slide by rear, way, length and
    distance."""
    cells = [(i % SIDE, i // SIDE) for i in range(SIDE * SIDE)]
    return (
        *(Place(cell) for cell in cells),
        *(PlaceNeutral(cell) for cell in cells),
        END_TURN,
        *(
            Slide(rear, length, way, distance)
            for rear in cells
            for way in DIRECTIONS
            for length in range(SIDE)
            for distance in range(SIDE)
        ),
    )


def phrase(action: Action, state: State | None) -> Phrase | None:
    match action:
        case Slide():
            what = "the tile" if action.length == 1 else f"the group of {action.length}"
            where = f"{what} at {cell_name(action.cell)} {count(action.distance, 'cell')}"
            where += f" {WAYS[action.way]}"
            return Phrase(f"slide {where}", f"slid {where}")
        case PlaceNeutral():
            return put(f"the neutral tile on {cell_name(action.cell)}")
        case Place():
            return put(f"a tile on {cell_name(action.cell)}")
        case FlagFell():
            return Phrase("wait", "ran out of time")
    return None


def undo_phrase(action: Action, extent: tuple[int, int]) -> str | None:
    if not isinstance(action, Slide):
        return None
    what = "the tile" if action.length == 1 else f"the group of {action.length}"
    back = f"back {count(action.distance, 'cell')} {WAYS[BACK[action.way]]}"
    if not all(inside(cell, extent) for cell in action.moved):
        return f"slide {what} {back}, onto the game"
    return f"slide {what} at {cell_name(action.moved[0])} {back}"
