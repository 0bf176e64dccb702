"""One sheet of the overlay: its part of the grid at the board's true pitch, with the marks that
lay it square on the board and the words that say what it is.

The grid's cell edges continue past it as ticks, and crosses stand on its four corners: both
fall on lattice lines and corners of the board, so the sheet can be lined up with the board's
cells even where the paper hides them. Cells shared with a neighbouring sheet are shaded and
say which other sheets hold them.
"""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from magboard.hardware.spec import cell_label

from . import text
from .layout import Overlay
from .tiling import HEADER, MARGIN, MARKS, MM, Tile

SHARED_GREY = 0.88
"""Background of the cells a sheet shares with a neighbour: light enough to keep icons clear."""
LABEL_GREY = 0.4
ICON_SHARE = 0.58
"""An icon's side as a share of the pitch: 17 mm on r1, leaving room for the name and label."""
TICK_MM = 4.0
"""Length of the ticks that continue the cell edges past the grid."""
CROSS_MM = 6.0
"""Arm of the corner crosses, each way along both edges from the corner."""
CROSS_RING_MM = 1.6
"""Radius of the ring round each corner cross, which makes the corner easy to find."""
SCALE_BAR_MM = 100.0


def grid_origin(overlay: Overlay, tile: Tile) -> tuple[float, float]:
    """Bottom-left corner of the tile's grid on its page: centred across, just under the text."""
    width, height = overlay.plan.page_mm
    x = (width * MM - tile.width * overlay.pitch) / 2
    top = (height - MARGIN - HEADER - MARKS) * MM
    return x, top - tile.height * overlay.pitch


def draw_sheet(canvas: Canvas, overlay: Overlay, tile: Tile) -> None:
    """Draws one grid sheet on the canvas's current page."""
    x0, y0 = grid_origin(overlay, tile)
    _cells(canvas, overlay, tile, x0, y0)
    _lines(canvas, overlay, tile, x0, y0)
    _coordinates(canvas, overlay, tile, x0, y0)
    _header(canvas, overlay, tile)
    _footer(canvas, overlay)


def _cells(canvas: Canvas, overlay: Overlay, tile: Tile, x0: float, y0: float) -> None:
    for cell in tile.cells:
        x = x0 + (cell[0] - tile.columns[0]) * overlay.pitch
        y = y0 + (cell[1] - tile.rows[0]) * overlay.pitch
        others = [n for n in overlay.sheets_holding(cell) if n != tile.number]
        _square(canvas, overlay, cell, x, y, others)
    canvas.setFillGray(0)


def _square(
    canvas: Canvas, overlay: Overlay, cell: tuple[int, int], x: float, y: float, others: list[int]
) -> None:
    """One square: its icon and the type's name under it, its coordinate in the top left corner
    and, on a shared strip, a grey ground and the other sheets that hold it."""
    pitch = overlay.pitch
    bg = SHARED_GREY if others else 1.0
    if others:
        canvas.setFillGray(bg)
        canvas.rect(x, y, pitch, pitch, stroke=0, fill=1)
    name = overlay.name_at(cell)
    icon = ICON_SHARE * pitch
    overlay.printing.draw_icon(canvas, name, x + (pitch - icon) / 2, y + 0.255 * pitch, icon, bg)
    canvas.setFillGray(0)
    centre = x + pitch / 2
    size = 0.085 * pitch
    text.line(canvas, centre, y + 0.09 * pitch, name, size=size, width=0.94 * pitch, align="centre")
    canvas.setFillGray(LABEL_GREY)
    top = y + pitch - 0.085 * pitch
    text.line(canvas, x + 0.065 * pitch, top, cell_label(cell), size=0.065 * pitch)
    if others:
        words = ("also on sheets " if len(others) > 1 else "also on sheet ") + ", ".join(
            map(str, others)
        )
        right = x + 0.58 * pitch
        text.line(canvas, right, top, words, size=0.06 * pitch, width=0.7 * pitch, align="centre")


