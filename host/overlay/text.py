"""Text that must fit: a line shrinks (down to a floor) rather than run off the paper or into a
neighbouring cell, since a sheet's size is fixed by the board's pitch, not by its words."""

from __future__ import annotations

from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

REGULAR = "Helvetica"
BOLD = "Helvetica-Bold"


def fitted_size(text: str, font: str, size: float, width: float, floor: float = 4.0) -> float:
    """The largest size up to `size` at which `text` is at most `width` points wide."""
    natural = stringWidth(text, font, size)
    if natural <= width:
        return size
    return max(floor, size * width / natural)


def line(
    canvas: Canvas,
    x: float,
    y: float,
    text: str,
    font: str = REGULAR,
    size: float = 9,
    width: float | None = None,
    align: str = "left",
) -> None:
    """One line at baseline `y`, shrunk to `width` if given; `align` is left, centre or right."""
    if width is not None:
        size = fitted_size(text, font, size, width)
    canvas.setFont(font, size)
    if align == "centre":
        canvas.drawCentredString(x, y, text)
    elif align == "right":
        canvas.drawRightString(x, y, text)
    else:
        canvas.drawString(x, y, text)


def paragraph(
    canvas: Canvas,
    x: float,
    y: float,
    text: str,
    width: float,
    font: str = REGULAR,
    size: float = 9.0,
) -> float:
    """`text` wrapped to `width` from baseline `y` down; returns the baseline below it."""
    canvas.setFont(font, size)
    for row in simpleSplit(text, font, size, width):
        canvas.drawString(x, y, row)
        y -= size * 1.25
    return y
