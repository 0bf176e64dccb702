"""The line detector: both implementations on positions a player would recognise, then the C kernel
against the Python fallback on many random boards, and both against a brute-force reference."""

from __future__ import annotations

import array
import contextlib
import os
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import magboard.firmware.native as native
from magboard.firmware.native import CellsError, Lines, LineShape, py_lines
from magboard.firmware.native.samples import SHAPES, random_boards

CROSS, NOUGHT = 1, 2  # labels 0 and 1
HOLE_JUNK = 0xFF  # what a hole's byte holds in these tests: every label, and it must not count


def load_c() -> ModuleType:
    """The C implementation. Missing, it fails the test: only MAGBOARD_NATIVE=python, which
    declares a machine without the extension, turns that into a skip."""
    try:
        from magboard.firmware.native import c_lines
    except ImportError as exc:
        if os.environ.get("MAGBOARD_NATIVE", "").strip().lower() == "python":
            pytest.skip(f"MAGBOARD_NATIVE=python and the C extension is not available: {exc}")
        pytest.fail(
            f"the C line detector cannot be imported ({exc}); run `make setup`, or set"
            " MAGBOARD_NATIVE=python to test the fallback alone"
        )
    return c_lines


@pytest.fixture(params=["python", "c"])
def impl(request: pytest.FixtureRequest) -> ModuleType:
    return py_lines if request.param == "python" else load_c()


@pytest.fixture
def c_lines() -> ModuleType:
    return load_c()


def picture(text: str, run: int) -> tuple[LineShape, bytes]:
    """A board drawn as players see it, top row first: `.` empty, `X` and `O` the two players,
    `*` a cell that counts as both, `#` a hole."""
    rows = [line.split() for line in text.strip().splitlines()][::-1]
    width, height = len(rows[0]), len(rows)
    symbols = {".": 0, "X": CROSS, "O": NOUGHT, "*": CROSS | NOUGHT, "#": HOLE_JUNK}
    holes = {(col, row) for row in range(height) for col in range(width) if rows[row][col] == "#"}
    cells = bytes(symbols[rows[row][col]] for row in range(height) for col in range(width))
    return LineShape(width, height, run, frozenset(holes)), cells


# --- positions a player would recognise -------------------------------------------------------

TIC_TAC_TOE_WINS = {
    "bottom row": ("O O .\n. X .\nX X X", {(0, 0), (1, 0), (2, 0)}),
    "middle row": ("O . O\nX X X\n. O .", {(0, 1), (1, 1), (2, 1)}),
    "top row": ("X X X\nO . O\n. . .", {(0, 2), (1, 2), (2, 2)}),
    "left column": ("X O .\nX O .\nX . .", {(0, 0), (0, 1), (0, 2)}),
    "middle column": ("O X .\n. X .\nO X .", {(1, 0), (1, 1), (1, 2)}),
    "right column": (". O X\n. O X\n. . X", {(2, 0), (2, 1), (2, 2)}),
    "rising diagonal": ("O . X\nO X .\nX . .", {(0, 0), (1, 1), (2, 2)}),
    "falling diagonal": ("X O O\n. X .\n. . X", {(0, 2), (1, 1), (2, 0)}),
}


@pytest.mark.parametrize("name", TIC_TAC_TOE_WINS)
def test_tic_tac_toe_wins(impl: ModuleType, name: str) -> None:
    text, expected = TIC_TAC_TOE_WINS[name]
    shape, cells = picture(text, 3)
    assert impl.winners(shape, cells) == CROSS
    lines = impl.find_lines(shape, cells)
    assert lines.winners == CROSS
    assert lines.cells(0) == expected
    assert lines.cells(1) == frozenset()


def test_drawn_game_has_no_line(impl: ModuleType) -> None:
    shape, cells = picture("X O X\nX O O\nO X X", 3)
    assert impl.winners(shape, cells) == 0
    assert impl.find_lines(shape, cells) == Lines(0, bytes(9), shape)


def test_empty_board_has_no_line(impl: ModuleType) -> None:
    shape = LineShape(3, 3, 3)
    assert impl.winners(shape, bytes(9)) == 0


def test_two_labels_at_once(impl: ModuleType) -> None:
    shape, cells = picture("O O O\n. . .\nX X X", 3)
    assert impl.winners(shape, cells) == CROSS | NOUGHT
    lines = impl.find_lines(shape, cells)
    assert lines.cells(0) == {(0, 0), (1, 0), (2, 0)}
    assert lines.cells(1) == {(0, 2), (1, 2), (2, 2)}


