"""The board's state database (sqlite3, WAL, synchronous=FULL): the game in progress, so a
restart resumes it, and the usage figures of every game played.

Each event that changes a game is committed, with the game's whole action list so far (its
snapshot), before the board moves on: a power cut loses at most the move being made, and one
damaged record costs nothing, since the next one holds the game again. A restart resumes from the
newest record that reads and replays; a record that does not is set aside (marked, kept, never
deleted). When the disk refuses (read-only, full, a directory in the database's place, a file
that is not a database) the board plays on in memory and the journal writes what it holds as
soon as the disk takes it again. It never raises for any of this: `news()` says what happened,
for the loop to report as fault events, and `behind` keeps the alert lit while writes wait.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .events import (
    ClockChanged,
    Event,
    FaultSurvived,
    Fulfilled,
    GameOver,
    GameStarted,
    Illegal,
    Moved,
    Partial,
    TakenBack,
)
from .games import CARRY_OUT, GameError, get_game

KEPT = (GameStarted, Moved, Partial, Fulfilled, TakenBack, ClockChanged, GameOver)
"""The events committed before the board moves on: the ones that change a game."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    board TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    result TEXT,
    turns INTEGER NOT NULL DEFAULT 0,
    mistakes INTEGER NOT NULL DEFAULT 0,
    takebacks INTEGER NOT NULL DEFAULT 0,
    faults INTEGER NOT NULL DEFAULT 0,
    winners TEXT
);
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL,
    t REAL NOT NULL,
    wall REAL NOT NULL,
    event TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    set_aside TEXT
);
CREATE INDEX IF NOT EXISTS records_by_game ON records (game_id, seq);
CREATE TABLE IF NOT EXISTS selftests (
    id INTEGER PRIMARY KEY,
    wall REAL NOT NULL,
    report TEXT NOT NULL
);
"""
"""`games.result` is 'finished', 'abandoned' (a new game began first) or NULL (in progress);
times in `games` and `wall` are seconds since the epoch, `t` the board's own clock."""

UNREADABLE = {"SQLITE_NOTADB", "SQLITE_CORRUPT"}
"""Errors that say the file itself is damaged: it is set aside and a new database begun."""


class JournalError(OSError):
    """The database cannot be written now (the cause is in the message)."""


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
class _Game:
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


