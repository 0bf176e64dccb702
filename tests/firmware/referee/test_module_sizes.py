"""The referee stays carved by job: a module that grows past a few hundred lines has taken on
a second job, which wants a module of its own."""

from __future__ import annotations

from pathlib import Path

import magboard.firmware.referee as referee

LIMIT = 400


def test_every_module_of_the_referee_is_under_the_limit():
    sizes = {
        path.name: len(path.read_text().splitlines())
        for path in Path(referee.__file__).parent.glob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines >= LIMIT} == {}