def test_a_cell_counts_for_several_labels(impl: ModuleType) -> None:
    # The centre completes X's diagonal and O's column at once.
    shape, cells = picture("X O .\n. * .\n. O X", 3)
    assert impl.winners(shape, cells) == CROSS | NOUGHT
    lines = impl.find_lines(shape, cells)
    assert lines.marks[1 * 3 + 1] == CROSS | NOUGHT
    assert lines.cells(0) == {(0, 2), (1, 1), (2, 0)}
    assert lines.cells(1) == {(1, 0), (1, 1), (1, 2)}


def test_labels_beyond_the_first_two(impl: ModuleType) -> None:
    shape = LineShape(4, 1, 4)
    assert impl.winners(shape, bytes([0x80 | 0x10] * 4)) == 0x90
    assert impl.find_lines(shape, bytes([0xFF, 0x81, 0x80, 0xC0])).cells(7) == {
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 0),
    }


def test_a_hole_breaks_a_run(impl: ModuleType) -> None:
    shape, cells = picture("X X # X X", 3)
    assert impl.winners(shape, cells) == 0
    whole = LineShape(5, 1, 3)
    assert impl.winners(whole, bytes([CROSS] * 5)) == CROSS


def test_a_hole_never_counts_whatever_it_holds(impl: ModuleType) -> None:
    # Every cell but the hole is X's; the hole's byte claims every label.
    shape, cells = picture("X X X\nX # X\nX X X", 3)
    lines = impl.find_lines(shape, cells)
    assert lines.winners == CROSS
    assert (1, 1) not in lines.cells(0)
    assert lines.cells(0) == {(c, r) for c in range(3) for r in range(3)} - {(1, 1)}
    assert all(lines.cells(label) == frozenset() for label in range(1, 8))


def test_lines_around_holes(impl: ModuleType) -> None:
    shape, cells = picture(
        """
        X . # . O
        X . # O .
        X X # . .
        . . # . .
        """,
        3,
    )
    lines = impl.find_lines(shape, cells)
    assert lines.winners == CROSS
    assert lines.cells(0) == {(0, 1), (0, 2), (0, 3)}


def test_run_longer_than_the_board(impl: ModuleType) -> None:
    shape = LineShape(3, 3, 4)
    assert impl.winners(shape, bytes([CROSS] * 9)) == 0
    assert impl.find_lines(shape, bytes([CROSS] * 9)).marks == bytes(9)
    assert impl.winners(LineShape(16, 16, 17), bytes([CROSS] * 256)) == 0
    assert impl.winners(LineShape(4, 4, 10**9), bytes([CROSS] * 16)) == 0


def test_run_longer_than_one_side_only(impl: ModuleType) -> None:
    # 8 wide, 3 high, run 5: only rows can hold a line.
    shape = LineShape(8, 3, 5)
    cells = bytearray(24)
    for col in range(3):
        cells[col] = cells[8 + col] = cells[16 + col] = CROSS  # full columns of 3
    assert impl.winners(shape, bytes(cells)) == 0
    cells[0:5] = bytes([CROSS] * 5)
    assert impl.find_lines(shape, bytes(cells)).cells(0) == {(c, 0) for c in range(5)}


def test_run_of_one_marks_every_occupied_cell(impl: ModuleType) -> None:
    shape, cells = picture("X . O\n# * .", 1)
    lines = impl.find_lines(shape, cells)
    assert lines.winners == CROSS | NOUGHT
    assert lines.cells(0) == {(0, 1), (1, 0)}
    assert lines.cells(1) == {(2, 1), (1, 0)}


def test_one_cell_board(impl: ModuleType) -> None:
    assert impl.winners(LineShape(1, 1, 1), bytes([NOUGHT])) == NOUGHT
    assert impl.winners(LineShape(1, 1, 2), bytes([NOUGHT])) == 0
    assert impl.winners(LineShape(1, 1, 1, frozenset({(0, 0)})), bytes([NOUGHT])) == 0


