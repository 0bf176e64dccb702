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

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from magboard.firmware.article import with_article

from ..core import END_TURN, Action, Game, Option, Outcome, State
from ..grid import Cell, cell_name
from ..phrasing import Phrase
from ..screen import Picture, Standings
from .actions import SEATS, Collect, Destroy, DestroyIcon, GainIcon, parse_action
from .drawing import draw
from .fields import Duty, MagnetmenFields
from .generator import SIZES, Printed, generate
from .kinds import KINDS
from .legal import legal_actions, optional_left
from .powers import allowances, collect, gain, lose
from .printing import PRINTING
from .reasons import why_refused
from .restrictions import full
from .scoring import Icon
from .screen import holders as screen_holders
from .screen import pictures as screen_pictures
from .screen import standings as screen_standings
from .setup import FOUR, Setup, mask_of
from .turns import close, end_turn, next_player, settle

__all__ = [
    "GAME",
    "SEATS",
    "Collect",
    "Destroy",
    "DestroyIcon",
    "Duty",
    "GainIcon",
    "MagnetmenState",
    "parse_action",
]


class MagnetmenState(MagnetmenFields):
    """A Magnetmen position behind the games' contract: its fields (`MagnetmenFields`), the
    actions it allows (`legal`), what they do (`powers`, `turns`) and why others are refused
    (`reasons`)."""

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
        mask = mask_of(setup, collected)
        once = mask_of(setup, police)
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
            destroyed=mask_of(setup, destroyed),
            police=once,
            counts=tuple(counts),
            squares=tuple(squares),
            retired=sum(1 << seat for seat in retired),
            to_move=(to_move - 1) % players,
        )
        return next_player(state, state.to_move)

    # -- what the contract asks ----------------------------------------------------------------

    @property
    def chooser(self) -> int | None:
        """An Actress's leading or last-placed player choosing an icon, or the mover choosing
        icons for the Singer (alternative text) to destroy."""
        if self.result is not None:
            return None
        if self.duty in (Duty.LOSE, Duty.GAIN):
            return self.choosers[0]
        if self.singer and self.duty is Duty.NONE and optional_left(self):
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

    def why_skipped(self, seat: int) -> str:
        """`can_act`'s reasons, the first that holds, in words."""
        if self.retired >> seat & 1:
            return "took the King and takes no more turns"
        if full(self, seat):
            return "has a full inventory"
        if self.setup.advanced_rules and max(self.counts[seat], default=0) >= FOUR:
            return "holds four icons of one type"
        return "has no square to collect"

    # -- legal actions -------------------------------------------------------------------------

    def _legal(self) -> tuple[Action, ...]:
        return legal_actions(self)

    # -- playing -------------------------------------------------------------------------------

    def _play(self, action: Action) -> State:
        # By exact type first: the search's actions, without an ABC's instance check.
        if type(action) is Collect:
            return collect(self, self.setup.square(action.cell))
        if type(action) is Destroy:
            bit = 1 << self.setup.square(action.cell)
            changes = {"destroyed": self.destroyed | bit, "duty": Duty.NONE}
            if self.duty is Duty.EXPLORE and allowances(self, changes):
                return settle(self._evolve(**changes))
            return close(self, changes)
        if isinstance(action, DestroyIcon):
            return lose(self, action)
        if isinstance(action, GainIcon):
            return gain(self, action)
        assert action == END_TURN
        return end_turn(self)

    # -- refusals ------------------------------------------------------------------------------

    def why_illegal(self, action: Action) -> str:
        return why_refused(self, action) or super().why_illegal(action)

    # -- drawing -------------------------------------------------------------------------------

    def __str__(self) -> str:
        return draw(self)

    # -- what a screen shows (screen.py) -------------------------------------------------------

    def standings(self) -> Standings:
        return screen_standings(self.scores, self.setup.kinds, self.counts)

    def holders(self, played: tuple[str, ...]) -> dict[Cell, int]:
        return screen_holders(self, frozenset(self.setup.collects), played)

    def pictures(self) -> tuple[Picture, ...]:
        return screen_pictures(self.printed)


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
