"""Board places as a person names them: the game's own squares (a1 at the game's corner), the
trays by whose pieces they hold, the boxes by what is in them.

Events name board places as printed on the board: on r1, tic-tac-toe's b2 is board square f6
and X's pieces wait in tray A. Only hardware-facing views (`magboard board show`, the
self-test) show those; everything a player reads goes through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from magboard.firmware.games import sized
from magboard.firmware.profiles import Profile
from magboard.firmware.profiles.parts import Supply
from magboard.hardware.spec import place_label

BOX = "supply:"
"""How places name a box of pieces no sensor sees."""


@dataclass(frozen=True)
class PlaceNames:
    squares: dict[str, str] = field(default_factory=dict)
    """Board label -> the game's own square, for the cells of the game's area."""
    trays: dict[str, str] = field(default_factory=dict)
    """Tray slot label -> its tray in words ("X's tray", "A's kitten tray")."""
    boxes: dict[str, str] = field(default_factory=dict)
    """Supply name (a tray or a box, as `supply:NAME` names it) -> it in words."""

    @classmethod
    def of(cls, profile: Profile, seats: Sequence[str]) -> PlaceNames:
        squares = {place_label(c): place_label(profile.to_game(c)) for c in profile.area}
        trays: dict[str, str] = {}
        boxes: dict[str, str] = {}
        for supply in profile.supplies:
            boxes[supply.name] = said = _supply(supply, seats)
            for slot in supply.slots:
                trays[place_label(slot)] = said
        return cls(squares, trays, boxes)

    def name(self, label: str) -> str:
        """A game square by its own name; a board square outside the game, a tray or a box
        named as such."""
        if label in self.squares:
            return self.squares[label]
        if label.startswith(BOX):
            box = label[len(BOX) :]
            return self.boxes.get(box, f"the {box} box")
        if label in self.trays:
            return self.trays[label]
        if self.squares and label[:1].islower() and label[1:].isdigit():
            return f"board square {label} (outside the game)"
        return label

    def names(self, labels: Iterable[str]) -> str:
        """Squares one by one; a tray or a box once, however many of its slots."""
        said: list[str] = []
        for label in labels:
            name = self.name(label)
            if name not in said:
                said.append(name)
        return ", ".join(said)

    def lifted(self, label: str) -> str:
        """What a hand took: "the piece on b2", "a piece from X's tray"."""
        if label in self.squares:
            return f"the piece on {self.squares[label]}"
        return f"a piece from {self.name(label)}"

    def changes(self, remove: Sequence[str], put_back: Sequence[str]) -> str:
        """What to put right, square by square: "take the piece off b2; put a piece back in
        X's tray"."""
        parts = []
        if remove:
            parts.append(f"take {_pieces(remove)} off {self.names(remove)}")
        if put_back:
            cells = [label for label in put_back if label in self.squares]
            others = [label for label in put_back if label not in self.squares]
            if cells:
                parts.append(f"put {_pieces(cells)} back on {self.names(cells)}")
            if others:
                parts.append(f"put {_pieces(others, 'a piece')} back in {self.names(others)}")
        return "; ".join(parts) or "nothing to change"


def _pieces(labels: Sequence[str], one: str = "the piece") -> str:
    """ "the piece", "the pieces"; or for pieces from a tray, "a piece", "2 pieces"."""
    if len(labels) == 1:
        return one
    return f"{len(labels)} pieces" if one == "a piece" else "the pieces"


def _supply(supply: Supply, seats: Sequence[str]) -> str:
    """ "X's tray", "A's kitten tray", "A's captured pile", "the tokens box": whose pieces wait
    there and what they are, from the supply's name ("A-kitten")."""
    owner = supply.owner
    theirs = owner is not None and owner < len(seats)
    what = supply.name.partition("-")[2] if theirs else supply.name.replace("-", " ")
    if len(what) == 1 and what in sized.LETTERS:  # a tray of one size (Tic-Tac-Cap)
        what = sized.NAMES[sized.LETTERS.index(what)]
    noun = "pile" if what == "captured" else "tray" if supply.sensed else "box"
    whose = f"{seats[owner]}'s" if theirs else "the"
    return f"{whose} {what + ' ' if what else ''}{noun}"
