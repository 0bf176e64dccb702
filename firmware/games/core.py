"""The contract every game fits: a Game declared as data, States as immutable values.

Rules code here knows nothing of hardware, time or I/O. A turn is a sequence of atomic actions;
the referee, the perft counter and the terminal player all drive games only through `State`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from magboard.firmware.article import with_article

if TYPE_CHECKING:
    from .phrasing import Phrase
    from .screen import Picture, Standings


Cell = tuple[int, int]
"""(column, row), 0-based, column 0 on the left, row 0 at the bottom (as in chess: a1). Here,
beneath every game, so the lattice's helpers (`grid`) and the contract import one way."""


class GameError(Exception):
    """Root of the errors a game raises for bad input; never a crash of the caller."""


class IllegalActionError(GameError, ValueError):
    """A well-formed action that the rules forbid in this position."""


class NotationError(GameError, ValueError):
    """Text that does not name any action of the game."""


class OptionError(GameError, ValueError):
    """An unknown game option or a value the option does not accept."""


class UnknownGameError(GameError, LookupError):
    """No registered game has that name or alias."""

    def __str__(self) -> str:  # LookupError would quote the message like a KeyError
        return str(self.args[0]) if self.args else ""


def match_notation(pattern: re.Pattern[str], text: str, what: str) -> re.Match[str]:
    """Full-matches action text against a game's notation, with the error players see."""
    found = pattern.fullmatch(text.strip())
    if not found:
        raise NotationError(f"{text!r} is not {what}")
    return found


@dataclass(frozen=True)
class Option:
    """A named rules choice with its default; its type is the default's type."""

    name: str
    default: bool | int | str
    help: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, text: str) -> bool | int | str:
        """Reads a value typed on a command line or sent over the link."""
        if isinstance(self.default, bool):
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return self.check(True)
            if lowered in ("0", "false", "no", "off"):
                return self.check(False)
            raise OptionError(f"option {self.name} takes true or false, not {text!r}")
        if isinstance(self.default, int):
            try:
                number = int(text)
            except ValueError:
                raise OptionError(
                    f"option {self.name} takes a whole number, not {text!r}"
                ) from None
            return self.check(number)  # outside the try: OptionError is a ValueError too
        return self.check(text.strip())

    def check(self, value: Any) -> bool | int | str:
        if type(value) is not type(self.default):
            wanted = with_article(type(self.default).__name__)
            raise OptionError(f"option {self.name} takes {wanted}, not {value!r}")
        if self.choices and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise OptionError(f"option {self.name} is one of {allowed}, not {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"option {self.name} is at least {self.minimum}, not {value}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"option {self.name} is at most {self.maximum}, not {value}")
        return value


@dataclass(frozen=True)
class Outcome:
    """How a game ended. No winners is a draw; several winners share the win."""

    winners: tuple[int, ...]
    reason: str
    cells: frozenset[Cell] = frozenset()
    """The cells that made the win (a line), for the lights to show."""
    scores: tuple[int, ...] = ()
    """Each seat's final score, in seat order, for games that count one (2-4 players)."""

    @property
    def draw(self) -> bool:
        return not self.winners


@dataclass(frozen=True)
class ClockRules:
    """A clock's times, in seconds: each turn's, then a reserve for the rest of the round."""

    per_turn: float
    reserve: float


@dataclass(frozen=True)
class LegendEntry:
    """One kind of square in a printed board's legend: its icon, a line about it, its text."""

    name: str
    detail: str
    text: str


@dataclass(frozen=True)
class PrintedBoard:
    """A game's board generated to be printed: a name on every square, and its legend."""

    width: int
    height: int
    squares: tuple[str, ...]
    """Names, row by row from a1 (bottom left), each with an icon of its own."""
    title: str
    """The document's title."""
    heading: str
    """The game and the options the board came from, in one line."""
    legend_title: str
    legend: tuple[LegendEntry, ...]
    legend_note: str
    """The rule the legend closes with."""


@dataclass(frozen=True)
class Printing:
    """What printing a game's board needs (`magboard overlay`), for a game whose board is
    generated rather than fixed: the options it is generated from, the generator and the
    icons."""

    options: tuple[str, ...]
    """The game's options the board is generated from (each a flag of the command)."""
    generate: Callable[[int, Mapping[str, Any]], PrintedBoard] = field(repr=False)
    """The board of a seed and those options."""
    draw_icon: Callable[..., None] = field(repr=False)
    """Draws a square's icon: (canvas, name, x, y, side, background grey)."""


