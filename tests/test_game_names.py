"""No part of the system names a game but the game itself: each real game's name and its State
class appear only in its own module or package under firmware/games and its profile, so a new
game touches no consumer (the README's "Adding a game"). Docs (Markdown) may name games."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from magboard.firmware.games import Game, all_games
from magboard.firmware.profiles import profile_for, profiled_pairs
from magboard.hardware.spec import load_board

ROOT = Path(__file__).resolve().parents[1]
SEARCHED = ("firmware", "host", "sim", "hardware")
SKIPPED = {".md", ".pyc", ".png", ".svg", ".so", ".o", ".ico", ".woff2"}


def real_games() -> list[Game]:
    return [game for game in all_games() if game.rules_file]  # not the tests' own


def own_files(game: Game) -> tuple[str, ...]:
    """The game's module, or its whole package under firmware/games, and its profile's module,
    as paths from the repository's top (a folder ends in "/")."""
    rules = type(game.new_state()).__module__.split(".")[1:]  # without "magboard"
    own = "/".join(rules[:3]) + "/" if len(rules) > 3 else "/".join(rules) + ".py"
    board = next(board for name, board in profiled_pairs() if name == game.name)
    profile = type(profile_for(game, load_board(board))).__module__.split(".")[1:]
    return own, "/".join(profile) + ".py"


def names_of(game: Game) -> tuple[str, ...]:
    """What names the game in code: its name as a string, its State class, its module's path."""
    state = type(game.new_state())
    module = state.__module__.split(".")[3]
    return (
        rf"[\"']{re.escape(game.name)}[\"']",
        rf"\b{state.__name__}\b",
        rf"\bgames\.{module}\b",
    )


def naming(patterns: tuple[str, ...]) -> dict[str, list[str]]:
    """Every searched file where one of `patterns` matches, with what it matched."""
    pattern = re.compile("|".join(patterns))
    found: dict[str, list[str]] = {}
    for top in SEARCHED:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or path.suffix in SKIPPED or "__pycache__" in path.parts:
                continue
            text = path.read_text(errors="replace")
            hits = sorted({match[0] for match in pattern.finditer(text)})
            if hits:
                found[path.relative_to(ROOT).as_posix()] = hits
    return found


def outside(game: Game) -> dict[str, list[str]]:
    """The files outside the game's own that name it."""
    own = own_files(game)
    return {
        path: hits
        for path, hits in naming(names_of(game)).items()
        if not any(path == mine or (mine.endswith("/") and path.startswith(mine)) for mine in own)
    }


@pytest.mark.parametrize("game", real_games(), ids=lambda game: game.name)
def test_only_the_game_and_its_profile_name_it(game):
    assert outside(game) == {}
