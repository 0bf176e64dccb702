"""The overlay's pictograms as SVG path data, for screens (the simulator's page): traced from the
very drawings `icons` prints, so a type looks the same on paper and on screen and is drawn in one
place only.

`TracingCanvas` stands in for a reportlab canvas: it takes the calls the icons make, builds each
shape with reportlab's own path geometry (arcs, circles, rounded corners become Bézier curves),
and keeps it as a path in the icon's 100 x 100 box with y growing downwards, as SVG has it. A
shape is {"d": path data, "fill": "ink", "paper" or None, "stroke": the same, "width": line
width}: "ink" is the icon's black, "paper" the square behind it (the cut-outs). Shapes fill by
the even-odd rule and stroke with round caps and joins, as the printed ones do.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from reportlab.pdfgen.pathobject import PDFPathObject

from .icons import ICONS, INK, STROKE

Matrix = tuple[float, float, float, float, float, float]
"""An affine map (a, b, c, d, e, f): x' = a x + c y + e, y' = b x + d y + f."""

PAPER = 1.0
"""The background grey the tracing passes to an icon: any grey but INK tells cut-outs apart."""
FLIP: Matrix = (1.0, 0.0, 0.0, -1.0, 0.0, 100.0)
"""From the icon's box (0,0 bottom left) to SVG's (0,0 top left)."""


def _then(m: Matrix, n: Matrix) -> Matrix:
    """`n` applied first, then `m`."""
    a, b, c, d, e, f = m
    na, nb, nc, nd, ne, nf = n
    return (
        a * na + c * nb,
        b * na + d * nb,
        a * nc + c * nd,
        b * nc + d * nd,
        a * ne + c * nf + e,
        b * ne + d * nf + f,
    )


def _num(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class TracedPath(PDFPathObject):
    """A reportlab path whose points are kept, mapped by the canvas's matrix when added."""

    def __init__(self, matrix: Matrix) -> None:
        super().__init__()
        self.matrix = matrix
        self.parts: list[str] = []

    def _points(self, *xy: float) -> str:
        a, b, c, d, e, f = self.matrix
        pairs = zip(xy[::2], xy[1::2], strict=True)
        return " ".join(f"{_num(a * x + c * y + e)} {_num(b * x + d * y + f)}" for x, y in pairs)

    def moveTo(self, x: float, y: float) -> None:
        self.parts.append(f"M{self._points(x, y)}")

    def lineTo(self, x: float, y: float) -> None:
        self.parts.append(f"L{self._points(x, y)}")

    def curveTo(self, x1: float, y1: float, x2: float, y2: float, x3: float, y3: float) -> None:
        self.parts.append(f"C{self._points(x1, y1, x2, y2, x3, y3)}")

    def rect(self, x: float, y: float, width: float, height: float) -> None:
        self.moveTo(x, y)
        self.lineTo(x + width, y)
        self.lineTo(x + width, y + height)
        self.lineTo(x, y + height)
        self.close()

    def close(self) -> None:
        self.parts.append("Z")


class TracingCanvas:
    """The part of reportlab's canvas the icons use, keeping shapes instead of writing a PDF."""

    def __init__(self) -> None:
        self.shapes: list[dict[str, Any]] = []
        self._matrix = FLIP
        self._fill = INK
        self._stroke = INK
        self._width = STROKE
        self._saved: list[tuple[Matrix, float, float, float]] = []

    # The graphics state.

    def saveState(self) -> None:
        self._saved.append((self._matrix, self._fill, self._stroke, self._width))

    def restoreState(self) -> None:
        self._matrix, self._fill, self._stroke, self._width = self._saved.pop()

    def translate(self, dx: float, dy: float) -> None:
        self._matrix = _then(self._matrix, (1, 0, 0, 1, dx, dy))

    def scale(self, x: float, y: float) -> None:
        self._matrix = _then(self._matrix, (x, 0, 0, y, 0, 0))

    def rotate(self, degrees: float) -> None:
        cos, sin = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
        self._matrix = _then(self._matrix, (cos, sin, -sin, cos, 0, 0))

    def setLineWidth(self, width: float) -> None:
        self._width = width

    def setFillGray(self, grey: float) -> None:
        self._fill = grey

    def setStrokeGray(self, grey: float) -> None:
        self._stroke = grey

    def setLineCap(self, mode: int) -> None:
        pass

    def setLineJoin(self, mode: int) -> None:
        pass

    # Shapes.

    def beginPath(self) -> TracedPath:
        return TracedPath(self._matrix)

    def drawPath(self, path: TracedPath, stroke: int = 1, fill: int = 0) -> None:
        a, b, c, d, _, _ = self._matrix
        self.shapes.append(
            {
                "d": "".join(path.parts),
                "fill": _colour(self._fill) if fill else None,
                "stroke": _colour(self._stroke) if stroke else None,
                "width": float(_num(self._width * math.sqrt(abs(a * d - b * c)))),
            }
        )

    def _shape(self, build: str, *args: float, stroke: int, fill: int) -> None:
        path = self.beginPath()
        getattr(path, build)(*args)
        self.drawPath(path, stroke=stroke, fill=fill)

    def line(self, x1: float, y1: float, x2: float, y2: float) -> None:
        path = self.beginPath()
        path.moveTo(x1, y1)
        path.lineTo(x2, y2)
        self.drawPath(path, stroke=1, fill=0)

    def rect(self, x: float, y: float, w: float, h: float, stroke: int = 1, fill: int = 0) -> None:
        self._shape("rect", x, y, w, h, stroke=stroke, fill=fill)

    def roundRect(
        self, x: float, y: float, w: float, h: float, r: float, stroke: int = 1, fill: int = 0
    ) -> None:
        self._shape("roundRect", x, y, w, h, r, stroke=stroke, fill=fill)

    def circle(self, x: float, y: float, r: float, stroke: int = 1, fill: int = 0) -> None:
        self._shape("circle", x, y, r, stroke=stroke, fill=fill)

    def ellipse(
        self, x1: float, y1: float, x2: float, y2: float, stroke: int = 1, fill: int = 0
    ) -> None:
        self._shape("ellipse", x1, y1, x2 - x1, y2 - y1, stroke=stroke, fill=fill)

    def wedge(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        start: float,
        extent: float,
        stroke: int = 1,
        fill: int = 0,
    ) -> None:
        path = self.beginPath()
        path.moveTo((x1 + x2) / 2, (y1 + y2) / 2)
        path.arcTo(x1, y1, x2, y2, start, extent)
        path.close()
        self.drawPath(path, stroke=stroke, fill=fill)


def _colour(grey: float) -> str:
    return "ink" if grey == INK else "paper"


@cache
def traced(name: str) -> tuple[dict[str, Any], ...]:
    """The shapes of type `name`'s icon, in drawing order (KeyError for a type without one)."""
    canvas = TracingCanvas()
    ICONS[name](canvas, PAPER)  # type: ignore[arg-type]
    return tuple(canvas.shapes)
