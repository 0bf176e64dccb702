"""The values the line detector works on: a board shape, and what a search found."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from magboard.firmware.article import with_article

MAX_SIDE = 16
LABELS = 8
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))

# What board arguments accept: bytes on the hot path, any C-contiguous buffer otherwise.
BytesLike = bytes | bytearray | memoryview


class ShapeError(ValueError):
    """A board shape the detector cannot take."""


class CellsError(ValueError):
    """Board bytes that do not fit the shape they are checked against."""


def wrong_length(shape: LineShape, length: int) -> CellsError:
    """The error both implementations raise for board bytes of the wrong length."""
    return CellsError(
        f"{with_article(f'{shape.width}x{shape.height}')} board is {shape.size} bytes, got {length}"
    )


def _side(name: str, value: object) -> int:
    if type(value) is not int or not 1 <= value <= MAX_SIDE:
        raise ShapeError(f"{name} must be an int from 1 to {MAX_SIDE}, got {value!r}")
    return value


@dataclass(frozen=True)
class LineShape:
    """A board of `width` x `height` cells (minus `holes`, given as (col, row)) on which a line is
    `run` cells in a row, a column or a diagonal.

    Built once per game and reused on every move, so it validates itself up front and carries
    what each call would otherwise recompute: `size`, `hole_flags` (one byte per cell, 1 at a
    hole) and, on first use, `windows`.
    """

    width: int
    height: int
    run: int
    holes: frozenset[tuple[int, int]] = frozenset()

    if TYPE_CHECKING:  # plain attributes, not fields: out of eq, hash, repr, asdict and replace
        size: int
        hole_flags: bytes
        _prepared: Any  # the C wrapper's copy of this shape, made on its first use

    def __post_init__(self) -> None:
        width = _side("width", self.width)
        height = _side("height", self.height)
        if type(self.run) is not int or self.run < 1:
            raise ShapeError(f"run must be an int of at least 1, got {self.run!r}")
        try:
            holes = frozenset(self.holes)
        except TypeError:
            raise ShapeError(
                f"holes must be a set of (col, row) pairs, got {self.holes!r}"
            ) from None
        flags = bytearray(width * height)
        for hole in holes:
            if not (
                type(hole) is tuple
                and len(hole) == 2
                and all(type(v) is int for v in hole)
                and 0 <= hole[0] < width
                and 0 <= hole[1] < height
            ):
                board = with_article(f"{width}x{height}")
                raise ShapeError(f"hole {hole!r} is not a (col, row) pair on {board} board")
            flags[hole[1] * width + hole[0]] = 1
        object.__setattr__(self, "holes", holes)
        object.__setattr__(self, "size", width * height)
        object.__setattr__(self, "hole_flags", bytes(flags))
        object.__setattr__(self, "_prepared", None)

    def __reduce__(self) -> tuple[Any, ...]:
        # The C copy is process-local: rebuild from the four defining values.
        return (type(self), (self.width, self.height, self.run, self.holes))

    @cached_property
    def windows(self) -> tuple[tuple[int, ...], ...]:
        """Every stretch of `run` cells (as indices) a line can occupy: worked out once per shape
        because the pure-Python search walks them on every call."""
        width, height, run = self.width, self.height, self.run
        flags = self.hole_flags
        found: dict[tuple[int, ...], None] = {}
        for dx, dy in DIRECTIONS:
            for row in range(height):
                for col in range(width):
                    end_col = col + dx * (run - 1)
                    end_row = row + dy * (run - 1)
                    if not (0 <= end_col < width and 0 <= end_row < height):
                        continue
                    window = tuple((row + k * dy) * width + col + k * dx for k in range(run))
                    if not any(flags[i] for i in window):
                        found[window] = None  # a run of 1 is the same window in every direction
        return tuple(found)


@dataclass(frozen=True)
class Lines:
    """What a search found: `winners`, the mask of labels that have a line, and `marks`, per cell
    the mask of labels whose lines pass through it (what the lights animate)."""

    winners: int
    marks: bytes
    shape: LineShape

    def cells(self, label: int) -> frozenset[tuple[int, int]]:
        """The (col, row) cells on lines of `label` (a bit index, 0..7)."""
        if type(label) is not int or not 0 <= label < LABELS:
            raise ValueError(f"label must be a bit index from 0 to {LABELS - 1}, got {label!r}")
        bit = 1 << label
        width = self.shape.width
        return frozenset(
            (index % width, index // width) for index, mask in enumerate(self.marks) if mask & bit
        )
