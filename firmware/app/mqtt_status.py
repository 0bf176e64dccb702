"""What a board is doing, in one small value for people who are not at the table: the game, whose
turn, the last move, the result, the clocks, and what the board waits for. Published retained
on `magboard/<board-id>/status` (firmware/app/mqtt.py), so a dashboard that connects later
still sees every board as it stands.

The referee knows the position and what it waits for; the events know what just happened (the
last move). `StatusWatch` follows the events and asks the referee when asked for a status, in
the loop's thread.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from magboard.firmware.events import Event, GameStarted, LedFrame, Moved, TakenBack
from magboard.firmware.referee import Phase
from magboard.firmware.words import Describer

from .closing import Shut
from .loop import BoardLoop
from .mqtt_discovery import software_version

IDLE_AFTER = 300.0
"""Seconds untouched after which a game under way counts as idle, on a board without attract
mode (with one, idle begins when attract mode does)."""


@dataclass(frozen=True)
class BoardStatus:
    state: str
    """What an exhibit manager's dashboard shows: `active` (a game under way, touched lately),
    `idle` (no game under way, or nobody has touched the board for a while: `IDLE_AFTER`, or
    the attract mode's wait), `closed` (outside the opening hours), `out-of-order` (taken out of
    service). A board that is gone says `offline` on its availability topic instead."""
    board: str
    game: str
    options: dict[str, Any]
    players: tuple[str, ...]
    phase: str
    """What the board waits for: `play` (the seat `to_move` to play), `choice` (`to_move` to
    choose), `in-hand` (lifted pieces to be put down), `illegal` (the board to be put right),
    `obligation` (a follow-up by hand), `over` (the game ended; a new one to start),
    `clearing` (the board to be cleared for the next game)."""
    to_move: str | None
    """The seat name whose turn it is; None once the game is over."""
    turn: int
    """Completed turns."""
    last_move: dict[str, Any] | None
    """{"player": seat name, "actions": [...] (notation), "turn": n, "said": the move in words,
    in the game's squares}, or None before the first move."""
    result: dict[str, Any] | None
    """Once the game is over: {"winners": [seat names], "draw", "reason", "scores"}."""
    clock: dict[str, Any] | None
    """Where the game runs a clock: {"running": seat name or None, "stage", "turn_left",
    "reserves"} at `t`; the running seat's time goes down from there."""
    t: float
    reason: str | None = None
    """Out of order: the operator's reason ("" if none was given)."""
    opens_at: str | None = None
    """Closed: when the board opens again (local time, ISO, to the minute); None if never."""
    version: str = "unknown"
    """The board's software version (as Home Assistant's device shows it)."""
    brightness: float = 1.0
    """The lights' level (the `brightness` command's, or the LED menu's): above 0, at most 1."""

    def to_json(self) -> str:
        data = asdict(self)
        data["t"] = round(self.t, 6)
        return json.dumps(data, separators=(",", ":"))

    def same_as(self, other: BoardStatus | None) -> bool:
        """The same status apart from when it was read (and so the clock's running time)."""
        if other is None:
            return False
        return _steady(self) == _steady(other)


def _steady(status: BoardStatus) -> dict[str, Any]:
    data = asdict(status)
    del data["t"]
    if data["clock"] is not None:
        data["clock"] = {"running": data["clock"]["running"], "stage": data["clock"]["stage"]}
    return data


class StatusWatch:
    """Follows a loop's events for what the referee does not keep (the last move) and says
    whether the status may have changed since it was last read."""

    def __init__(self, loop: BoardLoop) -> None:
        self.loop = loop
        self._last_move: dict[str, Any] | None = None
        self._words = Describer()
        """The move in words, for a dashboard (firmware/words), from the events heard."""
        self._heard = True
        self._basis: tuple[object, ...] = (None, None, None, None)
        """What the last read was made of: the referee and its status and position, values
        replaced (never changed in place) whenever they change, and the board's state."""
        self._level: float | None = None
        self.version = software_version()

    @property
    def changed(self) -> bool:
        """An event came, or the referee moved on without one (a lifted piece put back)."""
        loop = self.loop
        referee = loop.referee
        state = board_state(loop, loop.board.clock.now())
        basis = (referee, referee.status, referee.position, state)
        if self._heard or self._level != loop.writer.level:
            return True
        return any(a is not b for a, b in zip(basis, self._basis, strict=True))

    def hear(self, event: Event) -> None:
        if isinstance(event, LedFrame):
            return
        said = self._words.words(event)
        seats = self.loop.referee.game.seats
        if isinstance(event, GameStarted):
            self._last_move = None
        elif isinstance(event, Moved):
            self._last_move = {
                "player": _seat(seats, event.player),
                "actions": list(event.actions),
                "turn": event.turn,
                "said": said.line,
            }
        elif isinstance(event, TakenBack):
            self._last_move = None
        self._heard = True

    def read(self, now: float) -> BoardStatus:
        loop = self.loop
        referee = loop.referee
        self._heard = False
        state = board_state(loop, now)
        self._basis = (referee, referee.status, referee.position, state)
        self._level = loop.writer.level
        position = referee.position
        seats = referee.game.seats
        outcome = position.outcome()
        phase = str(referee.status.phase)
        to_move: int | None = position.to_move
        if outcome is not None:
            to_move = None
        elif phase == Phase.PLAY and position.chooser is not None:
            phase, to_move = "choice", position.chooser
        result = None
        if outcome is not None:
            result = {
                "winners": [_seat(seats, w) for w in outcome.winners],
                "draw": outcome.draw,
                "reason": outcome.reason,
                "scores": list(outcome.scores),
            }
        clock = None
        if loop.game_clock is not None:
            reading = loop.game_clock.now(now)
            stage = loop.game_clock.stage(now)
            clock = {
                "running": None if reading.running is None else _seat(seats, reading.running),
                "stage": stage.value if stage is not None else "stopped",
                "turn_left": round(reading.turn_left, 3),
                "reserves": [round(r, 3) for r in reading.reserves],
            }
        out = loop.maintenance.state if loop.maintenance is not None else None
        opens = loop.hours.changes_at if loop.hours is not None else None
        return BoardStatus(
            state=state,
            board=loop.board.spec.name,
            game=referee.game.name,
            options=dict(referee.options),
            players=tuple(seats[: referee.initial.players]),
            phase=phase,
            to_move=None if to_move is None else _seat(seats, to_move),
            turn=position.turn,
            last_move=self._last_move,
            result=result,
            clock=clock,
            t=now,
            reason=out.reason if state == Shut.OUT_OF_ORDER.value and out is not None else None,
            opens_at=(
                opens.isoformat(timespec="minutes")
                if state == Shut.CLOSED.value and opens is not None
                else None
            ),
            version=self.version,
            brightness=self._level,
        )


def board_state(loop: BoardLoop, now: float) -> str:
    """The board's state for a dashboard (`BoardStatus.state`), as it stands at `now`."""
    if loop.shut is not None:
        return loop.shut.value
    referee = loop.referee
    touched = loop.touched_at
    if touched is None or referee.position.outcome() is not None:
        return "idle"
    if referee.position.turn == 0 and referee.status.phase is Phase.PLAY:
        return "idle"  # a board set up for a game nobody has begun
    attract = loop.idle.settings.attract_after if loop.idle is not None else None
    wait = attract if attract is not None else IDLE_AFTER
    return "active" if now < touched + wait else "idle"


def _seat(seats: tuple[str, ...], index: int) -> str:
    return seats[index] if 0 <= index < len(seats) else str(index)
