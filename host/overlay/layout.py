"""An overlay before it is drawn: the board as generated, where it lies on the lattice, and how
it is cut into sheets. Every page reads this one value, so the sheets and the legend agree."""

from __future__ import annotations

from dataclasses import dataclass

from magboard.firmware.games.core import PrintedBoard, Printing
from magboard.hardware.spec import BoardSpec

from .placement import Placement, place
from .tiling import MM, Plan, plan


@dataclass(frozen=True)
class Overlay:
    """Everything a page needs: the board as generated, where it lies, how it is cut up."""

    printed: PrintedBoard
    printing: Printing
    """The game's printing: what draws the squares' icons."""
    placement: Placement
    plan: Plan

    @property
    def pitch(self) -> float:
        """A cell's side in points."""
        return self.placement.pitch_mm * MM

    def options(self) -> str:
        return f"{self.printed.heading} - {self.plan.paper} paper"

    def name_at(self, cell: tuple[int, int]) -> str:
        """The name printed on game cell `cell` (the squares run row by row from a1)."""
        return self.printed.squares[cell[1] * self.printed.width + cell[0]]

    def sheets_holding(self, cell: tuple[int, int]) -> list[int]:
        return [
            tile.number
            for tile in self.plan.tiles
            if tile.columns[0] <= cell[0] <= tile.columns[1]
            and tile.rows[0] <= cell[1] <= tile.rows[1]
        ]


def layout(printed: PrintedBoard, printing: Printing, spec: BoardSpec, paper: str) -> Overlay:
    """Where the board lies on `spec`'s lattice and how it is cut into sheets of `paper`."""
    placement = place(spec, printed.width, printed.height)
    sheets = plan(printed.width, printed.height, placement.pitch_mm, paper)
    return Overlay(printed, printing, placement, sheets)
