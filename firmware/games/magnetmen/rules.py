"""Magnetmen (rules/magnetmen.md): collect squares of a printed board, repelled by the types you
hold, and score your inventory at the end.

A turn is one collection (or, with the advanced rules, one destroyed square), then whatever the
collected type's power asks or allows. What it asks comes first and is never skipped: the
Explorer's destruction, the Pilot's extra collection, the icons the Actress makes players
destroy or gain. What it allows may be taken or left, in any order: the Firefighter's extra
collections, the Singer's (alternative) icon destructions; the player ends the turn with
`END_TURN` while any of these remain, and a turn with nothing left to do ends by itself.
Players with nothing to do are skipped; the game ends when nobody can act.

Readings the rules file leaves to the engine, each chosen for the reason given:

- Explorer: the destruction is mandatory when an unused square that can be destroyed exists
  (a Judge cannot), and lapses otherwise: "you also destroy" is an instruction.
- Pilot: the extra collection is mandatory too ("collect one more square"), on any square of
  the Pilot's row or column that can still be collected (an unused square, or a Police square
  collected once), with a free inventory slot; it ignores repel and every type's restriction.
- Firefighter (main): the turn may have three collections in all, every collection of the turn
  counted (the Firefighter, a Pilot's extra); the extra ones obey every rule and are never a
  Firefighter, and may be left. (Alternative): one more collection that ignores repel only,
  which may be left; each Firefighter collected grants its own.
- Police: the first collection crosses the square out (it repels and counts as collected for
  every rule) and leaves it collectable once more; the second destroys it. Neither destroy
  action can take a Police square once collected, as it is no longer unused.
- King (main): the player who takes one, by collecting it or by gaining it from the Actress,
  takes no more turns after this one (the turn in progress is finished); destroying the icon
  later does not bring them back. (Alternative): a player who holds a King may not collect
  another, nor any square next to the square their King came from: the restriction is the
  taker's, as "one per player" is, where the Singer's text says "nobody" when it means everyone;
  it goes with the icon, so a King destroyed from the inventory lifts it.
- Life Guard: "the player to your left" is the next seat in turn order (turns go clockwise),
  "to your right" the previous one; with two players both are the opponent. They "could collect
  it" when the square is open to them by the repel rule and the types' restrictions (Mail
  Carrier, Singer, King), whoever's turn it is; their own Life Guard rule is not applied again,
  which would go round the table.
- Actress (main): the leading players by the score of the position just after her collection
  each destroy one icon of their choice, one choice each, in seat order starting after the
  mover (the mover last); a player with nothing destroyable has nothing to choose.
  (Alternative): the last-placed players each gain an icon of any type printed on this board,
  in the same order, if they have a free slot; a gained icon has no square and triggers no
  power, but counts for everything a held icon counts for (repel, the King, four of a type).
- Singer (alternative): the mover destroys up to two icons, one at a time, from any
  inventories (their own too), and may stop early by ending the turn.
- "Cannot be destroyed": a Judge's square cannot be destroyed, nor a Judge icon.
- "Next to", "neighbouring": the eight squares around, the repel rule's neighbours (Mail
  Carrier, Singer, King, Taxi Driver). "Collected" neighbours are crossed-out squares, a Police
  square collected once among them; destroyed squares are not.
- Firefighter (alternative): the extra collection ignores repel only; the types' restrictions
  (Mail Carrier, Singer, King, Life Guard) still hold.
- A power that stops a player (the King, four of a type) lets the turn in progress finish.
- Advanced rules, four of a type: a player holding four icons of one type is skipped, and plays
  again should an icon's destruction leave them with three ("holds", as the rules file says).

The position (`key`) is the squares' states, each inventory as counts by type plus the squares
of the icons whose square still matters (Taxi Driver, and the King with its alternative text),
the players who took a King, the player to move and the turn in progress. There is no
repetition rule: every turn uses up a square, so every game ends.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum, IntEnum
from functools import cached_property
from typing import Any, ClassVar

from magboard.firmware.article import with_article

from ..core import END_TURN, Action, Game, NotationError, Option, Outcome, State, match_notation
from ..grid import Cell, cell_name, draw_grid, parse_cell
from ..phrasing import Phrase
from ..screen import Picture, Standings
from . import scoring, screen
from .generator import SIZES, Printed, generate
from .kinds import KINDS
from .printing import PRINTING
from .scoring import Icon, Tally

SEATS = ("A", "B", "C", "D")
FIRE_TOTAL = 3
"""Collections a turn may have once the Firefighter (main text) is collected."""
SINGER_ICONS = 2
"""Icons the Singer (alternative text) lets the mover destroy."""
FOUR = 4
"""Icons of one type that stop a player under the advanced rules."""
SHORT = {
    "Guitarist": "Gu",
    "Veterinarian": "Ve",
    "Athlete": "At",
    "Ballerina": "Ba",
    "Knitting Lady": "Kn",
    "Baby": "By",
    "Elderly Man": "El",
    "Explorer": "Ex",
    "Astronaut": "As",
    "Doctor": "Do",
    "Firefighter": "Fi",
    "Police": "Po",
    "Baker": "Bk",
    "Judge": "Ju",
    "King": "Ki",
    "Mail Carrier": "Ma",
    "Painter": "Pa",
    "Photographer": "Ph",
    "Hairdresser": "Ha",
    "Life Guard": "Li",
    "Actress": "Ac",
    "Singer": "Si",
    "Taxi Driver": "Ta",
    "Pilot": "Pi",
}
"""Two letters per type, for the board drawn as text."""


# ---------------------------------------------------------------------------------------------
# Actions and notation.


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


# ---------------------------------------------------------------------------------------------
# The board as bit masks: square i (row-major from a1) is bit i.


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


def _pick(actions: Sequence[Action], mask: int) -> list[Action]:
    """The actions of the squares of `mask`, in square order."""
    found = []
    while mask:
        low = mask & -mask
        found.append(actions[low.bit_length() - 1])
        mask ^= low
    return found


def _bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


class Duty(Enum):
    """What the turn in progress must do before anything else."""

    NONE = "none"
    EXPLORE = "explore"
    """Destroy an unused square (the Explorer)."""
    PILOT = "pilot"
    """Collect a square in the Pilot's row or column, ignoring every rule."""
    LOSE = "lose"
    """The first of `choosers` destroys an icon of their own (the Actress, main text)."""
    GAIN = "gain"
    """The first of `choosers` gains an icon (the Actress, alternative text)."""


