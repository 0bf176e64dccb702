"""The version of a magboard source tree, as the tree itself says it: never a string frozen in a
file someone must remember to edit, or a board would keep old code when a new commit is
installed over it (the installer reinstalls only when the version differs).

A git checkout is described by git: the latest release tag `vX.Y.Z` (or `BASE` before the first
one), the commits since and the commit itself, in PEP 440 form: `0.1.0.post12+g1a2b3c4`, with
`.dirty` when tracked files differ from the commit. A tree without git (an sdist, a copy made to
build from) carries the version it was made from in `RECORD`, written when it was made.

Only the standard library: setup.py loads this file by its path before anything is installed,
and install.py runs on a fresh Pi.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

BASE = "0.1.0"
"""The version before the first release tag."""
RECORD = "magboard.version"
"""The file in a tree without git that names the version it was made from."""
DESCRIBE = re.compile(r"^v?(?P<base>\d+(?:\.\d+)*)-(?P<since>\d+)-g(?P<commit>[0-9a-f]+)$")


class VersionError(ValueError):
    """A tree whose version cannot be told: neither git nor a recorded version."""


def source_version(tree: Path) -> str:
    """The version of the magboard tree at `tree` (git first, then the recorded version)."""
    if (tree / ".git").exists():
        described = git_version(tree)
        if described is not None:
            return described
    recorded = tree / RECORD
    if recorded.is_file():
        version = recorded.read_text(encoding="utf-8").strip()
        if version:
            return version
    raise VersionError(
        f"{tree} has no version: neither a git checkout nor a tree with {RECORD} in it"
    )


def git_version(tree: Path) -> str | None:
    """The PEP 440 version git describes `tree`'s checkout as, or None where git cannot."""

    def git(*args: str) -> str | None:
        # safe.directory: root describing the checkout of the user who cloned it (sudo).
        argv = ["git", "-c", f"safe.directory={tree}", "-C", str(tree), *args]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--short=7", "HEAD")
    if commit is None:
        return None
    dirty = git("status", "--porcelain", "--untracked-files=no")
    suffix = ".dirty" if dirty else ""
    described = git("describe", "--tags", "--long", "--match", "v[0-9]*")
    found = DESCRIBE.match(described or "")
    if found is not None:
        base, since, commit = found["base"], int(found["since"]), found["commit"]
    else:
        count = git("rev-list", "--count", "HEAD")
        base, since = BASE, int(count) if count and count.isdigit() else 0
    if since == 0 and not suffix and found is not None:
        return base  # the release itself
    return f"{base}.post{since}+g{commit}{suffix}"


def record(tree: Path, version: str) -> None:
    """Writes `version` into a tree made from a source (a copy without git), so that building
    it gives the source's version."""
    (tree / RECORD).write_text(version + "\n", encoding="utf-8")
