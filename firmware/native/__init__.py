"""Kernels that run on every move, in C with a pure-Python twin that gives the same answers.

The line detector: which labels own `run` cells in a row, a column or a diagonal, on a board of at
most 16x16 cells given as one byte per cell (a mask of the labels the cell counts as), row 0 at the
bottom. `MAGBOARD_NATIVE=auto|c|python` picks the implementation at import; `backend` says which
one loaded. The functions below are that implementation's own, with no dispatch in between.
"""

from .selection import BackendError, load, requested
from .shape import CellsError, Lines, LineShape, ShapeError

backend, _impl = load(requested())

winners = _impl.winners
find_lines = _impl.find_lines
winners_batch = _impl.winners_batch

__all__ = [
    "BackendError",
    "CellsError",
    "LineShape",
    "Lines",
    "ShapeError",
    "backend",
    "find_lines",
    "winners",
    "winners_batch",
]
