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

from dataclasses import dataclass

from magboard.firmware.events import Note
from magboard.firmware.lights import LevelError

from .commands import Link, NewGame, Refused, decoded, new_game_of, read, short, start
from .loop import BoardLoop
from .maintenance import MaintenanceError, set_in_service, set_out_of_order
from .update_request import UpdateAsked, UpdateRefused, asked, leave_request

MAX_COMMAND = 4096
"""Longest command message in bytes."""


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
    data = read(decoded(payload), Link.MQTT)
    name = data["do"]
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
            raise Refused(f"maintenance: on is true or false, not {short(on)}")
        if not isinstance(reason, str):
            raise Refused(f"maintenance: reason is text, not {short(reason)}")
        if reason and not on:
            raise Refused("maintenance: a reason goes with on: true")
        return SetMaintenance(on, reason)
    if name == "brightness":
        level = data.get("level")
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level <= 1:
            raise Refused(f"brightness: level is above 0 and at most 1, not {short(level)}")
        return SetLevel(float(level))
    return new_game_of(data)


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
    start(command, loop, now)


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
