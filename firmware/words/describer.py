"""Events in words for people: a line for the log ("X played b2"), the notation behind it for
the log's detail, and what the banner says once the event has happened ("O to move", "X: take
the piece off c3").

This is the one place events become words: `magboard watch` and the demo print the lines, and
the simulator's page is sent them with every event, so the page never words an event itself.
Events name board places (on r1, tic-tac-toe's b2 is board square f6) and actions in notation;
a person reads the game's own squares (`PlaceNames`) and actions said in words (`said`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from magboard.hardware.spec import BoardSpecError, load_board

from ..events import (
    ButtonPressed,
    ChoiceOffered,
    Clear,
    ClockChanged,
    Event,
    FaultSurvived,
    Fulfilled,
    GameOver,
    GameStarted,
    HoursChanged,
    Illegal,
    InHand,
    LedFrame,
    MaintenanceChanged,
    MatchStopped,
    Mismatch,
    Moved,
    Note,
    Obligation,
    Partial,
    RemoteMade,
    Restored,
    TakenBack,
)
from ..games import CARRY_OUT, END_TURN, PASS, Action, Game, GameError, State, get_game
from ..profiles import ProfileError, profile_for
from .actions import Phrase, said, undo
from .places import PlaceNames

MANY_TARGETS = 4
"""More places a lifted piece may go than this are "a lit square": the lights show them."""
BOARD_PLAYS = re.compile(r"^the board plays (\S+) \((\w+)\)$")
"""The simulator's note naming the seat the board plays, and how well."""
BOARD_MADE = "made: the board's move"
TAKING_BACK = re.compile(r"^taking back (\S+) (.+?) with the board's reply (.+): (.+)$")
"""The referee's note as a takeback against the board begins (in notation)."""
MENU_SWITCH = re.compile(r"^menu: (\w+) (True|False)$")
OWED_FIRST = "first make the board's move as shown"
BOOKKEEPING: dict[str, Action] = {str(a): a for a in (PASS, END_TURN, CARRY_OUT)}
"""Actions every game writes alike, whatever its own notation."""


class Mood(Enum):
    """How the banner looks: whose turn it is, a wait, a mistake to put right, the end."""

    TURN = "turn"
    WAITING = "waiting"
    WRONG = "wrong"
    OVER = "over"


@dataclass(frozen=True)
class Banner:
    text: str
    mood: Mood
    seat: int | None = None
    """The seat the banner speaks to (its colour shows), if one."""

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "mood": self.mood.value, "seat": self.seat}


