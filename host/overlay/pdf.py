"""The overlay as PDF bytes: the grid sheets in order, then the legend.

The document is built in memory and written only once it is whole, so a failed run never
leaves half a file. It is invariant (no creation date, a fixed document id): the same seed and
options give the same bytes, so a lost or worn sheet can be printed again from its seed alone.
"""

from __future__ import annotations

import io

from reportlab.pdfgen.canvas import Canvas

from .layout import Overlay
from .legend import draw_legend
from .legend import page_size as legend_size
from .sheet import draw_sheet
from .tiling import MM


def render(overlay: Overlay) -> bytes:
    """The whole document: a page per sheet of the plan, then the legend page."""
    out = io.BytesIO()
    width, height = overlay.plan.page_mm
    canvas = Canvas(out, pagesize=(width * MM, height * MM), invariant=1, pageCompression=1)
    canvas.setTitle(overlay.printed.title)
    canvas.setAuthor("magboard")
    canvas.setSubject(overlay.placement.describe())
    for tile in overlay.plan.tiles:
        canvas.setPageSize((width * MM, height * MM))
        draw_sheet(canvas, overlay, tile)
        canvas.showPage()
    canvas.setPageSize(legend_size(overlay))
    draw_legend(canvas, overlay)
    canvas.showPage()
    canvas.save()
    return out.getvalue()
