"""The rules pages: one per game, every option on it, shipped with the package, and printed by
`magboard rules`."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from magboard.firmware.games import UnknownGameError, all_games
from magboard.host import cli
from magboard.host.rules import lights_markdown, rules_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
GAMES = tuple(
    game for game in all_games() if game.start.__module__.startswith("magboard.firmware.games")
)
"""The games `magboard games` lists (the tests register a game of their own as well)."""


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_every_game_has_a_page(game):
    assert (DOCS / f"{game.name}.md").is_file()
    page = rules_markdown(game.name)
    assert page.startswith("# ")
    for part in ("## What you need", "## A turn", "## Winning", "## Options", "## On the board"):
        assert part in page, f"{game.name}: no {part!r}"
    assert "(lights.md)" in page


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_every_option_is_on_its_page(game):
    page = rules_markdown(game.name)
    for option in game.options:
        assert re.search(rf"`(--option )?{option.name}\b", page), f"{game.name}: {option.name}"
        for choice in option.choices:
            assert f"`{choice}`" in page or f"={choice}`" in page, f"{option.name}={choice}"


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_aliases_give_the_same_page(game):
    for alias in game.aliases:
        assert rules_markdown(alias) == rules_markdown(game.name)


def test_the_pages_are_read_as_package_data():
    shipped = resources.files("magboard.rules")
    names = {entry.name for entry in shipped.iterdir() if entry.name.endswith(".md")}
    assert names == {f"{game.name}.md" for game in GAMES} | {"lights.md"}
    for name in names:
        assert shipped.joinpath(name).read_text(encoding="utf-8") == (DOCS / name).read_text(
            encoding="utf-8"
        )


def test_the_setup_ships_them():
    root = DOCS.parents[1]
    assert '"magboard.rules" = "docs/rules"' in (root / "pyproject.toml").read_text()
    assert '"magboard.rules": ["*.md"]' in (root / "setup.py").read_text()


def test_the_lights_legend():
    legend = lights_markdown()
    for meaning in ("dim and steady", "fast red blink", "slow red blink", "white", "running"):
        assert meaning in legend


def test_an_unknown_game_raises():
    with pytest.raises(UnknownGameError):
        rules_markdown("chess")


def test_magboard_rules_prints_the_page(capsys):
    assert cli.main(["rules", "ttt"]) == 0
    out, err = capsys.readouterr()
    assert out == rules_markdown("tic-tac-toe")
    assert out.startswith("# Tic-tac-toe")
    assert err == ""


def test_magboard_rules_of_an_unknown_game_is_one_line(capsys):
    assert cli.main(["rules", "chess"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("magboard: no game called 'chess'")