class Action(ABC):
    """One atomic thing a player does. Subclasses are frozen dataclasses whose `str()` is the
    game notation, which the game's parser reads back."""

    seen: ClassVar[bool] = True
    """Whether the board's sensors can see it. An unseen action (ending a turn, a pass, a
    choice) comes from a button, the link or the page, never from a frame; a seen one is only
    ever accepted from a frame."""

    @abstractmethod
    def __str__(self) -> str: ...

    @property
    def touches(self) -> frozenset[Cell]:
        """Game cells whose contents this action always changes (a piece arrives or leaves).
        The board must have seen each of them change before it considers the action, which is
        what lets the referee judge by difference instead of rendering every continuation."""
        return frozenset()


@dataclass(frozen=True)
class Obligation:
    """A physical follow-up the rules require before play goes on (a captured piece to take
    off and return to a supply). Places are game cells, or supply names as the profile names
    its supplies."""

    detail: str
    """What happened and what it asks, in the game's words (the event's `detail`)."""
    sources: frozenset[Cell | str]
    targets: frozenset[Cell | str] = frozenset()
    todo: str = ""
    """What the hands must do, as an instruction to the player who must ("carry the neutral
    puppy on g6 to your captured pile")."""


@dataclass(frozen=True)
class EndTurn(Action):
    """Ends a turn that could go on (the player's clock button on a physical board)."""

    seen: ClassVar[bool] = False

    def __str__(self) -> str:
        return "end"


END_TURN = EndTurn()


@dataclass(frozen=True)
class Pass(Action):
    """A turn with no legal placement, where the rules make it a pass."""

    seen: ClassVar[bool] = False

    def __str__(self) -> str:
        return "pass"


PASS = Pass()


@dataclass(frozen=True)
class CarryOut(Action):
    """The board shows a state's obligations done: the rules' bookkeeping follows the hands.
    Legal only while obligations are pending; it belongs to no turn. Games with obligations
    read its notation, `done`."""

    def __str__(self) -> str:
        return "done"


CARRY_OUT = CarryOut()


SUCCESSOR_CACHE = 20_000
"""Positions `State.successor` remembers; forgotten all at once when full (a judged frame
makes at most a few thousand)."""
_SUCCESSORS: dict[tuple[State, Action], State] = {}


def forget_successors() -> None:
    """Empties `State.successor`'s memory (a benchmark that means to time new positions)."""
    _SUCCESSORS.clear()


