"""The lights' level kept across restarts, in a small file beside the journal
(`magboard.db` -> `magboard.brightness`): a board dimmed for a dark room from the dashboard (or
the LED menu) must not come back at full brightness after a power cut.

A file that cannot be read or holds no valid level is ignored (the board starts at full
brightness); one that cannot be written loses only the level.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

SUFFIX = ".brightness"


def level_file(journal: Path) -> Path:
    return journal.with_suffix(SUFFIX)


def read_level(path: Path) -> float | None:
    """The kept level, or None where none is kept (or it does not read as one)."""
    try:
        level = float(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return level if 0 < level <= 1 else None


def keep_level(path: Path, level: float) -> bool:
    """Writes the level whole (a temporary file renamed over the old one); whether it could."""
    temporary = path.with_name(path.name + ".new")
    try:
        temporary.write_text(f"{level:g}\n")
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return False
    return True
