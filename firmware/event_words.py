"""Events in words for people: one line each ("X played b2", "illegal: take off b2, ...").

Shared by everything that shows events to a person at a terminal (`magboard watch`, the demo).
Events name board places (on r1, tic-tac-toe's b2 is board square f6); a person reads the
game's own squares, a1 at the game's corner, so places inside the game's area are named so, and
a board square outside it is called a board square. Moves are in the game's notation already.
"""

from __future__ import annotations

from typing import Any

from magboard.hardware.spec import BoardSpecError, load_board, place_label

from .events import (
    ButtonPressed,
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
from .games import GameError, get_game
from .profiles import ProfileError, profile_for


class Describer:
    """Turns events into one line for people; remembers the players' names, and where the
    game lies on the board, from the last `game-started`."""

    def __init__(self) -> None:
        self.names: tuple[str, ...] = ()
        self._squares: dict[str, str] = {}
        """Board label -> the game's own square, for the cells of the game's area."""

    def _start(self, event: GameStarted) -> None:
        self.names = event.players
        try:
            game = get_game(event.game)
            spec = load_board(event.board)
            profile = profile_for(game, spec, game.resolve_options(event.options))
        except (GameError, BoardSpecError, ProfileError):
            self._squares = {}  # a game or board this program does not know: as they come
            return
        self._squares = {
            place_label(cell): place_label(profile.to_game(cell)) for cell in profile.area
        }

    def places(self, labels: tuple[str, ...]) -> str:
        return " ".join(self.place(label) for label in labels)

    def place(self, label: str) -> str:
        """A game square by its own name; a board square outside the game named as such; tray
        slots and boxes as they are."""
        if label in self._squares:
            return self._squares[label]
        if self._squares and label[:1].islower() and label[1:].isdigit():
            return f"board square {label}"
        return label

    def name(self, player: int | None) -> str:
        if player is not None and 0 <= player < len(self.names):
            return self.names[player]
        return "nobody" if player is None else f"player {player + 1}"

    def __call__(self, event: Event) -> str:
        return f"{event.t:.2f} {self.text(event)}"

    def text(self, event: Event) -> str:
        match event:
            case GameStarted():
                self._start(event)
                options = "".join(f" {k}={_word(v)}" for k, v in sorted(event.options.items()))
                text = f"game {event.game}{options} on {event.board}: {', '.join(event.players)}"
                if event.actions:
                    text += f"; so far {' '.join(event.actions)}"
                return text
            case Moved(actions=("pass",)):
                return f"{self.name(event.player)} passed"
            case Moved():
                return f"{self.name(event.player)} played {' '.join(event.actions)}"
            case Partial():
                return f"{self.name(event.player)} is playing {' '.join(event.actions)} ..."
            case InHand():
                where = (
                    self.places(event.targets)
                    if event.targets
                    else "nowhere: put it back, or leave the last move's piece off to take "
                    "that move back"
                )
                return (
                    f"{self.name(event.player)} lifted {self.places(event.lifted)}; may go {where}"
                )
            case Obligation():
                return (
                    f"{self.name(event.player)} must: {event.detail} ({self.places(event.places)})"
                )
            case Illegal():
                return f"illegal: {self._changes(event.remove, event.put_back)} ({event.detail})"
            case Restored():
                return "restored: the board matches the game again"
            case TakenBack():
                return f"{self.name(event.player)} took back {' '.join(event.actions)}"
            case GameOver(winners=()):
                return f"draw: {event.reason}"
            case GameOver():
                line = f" ({self.places(event.line)})" if event.line else ""
                return f"{' and '.join(event.names)} won: {event.reason}{line}"
            case ClockChanged(seat=None):
                return "clock stopped"
            case ClockChanged():
                mine = event.reserves[event.seat]
                stages = {
                    "turn": f"{event.turn_left:.0f} s to play, then {mine:.0f} s in reserve",
                    "reserve": f"on the reserve, {mine:.0f} s left",
                    "last-seconds": f"{event.turn_left + mine:.0f} s left",
                    "flag": "out of time",
                }
                return f"{self.name(event.seat)}'s clock: {stages.get(event.stage, event.stage)}"
            case Clear():
                return f"clear the board: {self._changes(event.remove, event.put_back)}"
            case Fulfilled():
                return f"{self.name(event.player)} has done it: {event.detail}"
            case Mismatch():
                return f"pieces differ from the game: {self._changes(event.remove, event.put_back)}"
            case LedFrame():
                pixels = [event.pixels[i : i + 6] for i in range(0, len(event.pixels), 6)]
                lit = sum(p != "000000" for p in pixels)
                return f"leds: {lit} of {len(pixels)} lit"
            case FaultSurvived():
                return f"fault {event.kind} at {event.where}: {event.detail}"
            case ButtonPressed():
                return f"button {event.button} {'pressed' if event.pressed else 'released'}"
            case Note():
                return event.text
            case RemoteMade():
                played = " ".join(event.actions)
                return f"{self.name(event.player)}'s move {played} (other board) is made here"
            case MatchStopped():
                return f"match {event.match} stopped at move {event.seq}: {event.reason}"
            case HoursChanged():
                until = f" until {event.until.replace('T', ' ')}" if event.until else ""
                return f"{'open' if event.open else 'closed'}{until}"
            case MaintenanceChanged(on=True):
                return f"out of order: {event.reason or 'no reason given'}"
            case MaintenanceChanged():
                return "back in service"
        return f"{event.TYPE}"

    def _changes(self, remove: tuple[str, ...], put_back: tuple[str, ...]) -> str:
        parts = []
        if remove:
            parts.append(f"take off {self.places(remove)}")
        if put_back:
            parts.append(f"put back on {self.places(put_back)}")
        return ", ".join(parts) or "nothing to change"


def _word(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
