"""Modules stay carved by job: one that grows past a few hundred lines has taken on a second job,
which wants a module of its own (the referee's own limit is tighter: its test beside it)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 600


def test_every_module_is_under_the_limit():
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for top in ("firmware", "host", "sim", "hardware")
        for suffix in ("*.py", "*.js")
        for path in (ROOT / top).rglob(suffix)
    }
    assert {name: lines for name, lines in sizes.items() if lines >= LIMIT} == {}
