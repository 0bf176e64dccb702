"""What the journal writes of a game: the events it keeps, the game as it folds them
(`RecordedGame`), each record's snapshot or delta, and the reading of a record back."""

from __future__ import annotations

import json
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..events import ClockChanged, Fulfilled, GameOver, GameStarted, Moved, Partial, TakenBack

KEPT = (GameStarted, Moved, Partial, Fulfilled, TakenBack, ClockChanged, GameOver)
"""The events committed before the board moves on: the ones that change a game."""
SNAPSHOT_EVERY = 256
"""Records between two snapshots of the whole game. A resume rebuilds the game from its first
record whatever their number; a snapshot is where it starts again after more records lost in a
row than a tail covers. A Lance Assembly match (a few hundred records) holds one or two."""
COVERED = 3
"""Damaged records in a row that cost no action: each record repeats every action the records
before it changed since then."""
TAIL = 4
"""The fewest actions a record repeats."""


@dataclass(frozen=True)
class Resume:
    game: str
    options: dict[str, Any]
    board: str
    actions: tuple[str, ...]
    """Every action played, in order, including a turn still in progress."""
    reserves: tuple[float, ...] | None = None
    """The game clock's reserves as last recorded (at the start of the turn in progress)."""
    match: str | None = None
    """The remote match (firmware/app/remote.py) the game is played in, if any."""


@dataclass
class RecordedGame:
    """The game being recorded, as the journal folds its events."""

    game: str
    options: dict[str, Any]
    board: str
    started: float
    done: list[str] = field(default_factory=list)
    partial: tuple[str, ...] = ()
    reserves: tuple[float, ...] | None = None
    db_id: int | None = None
    """Its row in `games`, once written."""
    ended: float | None = None
    result: str | None = None
    winners: tuple[int, ...] | None = None
    turns: int = 0
    mistakes: int = 0
    takebacks: int = 0
    faults: int = 0
    match: str | None = None
    since_snapshot: int = 0
    """Records written since the last snapshot."""
    lengths: deque[int] = field(default_factory=lambda: deque(maxlen=COVERED + 1))
    """How many actions the game had at each of its last records."""

    def resume(self) -> Resume:
        actions = (*self.done, *self.partial)
        return Resume(self.game, dict(self.options), self.board, actions, self.reserves, self.match)

    def snapshot(self) -> str:
        return json.dumps(
            {
                "game": self.game,
                "options": self.options,
                "board": self.board,
                "done": self.done,
                "partial": list(self.partial),
                "reserves": self.reserves,
                "match": self.match,
            },
            separators=(",", ":"),
        )

    def delta(self) -> str:
        """What a record holds of the game between snapshots: its length, its actions from
        where any of its last `COVERED` records could have changed them (at least the last
        `TAIL`), a checksum of them all, and the turn in progress if there is one (the clock is
        in the clock's own events). The checksum tells a rebuilt game right from one that a run
        of damaged records left wrong (a move taken back and another made in its place)."""
        length = len(self.done)
        start = max(0, min(*self.lengths, length - TAIL) if self.lengths else length - TAIL)
        delta: dict[str, Any] = {
            "length": length,
            "tail": self.done[start:],
            "crc": crc(self.done),
        }
        if self.partial:
            delta["partial"] = list(self.partial)
        return json.dumps(delta, separators=(",", ":"))


def read_json(data: bytes) -> tuple[Any, str | None]:
    try:
        return json.loads(data.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError) as error:
        return None, f"unreadable: {error}"


def read_record(data: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """A record's snapshot or delta, if it reads and is of this schema."""
    record, problem = read_json(data)
    if problem is not None:
        return None, problem
    if not isinstance(record, dict):
        return None, "not a record of this schema"
    texts = record.get("done", record.get("tail"))
    partial = record.get("partial", [])
    shaped = (
        isinstance(texts, list)
        and isinstance(partial, list)
        and all(isinstance(a, str) for a in (*texts, *partial))
        and (record.get("reserves") is None or numbers(record["reserves"]))
    )
    if "done" in record:
        shaped = (
            shaped
            and all(
                isinstance(record.get(key), kind)
                for key, kind in (("game", str), ("options", dict), ("board", str))
            )
            and isinstance(record.get("match"), str | None)
        )
    else:
        length = record.get("length")
        shaped = (
            shaped
            and isinstance(length, int)
            and 0 <= len(texts) <= length
            and isinstance(record.get("crc"), int)
        )
    if not shaped:
        return None, "not a record of this schema"
    return record, None


def crc(actions: list[str]) -> int:
    return zlib.crc32(json.dumps(actions, separators=(",", ":")).encode())


def numbers(values: object) -> bool:
    return isinstance(values, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )
