"""Commands a board takes on `magboard/<board-id>/command`: start a new game (the same, or another
with its options), set the lights' level, run the self-test (for the person at the board), take
the board out of order or put it back, and prepare an update (firmware/app/update_request.py:
root carries it out).
Someone at a desk runs a room of boards; nobody there can see the table, so a command is
checked whole before anything changes, and one that cannot be carried out changes nothing and
says why.

`read_command` checks a message's shape; `carry_out` does it on the loop, in the loop's thread
(the MQTT client's own thread only queues messages: firmware/app/mqtt.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from magboard.firmware.events import Note
from magboard.firmware.games import GameError, get_game
from magboard.firmware.lights import LevelError
from magboard.firmware.profiles import ProfileError

from . import wiring
from .loop import BoardLoop
from .maintenance import MaintenanceError, set_in_service, set_out_of_order
from .update_request import UpdateAsked, UpdateRefused, asked, leave_request

MAX_COMMAND = 4096
"""Longest command message in bytes."""
FIELDS: Mapping[str, frozenset[str]] = {
    "new-game": frozenset({"game", "options"}),
    "brightness": frozenset({"level"}),
    "selftest": frozenset(),
    "update": frozenset({"url", "sha256"}),
    "maintenance": frozenset({"on", "reason"}),
}
"""Each command and the fields it takes besides `do`."""


class Refused(ValueError):
    """A command the board will not carry out; the message says why."""


@dataclass(frozen=True)
class NewGame:
    """`game` None: the game being played; `options` None: its options (with another game,
    or with `game` given, the options given over the game's defaults)."""

    game: str | None = None
    options: dict[str, Any] | None = None


@dataclass(frozen=True)
class SetLevel:
    level: float


@dataclass(frozen=True)
class RunSelfTest:
    """Refereeing waits while the person at the board follows the self-test's lights."""


@dataclass(frozen=True)
class SetMaintenance:
    """Out of order (`on`, with the operator's `reason`) or back in service: the same state as
    `magboard maintenance`, kept in the same file, so it outlasts a restart."""

    on: bool
    reason: str = ""


Command = NewGame | SetLevel | RunSelfTest | SetMaintenance | UpdateAsked


def read_command(payload: bytes) -> Command:
    """The command in one MQTT message; Refused names what is wrong with it."""
    if len(payload) > MAX_COMMAND:
        raise Refused(f"a command longer than {MAX_COMMAND} bytes")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise Refused(f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise Refused("not JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise Refused('a command is a JSON object, like {"do": "new-game"}')
    if "do" not in data:
        raise Refused('a command says what to do, like {"do": "new-game"}')
    name = data["do"]
    if not isinstance(name, str) or name not in FIELDS:
        raise Refused(f"unknown command {_short(name)} (commands: {', '.join(FIELDS)})")
    extra = sorted(set(data) - FIELDS[name] - {"do"})
    if extra:
        raise Refused(f"{name}: unknown field {_short(extra[0])}")
    if name == "selftest":
        return RunSelfTest()
    if name == "update":
        try:
            return asked(data.get("url"), data.get("sha256"))
        except UpdateRefused as error:
            raise Refused(f"update: {error}") from None
    if name == "maintenance":
        on, reason = data.get("on"), data.get("reason", "")
        if not isinstance(on, bool):
            raise Refused(f"maintenance: on is true or false, not {_short(on)}")
        if not isinstance(reason, str):
            raise Refused(f"maintenance: reason is text, not {_short(reason)}")
        if reason and not on:
            raise Refused("maintenance: a reason goes with on: true")
        return SetMaintenance(on, reason)
    if name == "brightness":
        level = data.get("level")
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level <= 1:
            raise Refused(f"brightness: level is above 0 and at most 1, not {_short(level)}")
        return SetLevel(float(level))
    game, options = data.get("game"), data.get("options")
    if game is not None and not isinstance(game, str):
        raise Refused(f"new-game: game is a name, not {_short(game)}")
    if options is not None and not isinstance(options, dict):
        raise Refused(f"new-game: options is an object of NAME: VALUE, not {_short(options)}")
    return NewGame(game, options)


def carry_out(
    command: Command, loop: BoardLoop, now: float, *, authenticated: bool = False
) -> None:
    """Does `command` on the loop, or raises Refused having changed nothing. `authenticated`:
    the command came over an authenticated broker connection (an update needs one)."""
    if isinstance(command, UpdateAsked):
        try:
            request = leave_request(command, authenticated=authenticated)
        except UpdateRefused as error:
            raise Refused(f"update: {error}") from None
        loop.emit(Note(now, f"update: {command.url} checked, left for root in {request}"))
        return
    if isinstance(command, RunSelfTest):
        loop.selftest()
        return
    if isinstance(command, SetMaintenance):
        _maintenance(command, loop, now)
        return
    if isinstance(command, SetLevel):
        try:
            loop.writer.set_level(command.level)
        except LevelError as error:
            raise Refused(f"brightness: {error}") from None
        return
    if loop.shut is not None:
        # The game kept while shut is the one players come back to.
        raise Refused(f"new-game: the board is {loop.shut.value}")
    if command.game is None and command.options is None:
        loop.new_game(now)
        return
    try:
        game = get_game(command.game) if command.game is not None else loop.referee.game
        options = game.options_from_json(command.options or {})
        wiring.change_game(loop, game, options, now)
    except (GameError, ProfileError) as error:
        raise Refused(f"new-game: {error}") from None


def _maintenance(command: SetMaintenance, loop: BoardLoop, now: float) -> None:
    watch = loop.maintenance
    if watch is None:
        raise Refused("maintenance: this board keeps no state directory")
    try:
        if command.on:
            set_out_of_order(watch.path, command.reason)
        else:
            set_in_service(watch.path)
    except MaintenanceError as error:
        raise Refused(f"maintenance: {error}") from None
    watch.changed(now)  # the loop acts on it in this step, not a second later


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
