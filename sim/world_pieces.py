"""The world's things and words: piece kinds, pieces, tiles, contact bounce, the directions a
hand moves things in, and the error for what a hand cannot do.

Apart from `sim.world.World`, which moves them, so that the values the world's users pass in and
get back are read in one short place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, Protocol

from magboard.hardware.spec import BoardSpec, Cell, Place

from .clock import VirtualClock

Direction = Literal["up", "down", "left", "right"]
RGB = tuple[int, int, int]
SensorRef = int | tuple[Place, str]
"""A frame bit, or (cell, channel), or (slot, '')."""

STEPS: Mapping[str, Cell] = MappingProxyType(
    {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
)


class WorldError(ValueError):
    """A physically impossible action: nothing there to lift, a slot already full, a tile that
    would overlap another or leave the lattice. The message names the places involved."""


class Electronics(Protocol):
    """What the world needs from the simulated board beneath it."""

    @property
    def spec(self) -> BoardSpec: ...

    @property
    def clock(self) -> VirtualClock: ...

    def set_sensors(self, levels: Mapping[int, bool]) -> None:
        """Frame bit -> whether that Hall switch sees a magnet now (changed bits only)."""

    def press(self, button: str) -> None: ...

    def release(self, button: str) -> None: ...

    def inject_i2c_errors(self, expander: int, count: int) -> None: ...

    def reset_expander(self, expander: int) -> None: ...

    def kill_led(self, index: int) -> None: ...


@dataclass(frozen=True)
class PieceKind:
    """A kind of piece: what its magnets trip where it stands on a cell, and how to draw it."""

    name: str
    signature: frozenset[str]
    """Cell channels its magnets trip (checked against the board when first used)."""
    colour: RGB = (255, 255, 255)

    def __post_init__(self) -> None:
        object.__setattr__(self, "signature", frozenset(self.signature))
        if not self.signature:
            raise WorldError(f"piece kind {self.name!r} has no magnets: a cell could not see it")
        if len(self.colour) != 3 or not all(
            isinstance(c, int) and 0 <= c <= 255 for c in self.colour
        ):
            raise WorldError(f"piece kind {self.name!r}: colour {self.colour!r} is not RGB 0-255")


@dataclass(frozen=True)
class Piece:
    """One physical piece; `id` tells apart two pieces of one kind."""

    id: int
    kind: PieceKind

    def __str__(self) -> str:
        return f"{self.kind.name}#{self.id}"


@dataclass(frozen=True)
class Tile:
    """A 2x2 grid tile. Where it lies is the world's to know (`World.tiles`): it moves."""

    id: int
    signature: frozenset[str]
    """Channels its magnets trip under each of the four cells it covers."""
    key: frozenset[str] = frozenset()
    """Channels a key magnet under one corner trips besides, which shows which way round the
    tile lies (`World.key_of`)."""


@dataclass(frozen=True)
class Bounce:
    """Contact bounce: `toggles` returns to the old level, each followed by the new level again,
    at random moments within `span` seconds of the real change."""

    toggles: int = 3
    span: float = 0.006

    def __post_init__(self) -> None:
        if self.toggles < 1 or self.span <= 0:
            raise WorldError(f"bounce needs toggles >= 1 and span > 0, not {self}")


def block(lower_left: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    """Lower-left, lower-right, upper-left, upper-right cells of a 2x2 block."""
    x, y = lower_left
    return (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)


def step_of(direction: str) -> Cell:
    if direction not in STEPS:
        raise WorldError(f"direction must be one of {', '.join(STEPS)}, not {direction!r}")
    return STEPS[direction]
