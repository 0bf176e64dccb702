"""Magnetmen's actions (collect, destroy, an icon destroyed or gained) and their notation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from ..core import END_TURN, Action, NotationError, match_notation
from ..grid import Cell, cell_name, parse_cell
from .kinds import KINDS

SEATS = ("A", "B", "C", "D")


@dataclass(frozen=True)
class Collect(Action):
    """The mover collects the square: its icon goes to their inventory, and a token goes on the
    square one way up. A Police square collected once can be collected a second time, again a
    `Collect` of that square: the token already on it is turned over, as the square is then
    destroyed, so the board sees that same cell change."""

    cell: Cell

    def __str__(self) -> str:
        return cell_name(self.cell)

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


@dataclass(frozen=True)
class Destroy(Action):
    """An unused square destroyed, leaving the board (the advanced rules' action, or the
    Explorer's power): a token on it the other way up."""

    cell: Cell

    def __str__(self) -> str:
        return f"x{cell_name(self.cell)}"

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


@dataclass(frozen=True)
class DestroyIcon(Action):
    """`seat` loses an icon of `kind` (the Actress's main power, the Singer's alternative).
    `square` names which one for an icon that remembers its square (a Taxi Driver, a King with
    its alternative text); None for any other icon, or one gained without a square."""

    seat: int
    kind: str
    square: Cell | None = None
    seen: ClassVar[bool] = False

    def __str__(self) -> str:
        where = "" if self.square is None else f"@{cell_name(self.square)}"
        return f"{SEATS[self.seat]}-{self.kind}{where}"


@dataclass(frozen=True)
class GainIcon(Action):
    """`seat` gains an icon of `kind`, with no square (the Actress's alternative power)."""

    seat: int
    kind: str
    seen: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"{SEATS[self.seat]}+{self.kind}"


_CELL = r"[a-p](?:1[0-6]|[1-9])"
_NOTATION = re.compile(
    rf"(x)?({_CELL})|([A-D])\s*([+-])\s*([A-Za-z][A-Za-z ]*?)\s*(?:@\s*({_CELL}))?"
)
_KIND_NAMES = {kind.name.lower().replace(" ", ""): kind.name for kind in KINDS}


def parse_action(text: str) -> Action:
    """Reads `c4` (collect), `xc4` (destroy), `A-Baker` / `A-Taxi Driver@c4` (an icon
    destroyed), `B+Baker` (an icon gained) or `end`."""
    if text.strip() == "end":
        return END_TURN
    found = match_notation(
        _NOTATION,
        text,
        "a collection (c4), a destruction (xc4), an icon lost (A-Baker, A-Taxi Driver@c4),"
        " an icon gained (A+Baker) or end",
    )
    if found[2]:
        cell = parse_cell(found[2])
        return Destroy(cell) if found[1] else Collect(cell)
    kind = _KIND_NAMES.get(found[5].lower().replace(" ", ""))
    if kind is None:
        raise NotationError(f"{text!r}: no Magnetman is called {found[5]!r}")
    seat = SEATS.index(found[3])
    if found[4] == "+":
        if found[6]:
            raise NotationError(f"{text!r}: a gained icon has no square")
        return GainIcon(seat, kind)
    return DestroyIcon(seat, kind, parse_cell(found[6]) if found[6] else None)
