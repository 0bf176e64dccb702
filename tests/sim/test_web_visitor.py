"""`magboard sim`'s page as a visitor sees it, in a real browser: a small game on the large r1
board is drawn alone (its area, its trays, the LEDs of its seats), named as the game names its
squares, and fills the screen of a phone, a laptop and a wall screen; the board stays put under
the pointer while the banner's words change; the spectator view shows the game large, the result
included; the LED menu's squares say what they mean; a lost server covers the page until it is
back; a new game starts a new log; and Magnetmen's pictures are large, named and explained, each
collected square showing who holds it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_web_browser import (
    SPEED,
    TIMEOUT,
    browser,  # noqa: F401 (a fixture)
    centre,
    drag,
    hands,
    shot,
    wait_for_banner,
    wait_for_log,
    wait_for_steps,
)

from magboard.firmware.games.magnetmen.rules import Collect
from magboard.hardware.spec import place_label
from magboard.sim.web.server import BoardHost, ServerThread

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]

LAPTOP = (1366, 768)


class Visit:
    """A page open on a server, at one screen size."""

    def __init__(self, chromium: Any, server: ServerThread, size: tuple[int, int], path: str = ""):
        width, height = size
        self.size = size
        self.context = chromium.new_context(
            viewport={"width": width, "height": height}, bypass_csp=True
        )
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(server.url + path)
        self.page.wait_for_function(
            "document.getElementById('connection').dataset.state === 'open'"
        )
        self.page.wait_for_selector("#board .game-area")

    def close(self) -> None:
        self.context.close()
        assert not self.errors, f"the page threw: {self.errors}"


@pytest.fixture
def visit(browser) -> Iterator[Any]:  # noqa: F811 (the fixture imported above)
    """Opens pages as a test asks, on servers it starts; closes them all at the end."""
    opened: list[tuple[Visit, ServerThread]] = []

    def open_page(
        game: str = "tic-tac-toe",
        options: dict[str, Any] | None = None,
        size: tuple[int, int] = LAPTOP,
        path: str = "",
    ) -> tuple[Any, ServerThread]:
        server = ServerThread(BoardHost("r1", game, options or {}, speed=SPEED)).__enter__()
        seen = Visit(browser, server, size, path)
        opened.append((seen, server))
        return seen.page, server

    yield open_page
    for seen, server in opened:
        seen.close()
        server.stop()


def box(page, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found, f"{selector} is not shown"
    return found


def shown(page, selector: str) -> bool:
    return page.locator(selector).first.is_visible()


def inside(inner: dict[str, float], outer: dict[str, float], slack: float = 0.5) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def axis_names(page) -> list[str]:
    return page.locator("#board .axis-label").all_text_contents()


def test_a_small_game_on_a_large_board_is_drawn_alone(visit):
    page, _ = visit()
    # Tic-tac-toe's a1 lies on r1's e5: the game's nine cells are drawn, the lattice round them
    # is not, nor the LEDs of seats 3 and 4; both trays hold the game's pieces.
    for cell in ("e5", "f6", "g7"):
        assert shown(page, f'[data-place="{cell}"] .surface'), cell
    for cell in ("a1", "d5", "h7", "l12"):
        assert not shown(page, f'[data-place="{cell}"] .surface'), cell
    assert shown(page, '[data-place="A1"] .surface') and shown(page, '[data-place="B1"] .surface')
    assert shown(page, '[data-place="seat-1"] circle')
    assert shown(page, '[data-place="seat-2"] circle')
    assert not shown(page, '[data-place="seat-3"] circle')
    assert not shown(page, '[data-place="seat-4"] circle')
    # The row and column names are the game's own, as the banner names its squares.
    assert sorted(axis_names(page)) == ["1", "2", "3", "a", "b", "c"]
    assert page.text_content('[data-place="e5"] .place-label') == "a1"
    # The view frames what is drawn: nothing shown lies outside the board's box.
    board = box(page, "#board")
    drawn = [p.bounding_box() for p in page.locator("#board .place").all() if p.is_visible()]
    for place in drawn:
        assert inside(place, board), place
    # ...and frames it closely: the places drawn span the board's width, no empty lattice round.
    left = min(p["x"] for p in drawn)
    right = max(p["x"] + p["width"] for p in drawn)
    assert right - left >= 0.85 * board["width"], (left, right, board)
    # A tester of the hardware can still see the whole board.
    page.check("#whole-board")
    page.wait_for_function("document.getElementById('board').dataset.view === 'whole'")
    assert shown(page, '[data-place="a1"] .surface') and shown(page, '[data-place="l12"] .surface')
    assert shown(page, '[data-place="seat-4"] circle')
    assert len(axis_names(page)) == 24 and "l" in axis_names(page)
    drag(page, "A1", "f6")  # and play on it: the game's b2
    assert "X played b2" in wait_for_log(page, "move")
    page.uncheck("#whole-board")
    page.wait_for_function("document.getElementById('board').dataset.view === 'game'")
    assert not shown(page, '[data-place="a1"] .surface')
    assert page.locator('[data-place="f6"] .stack').get_attribute("data-top") == "X"


def test_a_game_with_boxes_shows_no_trays(visit):
    page, _ = visit("magnetmen", {"players": 3})
    # Magnetmen's tokens wait in boxes no sensor sees: no tray is drawn, three seats are.
    page.wait_for_selector('[data-place="supply:tokens"]')
    assert not shown(page, '[data-place="A1"] .surface')
    assert not shown(page, '[data-place="B1"] .surface')
    assert shown(page, '[data-place="seat-3"] circle')
    assert not shown(page, '[data-place="seat-4"] circle')


def test_the_board_stays_put_while_the_banner_changes(visit):
    page, server = visit()
    wait_for_banner(page, "X to move")
    still = box(page, "#board")
    banner_box = box(page, "#banner")
    hands(server, "move A1 a1")  # off the game: the banner says at length what to put right
    long = wait_for_banner(page, "take the piece off")
    assert len(long) > 60
    assert box(page, "#board") == still
    assert box(page, "#banner") == banner_box
    hands(server, "move a1 A1")
    wait_for_banner(page, "X to move")
    assert box(page, "#board") == still
    # A drag under way while the banner changes (the lift itself changes it) lands where it
    # was aimed when it began.
    source, target = centre(page, "A2"), centre(page, "f6")
    page.mouse.move(*source)
    page.mouse.down()
    page.mouse.move(source[0] + 30, source[1] + 10, steps=4)
    wait_for_banner(page, "put the piece down")
    assert box(page, "#board") == still
    page.mouse.move(*target, steps=8)
    page.mouse.up()
    assert "X played b2" in wait_for_log(page, "move")
    assert box(page, "#board") == still


@pytest.mark.parametrize("size", [(390, 844), LAPTOP, (1920, 1080)])
def test_the_page_fits_a_phone_a_laptop_and_a_wall_screen(visit, size):
    width, height = size
    page, _ = visit(size=size)
    board = box(page, "#board")
    # A 3x3 game on r1 is drawn large: the board takes half the width or more.
    assert board["width"] >= width / 2, board
    screen = {"x": 0, "y": 0, "width": width, "height": height}
    banner = box(page, "#banner")
    assert inside(board, screen) and inside(banner, screen)
    assert not overlap(board, banner)
    if width < 600:  # a phone: the board on top, full width, the panels under it
        assert board["width"] >= width - 40
        assert box(page, ".side")["y"] >= board["y"] + board["height"]
    page.locator("#new-game").scroll_into_view_if_needed()
    start = box(page, "#new-game")
    board = box(page, "#board")
    assert inside(start, screen), start
    assert not overlap(start, board) and not overlap(start, box(page, "#banner"))
    shot(page, f"visitor-{width}x{height}.png")


def test_the_spectator_view_shows_the_game_large_to_its_result(visit):
    width, height = LAPTOP
    page, server = visit(path="spectator")
    wait_for_banner(page, "X to move")
    board = box(page, "#board")
    assert board["width"] >= width / 2 and board["y"] + board["height"] <= height
    assert not shown(page, '[data-place="a1"] .surface')  # zoomed to the game
    pressable = page.locator("button, select, input, textarea, summary")
    assert not [i for i in range(pressable.count()) if pressable.nth(i).is_visible()]
    size = page.eval_on_selector("#banner-text", "n => parseFloat(getComputedStyle(n).fontSize)")
    assert size >= 30
    for turn, square in enumerate(["b2", "a2", "a1", "c1", "c3"], start=1):
        hands(server, f"play {square}")
        wait_for_log(page, "move", turn)
    result = wait_for_banner(page, "X wins")
    assert page.locator("#banner").get_attribute("data-state") == "over", result
    banner = box(page, "#banner")
    assert banner["y"] >= 0 and not overlap(banner, box(page, "#board"))
    assert box(page, "#board") == board
    shot(page, "visitor-spectator.png")


def menu_labels(page) -> dict[str, str]:
    return dict(
        page.eval_on_selector_all(
            ".menu-square", "s => s.map((n) => [n.dataset.menu, n.dataset.label])"
        )
    )


def test_the_led_menu_says_what_each_square_means(visit):
    page, server = visit()
    assert not page.locator(".menu-square").count()
    hands(server, "press menu")
    page.wait_for_selector('.menu-square[data-menu="a1"]')
    menu = server.call(lambda: server.host.session.loop.menu)
    expected = {place_label(entry.place): entry.label for entry in menu.entries}
    labels = menu_labels(page)
    assert labels == expected
    assert labels["a1"] == "tic-tac-toe" and labels["h1"] == "brightness 0.25"
    # Every square of the menu is on the page, the one pointed at marked.
    board = box(page, "#board")
    for place in expected:
        assert inside(box(page, f'.menu-square[data-menu="{place}"]'), board), place
    assert page.locator(".menu-square.at").get_attribute("data-menu") == "a1"
    lines = page.locator('.menu-square[data-menu="a1"] .menu-label').all_text_contents()
    assert "".join(lines) == "tic-tac-toe" and len(lines) == 2  # on two lines, whole
    shot(page, "visitor-menu.png")
    hands(server, "press seat-1")
    page.wait_for_function("document.querySelector('.menu-square.at').dataset.menu === 'b1'")
    hands(server, "press new")  # leaves the menu: the game alone again
    page.wait_for_function("!document.querySelector('.menu-square')")
    assert not shown(page, '[data-place="a1"] .surface')
    assert sorted(axis_names(page)) == ["1", "2", "3", "a", "b", "c"]


def test_a_lost_server_covers_the_page_until_it_is_back(browser):  # noqa: F811
    host = BoardHost("r1", "tic-tac-toe", speed=SPEED)
    server = ServerThread(host).__enter__()
    port = server.port
    seen = Visit(browser, server, LAPTOP)
    page = seen.page
    try:
        assert not shown(page, "#lost")
        server.stop()
        page.wait_for_selector("#lost", state="visible")
        assert "not reachable" in page.locator("#lost").inner_text()
        cover = box(page, "#lost")
        assert cover["width"] >= LAPTOP[0] - 1 and cover["height"] >= LAPTOP[1] - 1
        server = ServerThread(BoardHost("r1", "tic-tac-toe", speed=SPEED), port=port).__enter__()
        page.wait_for_selector("#lost", state="hidden")
        page.wait_for_function("document.getElementById('connection').dataset.state === 'open'")
    finally:
        seen.close()
        server.stop()


def test_set_up_and_start_clears_the_log(visit):
    page, server = visit()
    hands(server, "play b2")
    wait_for_log(page, "move")
    page.click("#new-game")
    wait_for_log(page, "game-started")
    wait_for_banner(page, "X to move")
    assert not page.locator("#log [data-type='move']").count()


MAGNETMEN = {"players": 3}


def test_magnetmen_pictures_are_large_named_and_explained(visit):
    page, server = visit("magnetmen", MAGNETMEN)
    session = server.host.session
    kinds = server.call(lambda: sorted(set(session.initial.printed.squares)))
    # The legend: each kind printed on this board, its picture beside its name.
    page.wait_for_selector("#legend-panel:not([hidden])")
    legend = page.eval_on_selector_all(
        "#legend .legend-item", "items => items.map((i) => [i.dataset.picture, i.innerText])"
    )
    assert sorted(name for name, _ in legend) == kinds
    assert all(name in text for name, text in legend)
    assert page.locator("#legend .legend-item svg .picture path").count() > 0
    # Every picture on the board is named, and fills most of its cell.
    for picture in page.locator("#board .place.cell.printed").all()[:6]:
        name = picture.get_attribute("data-picture")
        drawn = picture.locator(".picture")
        assert drawn.get_attribute("aria-label") == name
        assert drawn.locator("title").text_content() == name
        cell = picture.locator(".surface").bounding_box()
        size = drawn.bounding_box()
        assert cell and size and max(size["width"], size["height"]) >= 0.6 * cell["width"], name


def test_magnetmen_each_collected_square_shows_who_holds_it(visit):
    page, server = visit("magnetmen", MAGNETMEN)
    session = server.host.session
    profile = session.profile
    holders: dict[str, int] = {}
    steps = 0
    while len(holders) < 5:
        state = server.call(lambda: session.state)
        action = state.legal_actions()[0]  # a collection, or what a power asks (a destruction)
        hands(server, f"play {action}")
        steps += 1
        wait_for_steps(page, steps)
        if isinstance(action, Collect):
            holders[place_label(profile.to_board(action.cell))] = state.to_move
        page.wait_for_function(
            "(count) => document.querySelectorAll('#board [data-holder]').length === count",
            arg=len(holders),
        )
    shown_holders = dict(
        page.eval_on_selector_all(
            "#board [data-holder]", "n => n.map((x) => [x.dataset.place, +x.dataset.holder])"
        )
    )
    assert shown_holders == holders
    assert set(holders.values()) == {0, 1, 2}
    rings = page.eval_on_selector_all(
        "#board .holder-ring", "r => r.map((n) => n.getAttribute('stroke'))"
    )
    assert len(set(rings)) == 3  # a colour per seat
    seats = server.call(lambda: session.game.seats)
    for place, seat in holders.items():
        name = page.locator(f'[data-place="{place}"] .holder-name').text_content()
        assert name == seats[seat]
    shot(page, "visitor-magnetmen-holders.png")
