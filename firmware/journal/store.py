"""The journal's sqlite3 database: its schema and page size, the history it keeps (`Limits`)
and the trimming that keeps it so, the upgrade of a database made by an earlier version, and
the one transaction a record and its game's figures are committed in."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

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


def upgrade(db: sqlite3.Connection) -> None:
    """A database made by an earlier version: the `games.actions` column added (its ended
    games' action lists taken from their last snapshots), and, once, rebuilt with small pages
    and incremental vacuum, so it shrinks when history is dropped."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "actions" not in columns:
        with transaction(db):
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


def trim_history(db: sqlite3.Connection, limits: Limits, now: float, current: int | None) -> None:
    """Drops history beyond `limits`, oldest first, never the game `current`. A game's records
    follow one another (a game ends before the next begins), so games older than the oldest
    with records have none: the queries start from there."""
    keep = -1 if current is None else current
    oldest = "(SELECT coalesce(min(game_id), 0) FROM records)"
    with transaction(db):
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
            with transaction(db):
                gone = db.execute(step, {"keep": keep}).rowcount
            if not gone:
                break


def _used_bytes(db: sqlite3.Connection) -> int:
    """What the database holds, free pages aside (they are reused, or given back by vacuum)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    return (pages - free) * db.execute("PRAGMA page_size").fetchone()[0]


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
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
