"""Which cells of a game's area go on which sheet of paper.

The overlay is only useful at the board's true pitch, so it is never scaled to fit: an area
larger than the paper is cut into sheets that share a one-cell strip with each neighbour, and
the strip is how the sheets are laid together. Pure arithmetic, no drawing, so the tests can
check the plan without rendering it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MM = 72 / 25.4
"""PDF points in a millimetre."""

PAPERS: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "a3": (297.0, 420.0),
    "letter": (215.9, 279.4),
}
"""Portrait width and height in millimetres."""

MARGIN = 6.0
"""Blank border (mm) most printers cannot print in."""
MARKS = 8.0
"""Band (mm) around the grid for the edge ticks, corner crosses and coordinates."""
HEADER = 15.0
"""Height (mm) of the text above the marks band: seed, options, placement, sheet."""
FOOTER = 9.0
"""Height (mm) of the scale bar and instructions below the marks band."""
OVERLAP = 1
"""Cells a sheet shares with its neighbour."""


class TilingError(ValueError):
    """A cell that cannot fit on the paper at all."""


@dataclass(frozen=True)
class Tile:
    """One sheet's part of the area: game columns and rows from `first` to `last`, inclusive."""

    number: int
    columns: tuple[int, int]
    rows: tuple[int, int]

    @property
    def width(self) -> int:
        return self.columns[1] - self.columns[0] + 1

    @property
    def height(self) -> int:
        return self.rows[1] - self.rows[0] + 1

    @property
    def cells(self) -> tuple[tuple[int, int], ...]:
        return tuple(
            (c, r)
            for r in range(self.rows[0], self.rows[1] + 1)
            for c in range(self.columns[0], self.columns[1] + 1)
        )

    def describe(self, total: int) -> str:
        """The words printed on the sheet, such as "sheet 2 of 4: columns f-k, rows 1-6"."""
        first, last = (column_label(c) for c in self.columns)
        return (
            f"sheet {self.number} of {total}: columns {first}-{last}, "
            f"rows {self.rows[0] + 1}-{self.rows[1] + 1}"
        )


@dataclass(frozen=True)
class Plan:
    """The sheets of one overlay, numbered row by row from the sheet holding a1."""

    paper: str
    landscape: bool
    page_mm: tuple[float, float]
    """Width and height of every grid sheet as printed (turned when landscape)."""
    tiles: tuple[Tile, ...]

    def neighbours(self, tile: Tile) -> dict[str, Tile]:
        """The sheets sharing an overlap strip with `tile`, by side (left, right, below, above)."""
        found = {}
        for other in self.tiles:
            same_rows = other.rows == tile.rows
            same_columns = other.columns == tile.columns
            if same_rows and other.columns[0] == tile.columns[1] - OVERLAP + 1:
                found["right"] = other
            if same_rows and other.columns[1] == tile.columns[0] + OVERLAP - 1:
                found["left"] = other
            if same_columns and other.rows[0] == tile.rows[1] - OVERLAP + 1:
                found["above"] = other
            if same_columns and other.rows[1] == tile.rows[0] + OVERLAP - 1:
                found["below"] = other
        return found


def column_label(column: int) -> str:
    return chr(ord("a") + column)


def capacity(page_mm: tuple[float, float], pitch_mm: float) -> tuple[int, int]:
    """Whole cells that fit across and down one sheet, inside the margins, marks and text."""
    width, height = page_mm
    across = (width - 2 * MARGIN - 2 * MARKS) / pitch_mm
    down = (height - 2 * MARGIN - 2 * MARKS - HEADER - FOOTER) / pitch_mm
    return math.floor(across + 1e-9), math.floor(down + 1e-9)


def spans(cells: int, room: int) -> tuple[tuple[int, int], ...]:
    """Cut `cells` into as few runs of at most `room` as overlap allows, each sharing OVERLAP
    cells with the next, as even as can be (the larger runs first)."""
    if cells <= room:
        return ((0, cells - 1),)
    if room <= OVERLAP:
        raise TilingError("no room for more than the overlap")
    count = math.ceil((cells - OVERLAP) / (room - OVERLAP))
    total = cells + OVERLAP * (count - 1)
    sizes = [total // count + (1 if i < total % count else 0) for i in range(count)]
    runs, start = [], 0
    for size in sizes:
        runs.append((start, start + size - 1))
        start += size - OVERLAP
    return tuple(runs)


def plan(width: int, height: int, pitch_mm: float, paper: str) -> Plan:
    """The fewest sheets of `paper` for a `width` x `height` area of `pitch_mm` cells, portrait
    unless landscape takes fewer."""
    portrait = PAPERS[paper]
    best: Plan | None = None
    for landscape in (False, True):
        page = (portrait[1], portrait[0]) if landscape else portrait
        across, down = capacity(page, pitch_mm)
        if across <= OVERLAP or down <= OVERLAP:
            continue
        column_runs, row_runs = spans(width, across), spans(height, down)
        tiles = tuple(
            Tile(n, columns, rows)
            for n, (rows, columns) in enumerate(
                ((r, c) for r in row_runs for c in column_runs), start=1
            )
        )
        if best is None or len(tiles) < len(best.tiles):
            best = Plan(paper, landscape, page, tiles)
    if best is None:
        raise TilingError(f"a {pitch_mm:g} mm cell is too large to print on {paper} paper")
    return best
