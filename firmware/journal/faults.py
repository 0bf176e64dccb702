"""The journal's database file and its fault policy: a connection opened afresh after every
error; when the disk refuses (read-only, full, a directory in the database's place) play goes on
and the news says so once; a file that is not a database is set aside (kept) and a new one
begun."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from .store import PAGE_SIZE, SCHEMA, JournalError, upgrade


class Disk:
    """What `Journal` keeps of its file and of the faults it met, and how it meets them."""

    path: Path
    wall: Callable[[], float]
    behind: bool
    _db: sqlite3.Connection | None
    _news: list[str]

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
            upgrade(db)
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
