"""Pieces in three sizes, Small < Medium < Large, and the action of placing one on a cell.

Shared by the games whose pieces differ by size (Tic-Tac-Cap, Tic Tac Doh!). Notation: the size
letter, then the cell, as in `Sb2`, `Mb2`, `Lb2` (a Small, a Medium, a Large on b2). The size
letter may be typed in either case; `str()` always writes it in capitals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from magboard.firmware.article import with_article

from .core import Action, match_notation
from .grid import Cell, cell_name, parse_cell
from .phrasing import Phrase, put

SMALL, MEDIUM, LARGE = 0, 1, 2
SIZES = (SMALL, MEDIUM, LARGE)
LETTERS = "SML"
NAMES = ("Small", "Medium", "Large")

_NOTATION = re.compile(r"([SMLsml])\s*([A-Za-z]\d+)")


@dataclass(frozen=True)
class Place(Action):
    """Take a piece of `size` and put it on `cell` (on top of whatever is there)."""

    size: int
    cell: Cell

    def __str__(self) -> str:
        return f"{LETTERS[self.size]}{cell_name(self.cell)}"

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


def parse_place(text: str) -> Place:
    """Reads `Sb2`-style notation (syntax only: whether the cell is on the board is for the
    state to say)."""
    found = match_notation(_NOTATION, text, "a placement (a size S, M or L and a cell, like Sb2)")
    return Place(LETTERS.index(found[1].upper()), parse_cell(found[2]))


def places(width: int, height: int) -> tuple[tuple[Place, ...], ...]:
    """Per size, the placements on every cell of a `width` x `height` area, row-major from a1:
    made once per game so that move generation only picks from them."""
    return tuple(
        tuple(Place(size, (i % width, i // width)) for i in range(width * height)) for size in SIZES
    )


def every_place(extent: tuple[int, int]) -> tuple[Place, ...]:
    """Every size on every cell of `extent`, size by size and row by row: a sized game's
    actions for a search that numbers them."""
    width, height = extent
    return tuple(
        Place(size, (col, row)) for size in SIZES for row in range(height) for col in range(width)
    )


def said(action: Action, state: object) -> Phrase | None:
    """A sized game's placement in words ("put a Large on b2")."""
    if not isinstance(action, Place):
        return None
    return put(f"{with_article(NAMES[action.size])} on {cell_name(action.cell)}")
