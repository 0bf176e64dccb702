"""The game in progress, on disk, in the event schema: a restart resumes it.

Each event that changes the game is appended and flushed to stable storage before the board
moves on, so a power cut loses at most the move being made. A new game starts a new file. A torn
last line (the cut came mid-write) is ignored; anything before it is kept.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .events import (
    ClockChanged,
    Event,
    EventError,
    Fulfilled,
    GameStarted,
    Moved,
    Partial,
    TakenBack,
    event_from_json,
)
from .games import CARRY_OUT, GameError, get_game

KEPT = (GameStarted, Moved, Partial, Fulfilled, TakenBack, ClockChanged)


@dataclass(frozen=True)
class Resume:
    game: str
    options: dict[str, Any]
    board: str
    actions: tuple[str, ...]
    """Every action played, in order, including a turn still in progress."""
    reserves: tuple[float, ...] | None = None
    """The game clock's reserves as last recorded (at the start of the turn in progress)."""


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def record(self, event: Event) -> None:
        if not isinstance(event, KEPT):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        mode = "w" if isinstance(event, GameStarted) else "a"
        with self.path.open(mode, encoding="utf-8") as file:
            file.write(event.to_json() + "\n")
            file.flush()
            os.fsync(file.fileno())

    def load(self) -> Resume | None:
        """The journalled game, or None if there is none (or nothing readable)."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return None
        start: GameStarted | None = None
        done: list[str] = []
        partial: tuple[str, ...] = ()
        reserves: tuple[float, ...] | None = None
        for line in lines:
            try:
                event = event_from_json(line)
            except EventError:
                break  # a torn write at the end: what came before stands
            if isinstance(event, GameStarted):
                start, reserves = event, None
                done, partial = _turns_done(event)
            elif start is None:
                continue
            elif isinstance(event, Moved):
                done += event.actions
                partial = ()
            elif isinstance(event, Partial):
                partial = event.actions
            elif isinstance(event, Fulfilled):
                done.append(str(CARRY_OUT))
            elif isinstance(event, ClockChanged):
                reserves = event.reserves
            elif isinstance(event, TakenBack):
                del done[max(0, len(done) - len(event.actions)) :]
                partial = ()
        if start is None:
            return None
        return Resume(start.game, dict(start.options), start.board, (*done, *partial), reserves)


def _turns_done(started: GameStarted) -> tuple[list[str], tuple[str, ...]]:
    """A resumed game's actions, split into whole turns (and obligations carried out) and the
    turn in progress: the events that follow tell the turn in progress again from its start
    (`partial`, `move`), so counting it as done would play it twice."""
    actions = list(started.actions)
    try:
        state = get_game(started.game).new_state(dict(started.options))
        whole = 0
        for n, text in enumerate(actions, start=1):
            before, action = state.turn, state.parse_action(text)
            state = state.apply(action)
            if action == CARRY_OUT or state.turn != before or state.outcome() is not None:
                whole = n  # an obligation carried out is journalled apart from any turn
    except GameError:
        return actions, ()  # not this program's game: the referee refuses it when replayed
    return actions[:whole], tuple(actions[whole:])
