"""docs/words.md, the list of every event and reason the board says, is the list the board
makes today (every scenario file and demo games of every game, through the real referee), and
reads as players read: no notation, no figure said twice, the right article, and every square
named one of the game's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from magboard.firmware.games.grid import parse_cell
from magboard.sim import words_list

DOC = Path(__file__).resolve().parents[2] / "docs" / "words.md"
NOTATION = re.compile(
    r"\bT[a-p]\d+(?:cw|ccw|[<>^v])"  # a tile action
    r"|\b[a-f]\d[<>^v]\d:\d"  # a Lance Assembly slide
    r"|\b[SMLKPNx][a-p]\d+\b"  # a sized or meeple placement, a destruction
    r"|\b[A-D][+-][A-Z]"  # an icon lost or gained
    r"|supply:|\bflag [AB]\b"
)
REPEATED = re.compile(r"(\([^()]{3,}\)).*\1")
WRONG_ARTICLE = re.compile(r"\ba [AEIOUaeiou]\w|\ban [BCDGJKPQTVWYZbcdgjkpqtvwyz]\w")
SQUARE = re.compile(r"(board square )?\b([a-p](?:1[0-6]|[1-9]))\b")

# Made from the scenario files and demo games, whichever line detector is underneath.
pytestmark = [pytest.mark.backend_free, pytest.mark.slow]


def read(said: list[words_list.Said]):
    for one in said:
        for text in (one.line, one.banner or ""):
            yield one, text


def notation(said):
    return [f"{one.game}: {text}" for one, text in read(said) if NOTATION.search(text)]


def figures_said_twice(said):
    return [text for _, text in read(said) if REPEATED.search(text)]


def wrong_articles(said):
    return [text for _, text in read(said) if WRONG_ARTICLE.search(text)]


def squares_not_the_games(said):
    """Lattice squares are for hardware views (a fault names the board places an expander
    leaves blind, as such): a square outside the game is said to be one."""
    wrong = []
    for one, text in read(said):
        if one.type == "fault":
            continue
        width, height = one.extent
        for outside, name in SQUARE.findall(text):
            col, row = parse_cell(name)
            if not outside and not (col < width and row < height):
                wrong.append(f"{one.game} ({width}x{height}): {name} in {text!r}")
    return wrong


def test_the_list_in_the_docs_is_the_list_the_board_makes_and_reads_as_players_read():
    """One test, as the list takes the scenario files and demo games to make."""
    said = words_list.collect()
    assert DOC.read_text() == words_list.render(said), (
        "docs/words.md is out of date: python -m magboard.sim.words_list docs/words.md"
    )
    assert {one.type for one in said} >= {
        "game-started", "move", "partial", "in-hand", "illegal", "restored", "takeback",
        "obligation", "fulfilled", "choice", "clear", "game-over", "clock", "fault",
    }  # fmt: skip
    assert not notation(said), "nobody is shown notation"
    assert not figures_said_twice(said), "no figure is said twice"
    assert not wrong_articles(said), "every article fits its word"
    assert not squares_not_the_games(said), "every square named is one of the game's own"


@pytest.mark.parametrize(
    ("check", "line"),
    [
        (notation, "A played Tc3cw"),
        (figures_said_twice, "A wins with 8 (A 8, B 5) (A 8, B 5)"),
        (wrong_articles, "c1 is a Elderly Man"),
    ],
)
def test_each_check_catches_what_it_is_for(check, line):
    caught = words_list.Said("magnetmen", "move", line, None, (8, 8))
    assert check([caught])
