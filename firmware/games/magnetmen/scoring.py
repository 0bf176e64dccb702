"""Magnetmen's end scores (rules/magnetmen.md, "Types" and "Readings where the text is open"):
pure functions of a position, so the engine, the board's scoreboard and a test all read one
sum the same way.

A player's score is the sum of their types' scores; a type's score is the sum of the points of
their icons of that type. Most types are worth a fixed number of points an icon; the others read
the player's own count (Athlete, Baker, Judge), everyone's counts (Ballerina, Knitting Lady), the
board (Painter, Photographer, Hairdresser, Taxi Driver) or the player's other types (Baby,
Elderly Man, which leave themselves and each other out of that comparison and are worth 0 when
the player holds no other type). The Actress scores nothing: her power is all she does.

The Hairdresser's alternative text pays for every row and column without a destroyed square,
used up or not, as it says. Taxi Driver is the one type whose icons differ: each remembers the
square it was collected from, and an icon gained without a square (the Actress's alternative
text) has no neighbours, so it is worth 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..grid import Cell
from .generator import Printed

FLAT: dict[str, tuple[int, int]] = {
    "Guitarist": (1, 1),
    "Veterinarian": (2, 2),
    "Explorer": (0, 0),
    "Astronaut": (1, 1),
    "Doctor": (1, 2),
    "Firefighter": (-4, -2),
    "Police": (3, 3),
    "King": (12, 6),
    "Mail Carrier": (2, 3),
    "Life Guard": (3, 3),
    "Actress": (0, 0),
    "Singer": (-5, -3),
    "Pilot": (-2, -2),
}
"""Points an icon of each type with fixed points is worth: (main text, alternative text)."""

MOST, FEWEST = "Ballerina", "Knitting Lady"
LOWEST, HIGHEST = "Baby", "Elderly Man"
MIRRORS = (LOWEST, HIGHEST)
"""The types worth another type's score, left out of the comparison they make."""


@dataclass(frozen=True)
class Icon:
    """One icon in an inventory: its type, and the square it was collected from (None for an
    icon gained without collecting, which only the Actress's alternative text gives)."""

    kind: str
    square: Cell | None = None


@dataclass(frozen=True)
class Tally:
    """What scoring reads of a position: the printed board, which squares are crossed out
    (collected, a Police square collected once among them) and which destroyed, and every
    player's inventory in seat order."""

    printed: Printed
    collected: frozenset[Cell]
    destroyed: frozenset[Cell]
    inventories: tuple[tuple[Icon, ...], ...]

    def squares_of(self, kind: str) -> list[Cell]:
        width = self.printed.width
        return [(i % width, i // width) for i, k in enumerate(self.printed.squares) if k == kind]

    def counts(self, seat: int) -> Counter[str]:
        return Counter(icon.kind for icon in self.inventories[seat])


def _alternative(tally: Tally, kind: str) -> bool:
    return kind in tally.printed.alternative


def _neighbours(cell: Cell) -> list[Cell]:
    col, row = cell
    return [(col + dc, row + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]


def _lines(tally: Tally) -> list[list[Cell]]:
    """Every row, then every column, as its cells."""
    width, height = tally.printed.width, tally.printed.height
    rows = [[(c, r) for c in range(width)] for r in range(height)]
    columns = [[(c, r) for r in range(height)] for c in range(width)]
    return rows + columns


def _hairdresser_lines(tally: Tally) -> int:
    """Lines the Hairdresser pays for: all crossed out or destroyed (main text), or with no
    destroyed square (alternative text, which pays 3 a line)."""
    if _alternative(tally, "Hairdresser"):
        return 3 * sum(not any(c in tally.destroyed for c in line) for line in _lines(tally))
    used = tally.collected | tally.destroyed
    return sum(all(c in used for c in line) for line in _lines(tally))


def _taxi(tally: Tally, icon: Icon) -> int:
    if icon.square is None:
        return 0
    return sum(c in tally.collected for c in _neighbours(icon.square))


def _compared(tally: Tally, seat: int, kind: str, mine: int) -> bool:
    """Whether `seat` has the most (Ballerina) or the fewest (Knitting Lady) of `kind` of all
    players; a tie counts as having it."""
    everyone = [tally.counts(other)[kind] for other in range(len(tally.inventories))]
    return mine >= max(everyone) if kind == MOST else mine <= min(everyone)


def _counted(tally: Tally, seat: int, kind: str, count: int) -> int:
    """The score of `count` icons of a type whose points depend on counts or on the board."""
    if kind == "Athlete":
        return count * count
    if kind == MOST:
        return (4 if _compared(tally, seat, kind, count) else -4) * count
    if kind == FEWEST:
        return (3 if _compared(tally, seat, kind, count) else -3) * count
    if kind == "Baker":
        return (5 if count >= 3 else -15) * count
    if kind == "Judge":
        if _alternative(tally, kind):
            return (4 if count == 2 else -4) * count
        return (3 if count == 1 else -3) * count
    if kind == "Painter":
        unused = [c for c in tally.squares_of(kind) if c not in tally.collected | tally.destroyed]
        return 2 * len(unused) * count
    if kind == "Photographer":
        return sum(c in tally.collected for c in tally.squares_of(kind)) * count
    if kind == "Hairdresser":
        return _hairdresser_lines(tally) * count
    raise KeyError(kind)


def type_scores(tally: Tally, seat: int) -> dict[str, int]:
    """Each type `seat` holds, with its score."""
    counts = tally.counts(seat)
    scores: dict[str, int] = {}
    for kind, count in counts.items():
        if kind in MIRRORS:
            continue
        if kind in FLAT:
            scores[kind] = FLAT[kind][_alternative(tally, kind)] * count
        elif kind == "Taxi Driver":
            scores[kind] = sum(_taxi(tally, i) for i in tally.inventories[seat] if i.kind == kind)
        else:
            scores[kind] = _counted(tally, seat, kind, count)
    others = list(scores.values())
    if counts[LOWEST]:
        scores[LOWEST] = (min(others) if others else 0) * counts[LOWEST]
    if counts[HIGHEST]:
        scores[HIGHEST] = (max(others) if others else 0) * counts[HIGHEST]
    return scores


def score(tally: Tally, seat: int) -> int:
    return sum(type_scores(tally, seat).values())


def scores(tally: Tally) -> tuple[int, ...]:
    """Every player's score, in seat order."""
    return tuple(score(tally, seat) for seat in range(len(tally.inventories)))


def leaders(all_scores: Sequence[int]) -> tuple[int, ...]:
    """The seats with the highest score (several when they tie)."""
    top = max(all_scores)
    return tuple(seat for seat, points in enumerate(all_scores) if points == top)


def last_placed(all_scores: Sequence[int]) -> tuple[int, ...]:
    """The seats with the lowest score (several when they tie)."""
    bottom = min(all_scores)
    return tuple(seat for seat, points in enumerate(all_scores) if points == bottom)
