"""What the page says, in a real browser: the words come with the events (firmware/words), so
the banner names whoever the board names, a seat the rules skip included, with its reason, and
the lights agree; on r1, every square the page and its log name is one of the game's own, for
every game, through a whole demo game; and a tile moved the wrong way is told as a tile to move
back, after which the banner says what the turn still needs."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from test_web_browser import (
    PALETTE,
    SEAT_X,
    SPEED,
    TIMEOUT,
    browser,  # noqa: F401 (a fixture)
    drag,
    hands,
    shift_by_rim,
    wait_for_banner,
    wait_for_lights,
    wait_for_log,
    wait_for_steps,
)

from magboard.firmware.games.grid import parse_cell
from magboard.hardware.spec import load_board, place_label
from magboard.sim.web.server import BoardHost, ServerThread
from magboard.sim.web.snapshot import hosted_games

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]

SKIPPING = ["b3", "f5", "a8", "h1", "f4", "xa2", "a6", "e7", "e6", "xc5", "d6", "h5", "a4"]
SKIPPING += ["c2", "xb6", "a1", "a7", "f7", "xh7", "c1", "b5", "a5", "h8"]
"""Magnetmen, three players, seed 1: after A's h8 neither B nor C has a square to collect."""
SQUARE = re.compile(r"(board square )?\b([a-p](?:1[0-6]|[1-9]))\b")
TAKEN = "#log [data-type='partial'], #log [data-type='move'], #log [data-type='fulfilled']"
"""Log lines that say the board took an action."""
DEMO_ACTIONS = 24
"""Actions of each demo game the words are read through (or to its end)."""


