"""The one event schema: what the referee emits, the serial link carries, the journal stores and
a scenario run prints. docs/protocol.md documents it; this module is its single definition.

An event is a frozen dataclass; on the wire it is one JSON object per line with a `type` and a
`t` (seconds on the board's clock). Places are board places as printed on the board: lattice
cells like "f6" and tray slots like "A3". Actions are in the game's own notation.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, fields
from functools import cache
from typing import Any, ClassVar, get_args, get_origin, get_type_hints


class EventError(ValueError):
    """A line that is not an event of this schema (garbage on the link, a damaged journal)."""


@dataclass(frozen=True)
class Event:
    TYPE: ClassVar[str] = ""
    t: float

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["t"] = round(self.t, 6)
        return {"type": self.TYPE, **{k: _plain(v) for k, v in data.items()}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list | frozenset):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class GameStarted(Event):
    """A game began, fresh or resumed from the journal (then `actions` replays it)."""

    TYPE = "game-started"
    game: str
    options: dict[str, Any]
    board: str
    players: tuple[str, ...]
    actions: tuple[str, ...] = ()
    to_move: int | None = None
    """The seat whose turn it is once `actions` are replayed (None: the game is over)."""


@dataclass(frozen=True)
class Moved(Event):
    """A complete turn accepted: the game moved on. It says who moves next and which seats
    the rules skip on the way there, so that nothing that shows the game works it out."""

    TYPE = "move"
    player: int
    actions: tuple[str, ...]
    turn: int
    """Completed turns after this one."""
    to_move: int | None = None
    """The seat whose turn it is now (None: the game is over)."""
    skipped: tuple[dict, ...] = ()
    """The seats passed over before `to_move`, in order: {"seat": int, "why": words}."""


@dataclass(frozen=True)
class Partial(Event):
    """A legal prefix of a multi-action turn: the turn may go on (or end with the button)."""

    TYPE = "partial"
    player: int
    actions: tuple[str, ...]


@dataclass(frozen=True)
class InHand(Event):
    """Something was lifted and nothing put down yet; `targets` are where it may legally go."""

    TYPE = "in-hand"
    player: int
    lifted: tuple[str, ...]
    targets: tuple[str, ...]


@dataclass(frozen=True)
class Obligation(Event):
    """The rules need a physical follow-up before the board matches the game."""

    TYPE = "obligation"
    player: int
    detail: str
    places: tuple[str, ...]
    owed: tuple[dict, ...] = ()
    """Turns chosen elsewhere that hands must make here, in order: {"player": seat,
    "actions": notation}; empty for the rules' own follow-ups (a capture to carry off)."""
    opponent: bool = False
    """Whether `owed` are the board's own opponent's turns (else another board's, in a match)."""
    todo: str = ""
    """What the hands must do, in words for players, where the rules say it apart from
    `detail` (which says what happened: "captured: ..."); the words for `owed` are made from it."""


@dataclass(frozen=True)
class ChoiceOffered(Event):
    """The rules wait for `player` to choose (an icon to lose or to gain in Magnetmen): the
    options in notation, and the one the seat button now points at (`current`); the `menu`
    button, the page or the link's `choose` takes it."""

    TYPE = "choice"
    player: int
    options: tuple[str, ...]
    current: int


@dataclass(frozen=True)
class Fulfilled(Event):
    """The board shows an obligation carried out: play goes on."""

    TYPE = "fulfilled"
    player: int
    detail: str


@dataclass(frozen=True)
class Clear(Event):
    """Between games: what is left to clear before the next game can start (take the pieces at
    `remove` off, put pieces back at `put_back`). The next game starts when the board shows
    its start position."""

    TYPE = "clear"
    remove: tuple[str, ...]
    put_back: tuple[str, ...]


@dataclass(frozen=True)
class Illegal(Event):
    """The board shows no legal continuation: what to remove and what to put back to return to
    the last legal position. Nothing is lost; the board is accepted again once it matches."""

    TYPE = "illegal"
    player: int
    remove: tuple[str, ...]
    put_back: tuple[str, ...]
    detail: str
    tried: str = ""
    """The action the board shows a hand made, in notation, where it shows one the rules
    refuse (a tile shifted the wrong way, "Tc3>"): undone, the board matches the game again."""


@dataclass(frozen=True)
class Restored(Event):
    """After an illegal or unknown board, the pieces match the game again."""

    TYPE = "restored"


@dataclass(frozen=True)
class TakenBack(Event):
    """The previous position was restored on the board: the last turn is undone."""

    TYPE = "takeback"
    player: int
    actions: tuple[str, ...]


@dataclass(frozen=True)
class GameOver(Event):
    """The game has ended: its winners (none is a draw), why, the winning line's places, and
    each seat's final score in seat order where the game counts one."""

    TYPE = "game-over"
    winners: tuple[int, ...]
    names: tuple[str, ...]
    reason: str
    line: tuple[str, ...] = ()
    scores: tuple[int, ...] = ()


