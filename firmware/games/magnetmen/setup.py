"""What a Magnetmen game keeps fixed (the printed board, the players, the rules option) as bit
masks, square i (row-major from a1) being bit i, and the rules' numbers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property

from magboard.firmware.article import with_article

from ..core import Action
from ..grid import Cell, cell_name
from .actions import Collect, Destroy
from .generator import SIZES, Printed

FIRE_TOTAL = 3
"""Collections a turn may have once the Firefighter (main text) is collected."""
SINGER_ICONS = 2
"""Icons the Singer (alternative text) lets the mover destroy."""
FOUR = 4
"""Icons of one type that stop a player under the advanced rules."""


class Repel(IntEnum):
    """How the repel rule reads a type's squares."""

    ALL = 0
    UNUSED = 1
    """Astronaut (main): collected squares are ignored."""
    COLLECTED = 2
    """Astronaut (alternative): only collected squares repel."""
    FROM_THREE = 3
    """Doctor (main): no repel until the player holds three."""
    BELOW_THREE = 4
    """Doctor (alternative): repels only while the player holds fewer than three."""


def _repel_rule(name: str, alternative: bool) -> Repel:
    if name == "Astronaut":
        return Repel.COLLECTED if alternative else Repel.UNUSED
    if name == "Doctor":
        return Repel.BELOW_THREE if alternative else Repel.FROM_THREE
    return Repel.ALL


@dataclass(frozen=True)
class Setup:
    """What a game keeps fixed: the printed board, the players and the rules option, with the
    board's masks worked out once so that a position's questions are a few integer operations
    (every move generation asks each of them)."""

    printed: Printed
    players: int = 2
    advanced_rules: bool = False

    def __post_init__(self) -> None:
        self.__dict__["_hash"] = hash((self.printed, self.players, self.advanced_rules))

    def __hash__(self) -> int:
        return self.__dict__["_hash"]

    @cached_property
    def width(self) -> int:
        return self.printed.width

    @cached_property
    def height(self) -> int:
        return self.printed.height

    @cached_property
    def all(self) -> int:
        return (1 << self.width * self.height) - 1

    @cached_property
    def slots(self) -> int:
        return SIZES[self.printed.size].slots

    @cached_property
    def kinds(self) -> tuple[str, ...]:
        """The types printed on the board, in the legend's order: a type's index here is its
        place in every inventory's counts."""
        return self.printed.types

    @cached_property
    def index(self) -> dict[str, int]:
        return {name: t for t, name in enumerate(self.kinds)}

    @cached_property
    def type_at(self) -> tuple[int, ...]:
        return tuple(self.index[name] for name in self.printed.squares)

    @cached_property
    def masks(self) -> tuple[int, ...]:
        """Per type, its squares."""
        found = [0] * len(self.kinds)
        for i, t in enumerate(self.type_at):
            found[t] |= 1 << i
        return tuple(found)

    @cached_property
    def alt(self) -> tuple[bool, ...]:
        """Per type, whether its alternative text is in force."""
        return tuple(name in self.printed.alternative for name in self.kinds)

    @cached_property
    def repel(self) -> tuple[Repel, ...]:
        return tuple(_repel_rule(name, alt) for name, alt in zip(self.kinds, self.alt, strict=True))

    @cached_property
    def marked(self) -> frozenset[int]:
        """Types whose icons remember their square in the position: the Taxi Driver scores its
        neighbours, the King (alternative) bars the squares next to it."""
        names = {"Taxi Driver"} | ({"King"} if "King" in self.printed.alternative else set())
        return frozenset(self.index[name] for name in names if name in self.index)

    def of(self, name: str) -> int:
        """The type's index, -1 if the board does not show it."""
        return self.index.get(name, -1)

    def alternative(self, name: str) -> bool:
        return name in self.printed.alternative

    def squares_of(self, name: str) -> int:
        t = self.of(name)
        return self.masks[t] if t >= 0 else 0

    @cached_property
    def singer_main(self) -> int:
        """The Singer's squares where its main text bars their neighbours."""
        return 0 if self.alternative("Singer") else self.squares_of("Singer")

    @cached_property
    def mail(self) -> int:
        return self.squares_of("Mail Carrier")

    @cached_property
    def king_alt(self) -> int:
        """The King's index where its alternative text is in force, else -1."""
        return self.of("King") if self.alternative("King") else -1

    @cached_property
    def guard(self) -> int:
        return self.squares_of("Life Guard")

    @cached_property
    def firefighter(self) -> int:
        return self.squares_of("Firefighter")

    @cached_property
    def powered(self) -> frozenset[int]:
        """Types whose collection can make the turn go on: the Explorer, the Pilot, the
        Actress, the Firefighter, and the Singer with its alternative text."""
        names = {"Explorer", "Pilot", "Actress", "Firefighter"}
        names |= {"Singer"} & self.printed.alternative
        return frozenset(self.index[name] for name in names if name in self.index)

    @cached_property
    def undestroyable(self) -> int:
        judge = self.of("Judge")
        return self.masks[judge] if judge >= 0 else 0

    @cached_property
    def _inner(self) -> tuple[int, int]:
        """Every square but the first column's, and every square but the last column's."""
        first = sum(1 << r * self.width for r in range(self.height))
        last = first << self.width - 1
        return self.all & ~first, self.all & ~last

    def side(self, mask: int) -> int:
        """The squares left or right of a square of `mask`."""
        not_first, not_last = self._inner
        return (mask << 1 & not_first) | (mask >> 1 & not_last)

    def updown(self, mask: int) -> int:
        """The squares above or below a square of `mask`."""
        return (mask << self.width | mask >> self.width) & self.all

    def around(self, mask: int) -> int:
        """The eight neighbours of the squares of `mask`."""
        vertical = self.updown(mask)
        return self.side(mask) | vertical | self.side(vertical)

    @cached_property
    def lines(self) -> tuple[int, ...]:
        """Per square, the other squares of its row and its column (the Pilot's reach)."""
        width, height = self.width, self.height
        found = []
        for i in range(width * height):
            col, row = i % width, i // width
            row_mask = sum(1 << row * width + c for c in range(width))
            col_mask = sum(1 << r * width + col for r in range(height))
            found.append((row_mask | col_mask) & ~(1 << i))
        return tuple(found)

    def cell(self, i: int) -> Cell:
        return i % self.width, i // self.width

    def square(self, cell: Cell) -> int:
        """The index of `cell`, known to be on the board."""
        return cell[1] * self.width + cell[0]

    def at(self, cell: Cell) -> int | None:
        """The index of `cell`, None off the board."""
        col, row = cell
        if 0 <= col < self.width and 0 <= row < self.height:
            return row * self.width + col
        return None

    @cached_property
    def collects(self) -> tuple[Collect, ...]:
        return tuple(Collect(self.cell(i)) for i in range(self.width * self.height))

    @cached_property
    def destroys(self) -> tuple[Destroy, ...]:
        return tuple(Destroy(self.cell(i)) for i in range(self.width * self.height))


def pick(actions: Sequence[Action], mask: int) -> list[Action]:
    """The actions of the squares of `mask`, in square order."""
    found = []
    while mask:
        low = mask & -mask
        found.append(actions[low.bit_length() - 1])
        mask ^= low
    return found


def bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def mask_of(setup: Setup, cells: Iterable[Cell]) -> int:
    mask = 0
    for cell in cells:
        i = setup.at(cell)
        if i is None:
            raise ValueError(
                f"{cell_name(cell)} is not on {with_article(f'{setup.width}x{setup.height}')} board"
            )
        mask |= 1 << i
    return mask
