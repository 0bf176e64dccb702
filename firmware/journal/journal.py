"""The journal itself: it folds the board's events into the game, commits what changes it, and
keeps the board playing when the disk refuses (see the package's docstring)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..events import Event, FaultSurvived, GameOver, GameStarted, Illegal
from .faults import Disk
from .records import KEPT, SNAPSHOT_EVERY, RecordedGame, Resume
from .resume import fold, rebuilt, replay_problem, turns_done
from .store import (
    UNREADABLE,
    Limits,
    transaction,
    trim_history,
)

DEFAULT_LIMITS = Limits()
"""The history kept when the configuration says nothing of it."""


class Journal(Disk):
    def __init__(
        self,
        path: Path,
        wall: Callable[[], float] = time.time,
        match: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.path = Path(path)
        self.wall = wall
        self.limits = limits
        self.match = match
        """The remote match this board plays, if any: a game resumes into its own match only."""
        self._db: sqlite3.Connection | None = None
        self._opened = False
        self._game: RecordedGame | None = None
        self._pending: list[tuple[RecordedGame, float, float, str, str]] = []
        """Records not yet on disk: (game, t, wall, event, snapshot)."""
        self._touched: list[RecordedGame] = []
        """Games whose figures changed since the last commit."""
        self._news: list[str] = []
        self.behind = False
        """Records wait in memory for the disk: the alert stays lit."""

    # -- reading ---------------------------------------------------------------------------

    def load(self) -> Resume | None:
        """The game to resume, or None if there is none (or nothing of it could be read)."""
        self._open()
        return self._game.resume() if self._game else None

    def news(self) -> list[str]:
        """What went wrong (or right again) since the last call, for fault events."""
        news, self._news = self._news, []
        return news

    # -- writing ---------------------------------------------------------------------------

    def record(self, event: Event) -> None:
        """Folds `event` into the game and, if it changes the game, commits it (or keeps it in
        memory while the disk refuses). Never raises."""
        self._open()
        game = self._game
        if isinstance(event, GameStarted):
            game = self._started(event)
        elif game is None:
            return
        elif isinstance(event, Illegal | FaultSurvived):
            game.mistakes += isinstance(event, Illegal)
            game.faults += isinstance(event, FaultSurvived)
            self._touch(game)  # written with the next commit: figures, not moves
            return
        elif not isinstance(event, KEPT):
            return
        else:
            fold(game, event, self.wall())
        self._touch(game)
        whole = isinstance(event, GameStarted) or game.since_snapshot >= SNAPSHOT_EVERY
        game.since_snapshot = 0 if whole else game.since_snapshot + 1
        held = game.snapshot() if whole else game.delta()
        if whole:
            game.lengths.clear()
        game.lengths.append(len(game.done))
        self._pending.append((game, event.t, self.wall(), event.to_json(), held))
        self._write()
        if isinstance(event, GameStarted | GameOver) and not self.behind:
            self._trim()

    def catch_up(self) -> None:
        """Tries again to write what waits in memory (the loop calls this now and then)."""
        if self.behind:
            self._open()
            self._write()

    def keep_selftest(self, report: dict[str, Any]) -> None:
        """Keeps a self-test's report for `magboard stats` (a fault in the news if it cannot)."""
        self._open()
        try:
            db = self._connection()
            with transaction(db):
                db.execute(
                    "INSERT INTO selftests (wall, report) VALUES (?, ?)",
                    (self.wall(), json.dumps(report)),
                )
        except (sqlite3.Error, OSError) as error:
            self._drop()
            self._news.append(f"the self-test's report could not be kept: {error}")

    def close(self) -> None:
        """Writes the figures still in memory, and closes the database."""
        if self._touched or self._pending:
            self._write()
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- inside ----------------------------------------------------------------------------

    def _started(self, event: GameStarted) -> RecordedGame:
        """The game `event` starts: the one journalled if it is that game resumed, else a new
        one (and the one it replaces, unfinished, is abandoned)."""
        current, options = self._game, dict(event.options)
        key = (event.game, options, event.board, tuple(event.actions), self.match)
        if current is not None and current.result != "abandoned":
            resumed = current.resume()
            if key == (
                resumed.game,
                resumed.options,
                resumed.board,
                resumed.actions,
                resumed.match,
            ):
                current.done, current.partial = turns_done(event)
                return current
            if current.result is None:
                current.result, current.ended = "abandoned", self.wall()
                self._touch(current)
        game = RecordedGame(event.game, options, event.board, self.wall(), match=self.match)
        game.done, game.partial = turns_done(event)
        self._game = game
        return game

    def _touch(self, game: RecordedGame) -> None:
        if game not in self._touched:
            self._touched.append(game)

    def _open(self) -> None:
        """Reads the database once, at the first use: the game to resume, and what is set
        aside. A file that is not a database is moved aside (kept) and a new one begun."""
        if self._opened:
            return
        self._opened = True
        try:
            self._game = self._resumable(self._connection(), mark=True)
        except (sqlite3.Error, OSError) as error:
            self._drop()
            if getattr(error, "sqlite_errorname", "") in UNREADABLE:
                self._set_file_aside(error)
            else:
                self._fell_behind(error)
                self._game = self._read_only_resume()

    def _read_only_resume(self) -> RecordedGame | None:
        """The game to resume from a database that cannot be written (a file system gone
        read-only): read as it stands, changing nothing."""
        if not self.path.is_file():
            return None
        uri = self.path.resolve().as_uri()
        for query in ("?mode=ro", "?immutable=1"):
            try:
                db = sqlite3.connect(f"{uri}{query}", uri=True, check_same_thread=False)
                try:
                    return self._resumable(db, mark=False)
                finally:
                    db.close()
            except sqlite3.Error:
                continue
        return None

    def _resumable(self, db: sqlite3.Connection, *, mark: bool) -> RecordedGame | None:
        """The newest game, as of its newest record that reads and replays; the records that
        do not are marked set aside, and the news says so."""
        newest = db.execute("SELECT game_id FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        if newest is None:
            return None
        game_id = newest[0]
        rows = db.execute(
            "SELECT seq, CAST(event AS BLOB), CAST(snapshot AS BLOB) FROM records "
            "WHERE set_aside IS NULL AND game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
        problems: dict[int, str] = {}
        found: RecordedGame | None = None
        # Where the game began, should its first record (a snapshot) be the one worn bad.
        summary = db.execute(
            "SELECT game, options, board FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        began = None
        with contextlib.suppress(TypeError, ValueError):
            name, options, board = summary
            began = {"game": name, "options": json.loads(options), "board": board, "match": None}
        for seq, game in reversed(rebuilt(rows, problems, began)):
            problem = replay_problem(game)
            if problem is None:
                found = game
                break
            problems[seq] = problem
        bad = sorted(problems.items())
        if bad and mark:
            try:
                with transaction(db):
                    db.executemany(
                        "UPDATE records SET set_aside = ? WHERE seq = ?",
                        [(problem, seq) for seq, problem in bad],
                    )
            except sqlite3.Error:
                pass  # found again, and set aside again, at the next start
        if bad:
            first, problem = bad[0]
            self._news.append(
                f"{len(bad)} journal record(s) could not be read or replayed and were set "
                f"aside (from record {first}: {problem}); the game resumes from the last good one"
            )
        if found is None:
            return None
        row = db.execute(
            "SELECT started, ended, result, turns, mistakes, takebacks, faults FROM games "
            "WHERE id = ?",
            (game_id,),
        ).fetchone()
        found.db_id = game_id
        if row is not None:
            (found.started, found.ended, found.result, found.turns, found.mistakes,
             found.takebacks, found.faults) = row  # fmt: skip
        return found

    def _write(self) -> None:
        """Commits the records and figures waiting, in one transaction, or keeps them."""
        fresh: list[RecordedGame] = []
        try:
            db = self._connection()
            with transaction(db):
                for game, *_ in self._pending:
                    self._insert_game(db, game, fresh)
                for game in self._touched:
                    self._insert_game(db, game, fresh)
                    db.execute(
                        "UPDATE games SET ended = ?, result = ?, turns = ?, mistakes = ?, "
                        "takebacks = ?, faults = ?, winners = ?, actions = ? WHERE id = ?",
                        (
                            game.ended,
                            game.result,
                            game.turns,
                            game.mistakes,
                            game.takebacks,
                            game.faults,
                            None if game.winners is None else json.dumps(game.winners),
                            None if game.result is None else json.dumps(game.done),
                            game.db_id,
                        ),
                    )
                db.executemany(
                    "INSERT INTO records (game_id, t, wall, event, snapshot) VALUES (?,?,?,?,?)",
                    [(g.db_id, t, wall, e, s) for g, t, wall, e, s in self._pending],
                )
        except (sqlite3.Error, OSError) as error:
            for game in fresh:
                game.db_id = None  # the transaction that gave it a row was rolled back
            self._drop()
            self._fell_behind(error)
            return
        written = len(self._pending)
        self._pending.clear()
        self._touched.clear()
        if self.behind:
            self.behind = False
            self._news.append(f"the journal is written again ({written} records caught up)")

    def _trim(self) -> None:
        """Keeps the history within `limits` (see `Limits`), then gives the pages freed back
        to the file system. A failure is news, never an error: the game goes on."""
        try:
            db = self._connection()
            current = self._game.db_id if self._game else None
            trim_history(db, self.limits, self.wall(), current)
            if db.execute("PRAGMA freelist_count").fetchone()[0]:
                db.execute("PRAGMA incremental_vacuum").fetchall()  # it works as it is stepped
        except (sqlite3.Error, OSError) as error:
            self._drop()
            self._news.append(f"the journal's old history could not be trimmed: {error}")

    @staticmethod
    def _insert_game(db: sqlite3.Connection, game: RecordedGame, fresh: list[RecordedGame]) -> None:
        if game.db_id is not None:
            return
        cursor = db.execute(
            "INSERT INTO games (game, options, board, started) VALUES (?, ?, ?, ?)",
            (game.game, json.dumps(game.options), game.board, game.started),
        )
        game.db_id = cursor.lastrowid
        fresh.append(game)