def open_page(chromium: Any, server: ServerThread) -> tuple[Any, Any]:
    context = chromium.new_context(viewport={"width": 1366, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url)
    page.wait_for_function("document.getElementById('connection').dataset.state === 'open'")
    page.wait_for_selector("#board .game-area")
    return context, errors


def lit_cells(page, colour: tuple[int, int, int]) -> set[str]:
    """The cells whose LED shows `colour` at some brightness."""
    return set(
        page.evaluate(
            """(colour) => [...document.querySelectorAll('#board [data-place][data-led]')]
              .filter((n) => /^[a-z]\\d+$/.test(n.dataset.place) && n.dataset.led !== '000000')
              .filter((n) => {
                const v = parseInt(n.dataset.led, 16);
                const seen = [(v >> 16) & 255, (v >> 8) & 255, v & 255];
                const most = Math.max(...seen), top = Math.max(...colour);
                const scale = most / top, tolerance = Math.max(2, 0.06 * most);
                return seen.every((s, i) => Math.abs(s - colour[i] * scale) <= tolerance);
              })
              .map((n) => n.dataset.place)""",
            list(colour),
        )
    )


def test_a_skipped_seat_is_named_with_its_reason_and_the_next_mover_is_lit(browser):  # noqa: F811
    options = {"players": 3, "seed": 1}
    with ServerThread(BoardHost("r1", "magnetmen", options, speed=SPEED)) as server:
        context, errors = open_page(browser, server)
        page = context.pages[0]
        for n, action in enumerate(SKIPPING, start=1):
            hands(server, f"play {action}")
            wait_for_steps(page, n)
        text = wait_for_banner(page, "A to move")
        assert text == "B has no square to collect; C has no square to collect: A to move"
        assert page.locator("#banner").get_attribute("data-seat") == "0"
        # The squares lit to collect are A's, in A's colour: none in B's or C's.
        session = server.host.session
        state = server.call(lambda: session.state)
        profile = session.profile
        mine = {
            place_label(profile.to_board(a.cell))
            for a in state.legal_actions()
            if hasattr(a, "cell")
        }
        page.wait_for_function(
            "(places) => places.every((p) => document.querySelector(`[data-place='${p}']`)"
            ".dataset.led !== '000000')",
            arg=sorted(mine),
        )
        players = PALETTE.players
        assert lit_cells(page, players[0]) >= mine
        assert not lit_cells(page, players[1]) & mine and not lit_cells(page, players[2]) & mine
        # A's token goes down: the square is A's, not B's, as the log and the page say.
        square = min(mine)
        collect = next(str(a) for a in state.legal_actions() if hasattr(a, "cell")
                       and place_label(profile.to_board(a.cell)) == square)  # fmt: skip
        credited_square = session.profile.to_game(parse_cell(square))
        credited_square = place_label(credited_square)
        moves = page.locator("#log [data-type='move']").count()
        hands(server, f"play {collect}")
        page.wait_for_selector(f'[data-place="{square}"][data-holder="0"]')
        credited = wait_for_log(page, "move", moves + 1)
        assert f"A collected {credited_square}" in credited
        context.close()
        assert not errors


def named_squares(texts: list[str], extent: tuple[int, int]) -> list[str]:
    """Squares named in `texts` that are not the game's own (nor said to be board squares)."""
    width, height = extent
    wrong = []
    for text in texts:
        for outside, name in SQUARE.findall(text):
            col, row = parse_cell(name)
            if not outside and not (col < width and row < height):
                wrong.append(f"{name} in {text!r}")
    return wrong


R1_GAMES = [game.name for game in hosted_games(load_board("r1"))]


@pytest.mark.parametrize("game", R1_GAMES)
def test_every_square_the_page_names_on_r1_is_one_of_the_games_own(browser, game):  # noqa: F811
    with ServerThread(BoardHost("r1", game, speed=SPEED, seed=5)) as server:
        context, errors = open_page(browser, server)
        page = context.pages[0]
        session = server.host.session
        rng = random.Random(game)
        banners: list[str] = []
        for _ in range(DEMO_ACTIONS):
            state = server.call(lambda: session.state)
            if state.outcome() is not None:
                break
            physical = [a for a in state.legal_actions() if session.profile.plan(state, a)]
            if not physical:
                break
            taken = page.locator(TAKEN).count()
            hands(server, f"play {rng.choice(physical)}")
            # The board takes the action before the next is chosen from its position.
            page.wait_for_function(
                "([taken, n]) => document.querySelectorAll(taken).length > n", arg=[TAKEN, taken]
            )
            banners.append(page.locator("#banner-text").inner_text())
        log = page.locator("#log li").all_inner_texts()
        details = page.locator("#log .detail").all_inner_texts()
        # The log's detail is notation, and may name squares: the words before it may not.
        words = [line.replace(detail, "") for line, detail in zip(log, details, strict=False)]
        words += log[len(details) :]
        extent = server.call(lambda: session.state.extent)
        assert len(log) > 3
        assert not named_squares([*words, *banners], extent)
        # The board's captions and its axes are the game's squares too.
        captions = page.eval_on_selector_all(
            "#board .game-square", "nodes => nodes.map((n) => n.textContent)"
        )
        assert captions and not named_squares(captions, extent)
        context.close()
        assert not errors


def test_a_tile_moved_wrong_is_told_as_a_tile_then_what_the_turn_needs(browser):  # noqa: F811
    host = BoardHost("r1", "meep-tac-toe", {"maneuver": "advanced"}, speed=SPEED)
    with ServerThread(host) as server:
        context, errors = open_page(browser, server)
        page = context.pages[0]
        page.wait_for_function("document.querySelectorAll('#tiles [data-tile]').length === 4")
        drag(page, "f5", "f6")  # A's meeple d3-d4, on the tile of board e5-f6 (game c3-d4)
        wait_for_log(page, "partial", 1)
        wait_for_banner(page, "A: now shift or turn a tile")
        shift_by_rim(page, "g5", "right")  # another tile than the piece's: refused
        text = wait_for_banner(page, "shift the tile at f3 back left")
        assert text.startswith("A: shift the tile at f3 back left (this turn moves the tile")
        assert page.locator("#banner").get_attribute("data-state") == "wrong"
        assert "take" not in text  # not square by square
        shift_by_rim(page, "h5", "left")
        assert wait_for_banner(page, "now shift") == "A: now shift or turn a tile"
        wait_for_lights(page, ["e5", "f5", "e6", "f6"], SEAT_X)  # the piece's tile, still
        context.close()
        assert not errors
