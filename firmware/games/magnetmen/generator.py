"""The seeded board generator (rules/magnetmen.md, items 1, 3 and 4-7): which types a printed
board shows, how many squares each gets, where they lie, and which power texts are in force.

Everything random comes from one `random.Random` seeded with the text
``magnetmen:{seed}:{size}:{set}``. Python turns a text seed into a number with SHA-512, not with
the per-process `hash()`, so a seed gives the same board on every machine and in every process
(it is printed on one and refereed on another), and a different size or set gives an unrelated
board rather than a cut-down copy. `powers` is not part of the seed and is drawn last, so
switching it changes which texts are in force, never the squares.

Readings where the rules are open, and why:

- The number of types is drawn first (5 or 6 on a base board, 6 or 7 otherwise, equally likely),
  then the types one at a time, each weighted by `prob` among those not yet drawn. On a base
  board the Explorer is placed first and is one of the 5 or 6.
- Some draws cannot fill the board: when every type drawn has a maximum, the maxima can fall
  short (King 3, Singer 4, Actress 5, Photographer 7, Pilot 7 and Athlete 8 leave even a small
  board's 36 squares unfilled, and any 7 capped types leave a huge board short). Such a draw is
  discarded and rule 4 is done again, count included, from the same stream, so the boards that
  can be printed keep exactly the odds the rules give them relative to each other.
  The minima never overflow a board (the 7 largest sum to 33, a small board has 36; a test keeps
  that true) but are checked all the same. Only expert boards are ever redrawn, about one in
  1,300 (one in 20,000 on small). So that generation ends for every seed, the draw after
  `REDRAWS` discarded ones only offers, at each pick, the types that still leave a way to fill
  the board, and that draw always fits.
- The squares beyond the minima are drawn one at a time, weighted by `prob` among the chosen
  types that still have room. `_fill` draws them in batches and draws a full type's overflow
  again among the others, which gives exactly that distribution in a handful of steps.
- With `powers=random` each chosen type that has a distinct alternative text takes it with
  chance one half; the others keep their main text and are not recorded.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from magboard.firmware.article import with_article

from ..core import OptionError
from ..grid import Cell, cell_name
from .kinds import BY_NAME, KINDS, SETS_UP_TO, Kind, Set


class Size(NamedTuple):
    """A board's shape and the inventory each player fills (rule 1)."""

    columns: int
    rows: int
    slots: int