class Journal:
    def __init__(
        self, path: Path, wall: Callable[[], float] = time.time, match: str | None = None
    ) -> None:
        self.path = Path(path)
        self.wall = wall
        self.match = match
        """The remote match this board plays, if any: a game resumes into its own match only."""
        self._db: sqlite3.Connection | None = None
        self._opened = False
        self._game: _Game | None = None
        self._pending: list[tuple[_Game, float, float, str, str]] = []
        """Records not yet on disk: (game, t, wall, event, snapshot)."""
        self._touched: list[_Game] = []
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
            _fold(game, event, self.wall())
        self._touch(game)
        self._pending.append((game, event.t, self.wall(), event.to_json(), game.snapshot()))
        self._write()

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
            with _transaction(db):
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

    def _started(self, event: GameStarted) -> _Game:
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
                current.done, current.partial = _turns_done(event)
                return current
            if current.result is None:
                current.result, current.ended = "abandoned", self.wall()
                self._touch(current)
        game = _Game(event.game, options, event.board, self.wall(), match=self.match)
        game.done, game.partial = _turns_done(event)
        self._game = game
        return game

    def _touch(self, game: _Game) -> None:
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

    def _read_only_resume(self) -> _Game | None:
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

    def _connection(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        if self.path.is_dir():
            raise JournalError(f"{self.path} is a directory, not a database")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
        except BaseException:
            db.close()
            raise
        self._db = db
        return db

    def _drop(self) -> None:
        """Closes the connection after an error: the next try opens the file afresh (the disk
        may have come back, or the directory been replaced)."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def _fell_behind(self, error: BaseException) -> None:
        if not self.behind:
            self.behind = True
            self._news.append(
                f"the journal {self.path} cannot be written ({error}): play goes on, and what "
                "is played is written as soon as the disk takes it"
            )

    def _set_file_aside(self, error: BaseException) -> None:
        self._drop()
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(self.wall()))
        aside = self.path.with_name(f"{self.path.name}.unreadable-{stamp}")
        try:
            for suffix in ("", "-wal", "-shm"):
                part = Path(f"{self.path}{suffix}")
                if part.exists():
                    part.rename(Path(f"{aside}{suffix}"))
        except OSError as rename_error:
            self._fell_behind(rename_error)
            return
        self._news.append(f"the journal could not be read ({error}): set aside as {aside}")
        try:
            self._connection()
        except (sqlite3.Error, OSError) as open_error:
            self._drop()
            self._fell_behind(open_error)

    def _resumable(self, db: sqlite3.Connection, *, mark: bool) -> _Game | None:
        """The newest game, as of its newest record that reads and replays; the records that
        do not are marked set aside, and the news says so."""
        rows = db.execute(
            "SELECT seq, CAST(event AS BLOB), CAST(snapshot AS BLOB) FROM records "
            "WHERE set_aside IS NULL AND game_id = "
            "(SELECT game_id FROM records ORDER BY seq DESC LIMIT 1) ORDER BY seq DESC"
        ).fetchall()
        found: _Game | None = None
        bad: list[tuple[int, str]] = []
        for seq, event, snapshot in rows:
            problem = _unreadable(event)
            if problem is None and found is None:
                found, problem = _replayed(snapshot)
            if problem is not None:
                bad.append((seq, problem))
        if bad and mark:
            try:
                with _transaction(db):
                    db.executemany(
                        "UPDATE records SET set_aside = ? WHERE seq = ?",
                        [(problem, seq) for seq, problem in bad],
                    )
            except sqlite3.Error:
                pass  # found again, and set aside again, at the next start
        if bad:
            first = min(seq for seq, _ in bad)
            self._news.append(
                f"{len(bad)} journal record(s) could not be read or replayed and were set "
                f"aside (from record {first}: {dict(bad)[first]}); the game resumes from the "
                "last good one"
            )
        if found is None:
            return None
        game_id = db.execute("SELECT game_id FROM records ORDER BY seq DESC LIMIT 1").fetchone()[0]
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
        fresh: list[_Game] = []
        try:
            db = self._connection()
            with _transaction(db):
                for game, *_ in self._pending:
                    self._insert_game(db, game, fresh)
                for game in self._touched:
                    self._insert_game(db, game, fresh)
                    db.execute(
                        "UPDATE games SET ended = ?, result = ?, turns = ?, mistakes = ?, "
                        "takebacks = ?, faults = ?, winners = ? WHERE id = ?",
                        (
                            game.ended,
                            game.result,
                            game.turns,
                            game.mistakes,
                            game.takebacks,
                            game.faults,
                            None if game.winners is None else json.dumps(game.winners),
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

    @staticmethod
    def _insert_game(db: sqlite3.Connection, game: _Game, fresh: list[_Game]) -> None:
        if game.db_id is not None:
            return
        cursor = db.execute(
            "INSERT INTO games (game, options, board, started) VALUES (?, ?, ?, ?)",
            (game.game, json.dumps(game.options), game.board, game.started),
        )
        game.db_id = cursor.lastrowid
        fresh.append(game)


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One commit for everything inside: the connection is in autocommit mode, so that
    PRAGMAs and the schema run outside any transaction, and a record and its game's figures
    land together or not at all."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _fold(game: _Game, event: Event, wall: float) -> None:
    """What a kept event (other than a start) does to the game's actions and figures."""
    if isinstance(event, Moved):
        game.done += event.actions
        game.partial = ()
        game.turns = event.turn
    elif isinstance(event, Partial):
        game.partial = event.actions
    elif isinstance(event, Fulfilled):
        game.done.append(str(CARRY_OUT))
    elif isinstance(event, ClockChanged):
        game.reserves = event.reserves
    elif isinstance(event, TakenBack):
        del game.done[max(0, len(game.done) - len(event.actions)) :]
        game.partial = ()
        game.takebacks += 1
        game.turns = max(0, game.turns - 1)
        game.result, game.ended, game.winners = None, None, None
    elif isinstance(event, GameOver):
        game.result, game.ended, game.winners = "finished", wall, event.winners


def _unreadable(data: bytes) -> str | None:
    try:
        json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        return f"unreadable: {error}"
    return None


def _replayed(data: bytes) -> tuple[_Game | None, str | None]:
    """The game a snapshot holds, if it reads and every action replays under the rules."""
    try:
        snapshot = json.loads(data.decode("utf-8"))
        name, options, board = snapshot["game"], snapshot["options"], snapshot["board"]
        done, partial = list(snapshot["done"]), tuple(snapshot["partial"])
        reserves, match = snapshot["reserves"], snapshot.get("match")
        texts = (*done, *partial, board)
        if not all(isinstance(a, str) for a in texts) or not isinstance(match, str | None):
            return None, "not a snapshot of this schema"
        state = get_game(name).new_state(dict(options))
        for text in (*done, *partial):
            state = state.apply(state.parse_action(text))
        if reserves is not None:
            reserves = tuple(float(r) for r in reserves)
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, GameError) as error:
        return None, f"does not replay: {error}"
    return _Game(name, dict(options), board, 0.0, done, partial, reserves, match=match), None


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
