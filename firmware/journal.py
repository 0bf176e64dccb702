"""The board's state database (sqlite3, WAL, synchronous=FULL): the game in progress, so a
restart resumes it, and the usage figures of every game played.

Each event that changes a game is committed before the board moves on, so a power cut loses at
most the move being made. A record costs what its event costs, not what the game so far costs:
it holds the event and the game's length with the actions its last records could have changed
(a delta), and only at the game's start and every `SNAPSHOT_EVERY` records the whole action
list (a snapshot); the whole game goes into its row in `games` once it has ended. The deltas
overlap, so up to `COVERED` damaged records in a row cost nothing: the next one holds their
actions again. A restart rebuilds the game from its
records in order and resumes from the newest one that reads and replays; a record that does not
is set aside (marked, kept). History beyond the configured `Limits` is dropped oldest first.
When the disk refuses (read-only, full, a directory in the database's place, a file that is not
a database) the board plays on in memory and the journal writes what it holds as soon as the
disk takes it again. It never raises for any of this: `news()` says what happened, for the loop
to report as fault events, and `behind` keeps the alert lit while writes wait.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
import zlib
from collections import deque
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
SNAPSHOT_EVERY = 256
"""Records between two snapshots of the whole game. A resume rebuilds the game from its first
record whatever their number; a snapshot is where it starts again after more records lost in a
row than a tail covers. A Lance Assembly match (a few hundred records) holds one or two."""
COVERED = 3
"""Damaged records in a row that cost no action: each record repeats every action the records
before it changed since then."""
TAIL = 4
"""The fewest actions a record repeats."""

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
    winners TEXT,
    actions TEXT
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
CREATE INDEX IF NOT EXISTS records_set_aside ON records (seq) WHERE set_aside IS NOT NULL;
CREATE TABLE IF NOT EXISTS selftests (
    id INTEGER PRIMARY KEY,
    wall REAL NOT NULL,
    report TEXT NOT NULL
);
"""
"""`games.result` is 'finished', 'abandoned' (a new game began first) or NULL (in progress);
`games.actions` the whole game in its notation once it has ended (what outlives its records);
times in `games` and `wall` are seconds since the epoch, `t` the board's own clock."""
PAGE_SIZE = 1024
"""A record is a few hundred bytes and each commit rewrites whole pages (the table's last leaf,
the index's, the game's row): small pages keep what a move writes to the card small."""


@dataclass(frozen=True)
class Limits:
    """How much history the database keeps (the configuration's `[history]`). The detailed
    records of a game that has ended go first, oldest first: after `keep_days`, or sooner while
    the database is over `max_bytes`; past that, the oldest games' action lists, then their
    summaries. The game in progress is never touched."""

    keep_days: float = 90.0
    max_bytes: int = 64 * 1024 * 1024


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
            "crc": _crc(self.done),
        }
        if self.partial:
            delta["partial"] = list(self.partial)
        return json.dumps(delta, separators=(",", ":"))


