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

By job: `journal` (the `Journal`), `records` (what a record holds), `resume` (the game folded
and rebuilt from its records), `store` (the database's schema, limits and trimming), `faults`
(what is done when the disk refuses).
"""

from .journal import Journal
from .records import COVERED, KEPT, SNAPSHOT_EVERY, TAIL, Resume
from .store import PAGE_SIZE, SCHEMA, UNREADABLE, JournalError, Limits

__all__ = [
    "COVERED",
    "KEPT",
    "PAGE_SIZE",
    "SCHEMA",
    "SNAPSHOT_EVERY",
    "TAIL",
    "UNREADABLE",
    "Journal",
    "JournalError",
    "Limits",
    "Resume",
]
