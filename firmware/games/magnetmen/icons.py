"""The 24 Magnetman pictograms, drawn as vector paths so they print sharp at any pitch.

Each icon is drawn in its own 100 x 100 box (0,0 bottom left) in black ink, with cut-outs in the
colour of the square behind it, so an icon on a shaded overlap strip keeps its shape. They are
simple on purpose: a person must tell the types apart at a glance from across the board, in
black and white, at about 17 mm.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from reportlab.pdfgen.canvas import Canvas

Point = tuple[float, float]
Draw = Callable[[Canvas, float], None]
"""An icon: draws on a canvas already scaled to the 100-unit box; the float is the background
grey the cut-outs take."""

INK = 0.0
STROKE = 5.0
"""Default line width in box units: 0.85 mm at a 17 mm icon."""


def draw_icon(canvas: Canvas, name: str, x: float, y: float, size: float, bg: float = 1.0) -> None:
    """The icon of type `name` in the `size` square whose bottom-left corner is at (x, y)."""
    canvas.saveState()
    canvas.translate(x, y)
    canvas.scale(size / 100, size / 100)
    canvas.setLineWidth(STROKE)
    canvas.setLineCap(1)
    canvas.setLineJoin(1)
    canvas.setStrokeGray(INK)
    canvas.setFillGray(INK)
    ICONS[name](canvas, bg)
    canvas.restoreState()


# Helpers: shapes every icon builds on.


def _polygon(c: Canvas, points: Iterable[Point], stroke: int = 0, fill: int = 1) -> None:
    path = c.beginPath()
    first, *rest = points
    path.moveTo(*first)
    for point in rest:
        path.lineTo(*point)
    path.close()
    c.drawPath(path, stroke=stroke, fill=fill)


def _star(c: Canvas, cx: float, cy: float, outer: float, inner: float, points: int = 5) -> None:
    corners = []
    for i in range(points * 2):
        radius = outer if i % 2 == 0 else inner
        angle = math.pi / 2 + i * math.pi / points
        corners.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    _polygon(c, corners)


def _ink(c: Canvas) -> None:
    c.setFillGray(INK)
    c.setStrokeGray(INK)


def _paper(c: Canvas, bg: float) -> None:
    c.setFillGray(bg)
    c.setStrokeGray(bg)


# The icons, in the order of KINDS.


def guitarist(c: Canvas, bg: float) -> None:
    """A guitar, leaning."""
    c.translate(53, 47)
    c.rotate(-40)
    c.scale(0.9, 0.9)
    c.rect(-4.5, 10, 9, 38, stroke=0, fill=1)  # neck
    c.roundRect(-8, 44, 16, 15, 3, stroke=0, fill=1)  # head
    for y in (48, 54):
        c.circle(-10, y, 2.5, stroke=0, fill=1)
        c.circle(10, y, 2.5, stroke=0, fill=1)
    c.circle(0, -24, 24, stroke=0, fill=1)  # lower bout
    c.circle(0, 4, 18, stroke=0, fill=1)  # upper bout
    _paper(c, bg)
    c.circle(0, -5, 7.5, stroke=0, fill=1)  # sound hole
    c.rect(-10, -35, 20, 4.5, stroke=0, fill=1)  # bridge
    c.setLineWidth(1.2)
    for dx in (-2, 0, 2):
        c.line(dx, -33, dx, 46)


def veterinarian(c: Canvas, bg: float) -> None:
    """A paw print with a cross in its pad: care for animals."""
    path = c.beginPath()
    path.moveTo(50, 62)
    path.curveTo(66, 62, 84, 44, 80, 28)
    path.curveTo(77, 14, 62, 16, 50, 16)
    path.curveTo(38, 16, 23, 14, 20, 28)
    path.curveTo(16, 44, 34, 62, 50, 62)
    c.drawPath(path, stroke=0, fill=1)
    for cx, cy, angle in ((16, 60, 25), (36, 80, 8), (64, 80, -8), (84, 60, -25)):
        c.saveState()
        c.translate(cx, cy)
        c.rotate(angle)
        c.ellipse(-9, -12, 9, 12, stroke=0, fill=1)
        c.restoreState()
    _paper(c, bg)
    c.rect(46, 26, 8, 26, stroke=0, fill=1)
    c.rect(37, 35, 26, 8, stroke=0, fill=1)


def athlete(c: Canvas, bg: float) -> None:
    """A winner's medal on its ribbon."""
    c.setLineWidth(3)
    c.setStrokeGray(bg)
    _polygon(c, [(18, 98), (36, 98), (58, 56), (40, 56)], stroke=1)
    _polygon(c, [(64, 98), (82, 98), (60, 56), (42, 56)], stroke=1)
    c.circle(50, 36, 28, stroke=1, fill=1)
    c.setLineWidth(3)
    c.circle(50, 36, 21, stroke=1, fill=0)
    _paper(c, bg)
    _star(c, 50, 35, 14, 6)


