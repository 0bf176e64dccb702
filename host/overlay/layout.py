"""An overlay before it is drawn: the board as generated, where it lies on the lattice, and how
it is cut into sheets. Every page reads this one value, so the sheets and the legend agree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from magboard.hardware.spec import BoardSpec

from .placement import Placement, place
from .tiling import MM, Plan, plan

if TYPE_CHECKING:
    from magboard.firmware.games.magnetmen.generator import Printed


@dataclass(frozen=True)
class Overlay:
    """Everything a page needs: the board as generated, where it lies, how it is cut up."""

    printed: Printed
    placement: Placement
    plan: Plan

    @property
    def pitch(self) -> float:
        """A cell's side in points."""
        return self.placement.pitch_mm * MM

    def options(self) -> str:
        p = self.printed
        return (
            f"Magnetmen - seed {p.seed} - {p.size} {p.width}x{p.height} - set {p.set} - "
            f"powers {p.powers} - {self.plan.paper} paper"
        )

    def name_at(self, cell: tuple[int, int]) -> str:
        """The type printed on game cell `cell` (the squares run row by row from a1)."""
        return self.printed.squares[cell[1] * self.printed.width + cell[0]]

    def sheets_holding(self, cell: tuple[int, int]) -> list[int]:
        return [
            tile.number
            for tile in self.plan.tiles
            if tile.columns[0] <= cell[0] <= tile.columns[1]
            and tile.rows[0] <= cell[1] <= tile.rows[1]
        ]


def layout(printed: Printed, spec: BoardSpec, paper: str) -> Overlay:
    """Where the board lies on `spec`'s lattice and how it is cut into sheets of `paper`."""
    placement = place(spec, printed.width, printed.height)
    sheets = plan(printed.width, printed.height, placement.pitch_mm, paper)
    return Overlay(printed, placement, sheets)
