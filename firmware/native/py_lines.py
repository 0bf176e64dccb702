"""The line detector in plain Python: what runs where the C extension is not built, and the
independent second opinion the C kernel is tested against. It shares no code with the C: it walks
the shape's windows one cell at a time where the C shifts and ANDs whole rows."""

from __future__ import annotations

from collections.abc import Iterator

from magboard.firmware.article import with_article

from .shape import BytesLike, CellsError, Lines, LineShape, wrong_length


def _as_bytes(data: BytesLike) -> bytes:
    """Any C-contiguous buffer as bytes (a copy: only the rare non-bytes caller pays for it)."""
    try:
        return memoryview(data).cast("B").tobytes()
    except (TypeError, BufferError) as exc:
        raise TypeError(
            f"board cells must be a C-contiguous bytes-like object, got {type(data).__name__}"
        ) from exc


def _checked(shape: LineShape, cells: BytesLike) -> bytes:
    if type(cells) is not bytes:
        cells = _as_bytes(cells)
    if len(cells) != shape.size:
        raise wrong_length(shape, len(cells))
    return cells


def _lines(shape: LineShape, cells: bytes) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every window of the shape whose cells share labels, with those labels."""
    for window in shape.windows:
        common = 0xFF
        for index in window:
            common &= cells[index]
            if not common:
                break
        else:
            yield window, common


def winners(shape: LineShape, cells: BytesLike) -> int:
    """The mask of labels that have a line on the board. The walk of `_lines`, written out:
    this runs on every move and a generator costs it a tenth more."""
    cells = _checked(shape, cells)
    found = 0
    for window in shape.windows:
        common = 0xFF
        for index in window:
            common &= cells[index]
            if not common:
                break
        else:
            found |= common
    return found


def find_lines(shape: LineShape, cells: BytesLike) -> Lines:
    """The labels that have a line, and which cells each label's lines cover."""
    found = 0
    marks = bytearray(shape.size)
    for window, common in _lines(shape, _checked(shape, cells)):
        found |= common
        for index in window:
            marks[index] |= common
    return Lines(found, bytes(marks), shape)


def winners_batch(shape: LineShape, boards: BytesLike) -> bytes:
    """One winners mask per board, for boards stored back to back."""
    if type(boards) is not bytes:
        boards = _as_bytes(boards)
    size = shape.size
    if len(boards) % size:
        named = with_article(f"{shape.width}x{shape.height}")
        raise CellsError(
            f"boards of {named} shape take a multiple of {size} bytes, got {len(boards)}"
        )
    return bytes(
        winners(shape, boards[start : start + size]) for start in range(0, len(boards), size)
    )
