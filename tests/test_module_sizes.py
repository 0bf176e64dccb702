"""Modules stay carved by job: one that grows past a few hundred lines has taken on a second job,
which wants a module of its own. The referee, changed most often, is held tighter."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 600
REFEREE_LIMIT = 400


def sizes(*tops: str) -> dict[str, int]:
    return {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for top in tops
        for suffix in ("*.py", "*.js")
        for path in (ROOT / top).rglob(suffix)
    }


def test_every_module_is_under_the_limit():
    found = sizes("firmware", "host", "sim", "hardware")
    assert {name: lines for name, lines in found.items() if lines >= LIMIT} == {}


def test_every_module_of_the_referee_is_under_its_limit():
    found = sizes("firmware/referee")
    assert {name: lines for name, lines in found.items() if lines >= REFEREE_LIMIT} == {}