class Journal:
    def __init__(
        self,
        path: Path,
        wall: Callable[[], float] = time.time,
        match: str | None = None,
        limits: Limits = Limits(),
    ) -> None:
        self.path = Path(path)
        self.wall = wall
        self.limits = limits
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
            # Both take effect only in a database not yet made; an older one is rebuilt so.
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            db.executescript(SCHEMA)
            _upgrade(db)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
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
        found: _Game | None = None
        # Where the game began, should its first record (a snapshot) be the one worn bad.
        summary = db.execute(
            "SELECT game, options, board FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        began = None
        with contextlib.suppress(TypeError, ValueError):
            name, options, board = summary
            began = {"game": name, "options": json.loads(options), "board": board, "match": None}
        for seq, game in reversed(_rebuilt(rows, problems, began)):
            problem = _replay_problem(game)
            if problem is None:
                found = game
                break
            problems[seq] = problem
        bad = sorted(problems.items())
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
            _trim(db, self.limits, self.wall(), current)
            if db.execute("PRAGMA freelist_count").fetchone()[0]:
                db.execute("PRAGMA incremental_vacuum").fetchall()  # it works as it is stepped
        except (sqlite3.Error, OSError) as error:
            self._drop()
            self._news.append(f"the journal's old history could not be trimmed: {error}")

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


def _upgrade(db: sqlite3.Connection) -> None:
    """A database made by an earlier version: the `games.actions` column added (its ended
    games' action lists taken from their last snapshots), and, once, rebuilt with small pages
    and incremental vacuum, so it shrinks when history is dropped."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "actions" not in columns:
        with _transaction(db):
            db.execute("ALTER TABLE games ADD COLUMN actions TEXT")
            ended = db.execute("SELECT id FROM games WHERE result IS NOT NULL").fetchall()
            for (game_id,) in ended:
                row = db.execute(
                    "SELECT snapshot FROM records WHERE game_id = ? AND set_aside IS NULL "
                    "AND snapshot LIKE '{\"game\"%' ORDER BY seq DESC LIMIT 1",
                    (game_id,),
                ).fetchone()
                with contextlib.suppress(ValueError, TypeError, KeyError):
                    done = json.loads(row[0])["done"] if row else None
                    db.execute(
                        "UPDATE games SET actions = ? WHERE id = ?", (json.dumps(done), game_id)
                    )
    if db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
        db.execute("PRAGMA journal_mode=DELETE")  # the page size cannot change in WAL mode
        db.execute(f"PRAGMA page_size={PAGE_SIZE}")
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("VACUUM")


def _trim(db: sqlite3.Connection, limits: Limits, now: float, current: int | None) -> None:
    """Drops history beyond `limits`, oldest first, never the game `current`. A game's records
    follow one another (a game ends before the next begins), so games older than the oldest
    with records have none: the queries start from there."""
    keep = -1 if current is None else current
    oldest = "(SELECT coalesce(min(game_id), 0) FROM records)"
    with _transaction(db):
        db.execute(
            "DELETE FROM records WHERE game_id IN (SELECT id FROM games WHERE id >= "
            f"{oldest} AND result IS NOT NULL AND ended < ? AND id != ?)",
            (now - limits.keep_days * 86400, keep),
        )
    # Over the size: a game's records at a time, then action lists, then summaries.
    steps = (
        f"DELETE FROM records WHERE game_id = (SELECT min(id) FROM games WHERE id >= {oldest} "
        "AND result IS NOT NULL AND id != :keep)",
        "UPDATE games SET actions = NULL WHERE id = (SELECT min(id) FROM games WHERE actions "
        "IS NOT NULL AND id != :keep)",
        f"DELETE FROM games WHERE id = (SELECT min(id) FROM games WHERE id < {oldest} "
        "AND id != :keep)",
    )
    for step in steps:
        while _used_bytes(db) > limits.max_bytes:
            with _transaction(db):
                gone = db.execute(step, {"keep": keep}).rowcount
            if not gone:
                break


def _used_bytes(db: sqlite3.Connection) -> int:
    """What the database holds, free pages aside (they are reused, or given back by vacuum)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    return (pages - free) * db.execute("PRAGMA page_size").fetchone()[0]


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


def _rebuilt(
    rows: list[tuple[int, bytes, bytes]],
    problems: dict[int, str],
    began: dict[str, Any] | None = None,
) -> list[tuple[int, _Game]]:
    """The game as each record leaves it, in order: a snapshot gives it whole, a delta puts its
    tail on what came before (from `began`, the game with no actions, if the first snapshot
    does not read), checked against its checksum. A record that does not read goes
    into `problems` and is passed over (the next tail covers it); a delta that does not fit
    goes there too when nothing was lost before it, and gives nothing when something was (more
    records lost in a row than a tail covers), until one fits or the next snapshot."""
    games: list[tuple[int, _Game]] = []
    whole = began  # the last snapshot read: the game, options, board, match
    done: list[str] = []
    intact = True  # no record passed over since `done` was last rebuilt
    reserves: tuple[float, ...] | None = None
    for seq, event_data, held in rows:
        event, problem = _json(event_data)
        record = None
        if problem is None:
            record, problem = _record(held)
        if problem is not None or record is None or not isinstance(event, dict):
            problems[seq] = problem or "not an event"
            intact = False
            continue
        if event.get("type") == ClockChanged.TYPE and _numbers(event.get("reserves")):
            reserves = tuple(event["reserves"])
        if "done" in record:
            whole, done = record, list(record["done"])
            reserves = None if record["reserves"] is None else tuple(record["reserves"])
        else:
            tail = record["tail"]
            start = record["length"] - len(tail)
            rebuilt = done[:start] + tail
            if whole is None or start > len(done) or _crc(rebuilt) != record["crc"]:
                if intact:  # nothing lost before it: the record itself is wrong
                    problems[seq] = "does not replay: it disagrees with the records before it"
                continue
            done = rebuilt
        intact = True
        games.append(
            (
                seq,
                _Game(
                    whole["game"],
                    dict(whole["options"]),
                    whole["board"],
                    0.0,
                    list(done),
                    tuple(record.get("partial", ())),
                    reserves,
                    match=whole.get("match"),
                ),
            )
        )
    return games


def _json(data: bytes) -> tuple[Any, str | None]:
    try:
        return json.loads(data.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError) as error:
        return None, f"unreadable: {error}"


def _record(data: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """A record's snapshot or delta, if it reads and is of this schema."""
    record, problem = _json(data)
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
        and (record.get("reserves") is None or _numbers(record["reserves"]))
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


def _crc(actions: list[str]) -> int:
    return zlib.crc32(json.dumps(actions, separators=(",", ":")).encode())


def _numbers(values: object) -> bool:
    return isinstance(values, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )


def _replay_problem(game: _Game) -> str | None:
    """Why the game's actions do not replay under its rules, or None if they do."""
    try:
        state = get_game(game.game).new_state(dict(game.options))
        for text in (*game.done, *game.partial):
            state = state.apply(state.parse_action(text))
    except (ValueError, KeyError, TypeError, GameError) as error:
        return f"does not replay: {error}"
    return None


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
