"""Magnetmen's Explorer on `magboard sim`'s page, in headless Chromium driven by Playwright: a
token from the box on an Explorer makes the board ask for a square destroyed, the squares that
may go wink white under the page's cells, and a token from the turned box on one of them is
the rest of the turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from magboard.firmware.lights.palette import DEFAULT as PALETTE
from magboard.hardware.spec import place_label
from magboard.sim.web.server import BoardHost, ServerThread

CHROMIUM = Path("/usr/bin/chromium")
SPEED = 5.0
"""Virtual seconds per wall second: the referee's settle times pass quickly."""
TIMEOUT = 20_000
"""Milliseconds any one condition may take."""
OPTIONS = {"seed": 0}
"""The 8x8 board of seed 0 (game a1 is board c3): c1, board e3, is an Explorer that A may
collect on the first turn."""
EXPLORER = "e3"
DESTROYED = "h8"
"""Game f6: an unused square far from the Explorer."""

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(
            "Chromium is not installed (make test installs Debian's chromium where it can): "
            f"no {CHROMIUM} to drive"
        )
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield launched
        launched.close()


@pytest.fixture
def board_page(browser) -> Iterator[tuple[Any, ServerThread]]:
    with ServerThread(BoardHost("r1", "magnetmen", OPTIONS, speed=SPEED)) as running:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        opened = context.new_page()
        opened.set_default_timeout(TIMEOUT)
        errors: list[str] = []
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.goto(running.url)
        opened.wait_for_function("document.getElementById('connection').dataset.state === 'open'")
        opened.wait_for_selector(f'[data-place="{EXPLORER}"]')
        yield opened, running
        context.close()
    assert not errors, f"the page threw: {errors}"


def centre(page, place: str) -> tuple[float, float]:
    box = page.locator(f'[data-place="{place}"] .surface').bounding_box()
    assert box, f"{place} is not drawn"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page, source: str, target: str) -> None:
    """Press on a piece, carry it across the board, let go over the target."""
    page.mouse.move(*centre(page, source))
    page.mouse.down()
    x, y = centre(page, target)
    page.mouse.move(x, y, steps=8)
    page.mouse.up()


def wait_for_log(page, kind: str) -> str:
    """The newest log entry of `kind`, once there is one."""
    page.wait_for_selector(f"#log [data-type='{kind}']")
    return page.locator(f"#log [data-type='{kind}']").first.inner_text()


SHOWS = """([places, colour]) => places.every((place) => {
  // The LED under `place` shows `colour` at some brightness (as sim/scenario.py's shows()).
  const node = document.querySelector(`[data-place="${place}"]`);
  if (!node || !/^[0-9a-f]{6}$/.test(node.dataset.led)) return false;
  const v = parseInt(node.dataset.led, 16);
  const seen = [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  const top = Math.max(...colour), most = Math.max(...seen);
  if (top === 0) return most === 0;
  if (most === 0) return false;
  const scale = most / top, tolerance = Math.max(2, 0.06 * most);
  return seen.every((s, i) => Math.abs(s - colour[i] * scale) <= tolerance);
})"""


def wait_for_lights(page, places: list[str], colour: tuple[int, int, int]) -> None:
    page.wait_for_function(SHOWS, arg=[places, list(colour)])


def led(page, place: str) -> str:
    return page.get_attribute(f'[data-place="{place}"]', "data-led") or ""


def test_an_explorer_offers_the_squares_to_destroy_and_a_turned_token_is_taken(board_page):
    page, server = board_page
    session = server.host.session
    profile = session.profile
    width, height = profile.extent
    area = [place_label(profile.to_board((c, r))) for r in range(height) for c in range(width)]
    unused = [place for place in area if place != EXPLORER]

    drag(page, "supply:tokens", EXPLORER)
    asked = wait_for_log(page, "obligation")
    assert "destroy one unused square: put a token on it turned over" in asked
    wait_for_lights(page, unused, PALETTE.obligation)
    assert led(page, EXPLORER) != "ffffff"  # the Explorer's own token is not offered

    drag(page, "supply:tokens-turned", DESTROYED)
    moved = wait_for_log(page, "move")
    assert "c1 xf6" in moved
    state = server.call(lambda: session.state)
    assert state.to_move == 1 and state.turn == 1
    col, row = profile.to_game((7, 7))
    assert state.destroyed >> row * width + col & 1
    # B's turn: the squares B may collect glow dim in B's colour, and nothing winks white.
    collectable = sorted(place_label(place) for place in profile.next_up(state)[1])
    assert collectable
    wait_for_lights(page, collectable, PALETTE.players[1])
    assert not page.locator("#log [data-type='illegal']").count()