@pytest.mark.parametrize(("width", "height"), [(1, 10), (10, 1), (1, 16), (16, 1)])
def test_one_cell_wide_boards(impl: ModuleType, width: int, height: int) -> None:
    shape = LineShape(width, height, 4)
    length = width * height
    cells = bytearray(length)
    assert impl.winners(shape, bytes(cells)) == 0
    cells[length - 4 :] = bytes([NOUGHT] * 4)  # the far end of the strip
    cells[length - 5] = CROSS
    lines = impl.find_lines(shape, bytes(cells))
    assert lines.winners == NOUGHT
    expected = {(i % width, i // width) for i in range(length - 4, length)}
    assert lines.cells(1) == expected
    cells[length - 2] = CROSS
    assert impl.winners(shape, bytes(cells)) == 0


EDGE_LINES_16 = {
    "top row": [(col, 15) for col in range(16)],
    "bottom row right end": [(col, 0) for col in range(11, 16)],
    "right column": [(15, row) for row in range(16)],
    "left column top end": [(0, row) for row in range(11, 16)],
    "main diagonal": [(i, i) for i in range(16)],
    "antidiagonal": [(i, 15 - i) for i in range(16)],
    "diagonal into the top right corner": [(11 + k, 11 + k) for k in range(5)],
    "antidiagonal into the bottom right corner": [(11 + k, 4 - k) for k in range(5)],
}


@pytest.mark.parametrize("name", EDGE_LINES_16)
def test_16x16_edges(impl: ModuleType, name: str) -> None:
    shape = LineShape(16, 16, 5)
    cells = bytearray(256)
    for col, row in EDGE_LINES_16[name]:
        cells[row * 16 + col] = NOUGHT
    lines = impl.find_lines(shape, bytes(cells))
    assert lines.winners == NOUGHT
    assert lines.cells(1) == frozenset(EDGE_LINES_16[name])
    # Take out the fifth cell: a five-cell line is gone, a sixteen-cell one keeps its last eleven.
    col, row = EDGE_LINES_16[name][4]
    cells[row * 16 + col] = CROSS
    lines = impl.find_lines(shape, bytes(cells))
    assert lines.cells(1) == frozenset(EDGE_LINES_16[name][5:])
    assert lines.winners == (NOUGHT if len(EDGE_LINES_16[name]) > 9 else 0)


def test_16x16_lines_do_not_wrap_between_rows(impl: ModuleType) -> None:
    # The end of row 3 and the start of row 4 are consecutive bytes, not a line.
    shape = LineShape(16, 16, 4)
    cells = bytearray(256)
    for index in (3 * 16 + 14, 3 * 16 + 15, 4 * 16 + 0, 4 * 16 + 1):
        cells[index] = CROSS
    assert impl.winners(shape, bytes(cells)) == 0
    # Nor do diagonals wrap from the right edge to the left.
    cells = bytearray(256)
    for col, row in [(14, 0), (15, 1), (0, 2), (1, 3)]:
        cells[row * 16 + col] = CROSS
    assert impl.winners(shape, bytes(cells)) == 0


def test_marks_cover_overlapping_lines(impl: ModuleType) -> None:
    shape, cells = picture(
        """
        . . X . . .
        . . X . . .
        X X X X X X
        . . X . . .
        . . X . . .
        . . . . . O
        """,
        5,
    )
    lines = impl.find_lines(shape, cells)
    assert lines.winners == CROSS
    row = {(c, 3) for c in range(6)}
    column = {(2, r) for r in range(1, 6)}
    assert lines.cells(0) == row | column
    assert lines.marks[3 * 6 + 2] == CROSS
    assert lines.marks[0 * 6 + 5] == 0


def test_batch(impl: ModuleType) -> None:
    shape = LineShape(3, 3, 3)
    boards = [picture(text, 3)[1] for text, _ in TIC_TAC_TOE_WINS.values()]
    boards.append(bytes(9))
    boards.append(picture("O O O\n. . .\nX X X", 3)[1])
    expected = bytes([CROSS] * 8 + [0, CROSS | NOUGHT])
    assert impl.winners_batch(shape, b"".join(boards)) == expected
    assert impl.winners_batch(shape, bytearray(b"".join(boards))) == expected
    assert impl.winners_batch(shape, b"") == b""


def test_other_buffers_are_accepted(impl: ModuleType) -> None:
    shape, cells = picture("X . .\nX O .\nX O .", 3)
    for buffer in (bytearray(cells), memoryview(cells), array.array("B", cells)):
        assert impl.winners(shape, buffer) == CROSS
        assert impl.find_lines(shape, buffer).winners == CROSS
    # A wider item type counts in bytes: nine 16-bit items are 18 bytes, not a 3x3 board.
    with pytest.raises(CellsError):
        impl.winners(shape, array.array("H", list(cells)))


@pytest.mark.parametrize("bad", ["X........", [1] * 9, 9, None, memoryview(bytes(18))[::2]])
def test_non_buffers_are_refused(impl: ModuleType, bad: object) -> None:
    shape = LineShape(3, 3, 3)
    for call in (impl.winners, impl.find_lines, impl.winners_batch):
        with pytest.raises(TypeError):
            call(shape, bad)


@pytest.mark.parametrize("length", [0, 8, 10, 18])
def test_wrong_length(impl: ModuleType, length: int) -> None:
    shape = LineShape(3, 3, 3)
    with pytest.raises(CellsError, match="3x3 board is 9 bytes"):
        impl.winners(shape, bytes(length))
    with pytest.raises(ValueError):
        impl.find_lines(shape, bytes(length))


def test_batch_of_wrong_length(impl: ModuleType) -> None:
    with pytest.raises(CellsError, match="multiple of 9"):
        impl.winners_batch(LineShape(3, 3, 3), bytes(10))


def test_public_functions_are_the_loaded_implementation() -> None:
    module = py_lines if native.backend == "python" else load_c()
    assert native.backend in ("c", "python")
    assert native.winners is module.winners
    assert native.find_lines is module.find_lines
    assert native.winners_batch is module.winners_batch


# --- the C kernel against the Python fallback -------------------------------------------------


@pytest.mark.parametrize("name", SHAPES)
def test_c_agrees_with_python_on_random_boards(c_lines: ModuleType, name: str) -> None:
    shape = SHAPES[name]
    boards = random_boards(shape, 10_000, seed=sum(map(ord, name)))
    expected = [py_lines.find_lines(shape, board) for board in boards]
    assert sum(1 for lines in expected if lines.winners) > 500, "too few lines to test anything"
    for board, lines in zip(boards, expected, strict=True):
        assert c_lines.find_lines(shape, board) == lines, (name, board.hex())
        assert c_lines.winners(shape, board) == lines.winners, (name, board.hex())
    masks = bytes(lines.winners for lines in expected)
    joined = b"".join(boards)
    assert c_lines.winners_batch(shape, joined) == masks
    assert py_lines.winners_batch(shape, joined) == masks


# --- both against an obviously correct reference -----------------------------------------------


def reference(shape: LineShape, cells: bytes) -> Lines:
    """Every label, every direction, every start cell, every step: nothing clever."""
    width, height, run = shape.width, shape.height, shape.run

    def on_board(col: int, row: int) -> bool:
        return 0 <= col < width and 0 <= row < height and (col, row) not in shape.holes

    found = 0
    marks = [0] * (width * height)
    for label in range(8):
        bit = 1 << label
        for step_col, step_row in ((1, 0), (0, 1), (1, 1), (1, -1)):
            for row in range(height):
                for col in range(width):
                    stretch = [(col + k * step_col, row + k * step_row) for k in range(run)]
                    if all(on_board(c, r) and cells[r * width + c] & bit for c, r in stretch):
                        found |= bit
                        for c, r in stretch:
                            marks[r * width + c] |= bit
    return Lines(found, bytes(marks), shape)


@st.composite
def shapes_and_boards(draw: st.DrawFn) -> tuple[LineShape, list[bytes]]:
    width = draw(st.integers(1, 16))
    height = draw(st.integers(1, 16))
    run = draw(st.integers(1, 17))
    cells = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
    holes = draw(st.frozensets(cells, max_size=width * height // 3))
    palette = draw(st.lists(st.integers(0, 255), min_size=1, max_size=4))
    values = st.sampled_from([0, *palette])
    size = width * height
    boards = draw(
        st.lists(st.lists(values, min_size=size, max_size=size).map(bytes), min_size=1, max_size=3)
    )
    return LineShape(width, height, run, holes), boards


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(shapes_and_boards())
def test_both_agree_with_the_reference(case: tuple[LineShape, list[bytes]]) -> None:
    shape, boards = case
    implementations = [py_lines]
    with contextlib.suppress(pytest.skip.Exception):  # MAGBOARD_NATIVE=python, no extension
        implementations.append(load_c())
    for board in boards:
        expected = reference(shape, board)
        for impl in implementations:
            assert impl.find_lines(shape, board) == expected, impl.__name__
            assert impl.winners(shape, board) == expected.winners, impl.__name__
    masks = bytes(reference(shape, board).winners for board in boards)
    for impl in implementations:
        assert impl.winners_batch(shape, b"".join(boards)) == masks, impl.__name__
