"""Out of order: an operator takes the board out of service (`magboard maintenance on`, or the
MQTT command `maintenance`) and it stays so, through restarts and power cuts, until put back.

The state is a small file in the state directory, next to the journal: present, the board is
out of order, and its text (one line) is the reason. A file rather than a message to the
service, so the command works whether or not the service runs, a power cut keeps it, and an
operator can see it (and even write it) with nothing but a shell. The loop looks at it with a
`stat` at most once a second of its clock.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

FILE_NAME = "maintenance"
LOOK_EVERY = 1.0
"""Seconds of the loop's clock between two looks at the file."""
MAX_REASON = 200
"""Characters of the reason kept (a status is small)."""


class MaintenanceError(ValueError):
    """The file cannot be written (the state directory missing, or not the caller's)."""


@dataclass(frozen=True)
class OutOfOrder:
    reason: str
    """The operator's words; "" if none were given."""
    since: datetime
    """When it was set (the file's time, local)."""


def maintenance_file(journal: Path) -> Path:
    """Where the maintenance state of the board journalling to `journal` is kept."""
    return journal.with_name(FILE_NAME)


def read(path: Path) -> OutOfOrder | None:
    """The board's maintenance state: None while in service. A file that cannot be read still
    says out of order (an operator meant something by it)."""
    try:
        stat = path.stat()
        with path.open("rb") as handle:
            text = handle.read(4 * MAX_REASON).decode("utf-8", "replace")
    except FileNotFoundError:
        return None
    except OSError as error:
        return OutOfOrder(f"(the file {path} cannot be read: {error.strerror})", datetime.now())
    reason = " ".join(text.split())[:MAX_REASON]
    return OutOfOrder(reason, datetime.fromtimestamp(stat.st_mtime))


def set_out_of_order(path: Path, reason: str) -> OutOfOrder:
    """Takes the board out of order with `reason`, on disk before this returns (written aside
    and renamed into place, so the loop never reads half a reason)."""
    reason = " ".join(reason.split())[:MAX_REASON]
    aside = path.with_name(f".{path.name}.new")
    try:
        with aside.open("w", encoding="utf-8") as handle:
            handle.write(reason + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(aside, 0o644)
        os.replace(aside, path)
        _sync_directory(path.parent)
    except OSError as error:
        raise MaintenanceError(f"cannot write {path}: {error.strerror}") from None
    found = read(path)
    assert found is not None
    return found


def set_in_service(path: Path) -> bool:
    """Puts the board back in service; False if it was not out of order."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as error:
        raise MaintenanceError(f"cannot remove {path}: {error.strerror}") from None
    _sync_directory(path.parent)
    return True


def _sync_directory(folder: Path) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


class MaintenanceWatch:
    """The file as the loop sees it: looked at (a stat) at most every `LOOK_EVERY` seconds,
    and read again only when it changed."""

    def __init__(self, path: Path, now: float) -> None:
        self.path = path
        self._seen = _signature(path)
        self._looked = now
        self.state = read(path) if self._seen is not None else None

    def look(self, now: float) -> OutOfOrder | None:
        """The state at `now` (read afresh if the file changed since the last look)."""
        if now < self._looked + LOOK_EVERY:
            return self.state
        self._looked = now
        seen = _signature(self.path)
        if seen != self._seen:
            self._seen = seen
            self.state = read(self.path) if seen is not None else None
        return self.state

    def changed(self, now: float) -> None:
        """The file was just written here (the MQTT command): look at once."""
        self._looked = now - LOOK_EVERY


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    except OSError:
        return (-1, -1, -1)
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)