class State(ABC):
    """A position plus what the rules need to know of the turn in progress.

    Subclasses are frozen dataclasses: `apply` returns a new state and never changes this one,
    so states can be shared, hashed, memoised and replayed.
    """

    game: ClassVar[Game]
    to_move: int
    """Index of the player whose turn it is (a subclass field)."""
    turn: int
    """Number of completed turns: grows by one exactly when a turn ends (a subclass field)."""

    def __deepcopy__(self, memo: dict) -> State:
        """A state never changes, so a deep copy is the state itself (a library that copies
        what it holds, as OpenSpiel copies a state it clones, would otherwise copy every
        position the repetition rule remembers)."""
        return self

    @property
    def players(self) -> int:
        return 2

    @property
    def turn_actions(self) -> tuple[Action, ...]:
        """Actions already taken in the turn in progress (empty at a turn's start)."""
        return ()

    @property
    def can_end_turn(self) -> bool:
        """Whether the turn in progress may end now (an explicit `END_TURN` is legal)."""
        return False

    @property
    def extent(self) -> tuple[int, int]:
        """Columns and rows of the lattice the game may use (options may set it)."""
        return self.game.board

    @property
    def area(self) -> frozenset[Cell]:
        """The cells that exist now (tiles that move make holes); all of the extent unless the
        game says otherwise."""
        width, height = self.extent
        return frozenset((c, r) for c in range(width) for r in range(height))

    def why_skipped(self, seat: int) -> str:
        """Why the rules pass over `seat`'s turn, in words for players: the board says so, as
        a skipped turn that nobody explains looks like the board's mistake."""
        return "cannot move"

    def on_time_up(self) -> Action | None:
        """What the rules make of the player to move running out of time (an action the clock
        reports, which no player chooses); None in a game without clocks."""
        return None

    @property
    def must_pass(self) -> bool:
        """The player to move can only pass (Tic-Tac-Cap with nothing placeable): the board
        passes for them. A game that never passes says so without listing its actions."""
        return self.outcome() is None and self.legal_actions() == (PASS,)

    @property
    def chooser(self) -> int | None:
        """The seat whose choice the rules wait for, where what comes next is a choice no
        sensor sees (Magnetmen's Actress); None where no choice is pending."""
        return None

    def choices(self) -> tuple[Action, ...]:
        """The pending choice's options: the unseen actions legal now (ending the turn where
        the chooser may stop)."""
        if self.chooser is None:
            return ()
        return tuple(a for a in self.legal_actions() if not a.seen)

    @property
    def obligations(self) -> tuple[Obligation, ...]:
        """Follow-ups still to be made by hand; while there are any, the only legal action is
        `CARRY_OUT` and the next turn waits."""
        return ()

    def actions_within(self, cells: frozenset[Cell]) -> tuple[Action, ...]:
        """The legal seen actions that touch only `cells`: the referee's candidates for a board
        on which only those cells changed. Games with very many actions generate these
        directly; the default filters `legal_actions()`."""
        return tuple(a for a in self.legal_actions() if a.seen and a.touches <= cells)

    @abstractmethod
    def _legal(self) -> tuple[Action, ...]:
        """The legal actions, in a stable order; empty once the game is over."""

    @abstractmethod
    def _play(self, action: Action) -> State:
        """The state after a legal action (already checked)."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """None while the game goes on."""

    def round_outcome(self) -> Outcome | None:
        """How the round the last turn ended went, where the match goes on after it (a Lance
        Assembly bout, its board still to clear): its winners, why, and the winning line, for
        the lights to show before the next round. None in the middle of a round, at the
        match's end (`outcome`), and in a game of one round."""
        return None

    @abstractmethod
    def key(self) -> Hashable:
        """The position, canonical: equal for equal positions, whatever the order of play.
        Used for repetition and for perft's distinct positions."""

    def why_illegal(self, action: Action) -> str:
        """A player-facing reason an action is not legal here; games refine it."""
        return f"{action} is not a legal action here"

    @cached_property
    def _legal_cache(self) -> tuple[tuple[Action, ...], frozenset[Action]]:
        legal = self._legal()
        return legal, frozenset(legal)

    def legal_actions(self) -> tuple[Action, ...]:
        return self._legal_cache[0]

    def is_legal(self, action: Action) -> bool:
        return action in self._legal_cache[1]

    def apply(self, action: Action) -> State:
        if not self.is_legal(action):
            over = self.outcome()
            reason = "the game is over" if over else self.why_illegal(action)
            raise IllegalActionError(f"{action}: {reason}\n{self}")
        return self._play(action)

    def advance(self, action: Action) -> State:
        """The state after `action`, which this state generated itself (`legal_actions` or
        `actions_within`): no legality check, so a search over many positions does not list
        every legal action of each one again."""
        return self._play(action)

    def successor(self, action: Action) -> State:
        """`advance`, remembered for a while: the referee's search makes each position it
        weighs, then the checks of what the frames show walk the readings it kept again, action
        by action; remembered, the second walk costs a look-up and meets the very positions
        the search rendered."""
        key = (self, action)
        after = _SUCCESSORS.get(key)
        if after is None:
            after = self._play(action)
            if len(_SUCCESSORS) >= SUCCESSOR_CACHE:
                _SUCCESSORS.clear()
            _SUCCESSORS[key] = after
        return after

    def parse_action(self, text: str) -> Action:
        """Reads an action in notation and checks it is legal here."""
        action = self.game.parse_action(text)
        if not self.is_legal(action):
            over = self.outcome()
            raise IllegalActionError(
                f"{action}: {'the game is over' if over else self.why_illegal(action)}"
            )
        return action

    @property
    def player_name(self) -> str:
        return self.game.seats[self.to_move]

    # -- what a screen shows besides the pieces (`screen`): nothing, unless a game says -------

    def standings(self) -> Standings | None:
        """Every seat's running score and inventory, for a game that keeps score as it is
        played: the pieces on a board do not show it."""
        return None

    def holders(self, played: tuple[str, ...]) -> dict[Cell, int]:
        """Who holds each cell taken, by seat, this being the start and `played` the actions
        since: for a game whose pieces do not say whose a cell is (a token that is no one's)."""
        return {}

    def pictures(self) -> tuple[Picture, ...]:
        """The pictures printed on the board beneath the pieces, for a game played on a
        printed overlay."""
        return ()


