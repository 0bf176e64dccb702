"""Where a game's area lies on a board's lattice, and how the printed sheet says so.

The referee senses the game on the cells under its area, so the overlay must be laid exactly
there: centred on the lattice, as every game's profile places its area, at origin
((columns - width) // 2, (rows - height) // 2). The sheet prints that sum so a person can check
it against the board.
"""

from __future__ import annotations

from dataclasses import dataclass

from magboard.hardware.spec import BoardSpec, cell_label


class PlacementError(ValueError):
    """An area that does not fit the board, or a board that cannot be printed for."""


@dataclass(frozen=True)
class Placement:
    board: str
    columns: int
    rows: int
    pitch_mm: float
    width: int
    height: int
    origin: tuple[int, int]
    """The board cell under the game's a1."""

    def to_board(self, cell: tuple[int, int]) -> tuple[int, int]:
        return cell[0] + self.origin[0], cell[1] + self.origin[1]

    def describe(self) -> str:
        """One line for the sheet: the lattice, the centring sum and where a1 lands."""
        col, row = self.origin
        return (
            f"Board {self.board}: {self.columns}x{self.rows} lattice, {self.pitch_mm:g} mm cells. "
            f"The game's area is centred on the lattice at origin ({col}, {row}) = "
            f"(({self.columns}-{self.width})//2, ({self.rows}-{self.height})//2): "
            f"its a1 lies on board cell {cell_label(self.origin)}."
        )


def place(spec: BoardSpec, width: int, height: int) -> Placement:
    """The centred placement of a `width` x `height` area on `spec`'s lattice."""
    pitch = getattr(spec, "pitch_mm", None)
    if not pitch or pitch <= 0:
        raise PlacementError(f"board {spec.name} gives no cell pitch (lattice.pitch_mm)")
    if width > spec.columns or height > spec.rows:
        raise PlacementError(
            f"a board of {width}x{height} squares does not fit board {spec.name}'s "
            f"{spec.columns}x{spec.rows} lattice"
        )
    origin = ((spec.columns - width) // 2, (spec.rows - height) // 2)
    placement = Placement(spec.name, spec.columns, spec.rows, pitch, width, height, origin)
    holes = sorted(
        placement.to_board((c, r))
        for c in range(width)
        for r in range(height)
        if placement.to_board((c, r)) in spec.holes
    )
    if holes:
        where = ", ".join(cell_label(cell) for cell in holes)
        raise PlacementError(
            f"board {spec.name}'s lattice has holes under the game's area: {where}"
        )
    return placement
