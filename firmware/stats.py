"""`magboard stats`: what a board has been used for, from its state database: games started,
finished and abandoned per game, how long they ran, the mistakes, takebacks and faults, and the
last self-test. Read-only: asking never changes the board's records.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .app.errors import CommandError


@dataclass(frozen=True)
class GameFigures:
    game: str
    started: int
    finished: int
    abandoned: int
    playing: int
    turns_per_game: float | None
    """Mean over the finished games."""
    minutes_per_game: float | None
    """Mean over the finished games."""
    mistakes: int
    takebacks: int
    faults: int


@dataclass(frozen=True)
class Usage:
    games: tuple[GameFigures, ...]
    started_today: int
    """Games begun since local midnight."""
    set_aside: int
    """Journal records that could not be read or replayed."""
    selftest: dict[str, Any] | None
    """The last self-test's report, with `wall` (when it ran)."""


def read_usage(path: Path, now: float | None = None) -> Usage:
    """The figures in the database at `path` (CommandError if there is none to read)."""
    if not Path(path).is_file():
        raise CommandError(f"no state database at {path} (is the journal somewhere else?)")
    try:
        db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise CommandError(f"{path}: cannot be opened ({error})") from None
    try:
        return _usage(db, time.time() if now is None else now)
    except sqlite3.Error as error:
        raise CommandError(f"{path}: not a magboard state database ({error})") from None
    finally:
        db.close()


def _usage(db: sqlite3.Connection, now: float) -> Usage:
    newest = db.execute("SELECT max(id) FROM games").fetchone()[0]
    rows = db.execute(
        """SELECT game,
                  count(*),
                  sum(result = 'finished'),
                  sum(result = 'abandoned' OR (result IS NULL AND id != ?)),
                  sum(result IS NULL AND id = ?),
                  avg(CASE WHEN result = 'finished' THEN turns END),
                  avg(CASE WHEN result = 'finished' THEN (ended - started) / 60.0 END),
                  sum(mistakes), sum(takebacks), sum(faults)
           FROM games GROUP BY game ORDER BY count(*) DESC, game""",
        (newest, newest),
    ).fetchall()
    games = tuple(
        GameFigures(name, n, done or 0, gone or 0, on or 0, turns, minutes, m or 0, t or 0, f or 0)
        for name, n, done, gone, on, turns, minutes, m, t, f in rows
    )
    midnight = time.mktime((*time.localtime(now)[:3], 0, 0, 0, 0, 0, -1))
    today = db.execute("SELECT count(*) FROM games WHERE started >= ?", (midnight,)).fetchone()[0]
    aside = db.execute("SELECT count(*) FROM records WHERE set_aside IS NOT NULL").fetchone()[0]
    last = db.execute("SELECT wall, report FROM selftests ORDER BY id DESC LIMIT 1").fetchone()
    selftest = None
    if last is not None:
        try:
            selftest = {"wall": last[0], **json.loads(last[1])}
        except (ValueError, TypeError):
            selftest = {"wall": last[0], "unreadable": True}
    return Usage(games, today, aside, selftest)


def usage_json(usage: Usage) -> str:
    return json.dumps(asdict(usage), indent=2)


def usage_lines(usage: Usage, selftest_lines: list[str] | None = None) -> list[str]:
    """A table a person reads at a terminal; `selftest_lines` tell the last self-test."""
    header = ("game", "started", "finished", "abandoned", "playing", "turns", "minutes")
    header += ("mistakes", "takebacks", "faults")
    table = [header]
    for g in usage.games:
        table.append(
            (
                g.game,
                str(g.started),
                str(g.finished),
                str(g.abandoned),
                str(g.playing),
                _mean(g.turns_per_game),
                _mean(g.minutes_per_game),
                str(g.mistakes),
                str(g.takebacks),
                str(g.faults),
            )
        )
    if not usage.games:
        lines = ["no games played yet"]
    else:
        widths = [max(len(row[i]) for row in table) for i in range(len(header))]
        lines = [_row(row, widths) for row in table]
        lines.append("(turns and minutes: the mean of the finished games)")
    lines.append(f"games begun today: {usage.started_today}")
    if usage.set_aside:
        lines.append(f"journal records set aside (kept, unreadable): {usage.set_aside}")
    if usage.selftest is None:
        lines.append("self-test: never run (magboard selftest)")
    else:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(usage.selftest["wall"]))
        lines.append(f"last self-test, {when}:")
        lines += [f"  {line}" for line in selftest_lines or ["(its report cannot be read)"]]
    return lines


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    """The game's name to the left, the figures to the right."""
    first, *rest = zip(cells, widths, strict=True)
    return "  ".join([first[0].ljust(first[1]), *(c.rjust(w) for c, w in rest)])


def _mean(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