# ---------------------------------------------------------------------------------------------
# The state.


@dataclass(frozen=True)
class MagnetmenState(State):
    setup: Setup
    collected: int = 0
    """Squares crossed out, a Police square collected once among them."""
    destroyed: int = 0
    police: int = 0
    """Police squares collected once: crossed out, and collectable once more."""
    counts: tuple[tuple[int, ...], ...] = ()
    """Per seat, its icons of each of the board's types (`Setup.kinds`)."""
    squares: tuple[tuple[tuple[int, int], ...], ...] = ()
    """Per seat, (type, square) of each icon whose square matters (`Setup.marked`), sorted; an
    icon gained without a square is counted but not listed."""
    retired: int = 0
    """Seats that took a King (main text): bit per seat."""
    to_move: int = 0
    turn: int = 0
    collections: int = 0
    """Collections made in the turn in progress."""
    duty: Duty = Duty.NONE
    pilot: int = -1
    """The Pilot's square while its extra collection is owed."""
    choosers: tuple[int, ...] = ()
    """The seats whose Actress choice is still owed, the one choosing now first."""
    fire: bool = False
    """A Firefighter (main text) was collected this turn."""
    extra: int = 0
    """Extra collections ignoring repel still allowed (Firefighter, alternative text)."""
    singer: int = 0
    """Icon destructions still allowed (Singer, alternative text)."""
    result: Outcome | None = None

    # -- making states -------------------------------------------------------------------------

    @classmethod
    def laid_out(
        cls,
        printed: Printed,
        players: int = 2,
        advanced_rules: bool = False,
        *,
        collected: Iterable[Cell] = (),
        police: Iterable[Cell] = (),
        destroyed: Iterable[Cell] = (),
        inventories: Sequence[Iterable[Icon | str]] = (),
        retired: Iterable[int] = (),
        to_move: int = 0,
    ) -> MagnetmenState:
        """A position set up by hand (a puzzle, a game taken over part-way): `collected`
        squares crossed out, `police` the Police squares among them collected once, `destroyed`
        squares gone, each seat's icons (an `Icon`, or a type name for an icon without a
        square). The turn is `to_move`'s, or the next seat's that can act; none: it is over."""
        setup = Setup(printed, players, advanced_rules)
        mask = _mask_of(setup, collected)
        once = _mask_of(setup, police)
        if once & ~setup.squares_of("Police"):
            raise ValueError("only a Police square can be collected once and still be collectable")
        counts, squares = [], []
        for seat in range(players):
            icons = [
                Icon(i) if isinstance(i, str) else i
                for i in (inventories[seat] if seat < len(inventories) else ())
            ]
            tally = [0] * len(setup.kinds)
            marks = []
            for icon in icons:
                t = setup.index.get(icon.kind)
                if t is None:
                    raise ValueError(f"the board shows no {icon.kind}: no icon of it can be held")
                tally[t] += 1
                where = None if icon.square is None else setup.at(icon.square)
                if icon.square is not None and (where is None or setup.type_at[where] != t):
                    raise ValueError(
                        f"{cell_name(icon.square)} is not {with_article(icon.kind)} square"
                    )
                if t in setup.marked and where is not None:
                    marks.append((t, where))
            counts.append(tuple(tally))
            squares.append(tuple(sorted(marks)))
        state = cls(
            setup=setup,
            collected=mask | once,
            destroyed=_mask_of(setup, destroyed),
            police=once,
            counts=tuple(counts),
            squares=tuple(squares),
            retired=sum(1 << seat for seat in retired),
            to_move=(to_move - 1) % players,
        )
        return state._next_player(state.to_move)

    def _evolve(self, **changes: Any) -> MagnetmenState:
        """This state with `changes`: `dataclasses.replace` without its per-call checks, as
        perft and the referee's search make many thousands of states."""
        after = object.__new__(MagnetmenState)
        values = after.__dict__
        values.update(self.__dict__)
        for worked_out in _WORKED_OUT:
            values.pop(worked_out, None)
        values.update(changes)
        return after

    def __hash__(self) -> int:
        """The fields' hash, worked out once: perft and the referee look positions up in sets."""
        known = self.__dict__.get("_hash")
        if known is None:
            mine = self.__dict__
            known = mine["_hash"] = hash(tuple(mine[name] for name in _FIELDS))
        return known

    # -- what the contract asks ----------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def extent(self) -> tuple[int, int]:
        return self.setup.width, self.setup.height

    @property
    def printed(self) -> Printed:
        return self.setup.printed

    @property
    def chooser(self) -> int | None:
        """An Actress's leading or last-placed player choosing an icon, or the mover choosing
        icons for the Singer (alternative text) to destroy."""
        if self.result is not None:
            return None
        if self.duty in (Duty.LOSE, Duty.GAIN):
            return self.choosers[0]
        if self.singer and self.duty is Duty.NONE and self._optional_left():
            return self.to_move
        return None

    @property
    def can_end_turn(self) -> bool:
        """The turn did its collection and owes nothing: what is left is optional."""
        return self.result is None and self.collections > 0 and self.duty is Duty.NONE

    @property
    def must_pass(self) -> bool:
        return False  # a player who cannot act is skipped, never asked to pass

    def outcome(self) -> Outcome | None:
        return self.result

    def key(self) -> Hashable:
        return (
            self.collected,
            self.destroyed,
            self.police,
            self.counts,
            self.squares,
            self.retired,
            self.to_move,
            self.collections,
            self.duty,
            self.pilot,
            self.choosers,
            self.fire,
            self.extra,
            self.singer,
        )

    # -- the squares ---------------------------------------------------------------------------

    def _unused(self) -> int:
        return self.setup.all & ~(self.collected | self.destroyed)

    def _available(self) -> int:
        """Squares a collection may take: unused ones, and Police squares collected once."""
        return self._unused() | self.police

    def _destroyable(self) -> int:
        return self._unused() & ~self.setup.undestroyable

    def _full(self, seat: int) -> bool:
        return sum(self.counts[seat]) >= self.setup.slots

    def _repellers(self, t: int, count: int) -> int:
        """The squares of type `t` that repel a player holding `count` of it: not destroyed
        ones, and for the Astronaut and the Doctor as their texts say."""
        rule = self.setup.repel[t]
        source = self.setup.masks[t] & ~self.destroyed
        if rule is Repel.ALL:
            return source
        if rule is Repel.UNUSED:
            return source & ~self.collected
        if rule is Repel.COLLECTED:
            return source & self.collected
        if rule is Repel.FROM_THREE:
            return source if count >= 3 else 0
        return source if count < 3 else 0

    def repelled(self, seat: int) -> int:
        """The squares the repel rule (item 10) closes to `seat`: beside a square of a type it
        holds once, also above and below at twice, also diagonally from three."""
        setup = self.setup
        found = 0
        standing = ~self.destroyed
        for t, count in enumerate(self.counts[seat]):
            if not count:
                continue
            source = self._repellers(t, count) if setup.repel[t] else setup.masks[t] & standing
            if not source:
                continue
            found |= setup.side(source)
            if count >= 2:
                vertical = setup.updown(source)
                found |= vertical
                if count >= 3:
                    found |= setup.side(vertical)
        return found

    def _barred(self, seat: int) -> int:
        """Squares the types' restrictions close to `seat`: next to a collected Singer (main),
        a Mail Carrier with (alternative: without) no collected neighbour, and a King holder's
        other Kings and the squares next to their King (alternative)."""
        setup = self.setup
        barred = 0
        if setup.singer_main:
            barred = setup.around(self.collected & setup.singer_main)
        if setup.mail:
            near = setup.around(self.collected)
            barred |= setup.mail & (near if setup.alternative("Mail Carrier") else ~near)
        king = setup.king_alt
        if king >= 0 and self.counts[seat][king]:
            barred |= setup.masks[king]
            for t, i in self.squares[seat]:
                if t == king:
                    barred |= setup.around(1 << i)
        return barred

    def _witness(self, seat: int) -> int:
        """The seat whose view the Life Guard reads: to the left (next in turn order), or to
        the right with the alternative text."""
        step = -1 if self.setup.alternative("Life Guard") else 1
        return (seat + step) % self.players

    def collectable(self, seat: int, *, repel: bool = True, lifeguard: bool = True) -> int:
        """The squares `seat` may collect by the squares' rules (not counting its free slots,
        nor whose turn it is)."""
        mask = self._available()
        if repel:
            mask &= ~self.repelled(seat)
        mask &= ~self._barred(seat)
        guard = self.setup.guard
        if lifeguard and mask & guard:
            theirs = self.collectable(self._witness(seat), lifeguard=False)
            mask &= ~(guard & ~theirs)
        return mask

    def can_act(self, seat: int) -> bool:
        """Whether `seat` takes a turn when it comes (item 12): not after a King (main), not
        with a full inventory, not with four of a type (advanced rules), and only with a square
        to collect (or, advanced rules, one to destroy)."""
        if self.retired >> seat & 1 or self._full(seat):
            return False
        if self.setup.advanced_rules:
            if max(self.counts[seat], default=0) >= FOUR:
                return False
            if self._destroyable():
                return True
        return bool(self.collectable(seat))

    def why_skipped(self, seat: int) -> str:
        """`can_act`'s reasons, the first that holds, in words."""
        if self.retired >> seat & 1:
            return "took the King and takes no more turns"
        if self._full(seat):
            return "has a full inventory"
        if self.setup.advanced_rules and max(self.counts[seat], default=0) >= FOUR:
            return "holds four icons of one type"
        return "has no square to collect"

    # -- legal actions -------------------------------------------------------------------------

    def _legal(self) -> tuple[Action, ...]:
        if self.result is not None:
            return ()
        setup = self.setup
        duty = self.duty
        if duty is Duty.NONE:
            if not self.collections:
                actions = _pick(setup.collects, self.collectable(self.to_move))
                if setup.advanced_rules:
                    actions += _pick(setup.destroys, self._destroyable())
                return tuple(actions)
            return (*self._optional(), END_TURN)
        if duty is Duty.EXPLORE:
            return tuple(_pick(setup.destroys, self._destroyable()))
        if duty is Duty.PILOT:
            return tuple(_pick(setup.collects, setup.lines[self.pilot] & self._available()))
        if duty is Duty.LOSE:
            return tuple(self._losses(self.choosers[0]))
        return tuple(self._gains(self.choosers[0]))

    def _extra_collectable(self) -> int:
        """The optional collections left to the mover (the Firefighter's)."""
        if self._full(self.to_move):
            return 0
        setup = self.setup
        mask = 0
        if self.fire and self.collections < FIRE_TOTAL:
            mask = self.collectable(self.to_move) & ~setup.firefighter
        if self.extra:
            mask |= self.collectable(self.to_move, repel=False)
        return mask

    def _optional(self) -> list[Action]:
        actions = _pick(self.setup.collects, self._extra_collectable())
        if self.singer:
            for seat in range(self.players):
                actions += self._losses(seat)
        return actions

    def _optional_left(self) -> bool:
        if self.singer and any(self._losses(seat) for seat in range(self.players)):
            return True
        return bool((self.fire or self.extra) and self._extra_collectable())

    def _losses(self, seat: int) -> list[Action]:
        """Every different icon `seat` could lose (a Judge cannot be destroyed)."""
        setup = self.setup
        judge = setup.of("Judge")
        found: list[Action] = []
        for t, count in enumerate(self.counts[seat]):
            if not count or t == judge:
                continue
            name = setup.kinds[t]
            if t in setup.marked:
                where = sorted({i for k, i in self.squares[seat] if k == t})
                found += [DestroyIcon(seat, name, setup.cell(i)) for i in where]
                if count > sum(k == t for k, _ in self.squares[seat]):
                    found.append(DestroyIcon(seat, name))
            else:
                found.append(DestroyIcon(seat, name))
        return found

    def _gains(self, seat: int) -> list[Action]:
        """The icons `seat` may gain: any type printed on the board, but a second King where
        one per player is the rule."""
        setup = self.setup
        king = setup.of("King")
        barred = king if king >= 0 and setup.alt[king] and self.counts[seat][king] else -1
        return [GainIcon(seat, name) for t, name in enumerate(setup.kinds) if t != barred]

    # -- playing -------------------------------------------------------------------------------

    def _play(self, action: Action) -> State:
        # By exact type first: the search's actions, without an ABC's instance check.
        if type(action) is Collect:
            return self._collect(self.setup.square(action.cell))
        if type(action) is Destroy:
            bit = 1 << self.setup.square(action.cell)
            changes = {"destroyed": self.destroyed | bit, "duty": Duty.NONE}
            if self.duty is Duty.EXPLORE and self._allowances(changes):
                return self._evolve(**changes)._settle()
            return self._close(changes)
        if isinstance(action, DestroyIcon):
            return self._lose(action)
        if isinstance(action, GainIcon):
            return self._gain(action)
        assert action == END_TURN
        return self._end_turn()

    def _collect(self, i: int) -> MagnetmenState:
        setup = self.setup
        seat = self.to_move
        t = setup.type_at[i]
        name = setup.kinds[t]
        bit = 1 << i
        collected, destroyed, police = self.collected, self.destroyed, self.police
        if name == "Police" and police & bit:
            police, collected, destroyed = police & ~bit, collected & ~bit, destroyed | bit
        else:
            collected |= bit
            if name == "Police":
                police |= bit
        changes: dict[str, Any] = {
            "collected": collected,
            "destroyed": destroyed,
            "police": police,
            "counts": _bumped(self.counts, seat, t, 1),
            "collections": self.collections + 1,
        }
        if t in setup.marked:
            mine = tuple(sorted((*self.squares[seat], (t, i))))
            changes["squares"] = (*self.squares[:seat], mine, *self.squares[seat + 1 :])
        if self.duty is Duty.PILOT:
            changes.update(duty=Duty.NONE, pilot=-1)
        elif self.collections and self.extra and not self.fire:
            changes["extra"] = self.extra - 1
        alt = setup.alt[t]
        if name == "King" and not alt:
            changes["retired"] = self.retired | 1 << seat
        elif name == "Firefighter" and alt:
            changes["extra"] = changes.get("extra", self.extra) + 1
        elif name == "Firefighter":
            changes["fire"] = True
        elif name == "Singer" and alt:
            changes["singer"] = self.singer + SINGER_ICONS
        if t not in setup.powered and not self._allowances(changes):
            return self._close(changes)  # most turns: one collection, nothing follows
        return self._evolve(**changes)._power(name, i, alt)._settle()

    def _allowances(self, changes: Mapping[str, Any]) -> bool:
        """Whether the turn, with `changes`, still has optional actions allowed (some of which
        may not be possible)."""
        return bool(
            changes.get("fire", self.fire)
            or changes.get("extra", self.extra)
            or changes.get("singer", self.singer)
        )

    def _power(self, name: str, i: int, alt: bool) -> MagnetmenState:
        """The duty the collected type's power sets, if it can be done. Only called on a state
        just made, which nobody holds yet: set in place."""
        if name == "Explorer" and self._destroyable():
            self.__dict__["duty"] = Duty.EXPLORE
        elif name == "Pilot" and self.setup.lines[i] & self._available():
            if not self._full(self.to_move):
                self.__dict__.update(duty=Duty.PILOT, pilot=i)
        elif name == "Actress":
            self._actress(alt)
        return self

    def _actress(self, alt: bool) -> None:
        """The Actress's choosers: the leading players who have an icon to lose (main text),
        or the last-placed players with a free slot (alternative), from the mover's left."""
        current = self.scores
        picked = scoring.last_placed(current) if alt else scoring.leaders(current)
        order = [(self.to_move + k) % self.players for k in range(1, self.players + 1)]
        if alt:
            choosers = tuple(s for s in order if s in picked and not self._full(s))
        else:
            choosers = tuple(s for s in order if s in picked and self._losses(s))
        if choosers:
            self.__dict__.update(duty=Duty.GAIN if alt else Duty.LOSE, choosers=choosers)

    def _lose(self, action: DestroyIcon) -> MagnetmenState:
        setup = self.setup
        seat, t = action.seat, setup.index[action.kind]
        changes: dict[str, Any] = {"counts": _bumped(self.counts, seat, t, -1)}
        if action.square is not None:
            mine = list(self.squares[seat])
            mine.remove((t, setup.square(action.square)))
            changes["squares"] = (*self.squares[:seat], tuple(mine), *self.squares[seat + 1 :])
        if self.duty is Duty.LOSE:
            rest = self.choosers[1:]
            changes.update(choosers=rest, duty=Duty.LOSE if rest else Duty.NONE)
        else:
            changes["singer"] = self.singer - 1
        return self._evolve(**changes)._settle()

    def _gain(self, action: GainIcon) -> MagnetmenState:
        setup = self.setup
        seat, t = action.seat, setup.index[action.kind]
        rest = self.choosers[1:]
        changes: dict[str, Any] = {
            "counts": _bumped(self.counts, seat, t, 1),
            "choosers": rest,
            "duty": Duty.GAIN if rest else Duty.NONE,
        }
        if action.kind == "King" and not setup.alt[t]:
            changes["retired"] = self.retired | 1 << seat
        return self._evolve(**changes)._settle()

    def _settle(self) -> MagnetmenState:
        """The turn goes on while it owes something or something optional is left."""
        if self.duty is not Duty.NONE or self._optional_left():
            return self
        return self._end_turn()

    def _end_turn(self) -> MagnetmenState:
        return self._close({})

    def _close(self, changes: Mapping[str, Any]) -> MagnetmenState:
        """This state with `changes` and the turn over: the next player's begins."""
        after = self._evolve(**{**changes, **_FRESH_TURN, "turn": self.turn + 1})
        return after._next_player(self.to_move)

    def _next_player(self, mover: int) -> MagnetmenState:
        """The next seat after `mover` that can act (the mover itself last), or the end. Only
        called on a state just made, which nobody holds yet: finished in place."""
        assert "_hash" not in self.__dict__
        for k in range(1, self.players + 1):
            seat = (mover + k) % self.players
            if self.can_act(seat):
                self.__dict__["to_move"] = seat
                return self
        self.__dict__["to_move"] = (mover + 1) % self.players
        self.__dict__["result"] = self._final()
        return self

    def _final(self) -> Outcome:
        final = self.scores
        winners = scoring.leaders(final)
        names = " and ".join(SEATS[s] for s in winners)
        top = final[winners[0]]
        verdict = f"{names} share the win" if len(winners) > 1 else f"{names} wins"
        board = ", ".join(f"{SEATS[s]} {p}" for s, p in enumerate(final))
        return Outcome(winners, f"nobody can act: {verdict} with {top} ({board})", scores=final)

    # -- scores --------------------------------------------------------------------------------

    def tally(self) -> Tally:
        """The position as scoring reads it."""
        setup = self.setup
        inventories = []
        for seat in range(self.players):
            icons: list[Icon] = []
            for t, count in enumerate(self.counts[seat]):
                name = setup.kinds[t]
                placed = [Icon(name, setup.cell(i)) for k, i in self.squares[seat] if k == t]
                icons += placed + [Icon(name)] * (count - len(placed))
            inventories.append(tuple(icons))
        return Tally(
            setup.printed,
            frozenset(setup.cell(i) for i in _bits(self.collected)),
            frozenset(setup.cell(i) for i in _bits(self.destroyed)),
            tuple(inventories),
        )

    @property
    def scores(self) -> tuple[int, ...]:
        """Every seat's score if the game ended now."""
        return scoring.scores(self.tally())

    # -- refusals ------------------------------------------------------------------------------

    def why_illegal(self, action: Action) -> str:
        if self.result is not None:
            return "the game is over"
        if isinstance(action, Collect | Destroy):
            i = self.setup.at(action.cell)
            if i is None:
                return f"{cell_name(action.cell)} is not on this board"
        reason = self._why_not_now(action)
        if reason:
            return reason
        if isinstance(action, Collect):
            return self._why_not_collect(action.cell)
        if isinstance(action, Destroy):
            return self._why_not_destroy(action.cell)
        if isinstance(action, DestroyIcon):
            return self._why_not_lose(action)
        if isinstance(action, GainIcon):
            return self._why_not_gain(action)
        return super().why_illegal(action)

    def _why_not_now(self, action: Action) -> str:
        """What the turn in progress wants instead, if `action` is not of that sort."""
        mover = SEATS[self.to_move]
        duty = self.duty
        if duty is Duty.EXPLORE and not isinstance(action, Destroy):
            return f"{mover} first destroys an unused square for the Explorer (like xc4)"
        if duty is Duty.PILOT and not isinstance(action, Collect):
            line = cell_name(self.setup.cell(self.pilot))
            return f"{mover} first collects one more square in the Pilot's row or column ({line})"
        if duty in (Duty.LOSE, Duty.GAIN):
            chooser = SEATS[self.choosers[0]]
            wanted = DestroyIcon if duty is Duty.LOSE else GainIcon
            if not isinstance(action, wanted) or action.seat != self.choosers[0]:
                if duty is Duty.LOSE:
                    return f"first {chooser} destroys an icon of theirs for the Actress"
                return f"first {chooser} gains an icon for the Actress"
        if action == END_TURN:
            if not self.collections:
                return f"{mover} must first collect a square"
            return "the turn owes its power first"
        if isinstance(action, Destroy) and duty is Duty.NONE:
            if self.collections:
                return "a turn destroys a square instead of collecting, not as well"
            if not self.setup.advanced_rules:
                return "destroying a square needs the advanced rules (or an Explorer)"
        if isinstance(action, DestroyIcon) and duty is Duty.NONE and not self.singer:
            return "no power lets anyone destroy an icon now"
        if isinstance(action, GainIcon) and duty is not Duty.GAIN:
            return "no power lets anyone gain an icon now"
        return ""

    def _why_not_collect(self, cell: Cell) -> str:
        setup = self.setup
        i = setup.at(cell)
        assert i is not None
        name, bit = cell_name(cell), 1 << i
        mover = SEATS[self.to_move]
        if self.destroyed & bit:
            return f"{name} is destroyed"
        if self.collected & bit and not self.police & bit:
            return f"{name} is already collected"
        if self._full(self.to_move):
            return f"{mover}'s inventory is full"
        if self.duty is Duty.PILOT:
            pilot = cell_name(setup.cell(self.pilot))
            return f"the Pilot's extra square is in the row or column of {pilot}"
        if self.collections:
            if not (self.fire or self.extra):
                return "one collection a turn: end the turn"
            if self.fire and self.collections >= FIRE_TOTAL:
                return "the Firefighter's three collections are made"
            if self.fire and setup.firefighter >> i & 1:
                return "not a second Firefighter this turn"
        if not (self.extra and self.collections) and self.repelled(self.to_move) & bit:
            return self._why_repelled(i)
        return self._why_barred(i) or f"{name} cannot be collected now"

    def _why_repelled(self, i: int) -> str:
        """Names the neighbour and the icons that repel square `i`."""
        setup = self.setup
        seat = self.to_move
        col, row = setup.cell(i)
        for dr in (0, 1, -1):  # beside first, the plainest reason
            for dc in (-1, 1, 0):
                j = setup.at((col + dc, row + dr))
                if (dc, dr) == (0, 0) or j is None:
                    continue
                t = setup.type_at[j]
                count = self.counts[seat][t]
                needed = 1 if dr == 0 else (2 if dc == 0 else 3)
                if count < needed or not self._repellers(t, count) >> j & 1:
                    continue
                where = ("beside", "above or below", "diagonal to")[needed - 1]
                kind = setup.kinds[t]
                return (
                    f"{cell_name(setup.cell(i))} is repelled: {SEATS[seat]} holds {count} {kind}"
                    f" and {cell_name(setup.cell(j))}, {where} it, is {with_article(kind)}"
                    " (one icon repels beside, two also above and below, three also diagonally)"
                )
        return f"{cell_name(setup.cell(i))} is repelled"

    def _why_barred(self, i: int) -> str:
        setup = self.setup
        seat = self.to_move
        name = cell_name(setup.cell(i))
        kind = setup.kinds[setup.type_at[i]]
        near = setup.around(1 << i)
        singer = setup.of("Singer")
        if singer >= 0 and not setup.alt[singer] and near & self.collected & setup.masks[singer]:
            return f"{name} is next to a collected Singer: nobody may collect there"
        if kind == "Mail Carrier":
            if setup.alternative(kind) and near & self.collected:
                return f"{name} is a Mail Carrier next to a collected square"
            if not setup.alternative(kind) and not near & self.collected:
                return f"{name} is a Mail Carrier with no collected square next to it"
        king = setup.of("King")
        if king >= 0 and setup.alt[king] and self.counts[seat][king]:
            if kind == "King":
                return f"{SEATS[seat]} already holds a King: one per player"
            return f"{name} is next to {SEATS[seat]}'s King"
        if kind == "Life Guard":
            side = "right" if setup.alternative(kind) else "left"
            judge = SEATS[self._witness(seat)]
            return (
                f"{name} is a Life Guard that {judge}, to {SEATS[seat]}'s {side}, could not collect"
            )
        return ""

    def _why_not_destroy(self, cell: Cell) -> str:
        setup = self.setup
        i = setup.at(cell)
        assert i is not None
        name = cell_name(cell)
        if setup.undestroyable & 1 << i:
            return f"{name} is a Judge: it cannot be destroyed"
        if self.destroyed & 1 << i:
            return f"{name} is already destroyed"
        return f"{name} is collected: only unused squares can be destroyed"

    def _why_not_lose(self, action: DestroyIcon) -> str:
        if action.seat >= self.players:
            game = with_article(f"{self.players}-player")
            return f"there is no seat {SEATS[action.seat]} in {game} game"
        if action.kind == "Judge":
            return "a Judge cannot be destroyed"
        who = SEATS[action.seat]
        t = self.setup.of(action.kind)
        if t < 0 or not self.counts[action.seat][t]:
            return f"{who} holds no {action.kind}"
        return f"{who} holds no {action.kind} from that square"

    def _why_not_gain(self, action: GainIcon) -> str:
        if action.kind not in self.setup.index:
            return f"the board shows no {action.kind}: the icon gained is of a type on it"
        return f"{SEATS[action.seat]} already holds a King: one per player"

    # -- drawing -------------------------------------------------------------------------------

    def __str__(self) -> str:
        setup = self.setup

        def mark(cell: Cell) -> str:
            i = setup.at(cell)
            assert i is not None
            if self.destroyed >> i & 1:
                return "--"
            short = SHORT[setup.kinds[setup.type_at[i]]]
            return f"{short}*" if self.collected >> i & 1 else short

        lines = [draw_grid(setup.width, setup.height, mark)]
        current = self.scores
        for seat in range(self.players):
            held = ", ".join(
                f"{count} {setup.kinds[t]}" for t, count in enumerate(self.counts[seat]) if count
            )
            lines.append(f"{SEATS[seat]} ({current[seat]}): {held or 'nothing'}")
        if self.result is None:
            lines.append(f"{SEATS[self.to_move]} to move{self._pending_text()}")
        return "\n".join(lines)

    def _pending_text(self) -> str:
        if self.duty is Duty.EXPLORE:
            return ": destroy a square for the Explorer"
        if self.duty is Duty.PILOT:
            pilot = cell_name(self.setup.cell(self.pilot))
            return f": one more square in the row or column of {pilot}"
        if self.duty is Duty.LOSE:
            return f": {SEATS[self.choosers[0]]} destroys an icon for the Actress"
        if self.duty is Duty.GAIN:
            return f": {SEATS[self.choosers[0]]} gains an icon for the Actress"
        if self.collections:
            return ": more if a power allows, or end"
        return ""

    # -- what a screen shows (screen.py) -------------------------------------------------------

    def standings(self) -> Standings:
        return screen.standings(self.scores, self.setup.kinds, self.counts)

    def holders(self, played: tuple[str, ...]) -> dict[Cell, int]:
        return screen.holders(self, frozenset(self.setup.collects), played)

    def pictures(self) -> tuple[Picture, ...]:
        return screen.pictures(self.printed)


def _mask_of(setup: Setup, cells: Iterable[Cell]) -> int:
    mask = 0
    for cell in cells:
        i = setup.at(cell)
        if i is None:
            raise ValueError(
                f"{cell_name(cell)} is not on {with_article(f'{setup.width}x{setup.height}')} board"
            )
        mask |= 1 << i
    return mask


def _bumped(counts: tuple[tuple[int, ...], ...], seat: int, t: int, by: int) -> Any:
    mine = counts[seat]
    return (*counts[:seat], (*mine[:t], mine[t] + by, *mine[t + 1 :]), *counts[seat + 1 :])


_FIELDS = tuple(f.name for f in fields(MagnetmenState))
_FRESH_TURN: dict[str, Any] = {
    "collections": 0,
    "duty": Duty.NONE,
    "pilot": -1,
    "choosers": (),
    "fire": False,
    "extra": 0,
    "singer": 0,
}
"""A turn's own fields as a turn begins."""
_WORKED_OUT = ("_hash", "_legal_cache")
"""What a state keeps of its own besides its fields, never copied to a changed state."""


def _start(options: Mapping[str, Any]) -> MagnetmenState:
    printed = generate(options["seed"], options["size"], options["set"], options["powers"])
    return MagnetmenState.laid_out(printed, options["players"], options["advanced_rules"])