@dataclass(frozen=True)
class ClockChanged(Event):
    """A game clock changed stage: a seat's time started running (`turn`), moved on to its
    reserve, reached its last seconds, ran out (`flag`), or the clock stopped. Between events
    the running seat's time goes down by the seconds passed, its turn time first."""

    TYPE = "clock"
    seat: int | None
    """The seat whose time runs (None: stopped)."""
    stage: str
    """'turn', 'reserve', 'last-seconds', 'flag' or 'stopped'."""
    turn_left: float
    reserves: tuple[float, ...]
    """Each seat's reserve, in seconds."""


@dataclass(frozen=True)
class LedFrame(Event):
    """One frame sent to the LED chain: six hex digits (RGB, before the driver's brightness
    scaling and pixel order) per LED, in chain order."""

    TYPE = "leds"
    pixels: str


@dataclass(frozen=True)
class FaultSurvived(Event):
    """The hardware misbehaved and the board carried on (I2C error, expander reset, ...)."""

    TYPE = "fault"
    kind: str
    where: str
    detail: str


@dataclass(frozen=True)
class ButtonPressed(Event):
    TYPE = "button"
    button: str
    pressed: bool


@dataclass(frozen=True)
class Mismatch(Event):
    """On start, the board's pieces differ from the journalled game: what to change."""

    TYPE = "mismatch"
    remove: tuple[str, ...]
    put_back: tuple[str, ...]


@dataclass(frozen=True)
class Note(Event):
    """A message for people (e.g. the reason a command was refused); carries no game change."""

    TYPE = "note"
    text: str


REFUSED = "refused: "
"""How a note that refuses a command begins (the reason follows), so a host can tell a refusal
from any other note."""


@dataclass(frozen=True)
class RemoteMade(Event):
    """The board now shows the turn played on the other board of a remote match (accepted as a
    `move` when it arrived, and shown as an `obligation` until the hands made it): play goes on
    here. `seq` counts the match's turns up to this one."""

    TYPE = "remote-made"
    player: int
    actions: tuple[str, ...]
    seq: int


@dataclass(frozen=True)
class MatchStopped(Event):
    """A remote match stopped because its boards cannot agree (a turn one board cannot accept,
    two different turns at one sequence number, another game or position): both boards say so,
    and neither accepts anything more, so the game never forks. `seq` is this board's count of
    turns when it stopped."""

    TYPE = "match-stopped"
    match: str
    seq: int
    reason: str


@dataclass(frozen=True)
class HoursChanged(Event):
    """The board opened or closed for its opening hours (`[hours]`): while closed it judges
    nothing and keeps the game in progress. `until` is the local time (ISO, to the minute) of
    the next change, or None if none is coming."""

    TYPE = "hours"
    open: bool
    until: str | None = None


@dataclass(frozen=True)
class MaintenanceChanged(Event):
    """An operator took the board out of order (`on`, with their `reason`) or put it back:
    while out of order it judges nothing and keeps the game in progress."""

    TYPE = "maintenance"
    on: bool
    reason: str = ""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        GameStarted,
        Moved,
        Partial,
        InHand,
        Obligation,
        ChoiceOffered,
        Fulfilled,
        Clear,
        Illegal,
        Restored,
        TakenBack,
        GameOver,
        ClockChanged,
        LedFrame,
        FaultSurvived,
        ButtonPressed,
        Mismatch,
        Note,
        RemoteMade,
        MatchStopped,
        HoursChanged,
        MaintenanceChanged,
    )
}
"""Every event type of the one schema by its TYPE: the firmware's here, the simulator's page's
added by `register` where they are defined (sim/web/events.py)."""


def register(*classes: type[Event]) -> None:
    """Adds event types defined above the firmware to the one schema, so they are read back
    (`event_from_dict`) like the firmware's own."""
    for cls in classes:
        EVENT_TYPES[cls.TYPE] = cls


def event_from_dict(data: Any) -> Event:
    """Checks and builds an event from decoded JSON; EventError names what is wrong."""
    if not isinstance(data, dict):
        raise EventError(f"an event is a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(f"unknown event type {kind!r}")
    hints = _hints(cls)
    values = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is MISSING:
                raise EventError(f"{kind} event without {f.name!r}")
            continue
        values[f.name] = _checked(kind, f.name, hints[f.name], data[f.name])
    return cls(**values)


@cache
def _hints(cls: type[Event]) -> dict[str, Any]:
    return get_type_hints(cls)


def _checked(kind: str, name: str, hint: Any, value: Any) -> Any:
    """The value as the field holds it (JSON arrays become tuples), or EventError."""
    origin = get_origin(hint)
    if origin is tuple:
        item = get_args(hint)[0]
        if isinstance(value, list) and all(_is(item, v) for v in value):
            return tuple(value)
    elif origin is dict:
        if isinstance(value, dict):
            return value
    elif _is(hint, value):
        return value
    raise EventError(f"{kind} event: {name} cannot be {value!r}")


def _is(kind: Any, value: Any) -> bool:
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def event_from_json(line: str) -> Event:
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise EventError(f"not JSON: {error}") from None
    return event_from_dict(data)