@dataclass(frozen=True)
class Words:
    """What one event says to a person."""

    line: str | None
    """The log's line; None: nothing a person needs in a log (an LED frame, a button let go)."""
    detail: str = ""
    """The notation behind the line, for those who read it."""
    banner: Banner | None = None
    """The banner once this event has happened; None: as it was."""
    choices: tuple[str, ...] = ()
    """A `choice` event's options, in words, in its order."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"line": self.line, "detail": self.detail}
        data["banner"] = self.banner.to_dict() if self.banner else None
        if self.choices:
            data["choices"] = list(self.choices)
        return data


@dataclass(frozen=True)
class Need:
    """What the board waits for before play goes on."""

    text: str
    seat: int | None = None
    wrong: bool = False
    held: bool = False
    """A piece in the hand: it lasts until a move, or the piece is put back."""


@dataclass
class _Game:
    """What the words need to know of the game on the board, from its `game-started`."""

    game: Game | None = None
    start: State | None = None
    names: tuple[str, ...] = ()
    places: PlaceNames = field(default_factory=PlaceNames)


class Describer:
    """Turns events into words, in order. It remembers what the words need: the game and
    where it lies on the board (from the last `game-started`), whose turn it is and what the
    board waits for (from the events since), so that each banner says all of it."""

    def __init__(self) -> None:
        self._game = _Game()
        self.to_move: int | None = None
        self.turns = 0
        self.need: Need | None = None
        self.pending: Need | None = None
        """What the turn in progress still needs after a part of it (a tile to move)."""
        self.skipped = ""
        self.result: str | None = None
        self.winners: tuple[int, ...] = ()
        self.closed: str | None = None
        self.out_of_order: str | None = None
        self.board_plays: str | None = None

    @property
    def extent(self) -> tuple[int, int]:
        """The columns and rows of the game being played, as its options make it."""
        start = self._game.start
        return start.extent if start is not None else (0, 0)

    def name(self, seat: int | None) -> str:
        names = self._game.names
        if seat is not None and 0 <= seat < len(names):
            return names[seat]
        return "nobody" if seat is None else f"player {seat + 1}"

    def places(self, labels: tuple[str, ...] | list[str]) -> str:
        return self._game.places.names(labels)

    # The terminal's line.

    def __call__(self, event: Event) -> str:
        return f"{event.t:.2f} {self.text(event)}"

    def text(self, event: Event) -> str:
        """One line for a terminal: the log's line, with its notation; every event has one."""
        words = self.words(event)
        line = words.line if words.line is not None else self._quiet(event)
        return f"{line} [{words.detail}]" if words.detail else line

    # Words for each event.

    def words(self, event: Event) -> Words:
        before = self.banner()
        line, detail, choices = self._said(event)
        after = self.banner()
        return Words(line, detail, after if after != before else None, choices)

    def _said(self, event: Event) -> tuple[str | None, str, tuple[str, ...]]:
        name = self.name(getattr(event, "player", None))
        match event:
            case GameStarted():
                return self._started(event), _options(event), ()
            case Moved():
                line = self._moved(event)
                return line, _notation(event.actions, line), ()
            case Partial():
                self.to_move = event.player
                self.need = None
                self.pending = Need(self._pending_text(event.player), event.player)
                line = f"{name} so far: {self._told(event.actions)}"
                if not event.actions:
                    line = f"{name}'s turn starts again"
                return line, _notation(event.actions, line), ()
            case InHand():
                return self._in_hand(event), "", ()
            case Obligation():
                todo = self._todo(event)
                self.need = Need(todo, event.player)
                detail = event.detail if event.todo or event.owed else ""
                return f"{name}: {todo}", detail, ()
            case ChoiceOffered():
                self.to_move = event.player
                choices = tuple(self._choice(option) for option in event.options)
                self.need = Need(f"choose: {', '.join(choices)}", event.player)
                return f"{name} to choose: {', '.join(choices)}", " ".join(event.options), choices
            case Fulfilled():
                self.need = None
                return f"{name} has done what the rules asked", event.detail, ()
            case Illegal():
                fix = self._fix(event.remove, event.put_back, event.tried)
                why = event.detail
                if why.startswith(OWED_FIRST):  # the move itself is lit, and said as it began
                    why = "first make the board's move, as the lights show it"
                self.need = Need(f"{fix} ({why})", event.player, wrong=True)
                return f"Not legal: {why}. To put it right: {fix}", event.tried, ()
            case Mismatch():
                fix = self._fix(event.remove, event.put_back)
                self.need = Need(f"the pieces differ from the saved game: {fix}", wrong=True)
                return f"The pieces differ from the saved game: {fix}", "", ()
            case Restored():
                self.need = None  # what the turn still needs, if anything, shows again
                return "The board matches the game again", "", ()
            case TakenBack():
                self.to_move = event.player
                self.need = self.pending = None
                self.result = None
                self.turns = max(0, self.turns - 1)
                line = f"{name} took back their move ({self._told(event.actions)})"
                return line, _notation(event.actions, line), ()
            case GameOver():
                self.result = self._result(event)
                self.winners = event.winners
                self.need = self.pending = None
                self.to_move = None
                return f"Game over: {self.result}", "", ()
            case Clear():
                fix = self._fix(event.remove, event.put_back)
                if event.remove or event.put_back:
                    self.need = Need(f"clear the board for the next game: {fix}")
                    return f"Before the next game: {fix}", "", ()
                self.need = Need("the board is ready: the next game starts")
                return "The board is ready for the next game", "", ()
            case ClockChanged():
                return self._clock(event), "", ()
            case RemoteMade():
                self.need = None
                told = self._told(event.actions)
                return f"{name}'s move from the other board is made here ({told})", "", ()
            case MatchStopped():
                return f"The match stopped at move {event.seq}: {event.reason}", event.match, ()
            case HoursChanged():
                until = event.until.replace("T", " ") if event.until else None
                self.closed = None if event.open else (until or "")
                said_until = f" until {until}" if until else ""
                return f"{'Open' if event.open else 'Closed'}{said_until}", "", ()
            case MaintenanceChanged(on=True):
                self.out_of_order = event.reason
                return f"Out of order: {event.reason or 'no reason given'}", "", ()
            case MaintenanceChanged():
                self.out_of_order = None
                return "Back in service", "", ()
            case FaultSurvived():
                return f"Fault survived: {event.kind} at {event.where}: {event.detail}", "", ()
            case ButtonPressed(pressed=True):
                return f"The {event.button} button pressed", "", ()
            case Note():
                return self._note(event.text), "", ()
        return None, "", ()

    # Turns.

    def _started(self, event: GameStarted) -> str:
        self._game = _known(event)
        self.turns = len(event.actions)
        if event.to_move is not None:
            self.to_move = event.to_move
        elif not event.actions:
            self.to_move = 0
        self.need = self.pending = None
        self.result, self.winners, self.skipped = None, (), ""
        game = self._game.game
        title = game.title if game is not None else event.game
        line = f"New game of {title} on {event.board}: {' against '.join(event.players)}"
        if event.actions:
            line += f", resumed after {_turns(len(event.actions))}"
        return line

    def _moved(self, event: Moved) -> str:
        name = self.name(event.player)
        self.turns = event.turn
        self.to_move = event.to_move
        self.need = self.pending = None
        line = f"{name} {self._told(event.actions)}"
        said_skips = [f"{self.name(s['seat'])} {s['why']}" for s in event.skipped]
        self.skipped = "; ".join(said_skips)
        if said_skips:
            line += f"; skipped: {self.skipped}"
        return line

    def _told(self, actions: tuple[str, ...] | list[str]) -> str:
        """A turn's actions as a person says them, one after the other."""
        told: list[str] = []
        for text in actions:
            phrase = self._phrase(text).told
            told.append("the same again" if told and phrase == told[-1] else phrase)
        return ", then ".join(told) or "nothing"

    def _phrase(self, text: str) -> Phrase:
        """An action in words; one this program cannot read (another version's game), as it
        came."""
        action = self._parsed(text)
        if action is None:
            return Phrase(f"play {text}", f"played {text}")
        return said(action, self._game.start)

    def _pending_text(self, seat: int) -> str:
        if _on_tiles(self._game.start):
            return "now shift or turn a tile"
        return f"go on, or press the seat-{seat + 1} button to end the turn"

    def _in_hand(self, event: InHand) -> str:
        name = self.name(event.player)
        lifted = self._lifted(event.lifted)
        if len(event.targets) > MANY_TARGETS:
            where = "on a lit square"
        elif event.targets:
            where = f"on {self.places(event.targets)}"
        else:
            where = ""
        if where:
            text = f"put the piece down {where}"
        elif self.turns:
            text = (
                "nowhere to play it: put it back, or leave the last move's piece off to take"
                " that move back"
            )
        else:
            text = "nowhere to play it: put it back"
        self.to_move = event.player
        self.need = Need(text, event.player, held=True)
        return f"{name} lifted {lifted}: {text}"

    def _lifted(self, labels: tuple[str, ...]) -> str:
        said_ = [self._game.places.lifted(label) for label in labels]
        return " and ".join(said_) or "nothing"

    def _todo(self, event: Obligation) -> str:
        if event.owed:
            turns = "; then ".join(
                f"{self.name(turn['player'])} {self._told(turn['actions'])}" for turn in event.owed
            )
            if event.opponent:
                return f"make the board's move by hand: {turns}"
            return f"make the other board's move here: {turns}"
        return event.todo or event.detail

    def _choice(self, option: str) -> str:
        return self._phrase(option).asked

    def _parsed(self, text: str) -> Action | None:
        """The action `text` names (its notation only: where it is legal is the referee's
        business), if this program knows the game and the notation."""
        if text in BOOKKEEPING:
            return BOOKKEEPING[text]
        game = self._game.game
        try:
            return game.parse_action(text) if game is not None else None
        except GameError:
            return None

    # Putting things right.

    def _fix(self, remove: tuple[str, ...], put_back: tuple[str, ...], tried: str = "") -> str:
        if tried:
            action = self._parsed(tried)
            back = undo(action, self.extent) if action is not None else None
            if back is not None:
                return back
        return self._game.places.changes(remove, put_back)

    # The end.

    def _result(self, event: GameOver) -> str:
        reason = event.reason
        names = " and ".join(event.names)
        if not event.winners:
            text = f"a draw: {reason}"
        elif " wins" in reason or "share the win" in reason:
            text = reason  # the rules' words already say who won, and the scores
        else:
            text = f"{names} {'win' if len(event.names) > 1 else 'wins'}: {reason}"
        if event.line:
            text += f" ({self.places(event.line)})"
        shown = [f"{self.name(seat)} {score}" for seat, score in enumerate(event.scores)]
        if shown and not any(c.isdigit() for c in reason):  # no figure said twice
            text += f" ({', '.join(shown)})"
        return text

    def _clock(self, event: ClockChanged) -> str | None:
        if event.seat is None:
            return None
        self.to_move = event.seat
        name = self.name(event.seat)
        if event.stage == "reserve":
            return f"{name}'s turn time is up: the reserve runs"
        if event.stage == "last-seconds":
            return f"{name}: the last seconds"
        if event.stage == "flag":
            self.need = Need("time ran out", event.seat, wrong=True)
            return f"{name}'s time ran out"
        return None

    def _note(self, text: str) -> str:
        plays = BOARD_PLAYS.match(text)
        if plays:
            self.board_plays = plays[1]
            return f"The board plays {plays[1]} ({plays[2]})"
        if text.startswith(BOARD_MADE):
            self.need = None
            return "The board's move is made"
        back = TAKING_BACK.match(text)
        if back:
            seat, actions, replies, then = back.groups()
            said_replies = ", then ".join(
                self._turn_said(reply) for reply in replies.split(", then ")
            )
            return (
                f"Taking back {seat}'s move ({self._told(actions.split())}) and the board's"
                f" reply ({said_replies}): {then}"
            )
        switch = MENU_SWITCH.match(text)
        if switch:
            return f"menu: {switch[1].replace('_', ' ')} {'on' if switch[2] == 'True' else 'off'}"
        return text

    def _turn_said(self, text: str) -> str:
        """ "O b2" (a seat and its actions in notation) as "O played b2"."""
        seat, _, actions = text.partition(" ")
        return f"{seat} {self._told(actions.split())}"

    def _quiet(self, event: Event) -> str:
        """The terminal's line for an event a log leaves out."""
        match event:
            case LedFrame():
                pixels = [event.pixels[i : i + 6] for i in range(0, len(event.pixels), 6)]
                lit = sum(p != "000000" for p in pixels)
                return f"leds: {lit} of {len(pixels)} lit"
            case ButtonPressed():
                return f"The {event.button} button released"
            case ClockChanged(seat=None):
                return "The clocks stopped"
            case ClockChanged():
                mine = event.reserves[event.seat]
                return (
                    f"{self.name(event.seat)}'s clock: {event.turn_left:.0f} s to play, then"
                    f" {mine:.0f} s in reserve"
                )
        return event.TYPE

    def hands_empty(self) -> Banner | None:
        """The hands hold nothing (a lifted piece put back where it was, which no event
        says): the banner once a wait for that piece is over; None if it was not waited for."""
        if self.need is None or not self.need.held:
            return None
        self.need = None
        return self.banner()

    # The banner.

    def banner(self) -> Banner:
        """What the banner says now."""
        if self.out_of_order is not None:
            reason = f": {self.out_of_order}" if self.out_of_order else ""
            return Banner(f"Out of order{reason}", Mood.WAITING)
        if self.closed is not None:
            return Banner(f"Closed{f' until {self.closed}' if self.closed else ''}", Mood.WAITING)
        if self.result is not None:
            seat = self.winners[0] if len(self.winners) == 1 else None
            text = self.result[:1].upper() + self.result[1:]
            if self.need is not None:
                text += f" \u00b7 {self.need.text}"
            return Banner(text, Mood.OVER, seat)
        need = self.need if self.need is not None else self.pending
        if need is not None:
            who = "" if need.seat is None else f"{self.name(need.seat)}: "
            mood = Mood.WRONG if need.wrong else Mood.WAITING
            return Banner(who + need.text, mood, need.seat)
        if self.to_move is None and self.turns:
            return Banner("The game is over", Mood.WAITING)
        if self.to_move is not None and self._game.names:
            name = self.name(self.to_move)
            if name == self.board_plays:
                text = f"{name} to move: the board is choosing its move"
            else:
                text = f"{name} to move"
            if self.skipped:
                text = f"{self.skipped}: {text}"
            return Banner(text, Mood.TURN, self.to_move)
        return Banner("Waiting for the board", Mood.WAITING)


