"""Game clocks: each seat's turn time, then its reserve, on the board's injected clock.

The rules say what a fallen flag means (the game's `on_time_up` action); this says when it falls.
The clock follows the position it is shown: whoever is to move runs, nobody runs while the board
waits for something to be put right by hand or once the game is over, and the reserves are
refilled when a new bout begins. While the LED menu is open the clock is paused, and goes on with
the time that was left. Every change a player would want to see (whose time runs, the
switch to the reserve, the last ten seconds, the flag) is a `ClockChanged` event, so the lights,
the serial link, the page and the journal hear of it alike.

A power cut gives the player to move the time of the turn in progress back: on resume the turn
starts again with the reserves as the journal last recorded them (at the start of that turn, or
when its last seconds began), so time while the board was off costs nobody.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Protocol

from .events import ClockChanged
from .games import ClockRules, all_games

LAST_SECONDS = 10.0
"""The final seconds of a player's time, which the status LEDs count down."""


class Stage(Enum):
    """Where the running seat's time stands, in the order a turn passes through them."""

    TURN = "turn"
    RESERVE = "reserve"
    LAST = "last-seconds"
    FLAG = "flag"


class Timed(Protocol):
    """What the clock reads of a position."""

    to_move: int
    turn: int

    @property
    def bout(self) -> int: ...

    @property
    def obligations(self) -> tuple: ...

    def outcome(self) -> object: ...


@dataclass(frozen=True)
class ClockReading:
    """The clock at one moment: the running seat (None: stopped), the time left of the turn in
    progress, and each seat's reserve."""

    running: int | None
    turn_left: float
    reserves: tuple[float, ...]


class GameClock:
    def __init__(self, rules: ClockRules, seats: int) -> None:
        self.rules = rules
        self._base = ClockReading(None, 0.0, (rules.reserve,) * seats)
        """The reading when the running seat's turn started (or the clock stopped)."""
        self._since = 0.0
        self._bout: int | None = None
        self._turn_key: object = None
        self._stage: Stage | None = None
        self._paused: ClockReading | None = None
        """The running seat's time as it stood when the clock was paused, until it goes on."""

    def _limits(self) -> tuple[float, float, float]:
        """When the running seat's turn time ends, its last seconds begin and its flag falls:
        fixed instants, so a stage is reached exactly when the loop wakes for it (times worked
        out as differences can fall a rounding error short, and the loop would wake for ever)."""
        base = self._base
        assert base.running is not None
        turn_end = self._since + base.turn_left
        flag = turn_end + base.reserves[base.running]
        return turn_end, flag - LAST_SECONDS, flag

    def now(self, now: float) -> ClockReading:
        """The clock at `now`: the turn's time runs down first, then the reserve."""
        base = self._base
        if base.running is None:
            return base
        turn_end, _, flag = self._limits()
        reserves = list(base.reserves)
        reserves[base.running] = max(0.0, min(reserves[base.running], flag - now))
        return ClockReading(base.running, max(0.0, turn_end - now), tuple(reserves))

    def stage(self, now: float) -> Stage | None:
        """Where the running seat's time stands at `now` (None: stopped)."""
        if self._base.running is None:
            return None
        turn_end, last, flag = self._limits()
        if now >= flag:
            return Stage.FLAG
        if now >= last:
            return Stage.LAST
        return Stage.RESERVE if now >= turn_end else Stage.TURN

    def resume(self, reserves: tuple[float, ...], bout: int) -> None:
        """Sets the reserves a journal recorded in `bout` (before the clock first follows a
        position)."""
        self._base = replace(self._base, reserves=tuple(reserves))
        self._bout = bout

    def pause(self, now: float) -> ClockChanged | None:
        """Holds the running seat's time where it stands at `now` (the LED menu open: nobody
        can play meanwhile); `go_on` runs it again from there, the turn's time and the reserve
        alike. Until then `follow` changes nothing. None if nothing ran."""
        if self._base.running is None:
            return None
        self._paused = self.now(now)
        self._base = replace(self._paused, running=None)
        self._stage = None
        return self._event(now)

    def go_on(self, now: float) -> ClockChanged | None:
        """Runs the paused seat's time again from `now`, with what was left of it. None if the
        clock was not paused."""
        paused, self._paused = self._paused, None
        if paused is None:
            return None
        self._base, self._since = paused, now
        self._stage = self.stage(now)
        return self._event(now)

    def stop(self, now: float) -> ClockChanged | None:
        """Stops the running seat's time at `now` (the board closed or out of order): the next
        `follow` starts the turn in progress again with its full turn time and the reserves
        as they stood, as after a power cut. None if nothing ran."""
        if self._paused is not None:  # paused meanwhile: stopped where it stood
            self._base, self._since = self._paused, now
            self._paused = None
        if self._base.running is None:
            return None
        self._base = replace(self.now(now), running=None, turn_left=0.0)
        self._since, self._stage, self._turn_key = now, None, None
        return self._event(now)

    def follow(self, position: Timed, now: float) -> list[ClockChanged]:
        """Brings the clock in step with `position`: the events of what changed, including a
        stage reached since the last call."""
        if self._paused is not None:
            return []
        running = position.to_move
        if position.outcome() is not None or position.obligations:
            running = None
        events: list[ClockChanged] = []
        bout = position.bout
        if running is not None and bout != self._bout:
            self._bout = bout
            current = self.now(now)
            self._base = ClockReading(None, 0.0, (self.rules.reserve,) * len(current.reserves))
            self._turn_key = None
        if running is None and self._base.running is not None:
            self._base = replace(self.now(now), running=None, turn_left=0.0)
            self._since, self._stage, self._turn_key = now, None, None
            events.append(self._event(now))
        elif running is not None and (bout, position.turn) != self._turn_key:
            reserves = self.now(now).reserves
            self._base = ClockReading(running, self.rules.per_turn, reserves)
            self._since, self._turn_key = now, (bout, position.turn)
            self._stage = self.stage(now)
            events.append(self._event(now))
        stage = self.stage(now)
        if stage is not None and stage != self._stage:
            self._stage = stage
            events.append(self._event(now))
        return events

    def fallen(self, now: float) -> int | None:
        """The running seat, if its time has run out."""
        return self._base.running if self.stage(now) is Stage.FLAG else None

    def next_change(self, now: float) -> float | None:
        """When the running seat next reaches a stage (the loop wakes then), or None: stopped,
        or its flag already fell (waking again would change nothing)."""
        if self._base.running is None:
            return None
        return min((limit for limit in self._limits() if limit > now), default=None)

    def _event(self, now: float) -> ClockChanged:
        reading, stage = self.now(now), self.stage(now)
        return ClockChanged(
            now,
            reading.running,
            stage.value if stage is not None else "stopped",
            round(reading.turn_left, 3),
            tuple(round(r, 3) for r in reading.reserves),
        )


def clock_for(options: dict, seats: int) -> GameClock | None:
    """The clock a game's options ask for, or None: the times the game declares for its
    `clock` option's value (`Game.clocks`; no two games declare one value two ways)."""
    value = options.get("clock", "none")
    rules = next((game.clocks[value] for game in all_games() if value in game.clocks), None)
    return GameClock(rules, seats) if rules is not None else None
