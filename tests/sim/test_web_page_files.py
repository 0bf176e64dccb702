"""The page's own files: every script module it imports is served, and none of them, nor what
the server reads the board with for it (`snapshot.py`), names a game: a game shows on the page
through the data it declares, so a new game needs nothing here."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from magboard.firmware.games import all_games
from magboard.sim.web.server import BoardHost, create_app

with warnings.catch_warnings():  # its httpx transport is deprecated; it still serves here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

WEB = Path(__file__).resolve().parents[2] / "sim" / "web"
IMPORT = re.compile(r'^import (?:[^"]* from )?"\./([\w-]+\.js)";$', re.MULTILINE)


def imported(module: str) -> set[str]:
    """`module` and every module it imports, directly or not."""
    found, waiting = set(), [module]
    while waiting:
        name = waiting.pop()
        if name not in found:
            found.add(name)
            waiting += IMPORT.findall((WEB / name).read_text())
    return found


def test_every_module_the_page_imports_is_served_and_every_script_is_imported():
    modules = imported("app.js")
    assert modules == {path.name for path in WEB.glob("*.js")}
    app = create_app(BoardHost("mini"))
    with TestClient(app, base_url="http://127.0.0.1:8800", client=("127.0.0.1", 50000)) as client:
        assert '<script type="module" src="app.js">' in client.get("/").text
        for name in sorted(modules):
            answer = client.get(f"/{name}")
            assert answer.status_code == 200, name
            assert "javascript" in answer.headers["content-type"], name


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.name)
def test_no_file_of_the_page_names_a_game(game):
    state = type(game.new_state()).__name__
    files = [*WEB.glob("*.js"), WEB / "index.html", WEB / "style.css", WEB / "snapshot.py"]
    for path in files:
        text = path.read_text().lower()
        for name in (game.name, game.title, state):
            assert name.lower() not in text, f"{path.name} names {name}"
