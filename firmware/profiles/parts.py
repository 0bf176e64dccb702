"""The values a profile speaks in: piece kinds, supplies, layouts, and the physical side of
actions (what they move, how a hand makes them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from magboard.firmware.games import Cell
from magboard.hardware.spec import Place, Slot, place_label

Spot = Cell | str
"""A board cell, or a supply by name (all of its slots, or its unsensed box, are one place)."""


@dataclass(frozen=True)
class PieceKind:
    name: str
    signature: frozenset[str]
    """Cell channels its magnets trip where it stands."""
    owner: int | None
    """The player whose colour shows for it (None: neutral)."""
    label: str = ""
    """What is printed on it, for drawings of the board (X, O, S, M, L)."""
    size: int = 1
    """Relative size, 1 to 3, for drawings (Small, Medium, Large markers)."""
    single: str = ""
    """What players call the one piece of this kind a game has, kept aside until a hand puts it
    down ("neutral tile N"), for a screen to say whether it is down yet; empty for the others."""


@dataclass(frozen=True)
class Supply:
    """Pieces waiting off the board, any of which a player may take. In sensed tray slots, the
    board counts them; with no slots they wait in an unsensed box (a game with more pieces than
    the trays have slots), and the board learns of them only from the cells."""

    name: str
    kinds: tuple[PieceKind, ...]
    """Usually one; several where one piece goes down in more than one way (a token either
    way up) or a box holds several kinds."""
    slots: tuple[Slot, ...] = ()
    keeper: int | None = None
    """The seat that keeps this supply, where its pieces belong to no one (a pile of captured
    neutral meeples): its colour shows where they go."""

    @property
    def sensed(self) -> bool:
        return bool(self.slots)

    @property
    def owner(self) -> int | None:
        """The seat whose pieces these are, if they all belong to one, or that keeps them."""
        if self.keeper is not None:
            return self.keeper
        owners = {kind.owner for kind in self.kinds}
        return owners.pop() if len(owners) == 1 else None


@dataclass(frozen=True)
class TileKind:
    """The magnets of a 2x2 grid tile: the channels they trip under each cell it covers, and
    under one corner a key that shows which way round it lies, so a quarter turn is seen even
    when the pieces on the tile look alike all round."""

    signature: frozenset[str]
    key: frozenset[str]


@dataclass(frozen=True)
class TileSpot:
    """Where a tile lies: the board cell under its lower-left corner, and the one under its
    key."""

    origin: Cell
    key: Cell

    @property
    def cells(self) -> tuple[Cell, Cell, Cell, Cell]:
        x, y = self.origin
        return (x, y), (x, y + 1), (x + 1, y + 1), (x + 1, y)


@dataclass(frozen=True)
class Layout:
    """Where every piece of a position physically is: stacks on board cells (bottom to top, in
    board coordinates), how many pieces each supply holds, and where the tiles lie."""

    cells: Mapping[Cell, tuple[PieceKind, ...]]
    supplies: Mapping[str, int]
    tiles: tuple[TileSpot, ...] = ()


@dataclass(frozen=True)
class Difference:
    """How an observed board differs from a position, by place."""

    remove: tuple[Place, ...] = ()
    """Places holding something the position does not have there."""
    put_back: tuple[tuple[Place, int | None], ...] = ()
    """Places missing something, with the owner of what belongs there."""

    def __bool__(self) -> bool:
        return bool(self.remove or self.put_back)

    def labels(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (
            tuple(place_label(p) for p in self.remove),
            tuple(place_label(p) for p, _ in self.put_back),
        )


@dataclass(frozen=True)
class Asked:
    """Something the rules ask a turn to do by hand on a square the player picks: what, in
    words a player follows at the board, and the squares it may be done on."""

    detail: str
    places: frozenset[Place]


@dataclass(frozen=True)
class Movement:
    """The physical side of one action: places that lose pieces and places that gain them."""

    lifted: frozenset[Spot]
    placed: frozenset[Spot]

    @property
    def physical(self) -> bool:
        return bool(self.lifted or self.placed)


@dataclass(frozen=True)
class TileStep:
    """A hand moving the tile whose lower-left corner is on board cell `tile`, with the pieces
    on it: shifted one cell (`way` ^ v < >) or turned a quarter (cw, ccw)."""

    tile: Cell
    way: str


@dataclass(frozen=True)
class Step:
    """One movement of a hand: a piece from a place to a place (a supply is one place), lifted
    and put down, or slid along the board (then every piece of a slid group is one step, and the
    steps happen together)."""

    source: Spot
    target: Spot
    slide: bool = False