def ballerina(c: Canvas, bg: float) -> None:
    """A dancer in a tutu, on her toes, arms raised in a ring."""
    c.circle(50, 78, 9, stroke=0, fill=1)  # head
    c.circle(50, 89, 5, stroke=0, fill=1)  # bun
    _polygon(c, [(41, 69), (59, 69), (55, 46), (45, 46)])  # bodice
    c.setLineWidth(5)
    arms = c.beginPath()
    arms.moveTo(43, 67)
    arms.curveTo(20, 70, 22, 97, 42, 98)
    arms.moveTo(57, 67)
    arms.curveTo(80, 70, 78, 97, 58, 98)
    c.drawPath(arms, stroke=1, fill=0)
    tutu = c.beginPath()
    tutu.moveTo(10, 48)
    for i in range(1, 9):
        x = 10 + i * 10
        tutu.lineTo(x - 5, 37)
        tutu.lineTo(x, 48)
    tutu.curveTo(72, 60, 28, 60, 10, 48)
    c.drawPath(tutu, stroke=0, fill=1)
    c.setLineWidth(6)
    legs = c.beginPath()
    legs.moveTo(46, 40)
    legs.lineTo(46, 5)  # standing leg, on pointe
    legs.moveTo(54, 40)
    legs.lineTo(67, 24)
    legs.lineTo(49, 17)  # the other bent to its knee
    c.drawPath(legs, stroke=1, fill=0)


def knitting_lady(c: Canvas, bg: float) -> None:
    """A ball of yarn pierced by two knitting needles, a strand trailing off."""
    c.setLineWidth(5)
    c.line(22, 14, 84, 92)
    c.line(82, 14, 26, 92)
    c.circle(86, 95, 5, stroke=0, fill=1)
    c.circle(24, 95, 5, stroke=0, fill=1)
    c.circle(48, 42, 30, stroke=0, fill=1)
    strand = c.beginPath()
    strand.moveTo(60, 14)
    strand.curveTo(76, 2, 86, 18, 96, 8)
    c.drawPath(strand, stroke=1, fill=0)
    _paper(c, bg)
    c.setLineWidth(2.6)
    wraps = c.beginPath()
    wraps.moveTo(24, 58)
    wraps.curveTo(40, 46, 58, 44, 76, 50)
    wraps.moveTo(20, 42)
    wraps.curveTo(38, 30, 60, 28, 78, 36)
    wraps.moveTo(26, 24)
    wraps.curveTo(40, 18, 56, 16, 68, 20)
    wraps.moveTo(40, 70)
    wraps.curveTo(30, 56, 30, 34, 40, 14)
    c.drawPath(wraps, stroke=1, fill=0)


def baby(c: Canvas, bg: float) -> None:
    """A feeding bottle, half full."""
    teat = c.beginPath()
    teat.moveTo(36, 74)
    teat.curveTo(38, 84, 43, 86, 44, 91)
    teat.curveTo(45, 100, 55, 100, 56, 91)
    teat.curveTo(57, 86, 62, 84, 64, 74)
    teat.close()
    c.drawPath(teat, stroke=0, fill=1)
    c.roundRect(26, 64, 48, 12, 3, stroke=0, fill=1)  # collar
    c.setFillGray(bg)
    c.setLineWidth(4.5)
    c.roundRect(30, 6, 40, 56, 9, stroke=1, fill=1)  # bottle
    c.setFillGray(INK)
    milk = c.beginPath()
    milk.moveTo(30, 32)
    milk.lineTo(70, 32)
    milk.lineTo(70, 15)
    milk.curveTo(70, 10, 66, 6, 61, 6)
    milk.lineTo(39, 6)
    milk.curveTo(34, 6, 30, 10, 30, 15)
    milk.close()
    c.drawPath(milk, stroke=0, fill=1)
    c.setLineWidth(3)
    for y in (42, 52):
        c.line(30, y, 42, y)


