"""`magboard stats`: what a board has been used for, from its state database: games started,
finished and abandoned per game, how long they ran, the mistakes, takebacks and faults, and the
last self-test; `magboard games export`: each game with its actions, for a week's report.
Read-only: asking never changes the board's records.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from .errors import CommandError

T = TypeVar("T")


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
    return _read(path, lambda db: _usage(db, time.time() if now is None else now))


def _read(path: Path, query: Callable[[sqlite3.Connection], T]) -> T:
    if not Path(path).is_file():
        raise CommandError(f"no state database at {path} (is the journal somewhere else?)")
    try:
        db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise CommandError(f"{path}: cannot be opened ({error})") from None
    try:
        return query(db)
    except sqlite3.Error as error:
        raise CommandError(f"{path}: not a magboard state database ({error})") from None
    finally:
        db.close()


EXPORTED = (
    "id", "game", "options", "board", "started", "ended", "result", "winners", "turns",
    "mistakes", "takebacks", "faults", "actions",
)  # fmt: skip
"""The columns of `magboard games export`, in order."""


def read_games(path: Path, since: float) -> list[dict[str, Any]]:
    """Every game begun at or after `since` (epoch seconds), oldest first: its summary, its
    times in local ISO 8601, and its actions in the game's notation once it has ended (None
    while it is played, or where the history kept has dropped them)."""

    def games(db: sqlite3.Connection) -> list[dict[str, Any]]:
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        actions = "actions" if "actions" in columns else "NULL"
        rows = db.execute(
            "SELECT id, game, options, board, started, ended, result, winners, turns, mistakes, "
            f"takebacks, faults, {actions} FROM games WHERE started >= ? ORDER BY id",
            (since,),
        ).fetchall()
        found = []
        for row in rows:
            game = dict(zip(EXPORTED, row, strict=True))
            for key in ("options", "winners", "actions"):
                game[key] = None if game[key] is None else json.loads(game[key])
            for key in ("started", "ended"):
                if game[key] is not None:
                    game[key] = _local_time(game[key])
            found.append(game)
        return found

    return _read(path, games)


def games_csv(games: list[dict[str, Any]]) -> str:
    """One row a game; options as JSON, winners and actions separated by spaces."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORTED)
    for game in games:
        row = dict(game)
        row["options"] = json.dumps(game["options"], sort_keys=True)
        for key in ("winners", "actions"):
            row[key] = "" if game[key] is None else " ".join(map(str, game[key]))
        writer.writerow(["" if row[key] is None else row[key] for key in EXPORTED])
    return out.getvalue()


def _local_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(epoch))


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
