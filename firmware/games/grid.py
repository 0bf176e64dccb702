"""Cells of a square lattice, their chess-like names, and drawing a board as text."""

from __future__ import annotations

import re
from collections.abc import Callable

from .core import Cell, NotationError

__all__ = ["MAX_SIDE", "Cell", "cell_name", "draw_grid", "parse_cell"]

MAX_SIDE = 16
_CELL = re.compile(r"([a-p])(1[0-6]|[1-9])")


def cell_name(cell: Cell) -> str:
    """'a1' for (0, 0): the notation players read and type."""
    col, row = cell
    return f"{chr(ord('a') + col)}{row + 1}"


def parse_cell(text: str) -> Cell:
    match = _CELL.fullmatch(text.strip().lower())
    if not match:
        raise NotationError(f"{text!r} is not a cell (a column a-p and a row 1-16, like b2)")
    return ord(match[1]) - ord("a"), int(match[2]) - 1


def draw_grid(width: int, height: int, symbol: Callable[[Cell], str]) -> str:
    """Rows top to bottom with their numbers, columns lettered underneath, as players read it."""
    cell_width = max(1, *(len(symbol((c, r))) for c in range(width) for r in range(height)))
    lines = []
    for row in reversed(range(height)):
        cells = " ".join(symbol((col, row)).center(cell_width) for col in range(width))
        lines.append(f"{row + 1:>2} {cells}")
    letters = " ".join(chr(ord("a") + col).center(cell_width) for col in range(width))
    lines.append(f"   {letters}")
    return "\n".join(lines)