def elderly_man(c: Canvas, bg: float) -> None:
    """A bald head with round spectacles, bushy brows and a moustache."""
    c.setFillGray(bg)
    c.setLineWidth(5)
    head = c.beginPath()
    head.moveTo(18, 56)
    head.curveTo(18, 102, 82, 102, 82, 56)
    head.curveTo(82, 22, 68, 8, 50, 8)
    head.curveTo(32, 8, 18, 22, 18, 56)
    c.drawPath(head, stroke=1, fill=1)
    _ink(c)
    for side in (-1, 1):
        c.circle(50 + side * 34, 52, 6, stroke=0, fill=1)  # ears
        tuft = c.beginPath()  # hair left over the ears
        tuft.moveTo(50 + side * 33, 60)
        tuft.curveTo(50 + side * 40, 66, 50 + side * 36, 76, 50 + side * 30, 80)
        tuft.lineTo(50 + side * 28, 70)
        tuft.close()
        c.drawPath(tuft, stroke=0, fill=1)
    c.setLineWidth(3.5)
    c.circle(38, 54, 9, stroke=1, fill=0)
    c.circle(62, 54, 9, stroke=1, fill=0)
    c.line(47, 56, 53, 56)
    c.setLineWidth(5)
    c.line(30, 68, 44, 70)
    c.line(56, 70, 70, 68)
    moustache = c.beginPath()
    moustache.moveTo(50, 38)
    moustache.curveTo(40, 42, 30, 36, 28, 28)
    moustache.curveTo(36, 32, 44, 30, 50, 32)
    moustache.curveTo(56, 30, 64, 32, 72, 28)
    moustache.curveTo(70, 36, 60, 42, 50, 38)
    c.drawPath(moustache, stroke=0, fill=1)


def explorer(c: Canvas, bg: float) -> None:
    """A compass, its needle pointing north."""
    c.setLineWidth(6)
    c.circle(50, 50, 42, stroke=1, fill=0)
    c.setLineWidth(4)
    for angle in range(0, 360, 45):
        a = math.radians(angle)
        inner = 32 if angle % 90 == 0 else 35
        c.line(
            50 + inner * math.cos(a),
            50 + inner * math.sin(a),
            50 + 38 * math.cos(a),
            50 + 38 * math.sin(a),
        )
    _polygon(c, [(50, 86), (60, 50), (40, 50)])
    c.setFillGray(bg)
    c.setLineWidth(3.5)
    _polygon(c, [(50, 14), (60, 50), (40, 50)], stroke=1)
    c.setFillGray(INK)
    c.circle(50, 50, 5, stroke=0, fill=1)


def astronaut(c: Canvas, bg: float) -> None:
    """A rocket lifting off."""
    body = c.beginPath()
    body.moveTo(50, 98)
    body.curveTo(64, 86, 68, 72, 67, 56)
    body.lineTo(66, 30)
    body.lineTo(34, 30)
    body.lineTo(33, 56)
    body.curveTo(32, 72, 36, 86, 50, 98)
    c.drawPath(body, stroke=0, fill=1)
    _polygon(c, [(34, 56), (16, 30), (16, 18), (34, 30)])
    _polygon(c, [(66, 56), (84, 30), (84, 18), (66, 30)])
    _polygon(c, [(42, 30), (58, 30), (56, 24), (44, 24)])  # nozzle
    flame = c.beginPath()
    flame.moveTo(42, 20)
    flame.curveTo(40, 12, 46, 8, 50, 2)
    flame.curveTo(54, 8, 60, 12, 58, 20)
    flame.close()
    c.drawPath(flame, stroke=0, fill=1)
    _paper(c, bg)
    c.circle(50, 62, 9, stroke=0, fill=1)
    _ink(c)
    c.circle(50, 62, 5, stroke=0, fill=1)


def doctor(c: Canvas, bg: float) -> None:
    """The medical cross, in a ring."""
    c.setLineWidth(5)
    c.circle(50, 50, 44, stroke=1, fill=0)
    c.roundRect(38, 14, 24, 72, 3, stroke=0, fill=1)
    c.roundRect(14, 38, 72, 24, 3, stroke=0, fill=1)


def firefighter(c: Canvas, bg: float) -> None:
    """A flame, with a hotter flame inside it."""
    outer = c.beginPath()
    outer.moveTo(50, 4)
    outer.curveTo(24, 4, 12, 24, 18, 46)
    outer.curveTo(22, 60, 30, 66, 30, 78)
    outer.curveTo(38, 72, 42, 64, 40, 54)
    outer.curveTo(50, 64, 58, 80, 52, 98)
    outer.curveTo(74, 86, 84, 64, 80, 40)
    outer.curveTo(78, 18, 68, 4, 50, 4)
    outer.close()
    c.drawPath(outer, stroke=0, fill=1)
    _paper(c, bg)
    inner = c.beginPath()
    inner.moveTo(50, 12)
    inner.curveTo(36, 12, 30, 24, 34, 36)
    inner.curveTo(38, 46, 48, 50, 52, 62)
    inner.curveTo(62, 50, 68, 40, 66, 28)
    inner.curveTo(64, 18, 58, 12, 50, 12)
    inner.close()
    c.drawPath(inner, stroke=0, fill=1)


def police(c: Canvas, bg: float) -> None:
    """A shield badge with a star."""
    shield = c.beginPath()
    shield.moveTo(50, 96)
    shield.curveTo(62, 88, 74, 86, 86, 86)
    shield.curveTo(88, 50, 78, 18, 50, 4)
    shield.curveTo(22, 18, 12, 50, 14, 86)
    shield.curveTo(26, 86, 38, 88, 50, 96)
    shield.close()
    c.drawPath(shield, stroke=0, fill=1)
    _paper(c, bg)
    c.setLineWidth(3)
    inner = c.beginPath()
    inner.moveTo(50, 88)
    inner.curveTo(60, 82, 70, 80, 79, 80)
    inner.curveTo(80, 50, 72, 24, 50, 12)
    inner.curveTo(28, 24, 20, 50, 21, 80)
    inner.curveTo(30, 80, 40, 82, 50, 88)
    c.drawPath(inner, stroke=1, fill=0)
    _star(c, 50, 50, 22, 9)


def baker(c: Canvas, bg: float) -> None:
    """A chef's toque: the puffed crown over its pleated band."""
    c.circle(28, 64, 18, stroke=0, fill=1)
    c.circle(50, 74, 22, stroke=0, fill=1)
    c.circle(72, 64, 18, stroke=0, fill=1)
    _polygon(c, [(16, 56), (84, 56), (76, 34), (24, 34)])
    c.rect(24, 10, 52, 22, stroke=0, fill=1)
    _paper(c, bg)
    c.setLineWidth(3)
    c.line(22, 33, 78, 33)  # the gap between crown and band
    for x in (37, 50, 63):
        c.line(x, 36, x + (x - 50) * 0.15, 58)


def judge(c: Canvas, bg: float) -> None:
    """The scales of justice."""
    _polygon(c, [(30, 6), (70, 6), (62, 14), (38, 14)])  # foot
    c.rect(46.5, 12, 7, 74, stroke=0, fill=1)  # post
    c.circle(50, 88, 6, stroke=0, fill=1)
    c.setLineWidth(5)
    c.line(12, 78, 88, 78)  # beam
    c.setLineWidth(2.5)
    for x in (18, 82):
        c.line(x, 78, x - 13, 46)
        c.line(x, 78, x + 13, 46)
        pan = c.beginPath()
        pan.moveTo(x - 16, 46)
        pan.lineTo(x + 16, 46)
        pan.curveTo(x + 14, 34, x - 14, 34, x - 16, 46)
        c.drawPath(pan, stroke=0, fill=1)


def king(c: Canvas, bg: float) -> None:
    """A crown with three points and jewels in its band."""
    _polygon(c, [(12, 32), (10, 74), (32, 52), (50, 84), (68, 52), (90, 74), (88, 32)])
    for x, y in ((10, 78), (50, 89), (90, 78)):
        c.circle(x, y, 6, stroke=0, fill=1)
    c.rect(12, 14, 76, 15, stroke=0, fill=1)
    _paper(c, bg)
    for x in (30, 50, 70):
        c.circle(x, 21.5, 4, stroke=0, fill=1)
    c.circle(50, 48, 6, stroke=0, fill=1)