SIZES: dict[str, Size] = {
    "small": Size(6, 6, 9),
    "regular": Size(8, 8, 14),
    "big": Size(10, 9, 18),
    "huge": Size(11, 11, 20),
}
POWERS = ("main", "random")
TYPE_COUNTS: dict[Set, tuple[int, ...]] = {
    Set.BASE: (5, 6),
    Set.ADVANCED: (6, 7),
    Set.EXPERT: (6, 7),
}
"""How many distinct types a board of each set shows (rule 4), each count equally likely."""
ALWAYS: dict[Set, tuple[str, ...]] = {Set.BASE: ("Explorer",), Set.ADVANCED: (), Set.EXPERT: ()}
"""Types a board of each set always shows (rule 4: the beginner board's Explorer)."""
REDRAWS = 64
"""Draws of the types that may be discarded before the careful draw that always fits. A discard
happens to about one expert board in 1,300, so no seed is expected to get near this."""
_INDEX = {kind.name: i for i, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class Printed:
    """A generated board, as printed: the options it came from and a type on every square."""

    seed: int
    size: str
    set: Set
    powers: str
    width: int
    height: int
    squares: tuple[str, ...]
    """Type names, row by row from a1 (bottom left), row 0 at the bottom."""
    alternative: frozenset[str]
    """The types whose alternative text is in force (always empty with powers=main)."""

    def __post_init__(self) -> None:
        if len(self.squares) != self.width * self.height:
            raise ValueError(f"{self.width}x{self.height} board with {len(self.squares)} squares")

    def kind_at(self, cell: Cell) -> Kind:
        col, row = cell
        if not (0 <= col < self.width and 0 <= row < self.height):
            raise IndexError(
                f"{cell_name(cell)} is off {with_article(f'{self.width}x{self.height}')} board"
            )
        return BY_NAME[self.squares[row * self.width + col]]

    @property
    def counts(self) -> dict[str, int]:
        """Squares of each type on the board, in KINDS order (a fresh dict: the board stays
        as printed whatever the caller does with it)."""
        tally = Counter(self.squares)
        return {name: tally[name] for name in sorted(tally, key=_INDEX.__getitem__)}

    @property
    def types(self) -> tuple[str, ...]:
        """The distinct types on the board, in KINDS order (the order of the printed legend)."""
        return tuple(self.counts)

    def power(self, name: str) -> str:
        """The text of the type's power in force on this board."""
        kind = BY_NAME[name]
        return kind.alternative if name in self.alternative else kind.main


def generate(
    seed: int, size: str = "regular", set: Set | str = "base", powers: str = "main"
) -> Printed:
    """The board the seed gives for these options: the same every time (see the module text)."""
    shape, chosen_set = _check(seed, size, set, powers)
    rng = random.Random(f"magnetmen:{seed}:{size}:{chosen_set.value}")
    squares = shape.columns * shape.rows
    kinds = _choose(rng, chosen_set, squares)
    board = [name for name, count in _fill(rng, kinds, squares).items() for _ in range(count)]
    rng.shuffle(board)
    alternative = _alternatives(rng, kinds) if powers == "random" else frozenset()
    return Printed(
        seed, size, chosen_set, powers, shape.columns, shape.rows, tuple(board), alternative
    )


def _check(seed: int, size: str, set: Set | str, powers: str) -> tuple[Size, Set]:
    """The options' values, or the OptionError players see for the first bad one."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise OptionError(f"option seed takes a whole number, not {seed!r}")
    if size not in SIZES:
        raise OptionError(f"option size is one of {', '.join(SIZES)}, not {size!r}")
    if set not in tuple(Set):
        raise OptionError(f"option set is one of {', '.join(Set)}, not {set!r}")
    if powers not in POWERS:
        raise OptionError(f"option powers is one of {', '.join(POWERS)}, not {powers!r}")
    return SIZES[size], Set(set)


def _choose(rng: random.Random, chosen_set: Set, squares: int) -> list[Kind]:
    """Rule 4, done again while the draw cannot fill the board (see the module text)."""
    pool = [kind for kind in KINDS if kind.set in SETS_UP_TO[chosen_set]]
    first = [BY_NAME[name] for name in ALWAYS[chosen_set]]
    for attempt in range(REDRAWS + 1):
        count = rng.choice(TYPE_COUNTS[chosen_set])
        kinds = _draw(rng, pool, first, count, squares, careful=attempt == REDRAWS)
        if fits(kinds, squares):
            return sorted(kinds, key=lambda kind: _INDEX[kind.name])
    raise AssertionError("the careful draw always fits")  # pragma: no cover


def _draw(
    rng: random.Random, pool: list[Kind], first: list[Kind], count: int, squares: int, careful: bool
) -> list[Kind]:
    """`first`, then types drawn without replacement weighted by `prob` until there are `count`;
    a careful draw only offers types that leave a way to fill the board."""
    chosen = list(first)
    rest = [kind for kind in pool if kind.name not in {c.name for c in first}]
    while len(chosen) < count:
        more = count - len(chosen) - 1
        offered = (
            [k for k in rest if _can_complete(chosen, k, rest, more, squares)] if careful else rest
        )
        pick = rng.choices(offered, weights=[kind.prob for kind in offered])[0]
        chosen.append(pick)
        rest = [kind for kind in rest if kind is not pick]
    return chosen


def fits(kinds: list[Kind], squares: int) -> bool:
    """Whether these types can fill a board of `squares` squares within their minima and maxima."""
    return sum(kind.min for kind in kinds) <= squares <= sum(_cap(kind, squares) for kind in kinds)


def _can_complete(
    chosen: list[Kind], pick: Kind, rest: list[Kind], more: int, squares: int
) -> bool:
    """Whether `pick` and `more` further types from `rest` could join `chosen` and still fill the
    board: the largest maxima left are the best hope. (Minima cannot overflow: see the module.)"""
    others = sorted((_cap(kind, squares) for kind in rest if kind is not pick), reverse=True)
    have = sum(_cap(kind, squares) for kind in chosen) + _cap(pick, squares)
    return have + sum(others[:more]) >= squares


def _cap(kind: Kind, squares: int) -> int:
    """The most squares the type can take on this board (a type without a maximum: all)."""
    return squares if kind.max is None else min(kind.max, squares)


def _fill(rng: random.Random, kinds: list[Kind], squares: int) -> dict[str, int]:
    """Rule 5's counts: every type's minimum, the rest drawn by weight among types with room.

    Each round draws all the squares still to place at once; a type drawn past its maximum
    keeps its maximum and its overflow is drawn again among the others. Drawing one square at a
    time and skipping full types gives the same counts with the same odds."""
    counts = {kind.name: kind.min for kind in kinds}
    left = squares - sum(counts.values())
    while left:
        open_ = [kind for kind in kinds if counts[kind.name] < _cap(kind, squares)]
        names = [kind.name for kind in open_]
        drawn = Counter(rng.choices(names, weights=[kind.prob for kind in open_], k=left))
        for name, number in drawn.items():
            taken = min(number, _cap(BY_NAME[name], squares) - counts[name])
            counts[name] += taken
            left -= taken
    return counts


def _alternatives(rng: random.Random, kinds: list[Kind]) -> frozenset[str]:
    """Rule 7: main or alternative text at random for each type that has an alternative."""
    return frozenset(
        kind.name for kind in kinds if kind.alternative != kind.main and rng.random() < 0.5
    )
