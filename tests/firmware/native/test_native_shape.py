"""LineShape and Lines: the values games build once and pass on every move."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

import magboard.firmware.native as native
from magboard.firmware.native import Lines, LineShape, ShapeError


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 3, 3), "width must be an int from 1 to 16, got 0"),
        ((17, 3, 3), "width must be an int from 1 to 16, got 17"),
        ((3, 0, 3), "height must be an int from 1 to 16, got 0"),
        ((3, 17, 3), "height"),
        ((3.0, 3, 3), "width"),
        ((True, 3, 3), "width"),
        ((3, 3, 0), "run must be an int of at least 1, got 0"),
        ((3, 3, -2), "run"),
        ((3, 3, "3"), "run"),
        ((3, 3, 3, {(3, 0)}), r"hole \(3, 0\) is not a \(col, row\) pair on a 3x3 board"),
        ((3, 3, 3, {(0, -1)}), "hole"),
        ((3, 3, 3, {(0, 1, 2)}), "hole"),
        ((3, 3, 3, {"ab"}), "hole"),
        ((3, 3, 3, [[0, 1]]), "holes must be a set of"),
        ((3, 3, 3, 5), "holes must be a set of"),
    ],
)
def test_bad_shapes_are_refused(args: tuple, message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        LineShape(*args)
    assert issubclass(ShapeError, ValueError)


def test_shape_is_a_hashable_value() -> None:
    a = LineShape(6, 7, 4, {(0, 0), (5, 6)})
    b = LineShape(6, 7, 4, frozenset([(5, 6), (0, 0)]))
    assert a == b
    assert hash(a) == hash(b)
    assert a.holes == frozenset({(0, 0), (5, 6)})
    assert {a: 1}[b] == 1
    assert a != LineShape(6, 7, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.run = 5  # type: ignore[misc]
    assert repr(LineShape(3, 3, 3)) == "LineShape(width=3, height=3, run=3, holes=frozenset())"


def test_shape_precomputes_what_calls_need() -> None:
    shape = LineShape(4, 3, 3, {(1, 2)})
    assert shape.size == 12
    assert shape.hole_flags == bytes([0] * 9 + [1, 0, 0])
    assert shape.windows is shape.windows  # computed once
    # Rows: 2 windows x 3 rows, less the 2 through the hole; columns: 4, less 1; rising
    # diagonals: 2, both clear of it; falling diagonals: 2, less the one that starts on it.
    assert len(shape.windows) == 4 + 3 + 2 + 1
    assert all(9 not in window for window in shape.windows)
    assert len(LineShape(3, 3, 1).windows) == 9  # a run of one is one window per cell
    assert LineShape(3, 3, 4).windows == ()


def test_shape_survives_pickling_after_use() -> None:
    shape = LineShape(5, 5, 4, {(2, 2)})
    native.winners(shape, bytes(25))  # the C wrapper, when loaded, keeps its copy on the shape
    for clone in (pickle.loads(pickle.dumps(shape)), copy.deepcopy(shape), copy.copy(shape)):
        assert clone == shape
        assert native.winners(clone, bytes([1] * 25)) == 1


def test_lines_cells() -> None:
    shape = LineShape(3, 2, 2)
    lines = Lines(0b101, bytes([1, 4, 0, 5, 0, 0]), shape)
    assert lines.cells(0) == {(0, 0), (0, 1)}
    assert lines.cells(2) == {(1, 0), (0, 1)}
    assert lines.cells(1) == frozenset()
    for bad in (-1, 8, 1.0, "0"):
        with pytest.raises(ValueError, match="label must be a bit index from 0 to 7"):
            lines.cells(bad)  # type: ignore[arg-type]


def test_shape_fields_are_its_four_values() -> None:
    shape = LineShape(4, 4, 3, {(1, 1)})
    native.winners(shape, bytes(16))
    assert dataclasses.asdict(shape) == {
        "width": 4,
        "height": 4,
        "run": 3,
        "holes": frozenset({(1, 1)}),
    }
    taller = dataclasses.replace(shape, height=5)
    assert taller.size == 20
    assert native.winners(taller, bytes([1] * 20)) == 1