def mail_carrier(c: Canvas, bg: float) -> None:
    """An envelope, flap closed."""
    c.setLineWidth(6)
    c.setFillGray(bg)
    c.rect(8, 20, 84, 60, stroke=1, fill=1)
    c.setLineWidth(5)
    flap = c.beginPath()
    flap.moveTo(8, 80)
    flap.lineTo(50, 44)
    flap.lineTo(92, 80)
    flap.moveTo(8, 20)
    flap.lineTo(39, 52)
    flap.moveTo(92, 20)
    flap.lineTo(61, 52)
    c.drawPath(flap, stroke=1, fill=0)


def painter(c: Canvas, bg: float) -> None:
    """A painter's palette with its thumb hole and four dabs of paint."""
    palette = c.beginPath()
    palette.moveTo(52, 92)
    palette.curveTo(80, 92, 98, 70, 94, 46)
    palette.curveTo(90, 22, 70, 8, 46, 8)
    palette.curveTo(22, 8, 6, 26, 6, 50)
    palette.curveTo(6, 60, 14, 66, 24, 62)
    palette.curveTo(34, 58, 40, 62, 36, 72)
    palette.curveTo(32, 84, 38, 92, 52, 92)
    palette.close()
    c.drawPath(palette, stroke=0, fill=1)
    _paper(c, bg)
    c.ellipse(22, 30, 36, 42, stroke=0, fill=1)  # thumb hole
    for x, y, r in ((54, 76, 8), (76, 66, 8), (78, 42, 8), (58, 24, 8)):
        c.circle(x, y, r, stroke=0, fill=1)
    _ink(c)
    for x, y in ((54, 76), (78, 42)):
        c.circle(x, y, 4, stroke=0, fill=1)


def photographer(c: Canvas, bg: float) -> None:
    """A camera: body, lens, viewfinder hump, flash and shutter button."""
    c.roundRect(28, 70, 26, 12, 3, stroke=0, fill=1)  # viewfinder hump
    c.rect(12, 72, 12, 6, stroke=0, fill=1)  # shutter button
    c.roundRect(6, 18, 88, 58, 9, stroke=0, fill=1)
    _paper(c, bg)
    c.circle(50, 46, 22, stroke=0, fill=1)
    c.rect(72, 62, 14, 7, stroke=0, fill=1)  # flash
    _ink(c)
    c.circle(50, 46, 15, stroke=0, fill=1)
    _paper(c, bg)
    c.circle(44, 52, 4, stroke=0, fill=1)  # glint


def hairdresser(c: Canvas, bg: float) -> None:
    """Open scissors, points up."""
    for blade in (
        [(40, 38), (47, 34), (82, 96), (76, 97)],
        [(60, 38), (53, 34), (18, 96), (24, 97)],
    ):
        _polygon(c, blade)
    c.setLineWidth(6)
    c.circle(30, 22, 12, stroke=1, fill=0)
    c.circle(70, 22, 12, stroke=1, fill=0)
    c.setLineWidth(6)
    c.line(37, 32, 44, 40)
    c.line(63, 32, 56, 40)
    _paper(c, bg)
    c.circle(50, 47, 3, stroke=0, fill=1)  # pivot


def life_guard(c: Canvas, bg: float) -> None:
    """A lifebuoy, banded."""
    c.circle(50, 50, 44, stroke=0, fill=1)
    _paper(c, bg)
    for start in (30, 120, 210, 300):
        c.wedge(6, 6, 94, 94, start, 30, stroke=0, fill=1)
    c.circle(50, 50, 20, stroke=0, fill=1)
    _ink(c)
    c.setLineWidth(4)
    c.circle(50, 50, 42, stroke=1, fill=0)
    c.circle(50, 50, 20, stroke=1, fill=0)


