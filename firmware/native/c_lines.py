"""The line detector's C kernel (lines.c) behind the same three calls as the pure-Python one.

`winners` runs on every move, so it stays a few lines: bytes go to C as they are (cffi passes a
bytes object's own memory), and the shape's prepared C copy is made once and kept on the shape.
Importing this module raises ImportError when the extension is missing or older than this code.
"""

from __future__ import annotations

from magboard.firmware.article import with_article

from .shape import MAX_SIDE, BytesLike, CellsError, Lines, LineShape, ShapeError, wrong_length

try:
    from ._lines import ffi, lib
except ImportError as exc:
    raise ImportError(
        "the C line detector (magboard.firmware.native._lines) is not built;"
        " run `make setup` to build it"
    ) from exc

try:
    _shape_init = lib.mb_shape_init
    _winners = lib.mb_winners
    _find = lib.mb_find
    _winners_batch = lib.mb_winners_batch
except AttributeError as exc:
    raise ImportError(
        f"the built C line detector is older than its Python wrapper ({exc});"
        " run `make setup` to rebuild it"
    ) from exc

_from_buffer = ffi.from_buffer
_new = ffi.new
_buffer = ffi.buffer


def _cells(data: BytesLike) -> object:
    """A zero-copy view of any C-contiguous buffer (bytes need none: cffi takes them as is)."""
    try:
        return _from_buffer("uint8_t[]", data)
    except (TypeError, BufferError) as exc:
        raise TypeError(
            f"board cells must be a C-contiguous bytes-like object, got {type(data).__name__}"
        ) from exc


def _prepare(shape: LineShape) -> object:
    prepared = _new("mb_shape *")
    holes = shape.hole_flags if shape.holes else ffi.NULL
    run = min(shape.run, MAX_SIDE + 1)  # any longer run finds nothing either, and fits a C int
    if _shape_init(prepared, holes, shape.width, shape.height, run) != 0:
        raise ShapeError(f"the C line detector rejected {shape!r}")
    object.__setattr__(shape, "_prepared", prepared)
    return prepared


def winners(shape: LineShape, cells: BytesLike) -> int:
    """The mask of labels that have a line on the board."""
    if type(cells) is not bytes:
        cells = _cells(cells)
    if len(cells) != shape.size:
        raise wrong_length(shape, len(cells))
    return _winners(cells, shape._prepared or _prepare(shape))


def find_lines(shape: LineShape, cells: BytesLike) -> Lines:
    """The labels that have a line, and which cells each label's lines cover."""
    if type(cells) is not bytes:
        cells = _cells(cells)
    if len(cells) != shape.size:
        raise wrong_length(shape, len(cells))
    marks = _new("uint8_t[]", shape.size)
    found = _find(cells, shape._prepared or _prepare(shape), marks)
    return Lines(found, _buffer(marks)[:], shape)


def winners_batch(shape: LineShape, boards: BytesLike) -> bytes:
    """One winners mask per board, for boards stored back to back: one C call for all of them."""
    if type(boards) is not bytes:
        boards = _cells(boards)
    count, extra = divmod(len(boards), shape.size)
    if extra:
        named = with_article(f"{shape.width}x{shape.height}")
        raise CellsError(
            f"boards of {named} shape take a multiple of {shape.size} bytes, got {len(boards)}"
        )
    out = _new("uint8_t[]", count)
    _winners_batch(boards, count, shape._prepared or _prepare(shape), out)
    return _buffer(out)[:]
