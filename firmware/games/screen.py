"""What a screen shows of a game besides its pieces, as data a game gives through its `State`
(`standings`, `holders`, `pictures`): a page draws it without knowing which game it is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Standings:
    """How a game that keeps score stands now: each seat's score if the game ended now, and
    what it holds as {item: how many}, in seat order."""

    scores: tuple[int, ...]
    inventories: tuple[Mapping[str, int], ...]


@dataclass(frozen=True)
class Picture:
    """A picture printed on the board beneath the pieces: the game's cells it is printed on,
    and its drawing as shapes in a 100 x 100 box, y down, each {"d": SVG path data, "fill",
    "stroke", "width"} (see `magnetmen.traced`)."""

    name: str
    cells: tuple[tuple[int, int], ...]
    drawing: tuple[dict[str, Any], ...]
