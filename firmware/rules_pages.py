"""The rules of each game in the project's own words, and the legend of the lights, as Markdown.

The pages live in `docs/rules/` and ship with the package (`magboard.rules`), so they are read
through importlib.resources and work the same from a clone and from an installed wheel. Read here,
in the firmware, below both that show them: the simulator's page and `magboard rules`.
"""

from __future__ import annotations

from importlib import resources

from magboard.firmware.games import get_game

PACKAGE = "magboard.rules"


def _page(name: str) -> str:
    return resources.files(PACKAGE).joinpath(f"{name}.md").read_text(encoding="utf-8")


def rules_markdown(game_name: str) -> str:
    """The rules page of a game, by its name or an alias (an unknown name raises
    UnknownGameError, which names the games there are)."""
    return _page(get_game(game_name).name)


def lights_markdown() -> str:
    """The legend of the lights every game shares."""
    return _page("lights")