def _universe(state: State) -> tuple[Action, ...]:
    width, height = GAME.board
    cells = [(x, y) for y in range(height) for x in range(width)]
    seats, kinds = range(state.players), [kind.name for kind in KINDS]
    return (
        *(Collect(cell) for cell in cells),
        *(Destroy(cell) for cell in cells),
        *(
            DestroyIcon(seat, kind, square)
            for seat in seats
            for kind in kinds
            for square in (None, *cells)
        ),
        *(GainIcon(seat, kind) for seat in seats for kind in kinds),
    )


def _phrase(action: Action, state: State | None) -> Phrase | None:
    match action:
        case Collect():
            square = cell_name(action.cell)
            picture = _picture(state, action)
            shown = f" ({picture})" if picture else ""
            return Phrase(f"collect {square}{shown}", f"collected {square}{shown}")
        case Destroy():
            square = cell_name(action.cell)
            return Phrase(f"destroy {square}", f"destroyed {square}")
        case DestroyIcon() | GainIcon():
            seats = state.game.seats if state is not None else SEATS
            verb = "loses" if isinstance(action, DestroyIcon) else "gains"
            text = f"{seats[action.seat]} {verb} {with_article(action.kind)}"
            return Phrase(text, text)
    return None


def _picture(state: State | None, action: Collect) -> str:
    printed = getattr(state, "printed", None)
    if printed is None:
        return ""
    col, row = action.cell
    width = state.extent[0]
    squares = printed.squares
    index = row * width + col
    return squares[index] if 0 <= index < len(squares) else ""


GAME = Game(
    name="magnetmen",
    title="Magnetmen",
    summary="Collect the squares of a printed board, repelled by the types you hold; 24 types"
    " with powers; 2-4 players, highest score wins.",
    seats=SEATS,
    board=(SIZES["regular"].columns, SIZES["regular"].rows),
    options=(
        Option("size", "regular", "small 6x6, regular 8x8, big 10x9, huge 11x11", tuple(SIZES)),
        Option("players", 2, "how many play, in seat order A, B, C, D", (), 2, 4),
        Option("set", "base", "the types the board draws from", ("base", "advanced", "expert")),
        Option("powers", "main", "main texts, or each type's text at random", ("main", "random")),
        Option("advanced_rules", False, "destroy instead of collecting; four of a type stops"),
        Option("seed", 1, "the board generator's seed", (), 0),
    ),
    start=_start,
    parse_action=parse_action,
    rules_file="magnetmen.md",
    turn_option="set",
    bench_families=({"players": 3}, {"players": 4}),
    universe=_universe,
    printing=PRINTING,
    phrase=_phrase,
)
MagnetmenState.game = GAME
