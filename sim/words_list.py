"""docs/words.md: every event and reason the board says, in the words a person reads.

The list is made, not written: every scenario file (tests/scenarios, the mistakes, takebacks,
clocks, faults and interruptions players make) and a seeded demo game of every game on r1 run
through the real referee on the simulated board, and each event is said as the page and
`magboard watch` say it (firmware/words). One example stands for each different wording, with
squares and numbers set aside, so that a reviewer reads every sentence once.

`python -m magboard.sim.words_list docs/words.md` writes it; `--check` says whether the file is
current (exit 1 if not).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from magboard.firmware.events import Event, LedFrame
from magboard.firmware.games import all_games
from magboard.firmware.words import Describer

from .demo import Demo
from .scenario import run_file
from .web.snapshot import hosted_games

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios"
DEMO_SEEDS = (1, 2, 3)
SAME = (
    (re.compile(r"\b[a-p](?:1[0-6]|[1-9])\b"), "SQUARE"),
    (re.compile(r"\b(?:\d+(?:\.\d+)?|one|two|three|four|five|six)\b"), "N"),
    (re.compile(r"\b(?:up|down|left|right|clockwise|counter-clockwise)\b"), "WAY"),
    (re.compile(r"\b[ABCDXO]\b"), "SEAT"),
    (re.compile(r"\b(?:kitten|puppy|Small|Medium|Large|S|M|L)\b"), "KIND"),
    (re.compile(r"\b(?:the tile|the group of N)\b"), "GROUP"),
    (re.compile(r"\bcells\b"), "cell"),
    (re.compile(r"SQUARE(?:, SQUARE)+"), "SQUARE"),
    (re.compile(r"SEAT(?:, SEAT)+"), "SEAT"),
    (re.compile(r"(SEAT's KIND tray)(?:, SEAT's KIND tray)+"), r"\1"),
)
"""What sets two lines apart without changing their wording: squares, numbers, ways,
seats and kinds of piece, and lists of them."""


@dataclass(frozen=True)
class Said:
    """One event as a person reads it: the log's line and the banner after it."""

    game: str
    type: str
    line: str
    banner: str | None
    extent: tuple[int, int] = (0, 0)
    """The game's columns and rows as played (its squares are named within them)."""

    @property
    def wording(self) -> str:
        """The line with its squares and numbers set aside: one wording, many positions."""
        wording = self.line
        for pattern, same in SAME:
            wording = pattern.sub(same, wording)
        return wording


def runs() -> Iterator[tuple[str, list[Event]]]:
    """Every scenario file's events, then a demo game's of every game on r1, by game."""
    for path in sorted(SCENARIOS.glob("*.toml")):
        result = run_file(path)
        yield result.scenario.game.name, result.events
    from magboard.hardware.spec import load_board

    spec = load_board("r1")
    for game in hosted_games(spec):
        for seed in DEMO_SEEDS:
            demo = Demo(spec, game, {}, seed, speed=0, out=io.StringIO(), colour=False)
            demo.run()
            yield game.name, demo.session.events


def said(game: str, events: Iterable[Event]) -> Iterator[Said]:
    words = Describer()
    for event in events:
        if isinstance(event, LedFrame):
            continue
        told = words.words(event)
        if told.line is None:
            continue
        banner = told.banner.text if told.banner is not None else None
        yield Said(game, event.TYPE, told.line, banner, words.extent)


def collect(found: Iterable[tuple[str, list[Event]]] | None = None) -> list[Said]:
    """One example of each wording, in the order first met."""
    seen: dict[tuple[str, str], Said] = {}
    for game, events in found if found is not None else runs():
        for one in said(game, events):
            seen.setdefault((one.type, one.wording), one)
    return list(seen.values())


def render(examples: Iterable[Said]) -> str:
    by_type: dict[str, list[Said]] = {}
    for one in examples:
        by_type.setdefault(one.type, []).append(one)
    titles = {game.name: game.title for game in all_games()}
    out = [
        "# What the board says",
        "",
        "Every event and reason the board tells players, in the words the page's log and",
        "banner and `magboard watch` show (firmware/words). Made by `python -m",
        "magboard.sim.words_list docs/words.md` from every scenario file in tests/scenarios and",
        "seeded demo games of every game on r1; one example for each wording, squares and",
        "numbers aside. The notation behind a move (`Tc3cw`, `b2>3:1`) shows only in the log's",
        "detail, and so is not listed. Review it as a player reads it: a sentence that would",
        "puzzle someone at a table is a bug.",
        "",
    ]
    for kind in sorted(by_type):
        out += [f"## `{kind}`", ""]
        for one in sorted(by_type[kind], key=lambda s: (s.game, s.wording)):
            banner = f" \u2014 banner: \u201c{one.banner}\u201d" if one.banner else ""
            out.append(f"- *{titles.get(one.game, one.game)}*: {one.line}{banner}")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="where the list goes (docs/words.md)")
    parser.add_argument("--check", action="store_true", help="only say if it is current")
    args = parser.parse_args(argv)
    text = render(collect())
    if args.check:
        current = args.path.exists() and args.path.read_text() == text
        print(f"{args.path} is {'current' if current else 'out of date: run without --check'}")
        return 0 if current else 1
    args.path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