def _lines(canvas: Canvas, overlay: Overlay, tile: Tile, x0: float, y0: float) -> None:
    """Cell edges, their ticks beyond the grid, and the corner crosses."""
    pitch = overlay.pitch
    x1, y1 = x0 + tile.width * pitch, y0 + tile.height * pitch
    tick = TICK_MM * MM
    canvas.setStrokeGray(0)
    canvas.setLineWidth(0.6)
    for i in range(tile.width + 1):
        x = x0 + i * pitch
        canvas.line(x, y0 - tick, x, y1 + tick)
    for j in range(tile.height + 1):
        y = y0 + j * pitch
        canvas.line(x0 - tick, y, x1 + tick, y)
    canvas.setLineWidth(1.2)
    canvas.rect(x0, y0, x1 - x0, y1 - y0, stroke=1, fill=0)
    arm = CROSS_MM * MM
    canvas.setLineWidth(1.0)
    for x in (x0, x1):
        for y in (y0, y1):
            canvas.line(x - arm, y, x + arm, y)
            canvas.line(x, y - arm, x, y + arm)
            canvas.circle(x, y, CROSS_RING_MM * MM, stroke=1, fill=0)


def _coordinates(canvas: Canvas, overlay: Overlay, tile: Tile, x0: float, y0: float) -> None:
    """Column letters and row numbers round the grid, between the ticks."""
    pitch = overlay.pitch
    x1, y1 = x0 + tile.width * pitch, y0 + tile.height * pitch
    size = 9
    canvas.setFillGray(0)
    for i, column in enumerate(range(tile.columns[0], tile.columns[1] + 1)):
        x = x0 + (i + 0.5) * pitch
        letter = cell_label((column, 0))[0]
        text.line(canvas, x, y0 - 2 * MM - size * 0.7, letter, text.BOLD, size, align="centre")
        text.line(canvas, x, y1 + 2 * MM, letter, text.BOLD, size, align="centre")
    for j, row in enumerate(range(tile.rows[0], tile.rows[1] + 1)):
        y = y0 + (j + 0.5) * pitch - size * 0.35
        number = str(row + 1)
        text.line(canvas, x0 - 2 * MM, y, number, text.BOLD, size, align="right")
        text.line(canvas, x1 + 2 * MM, y, number, text.BOLD, size)


def _header(canvas: Canvas, overlay: Overlay, tile: Tile) -> None:
    width, height = overlay.plan.page_mm
    left, room = MARGIN * MM, (width - 2 * MARGIN) * MM
    y = (height - MARGIN) * MM - 10
    text.line(canvas, left, y, overlay.options(), text.BOLD, 11, width=room)
    text.line(canvas, left, y - 12, overlay.placement.describe(), size=8, width=room)
    where = tile.describe(len(overlay.plan.tiles))
    where = where[0].upper() + where[1:]
    if len(overlay.plan.tiles) > 1:
        where += ". Shaded cells are on a neighbouring sheet too: lay the sheets so they coincide."
    text.line(canvas, left, y - 23, where, text.BOLD, 8, width=room)


def _footer(canvas: Canvas, overlay: Overlay) -> None:
    """A 100 mm scale bar, to check the print was not scaled, and how to lay the sheet."""
    width, _ = overlay.plan.page_mm
    left, room = MARGIN * MM, (width - 2 * MARGIN) * MM
    y = (MARGIN + 5.5) * MM
    bar = SCALE_BAR_MM * MM
    canvas.setLineWidth(0.8)
    canvas.line(left, y, left + bar, y)
    for i in range(11):
        canvas.line(left + i * bar / 10, y, left + i * bar / 10, y + (2.5 if i % 5 else 4) * MM)
    text.line(
        canvas,
        left + bar + 3 * MM,
        y,
        "100 mm: print at actual size (100%, no fit to page) and check this bar",
        size=7,
        width=room - bar - 3 * MM,
    )
    text.line(
        canvas,
        left,
        MARGIN * MM + 1,
        "Lay the sheet so its corner crosses sit on "
        "lattice corners of the board and its ticks run along the board's cell edges.",
        size=7,
        width=room,
    )
