"""The overlay's last page: what each kind of square on this board does, and a map of the board.

It lies beside the board rather than on it, so it can be read while the grid is covered in
tokens. The entries are the game's own (`PrintedBoard.legend`): Magnetmen's quote the power text
this board records (main or alternative), because with the `random` powers option two boards of
the same types can play differently. The map shows the
whole lattice with the game's area and the sheets on it, which is how the sheets fit together.
"""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from magboard.firmware.games.core import LegendEntry
from magboard.hardware.spec import cell_label

from . import text
from .layout import Overlay
from .sheet import SHARED_GREY
from .tiling import MARGIN, MM, PAPERS

ENTRY_MM = 17.0
"""Height of one entry: its icon and up to three lines of text."""
ICON_MM = 13.0


def page_size(overlay: Overlay) -> tuple[float, float]:
    """The legend is always portrait: a list reads down the page."""
    width, height = PAPERS[overlay.plan.paper]
    return width * MM, height * MM


def draw_legend(canvas: Canvas, overlay: Overlay) -> None:
    """Draws the legend on the canvas's current page."""
    width, height = page_size(overlay)
    left = 2 * MARGIN * MM
    room = width - 2 * left
    printed = overlay.printed
    y = height - 2 * MARGIN * MM - 14
    text.line(canvas, left, y, printed.legend_title, text.BOLD, 15, width=room)
    y -= 16
    text.line(canvas, left, y, overlay.options(), size=9, width=room)
    y -= 12
    y = text.paragraph(canvas, left, y, overlay.placement.describe(), room, size=9)
    y -= 6
    for entry in printed.legend:
        y = _entry(canvas, overlay, left, y, room, entry)
    y -= 4
    y = text.paragraph(canvas, left, y, printed.legend_note, room, size=8.5)
    _map(canvas, overlay, left, 2 * MARGIN * MM, room, y - 10 - 2 * MARGIN * MM)


def _entry(canvas: Canvas, overlay: Overlay, x: float, y: float, room: float, entry: LegendEntry):
    """One entry: icon, name, its detail line and its text; returns the y below."""
    top = y + 4
    icon = ICON_MM * MM
    overlay.printing.draw_icon(canvas, entry.name, x, top - icon, icon)
    tx = x + icon + 4 * MM
    canvas.setFillGray(0)
    text.line(canvas, tx, y - 6, entry.name, text.BOLD, 11)
    canvas.setFillGray(0.35)
    text.line(canvas, tx + 110, y - 6, entry.detail, size=8.5, width=room - icon - 4 * MM - 110)
    canvas.setFillGray(0)
    text.paragraph(canvas, tx, y - 19, entry.text, room - icon - 4 * MM, size=9.5)
    return y - ENTRY_MM * MM


def _map(canvas: Canvas, overlay: Overlay, x: float, y: float, room: float, tall: float) -> None:
    """The board's lattice with the game's icons on it and each sheet outlined and numbered."""
    place = overlay.placement
    caption = 14
    cell = min(room / (place.columns + 1), (tall - caption) / (place.rows + 1), 8 * MM)
    if cell < 3 * MM:
        return
    left = x + (room - cell * place.columns) / 2
    bottom = y + cell * 0.8
    canvas.setFillGray(0)
    text.line(
        canvas,
        x,
        bottom + cell * (place.rows + 0.6) + 4,
        f"Where the sheets go on board {place.board}: the whole {place.columns}x"
        f"{place.rows} lattice, the game's area in bold, each sheet dashed and numbered, "
        "shared cells shaded",
        text.BOLD,
        9,
        width=room,
    )
    canvas.setStrokeGray(0.7)
    canvas.setLineWidth(0.4)
    for i in range(place.columns + 1):
        canvas.line(left + i * cell, bottom, left + i * cell, bottom + place.rows * cell)
    for j in range(place.rows + 1):
        canvas.line(left, bottom + j * cell, left + place.columns * cell, bottom + j * cell)
    canvas.setFillGray(0.45)
    for i in range(place.columns):
        label = cell_label((i, 0))[0]
        text.line(canvas, left + (i + 0.5) * cell, bottom - 8, label, size=6.5, align="centre")
    for j in range(place.rows):
        text.line(canvas, left - 3, bottom + (j + 0.35) * cell, str(j + 1), size=6.5, align="right")
    printed = overlay.printed
    icon = cell * 0.8
    canvas.setFillGray(SHARED_GREY)
    for c in range(printed.width):
        for r in range(printed.height):
            if len(overlay.sheets_holding((c, r))) > 1:
                bx, by = place.to_board((c, r))
                canvas.rect(left + bx * cell, bottom + by * cell, cell, cell, stroke=0, fill=1)
    for c in range(printed.width):
        for r in range(printed.height):
            bx, by = place.to_board((c, r))
            overlay.printing.draw_icon(
                canvas,
                overlay.name_at((c, r)),
                left + bx * cell + (cell - icon) / 2,
                bottom + by * cell + (cell - icon) / 2,
                icon,
            )
    ox, oy = place.origin
    canvas.setStrokeGray(0)
    canvas.setLineWidth(1.6)
    canvas.rect(
        left + ox * cell,
        bottom + oy * cell,
        printed.width * cell,
        printed.height * cell,
        stroke=1,
        fill=0,
    )
    if len(overlay.plan.tiles) > 1:
        _sheets(canvas, overlay, left + ox * cell, bottom + oy * cell, cell)


def _sheets(canvas: Canvas, overlay: Overlay, x: float, y: float, cell: float) -> None:
    canvas.setLineWidth(1.0)
    canvas.setDash(3, 2)
    inset = cell * 0.08
    for tile in overlay.plan.tiles:
        canvas.setStrokeGray(0)
        canvas.rect(
            x + tile.columns[0] * cell + inset,
            y + tile.rows[0] * cell + inset,
            tile.width * cell - 2 * inset,
            tile.height * cell - 2 * inset,
            stroke=1,
            fill=0,
        )
    canvas.setDash()
    for tile in overlay.plan.tiles:
        cx = x + (tile.columns[0] + tile.width / 2) * cell
        cy = y + (tile.rows[0] + tile.height / 2) * cell
        canvas.setFillGray(1)
        canvas.setStrokeGray(0)
        canvas.circle(cx, cy, 8, stroke=1, fill=1)
        canvas.setFillGray(0)
        text.line(canvas, cx, cy - 3.5, str(tile.number), text.BOLD, 10, align="centre")