def _known(event: GameStarted) -> _Game:
    """The game, its first position and where it lies on the board, where this program
    knows the game and the board (else words without them: places as they come)."""
    try:
        game = get_game(event.game)
        options = game.resolve_options(event.options)
        start = game.new_state(options)
        spec = load_board(event.board)
        profile = profile_for(game, spec, options)
    except (GameError, BoardSpecError, ProfileError):
        return _Game(names=event.players)
    return _Game(game, start, event.players, PlaceNames.of(profile, event.players))


def _on_tiles(start: State | None) -> bool:
    return start is not None and hasattr(start, "tiles")


def _options(event: GameStarted) -> str:
    options = " ".join(f"{k}={_word(v)}" for k, v in sorted(event.options.items()))
    actions = " ".join(event.actions)
    return "; ".join(part for part in (options, actions) if part)


def _notation(actions: tuple[str, ...], line: str) -> str:
    """The actions' notation for the log's detail, where the line does not already say it
    word for word (tic-tac-toe's "b2" is both)."""
    words = set(re.findall(r"[\w<>^:-]+", line))
    said = all(action in words or action in BOOKKEEPING for action in actions)
    return "" if said else " ".join(actions)


def _turns(n: int) -> str:
    return "1 turn" if n == 1 else f"{n} turns"


def _word(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


__all__ = ["Banner", "Describer", "Mood", "Words"]