def _mask(c: Canvas, cx: float, cy: float, smile: bool, bg: float, solid: bool) -> None:
    face = c.beginPath()
    face.moveTo(cx - 24, cy + 22)
    face.curveTo(cx - 8, cy + 28, cx + 8, cy + 28, cx + 24, cy + 22)
    face.curveTo(cx + 26, cy - 4, cx + 18, cy - 28, cx, cy - 30)
    face.curveTo(cx - 18, cy - 28, cx - 26, cy - 4, cx - 24, cy + 22)
    face.close()
    c.setLineWidth(4)
    c.setFillGray(INK if solid else bg)
    c.drawPath(face, stroke=1, fill=1)
    if solid:
        _paper(c, bg)
    else:
        _ink(c)
    c.setLineWidth(4.5)
    slant = 1 if smile else -1
    for side in (-1, 1):
        eye = c.beginPath()
        eye.moveTo(cx + side * 16, cy + 10 - slant * 2)
        eye.curveTo(
            cx + side * 12,
            cy + 14 + slant * 3,
            cx + side * 6,
            cy + 14 + slant * 3,
            cx + side * 4,
            cy + 10 - slant * 2,
        )
        c.drawPath(eye, stroke=1, fill=0)
    mouth = c.beginPath()
    mouth.moveTo(cx - 12, cy - 8)
    mouth.curveTo(cx - 6, cy - 8 - slant * 12, cx + 6, cy - 8 - slant * 12, cx + 12, cy - 8)
    c.drawPath(mouth, stroke=1, fill=0)


def actress(c: Canvas, bg: float) -> None:
    """The theatre's two masks, tragedy behind comedy."""
    _mask(c, 36, 64, smile=False, bg=bg, solid=False)
    _mask(c, 64, 38, smile=True, bg=bg, solid=True)
    _ink(c)


def singer(c: Canvas, bg: float) -> None:
    """A stage microphone in its holder."""
    c.roundRect(36, 46, 28, 50, 14, stroke=0, fill=1)
    c.setLineWidth(5)
    holder = c.beginPath()
    holder.moveTo(26, 66)
    holder.curveTo(26, 40, 74, 40, 74, 66)
    c.drawPath(holder, stroke=1, fill=0)
    c.line(50, 40, 50, 14)
    c.line(32, 12, 68, 12)
    _paper(c, bg)
    c.setLineWidth(2.5)
    for y in (62, 70, 78, 86):
        c.line(40, y, 60, y)


def taxi_driver(c: Canvas, bg: float) -> None:
    """A car with a chequered taxi sign on its roof."""
    _polygon(c, [(26, 50), (34, 72), (68, 72), (78, 50)])  # cabin
    c.roundRect(4, 24, 92, 28, 8, stroke=0, fill=1)  # body
    c.rect(38, 76, 26, 12, stroke=0, fill=1)  # roof sign
    _paper(c, bg)
    _polygon(c, [(32, 52), (38, 67), (49, 67), (49, 52)])
    _polygon(c, [(54, 52), (54, 67), (64, 67), (72, 52)])
    for i in range(4):
        c.rect(39.5 + i * 6, 77.5 + (i % 2) * 4.5, 5.5, 4.5, stroke=0, fill=1)
    for x in (26, 74):
        c.circle(x, 22, 14, stroke=0, fill=1)
        _ink(c)
        c.circle(x, 22, 11, stroke=0, fill=1)
        _paper(c, bg)
        c.circle(x, 22, 4, stroke=0, fill=1)


def pilot(c: Canvas, bg: float) -> None:
    """An aeroplane seen from above."""
    c.roundRect(44, 6, 12, 90, 6, stroke=0, fill=1)  # fuselage
    _polygon(c, [(48, 66), (4, 40), (4, 32), (48, 46)])
    _polygon(c, [(52, 66), (96, 40), (96, 32), (52, 46)])
    _polygon(c, [(48, 22), (28, 10), (28, 4), (48, 10)])
    _polygon(c, [(52, 22), (72, 10), (72, 4), (52, 10)])


ICONS: dict[str, Draw] = {
    "Guitarist": guitarist,
    "Veterinarian": veterinarian,
    "Athlete": athlete,
    "Ballerina": ballerina,
    "Knitting Lady": knitting_lady,
    "Baby": baby,
    "Elderly Man": elderly_man,
    "Explorer": explorer,
    "Astronaut": astronaut,
    "Doctor": doctor,
    "Firefighter": firefighter,
    "Police": police,
    "Baker": baker,
    "Judge": judge,
    "King": king,
    "Mail Carrier": mail_carrier,
    "Painter": painter,
    "Photographer": photographer,
    "Hairdresser": hairdresser,
    "Life Guard": life_guard,
    "Actress": actress,
    "Singer": singer,
    "Taxi Driver": taxi_driver,
    "Pilot": pilot,
}
"""Every type's icon, in the order of KINDS."""