@dataclass(frozen=True)
class Game:
    """A game declared as data: what the registry lists and what a new game is made from."""

    name: str
    title: str
    summary: str
    seats: tuple[str, ...]
    """Names of the players in turn order, as many as the game can seat."""
    board: tuple[int, int]
    """Columns and rows of the lattice with the default options (a state's `extent` says it
    for its own options)."""
    options: tuple[Option, ...]
    start: Callable[[Mapping[str, Any]], State] = field(repr=False)
    """Makes the initial state from a complete, checked set of option values."""
    parse_action: Callable[[str], Action] = field(repr=False)
    """Reads the game's notation (syntax only; legality is the state's business)."""
    aliases: tuple[str, ...] = ()
    rules_file: str = ""
    turn_option: str = ""
    """The option that changes what a turn is made of (Meep Tac Toe's tile actions, the
    Magnetmen whose powers add to a turn), if any: each of its choices is a profile of its own
    to prove unambiguous, soak and benchmark."""
    ends_at_max_turns: bool = False
    """Whether the `max_turns` option ends the game (a draw), which bounds its length; a game
    whose `max_turns` ends a round only (a Lance Assembly bout, replayed) has no bound."""
    clocks: Mapping[str, ClockRules] = field(default_factory=dict, compare=False)
    """The `clock` option's values that run a clock, with their times (any other runs none)."""
    universe: Callable[[State], tuple[Action, ...]] | None = field(default=None, repr=False)
    """Every action a position of the game with the options of `state` (its start) can have,
    in a fixed order, for a search that numbers actions (OpenSpiel); None where none is
    declared."""
    searched_with: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Options a search plays it with, whatever it is given (clocks need hands and time)."""
    rounds_bound: int = 1
    """Rounds taken as the longest match where a round ends at `max_turns` and the match goes
    on (a match of stalemated bouts has no bound of its own)."""
    held_back: type[Action] | None = None
    """A kind of action a benchmark keeps out of half its sample games, as players often never
    make it (Lance Assembly's neutral tile)."""
    bench_families: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)
    """Options that change what a judged frame costs (the pieces in play, the seats, the
    clocks): the pipeline benchmark measures each, added to every profiled variant, as a row of
    its own."""
    printing: Printing | None = field(default=None, compare=False, repr=False)
    """How to print the game's board to lay over a board, for a game whose board is generated."""
    phrase: Callable[[Action, State | None], Phrase | None] | None = field(default=None, repr=False)
    """The game's own actions in words for players (`words.said`), None for an action it
    leaves to the words every game shares; `state`, where given, is a position of the game."""
    undo_phrase: Callable[[Action, tuple[int, int]], str | None] | None = field(
        default=None, repr=False
    )
    """How to take one of its own actions back by hand, in words (`words.undo`), the game's
    extent given; None where putting it back square by square is best."""

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        known = ", ".join(o.name for o in self.options) or "none"
        raise OptionError(f"{self.name} has no option {name!r} (options: {known})")

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every option's value: the given ones checked, the rest their defaults."""
        given = dict(given or {})
        resolved = {}
        for option in self.options:
            value = given.pop(option.name, option.default)
            resolved[option.name] = option.check(value)
        if given:
            self.option(next(iter(given)))  # raises, naming the unknown option
        return resolved

    def options_from_json(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option's value from a JSON object (the page's or a remote command's): JSON
        values of the option's type, or text read as `--option` reads it; checked, and the
        rest their defaults."""
        values = {}
        for name, value in given.items():
            option = self.option(name)
            if isinstance(value, str) and not isinstance(option.default, str):
                value = option.parse(value)
            values[name] = value
        return self.resolve_options(values)

    def parse_options(self, pairs: list[str] | tuple[str, ...]) -> dict[str, Any]:
        """Reads `NAME=VALUE` pairs as typed on a command line."""
        values: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = pair.partition("=")
            if not sep:
                raise OptionError(f"an option is NAME=VALUE, not {pair!r}")
            values[name.strip()] = self.option(name.strip()).parse(text)
        return values

    def new_state(self, options: Mapping[str, Any] | None = None) -> State:
        return self.start(self.resolve_options(options))
