"""The README's commands work as written.

A fenced block right after the line `<!-- runnable -->` (or `<!-- runnable: exit N -->`) holds
commands a reader can type from the repository's root: each line is run by the shell there, with
the virtual environment's `bin` first on the PATH, and must end with status 0 (or N). Blocks that
need a Pi, a browser, a broker or much time are left unmarked.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MARKED = re.compile(
    r"^<!-- runnable(?::\s*exit\s+(?P<status>\d+))?\s*-->\n```[a-z]*\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


def marked_commands(text: str) -> list[tuple[str, int]]:
    """Each command of the marked blocks, with the status it must end with."""
    commands = []
    for block in MARKED.finditer(text):
        status = int(block["status"] or 0)
        for line in block["body"].splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                commands.append((line.strip(), status))
    return commands


BIN = ROOT / ".venv" / "bin" if (ROOT / ".venv" / "bin").is_dir() else Path(sys.executable).parent
"""Where `make setup` puts `magboard`, as the README says."""
COMMANDS = marked_commands(README.read_text(encoding="utf-8"))


def test_the_readme_marks_commands():
    text = README.read_text(encoding="utf-8")
    assert len(COMMANDS) >= 5
    # Every marker sits right above a fenced block, or its commands would go unchecked.
    assert text.count("\n<!-- runnable") == len(MARKED.findall(text))


def test_the_marker_reads_the_status():
    text = "<!-- runnable: exit 1 -->\n```sh\nfalse  # fails\n\n```\n\n```sh\nnot this\n```\n"
    assert marked_commands(text) == [("false  # fails", 1)]


@pytest.mark.parametrize(
    ("command", "status"), COMMANDS, ids=[c.split(" #")[0].strip() for c, _ in COMMANDS]
)
def test_the_command_runs(command, status, tmp_path):
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env["HOME"] = str(tmp_path)  # nothing a command keeps lands in the real home
    done = subprocess.run(
        command,
        shell=True,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == status, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
