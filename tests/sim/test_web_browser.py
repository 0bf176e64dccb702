"""`magboard sim`'s page in a real browser: headless Chromium driven by Playwright plays
tic-tac-toe with the mouse on a simulated board, makes a mistake and puts it right, and checks
that every cell shows the colour of the LED beneath it, byte for byte what the chain was sent;
plays a bout of Lance Assembly, tiles from their boxes, a group slid, the clocks and the score
shown; and plays the games on 2x2 grid tiles, shifting and turning tiles with the pieces on
them by mouse, button and key, and carrying a captured meeple to its pile. The banner says whose
turn it is, what to put right (in the game's own square names) and the result; the board picker
reaches every game on r1, each with its rules and the legend of the lights (a screenshot of each
goes to $MAGBOARD_SCREENSHOTS, docs/screenshots for the README); every control is on the
screen of a phone and of a wall screen; and the spectator view shows the board with nothing
to press."""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from magboard.firmware.lights.palette import DEFAULT as PALETTE
from magboard.hardware.spec import place_label
from magboard.sim.web.server import BoardHost, ServerThread

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SPEED = 5.0
"""Virtual seconds per wall second: the referee's settle times pass quickly."""
TIMEOUT = 20_000
"""Milliseconds any one condition may take."""
SEAT_X, SEAT_O = PALETTE.players[0], PALETTE.players[1]
RED, OFF = PALETTE.error, (0, 0, 0)

sync_api = pytest.importorskip("playwright.sync_api")

# What the page draws and sends does not depend on the line detector under the referee.
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
def server() -> Iterator[ServerThread]:
    with ServerThread(BoardHost("mini", "tic-tac-toe", speed=SPEED)) as running:
        yield running


@pytest.fixture
def page(browser, server) -> Iterator[Any]:
    # Playwright evaluates its waits as strings, which the page's own CSP would refuse at times.
    context = browser.new_context(viewport={"width": 1280, "height": 820}, bypass_csp=True)
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(server.url)
    opened.wait_for_selector('[data-place="b2"]')
    opened.wait_for_function("document.getElementById('connection').dataset.state === 'open'")
    yield opened
    context.close()
    assert not errors, f"the page threw: {errors}"


# Hands on the mouse.


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


def click(page, place: str) -> None:
    page.mouse.click(*centre(page, place))


def wait_for_log(page, kind: str, count: int = 1) -> str:
    """The newest log entry of `kind`, once there are `count` of them."""
    page.wait_for_function(
        "([kind, count]) => document.querySelectorAll(`#log [data-type='${kind}']`).length"
        " >= count",
        arg=[kind, count],
    )
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


def wire_colours(server: ServerThread) -> dict[str, str]:
    """Every place's LED as decoded from the last bytes sent down the chain's data line."""

    def read() -> dict[str, str]:
        board = server.host.session.board
        wire, order = board.led_wire.last, board.spec.leds.order
        width = len(order)
        colours = {}
        for place, led in board.spec.led_index.items():
            pixel = wire[led * width : led * width + width]
            rgb = [pixel[order.index(c)] for c in "RGB"]
            colours[place if isinstance(place, str) else place_label(place)] = bytes(rgb).hex()
        return colours

    return server.call(read)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


# The tests.


def test_a_game_won_by_mouse_lights_the_winning_line(page, server):
    drag(page, "A1", "b2")  # X: from its tray to the centre, drag and drop
    assert "X played b2" in wait_for_log(page, "move", 1)
    # Nothing animates now: every cell, slot and status LED on the page shows exactly the
    # colour decoded from the bytes last sent down the chain.
    expected = wire_colours(server)
    assert expected["b2"] != "000000" and expected["seat-2"] != "000000"
    page.wait_for_function(
        """(expected) => Object.entries(expected).every(([place, hex]) =>
             document.querySelector(`[data-place="${place}"]`).dataset.led === hex)""",
        arg=expected,
    )
    click(page, "B1")  # O: lift by a click...
    page.wait_for_selector("#hand-pieces svg")
    click(page, "a2")  # ...and put down by another
    assert "O played a2" in wait_for_log(page, "move", 2)
    drag(page, "A2", "a1")
    wait_for_log(page, "move", 3)
    drag(page, "B2", "c1")
    wait_for_log(page, "move", 4)
    click(page, "A3")
    click(page, "c3")
    over = wait_for_log(page, "game-over")
    assert "X wins" in over and "a1, b2, c3" in over
    wait_for_lights(page, ["a1", "b2", "c3"], SEAT_X)
    wait_for_lights(page, ["a2", "c1", "b1", "a3"], OFF)
    assert page.locator('[data-place="c3"] .stack').get_attribute("data-top") == "X"
    shot(page, "sim-web-win.png")


def test_a_wrong_piece_is_shown_and_put_right(page, server):
    drag(page, "B1", "b2")  # X takes a piece from O's tray
    illegal = wait_for_log(page, "illegal")
    assert "take the piece off b2" in illegal and "put a piece back in O's tray" in illegal
    wait_for_lights(page, ["b2"], RED)  # take it off here...
    wait_for_lights(page, ["B1"], SEAT_O)  # ...and put O's piece back here
    shot(page, "sim-web-illegal.png")
    drag(page, "b2", "B1")
    wait_for_log(page, "restored")
    wait_for_lights(page, ["b2", "B1"], OFF)
    drag(page, "A1", "b2")  # now the proper move
    assert "X played b2" in wait_for_log(page, "move")


def test_panel_buttons_and_a_slide(page, server):
    page.get_by_role("button", name="X: done / end turn").click()  # seat 1, in the game's name
    assert "seat-1" in wait_for_log(page, "button")
    click(page, "A1")  # lift X's piece and put it on a1 by clicks: X plays a1
    click(page, "a1")
    wait_for_log(page, "move", 1)
    page.keyboard.down("Shift")  # shift-drag slides across the cells it passes
    drag(page, "a1", "c1")
    page.keyboard.up("Shift")
    page.wait_for_selector('[data-place="c1"] .stack')
    wait_for_log(page, "illegal")  # X's piece moved in O's turn
    page.select_option("#game-select", "tic-tac-toe")
    page.click("#new-game")
    wait_for_log(page, "game-started")  # the log starts again with the new game
    assert page.locator("#log [data-type='illegal']").count() == 0
    page.wait_for_selector('[data-place="A1"] .stack')
    assert page.locator('[data-place="c1"] .stack').count() == 0
    assert server.call(lambda: server.host.session.state.turn) == 0


@pytest.fixture
def board_page(browser, request) -> Iterator[tuple[Any, ServerThread]]:
    """A page on a server for the (board, game) or (board, game, options) the test asks for
    with `indirect`."""
    board, game, *options = request.param
    with ServerThread(BoardHost(board, game, *options, speed=SPEED)) as running:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        opened = context.new_page()
        opened.set_default_timeout(TIMEOUT)
        errors: list[str] = []
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.goto(running.url)
        opened.wait_for_function("document.getElementById('connection').dataset.state === 'open'")
        yield opened, running
        context.close()
    assert not errors, f"the page threw: {errors}"


@pytest.mark.parametrize("board_page", [("mini", "tic-tac-cap")], indirect=True)
def test_tic_tac_cap_by_mouse_a_steal_wins(board_page):
    page, _ = board_page
    # Tray rows on mini: slots 1-5 Small, 6-9 Medium, 10-13 Large.
    for n, (source, target) in enumerate(
        [("A1", "b2"), ("B1", "a3"), ("A2", "c1"), ("B2", "a1")], start=1
    ):
        drag(page, source, target)
        wait_for_log(page, "move", n)
    click(page, "A6")  # A's Medium, on A's third turn...
    click(page, "a3")  # ...caps B's Small and completes a3-b2-c1
    over = wait_for_log(page, "game-over")
    assert "A wins" in over and "a3, b2, c1" in over
    wait_for_lights(page, ["a3", "b2", "c1"], SEAT_X)
    assert page.locator('[data-place="a3"] .stack').get_attribute("data-top") == "A-M"
    shot(page, "sim-web-tic-tac-cap.png")


@pytest.mark.parametrize("board_page", [("r1", "tic-tac-doh")], indirect=True)
def test_tic_tac_doh_by_mouse_a_tree_counts_for_the_line(board_page):
    page, _ = board_page
    # The 5x5 area lies on d4-h8; tray A holds the stash: Smalls in slots 1-5, Mediums in 7-11,
    # Larges in 13-17. Game c3 is board f6, b3 e6, d3 g6, b2 e5.
    moves = [("A13", "f6"), ("A7", "f6"), ("A8", "e6"), ("A1", "e5")]
    for n, (source, target) in enumerate(moves, start=1):
        drag(page, source, target)
        wait_for_log(page, "move", n)
    drag(page, "A9", "g6")  # Mediums on e6 and g6, the L-M tree on f6 counts as a Medium
    over = wait_for_log(page, "game-over")
    assert "A wins" in over and "(b3, c3, d3)" in over  # the game's squares, not r1's
    wait_for_lights(page, ["e6", "f6", "g6"], SEAT_X)
    shot(page, "sim-web-tic-tac-doh.png")


@pytest.mark.parametrize("board_page", [("r1", "lance-assembly")], indirect=True)
def test_lance_assembly_by_mouse_a_bout_to_a_lance(board_page):
    page, _ = board_page
    # The 6x6 area lies on d4-i9: game a1 is board d4. Tiles wait in boxes no sensor sees.
    clock = "#clocks .clock[data-seat='{}'] .clock-{}"
    page.wait_for_selector("#clocks .clock[data-seat='0'][data-stage='turn']")
    assert page.inner_text(clock.format(1, "reserve")) == "reserve 5:00"
    page.wait_for_function(  # A's turn time counts down between clock events
        "(s) => /^0:[0-5]\\d$/.test(document.querySelector(s).textContent)",
        arg=clock.format(0, "turn"),
    )
    page.wait_for_function(
        "document.getElementById('match').textContent === 'neutral tile N: still in hand'"
    )

    def place(box: str, cell: str) -> None:
        drag(page, f"supply:{box}", cell)
        page.wait_for_selector(f'[data-place="{cell}"] .stack')

    def end_turn(seat: str, partials: int, moves: int) -> str:
        wait_for_log(page, "partial", partials)  # the turn could go on: its player ends it
        page.click(f'[data-button="{seat}"]')
        return wait_for_log(page, "move", moves)

    place("A", "d4")  # a1: the bout's first turn is one placement, and ends by itself
    assert "A put a tile on a1" in wait_for_log(page, "move", 1)
    page.wait_for_selector("#clocks .clock[data-seat='1'][data-stage='turn']")
    place("B", "d5")
    wait_for_log(page, "partial", 1)
    assert banner(page) == "B: go on, or press the seat-2 button to end the turn"
    assert "B put a tile on a2, then ended the turn" in end_turn("seat-2", 1, 2)
    place("A", "e4")
    end_turn("seat-1", 2, 3)
    place("B", "e5")
    end_turn("seat-2", 3, 4)
    place("A", "f4")
    end_turn("seat-1", 4, 5)
    place("B", "f5")
    wait_for_log(page, "partial", 5)
    place("N", "i9")  # B's neutral tile, on f6
    page.wait_for_function("document.getElementById('match').textContent.includes('on the board')")
    assert "B put a tile on c2, then put the neutral tile on f6, then ended the turn" in end_turn(
        "seat-2", 6, 6
    )
    place("A", "h4")  # e1, then a1-b1-c1 pushed along by its rear tile: a turn with nothing left
    wait_for_log(page, "partial", 7)
    page.keyboard.down("Control")  # ctrl-drag slides a group
    drag(page, "d4", "e4")
    page.keyboard.up("Control")
    assert "A put a tile on e1, then slid the group of 3 at a1 one cell right" in wait_for_log(
        page, "move", 7
    )
    assert page.locator('[data-place="d4"] .stack').count() == 0
    place("B", "i6")
    end_turn("seat-2", 8, 8)
    place("A", "d4")  # a1 completes a1-e1
    end_turn("seat-1", 9, 9)
    bout = wait_for_log(page, "obligation")
    assert "bout 1: A made a lance of five (A 1, B 0)" in bout
    assert "A: A made a lance of five (A 1, B 0): clear the board for bout 2" in wait_for_banner(
        page, "clear the board"
    )
    page.wait_for_function(
        "document.getElementById('match').textContent.startsWith("
        "'bout 1: A made a lance of five (A 1, B 0)')"
    )
    # The clocks stop until the board is cleared for the next bout.
    page.wait_for_selector("#clocks .clock[data-seat='0'][data-stage='stopped']")
    assert page.locator("#clocks .clock[data-stage='stopped']").count() == 2
    assert page.inner_text(clock.format(0, "reserve")) == "reserve 5:00"
    assert page.text_content('[data-place="supply:A"] .place-label') == "box A: 13"
    shot(page, "sim-web-lance-assembly.png")


# Grid tiles by mouse, button and key.


def tile_box(page, cell: str) -> dict[str, float]:
    """Where the tile covering `cell` is drawn on the screen."""
    box = page.locator(f'#tiles [data-cells~="{cell}"] .tile-outline').bounding_box()
    assert box, f"no tile is drawn over {cell}"
    return box


def shift_by_rim(page, cell: str, way: str) -> None:
    """Take hold of the tile covering `cell` by its left rim and drag it one cell `way`."""
    box = tile_box(page, cell)
    step = box["width"] / 2
    x, y = box["x"] + 4, box["y"] + box["height"] / 2
    dx, dy = {"up": (0, -step), "down": (0, step), "left": (-step, 0), "right": (step, 0)}[way]
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=8)
    page.mouse.up()


def turn_by_gesture(page, cell: str, clockwise: bool) -> None:
    """Press the right button on the tile covering `cell` and sweep a little over a quarter
    round its centre."""
    box = tile_box(page, cell)
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    radius = box["width"] / 3
    sign = 1 if clockwise else -1  # the screen's y grows downwards: a growing angle is clockwise
    points = [math.pi + sign * math.radians(10 * k) for k in range(11)]
    page.mouse.move(cx + radius * math.cos(points[0]), cy + radius * math.sin(points[0]))
    page.mouse.down(button="right")
    for angle in points[1:]:
        page.mouse.move(cx + radius * math.cos(angle), cy + radius * math.sin(angle), steps=2)
    page.mouse.up(button="right")


def tile_over(page, cell: str) -> tuple[str, str]:
    """The cells and key cell of the tile drawn over `cell`."""
    node = page.locator(f'#tiles [data-cells~="{cell}"]')
    return node.get_attribute("data-cells"), node.get_attribute("data-key")


def stack_top(page, place: str) -> str | None:
    stack = page.locator(f'[data-place="{place}"] .stack')
    return stack.get_attribute("data-top") if stack.count() else None


def wait_for_steps(page, count: int) -> None:
    """Until the board has taken `count` actions of turns, whole or not yet."""
    page.wait_for_function(
        "(count) => document.querySelectorAll("
        "\"#log [data-type='partial'], #log [data-type='move']\").length >= count",
        arg=count,
    )


def hands(server: ServerThread, *commands: str) -> None:
    """Hand commands, as the page sends them (`play Ke3`)."""
    for command in commands:
        words = command.split()
        message = json.dumps({"do": words[0], "args": words[1:]})
        server.call(lambda message=message: server.host.handle(message))


@pytest.mark.parametrize(
    "board_page", [("r1", "meep-tac-toe", {"maneuver": "advanced"})], indirect=True
)
def test_meep_tac_toe_by_mouse_a_tile_shifted_and_turned(board_page):
    page, _ = board_page
    # The 8x8 area lies on c3-j10: game c3 is board e5. The tiles lie on e5-h8; A's meeples on
    # f5, h5, e8, g8, B's on e5, g5, f8, h8.
    assert page.locator("#game-select option:checked").inner_text() == "Meep Tac Toe"
    assert page.locator('[data-option="maneuver"]').input_value() == "advanced"
    # The tiles are drawn from the board's first frame, which may come after the page's.
    page.wait_for_function("document.querySelectorAll('#tiles [data-tile]').length === 4")
    assert tile_over(page, "e5") == ("e5 f5 e6 f6", "e5")
    drag(page, "f5", "f6")  # A's meeple d3-d4, onto the same tile
    assert "A so far: moved the meeple on d3 to d4" in wait_for_log(page, "partial", 1)
    wait_for_lights(page, ["e5", "f5", "e6", "f6"], SEAT_X)  # this tile must move now
    shift_by_rim(page, "e5", "left")  # the tile and both meeples on it, one cell left
    assert "d4, then shifted the tile at c3 left" in wait_for_log(page, "partial", 2)
    assert tile_over(page, "d5") == ("d5 e5 d6 e6", "d5")
    assert (stack_top(page, "d5"), stack_top(page, "e6")) == ("B", "A")
    turn_by_gesture(page, "d5", clockwise=True)  # a quarter clockwise: B up, A down
    assert (
        "A moved the meeple on d3 to d4, then shifted the tile at c3 left, then turned the tile"
        " at b3 a quarter clockwise"
    ) in wait_for_log(page, "move", 1)
    assert tile_over(page, "d5") == ("d5 e5 d6 e6", "d6")  # the key corner went round
    assert (stack_top(page, "d6"), stack_top(page, "e5")) == ("B", "A")
    assert stack_top(page, "d5") is None and stack_top(page, "e6") is None
    wait_for_lights(page, ["seat-2"], SEAT_O)
    assert not page.locator("#log [data-type='illegal']").count()
    shot(page, "sim-web-meep-tac-toe.png")


@pytest.mark.parametrize("board_page", [("r1", "meeple-maneuver")], indirect=True)
def test_meeple_maneuver_by_mouse_a_capture_carried_to_the_pile(board_page):
    page, server = board_page
    # The 10x10 area lies on b2-k11: game e5 is board f6. Tray A: kittens in A1-3, puppies in
    # A4-6, the captured pile in A7-9.
    assert page.locator("#tiles [data-tile]").count() == 5
    assert stack_top(page, "A1") == "A-kitten" and stack_top(page, "A4") == "A-puppy"
    assert page.text_content('[data-place="A4"] .piece-label') == "P"
    # The engine's shortest line to a capture whose last turn takes a shift and a quarter
    # turn: A's Ke3 Te3cw Te3cw, B's Ke3 Te3< Td3< (the south tile out of the way), then A's
    # Ke5 Te5v Te4ccw slides the centre tile down with A's new kitten, and the neutral puppy
    # on e4 ends between A's kittens on d4 and f4. The first two turns go by hand commands.
    for n, action in enumerate(["Ke3", "Te3cw", "Te3cw", "Ke3", "Te3<", "Td3<"], start=1):
        hands(server, f"play {action}")
        wait_for_steps(page, n)
    wait_for_log(page, "move", 2)
    kitten = next(f"A{n}" for n in (1, 2, 3) if stack_top(page, f"A{n}") == "A-kitten")
    drag(page, kitten, "f6")  # A's kitten on e5, the centre tile
    assert "A so far: put a kitten on e5" in wait_for_log(page, "partial", 5)
    page.check('input[name="drag-mode"][value="tile"]')  # a drag anywhere on a tile shifts it
    drag(page, "f6", "f5")  # the centre tile down a cell, the kitten and two neutrals with it
    assert "e5, then shifted the tile at e5 down" in wait_for_log(page, "partial", 6)
    assert tile_over(page, "f5") == ("f5 g5 f6 g6", "f5")
    assert page.inner_text("#tile-name") == "the tile at e4"  # last pressed on, game squares
    page.get_by_role("button", name="turn \u21ba").click()  # a quarter counter-clockwise
    assert (
        "A put a kitten on e5, then shifted the tile at e5 down, then turned the tile at e4 a"
        " quarter counter-clockwise"
    ) in wait_for_log(page, "move", 3)
    assert tile_over(page, "f5") == ("f5 g5 f6 g6", "g5")
    obligation = wait_for_log(page, "obligation")
    assert "the neutral puppy on e4 goes to A's captured pile" in obligation
    assert stack_top(page, "f5") == "N-puppy"  # game e4, between A's kittens on d4 and f4
    assert (stack_top(page, "e5"), stack_top(page, "g5")) == ("A-kitten", "A-kitten")
    page.check('input[name="drag-mode"][value="move"]')
    drag(page, "f5", "A7")  # carried to A's captured pile
    assert "captured: the neutral puppy on e4" in wait_for_log(page, "fulfilled")
    assert stack_top(page, "A7") == "N-puppy" and stack_top(page, "f5") is None
    # Play goes on: B places a kitten on f8 (board g9) and turns the north tile twice by key,
    # the pointer on it (the keys turn the tile under the pointer before the one picked).
    hands(server, "play Kf8")
    wait_for_steps(page, 10)
    box = tile_box(page, "g9")
    page.mouse.move(box["x"] + box["width"] / 4, box["y"] + box["height"] / 4)
    page.keyboard.press("r")
    wait_for_steps(page, 11)
    page.keyboard.press("r")
    assert (
        "B put a kitten on f8, then turned the tile at e7 a quarter clockwise, then the same again"
    ) in wait_for_log(page, "move", 4)
    assert tile_over(page, "g9") == ("f8 g8 f9 g9", "g9")
    assert (stack_top(page, "f8"), stack_top(page, "g8")) == ("B-kitten", "N-kitten")
    assert not page.locator("#log [data-type='illegal']").count()
    shot(page, "sim-web-meeple-maneuver.png")


# Magnetmen: the printed overlay's pictures, the inventories and running scores, the choices.


@pytest.mark.parametrize(
    "board_page", [("r1", "magnetmen", {"players": 3, "size": "small"})], indirect=True
)
def test_magnetmen_three_players_to_the_end_with_the_scores_shown(board_page):
    page, server = board_page
    # The 6x6 area lies on d4-i9: game a1 is board d4. Tokens wait in two boxes no sensor sees,
    # one for each way up: a collection north down, a destruction south down.
    session = server.host.session
    profile, printed = session.profile, session.initial.printed

    def board_cell(cell: tuple[int, int]) -> str:
        return place_label(profile.to_board(cell))

    page.wait_for_function("document.querySelectorAll('.place.cell.printed').length > 0")
    shown = page.eval_on_selector_all(
        ".place.cell.printed", "cells => cells.map(c => [c.dataset.place, c.dataset.picture])"
    )
    expected = {board_cell((i % 6, i // 6)): name for i, name in enumerate(printed.squares)}
    assert dict(shown) == expected
    assert page.locator('[data-place="d4"] .picture path').count() > 0
    page.wait_for_selector("#scores [data-seat='2']")
    assert page.locator("#scores [data-seat]").all_inner_texts()[0].startswith("A")
    steps = 0
    while True:
        state = server.call(lambda: session.state)
        if state.outcome() is not None:
            break
        action = state.legal_actions()[0]
        cell = board_cell(action.cell)
        if steps % 4 == 0:  # every fourth step by mouse, a token from its box
            box = "supply:tokens-turned" if str(action).startswith("x") else "supply:tokens"
            drag(page, box, cell)
        else:
            hands(server, f"play {action}")
        steps += 1
        wait_for_steps(page, steps)
        if steps == 6:
            # The running scores and inventories follow the moves.
            now = server.call(lambda: session.state)
            page.wait_for_function(
                "(scores) => [...document.querySelectorAll('#scores .seat-score')]"
                ".map((s) => Number(s.textContent)).join() === scores.join()",
                arg=list(now.scores),
            )
    over = wait_for_log(page, "game-over")
    final = server.call(lambda: session.state.scores)
    event = next(e for e in reversed(session.events) if e.TYPE == "game-over")
    assert event.scores == final
    assert "Game over" in over and "(A " in over
    page.wait_for_function(
        "(scores) => [...document.querySelectorAll('#scores .seat-score')]"
        ".map((s) => Number(s.textContent)).join() === scores.join()",
        arg=list(final),
    )
    shown = [int(s) for s in page.locator("#scores .seat-score").all_inner_texts()]
    assert shown == list(final) and len(shown) == 3
    counts = server.call(lambda: session.state.counts)
    for seat, held in enumerate(counts):
        icons = page.locator(f"#scores [data-seat='{seat}'] .held")
        assert sum(int(n) for n in icons.evaluate_all("i => i.map(x => x.dataset.count)")) == sum(
            held
        )
    winners = page.locator("#scores .seat.winner").evaluate_all("s => s.map(x => +x.dataset.seat)")
    assert winners == list(event.winners)
    assert not page.locator("#log [data-type='illegal']").count()
    shot(page, "sim-web-magnetmen.png")


@pytest.mark.parametrize(
    "board_page",
    [("r1", "magnetmen", {"players": 3, "size": "small", "set": "expert", "seed": 3})],
    indirect=True,
)
def test_magnetmen_a_choice_made_on_the_page(board_page):
    page, server = board_page
    session = server.host.session
    # Seed 3's Actress on e1: when A collects her, A leads and destroys an icon of A's choice.
    for n, action in enumerate(["a1", "b1", "c1", "e1"], start=1):
        hands(server, f"play {action}")
        wait_for_steps(page, n)
    options = "#choice-options .choice-option"
    page.wait_for_selector(options)
    assert page.inner_text("#choice-prompt") == "A to choose:"
    assert page.locator(options).evaluate_all("b => b.map(x => x.dataset.option)") == [
        "A-Veterinarian",
        "A-Actress",
    ]
    assert page.get_attribute(f"{options}.current", "data-option") == "A-Veterinarian"
    page.click('[data-button="seat-1"]')  # A's button points at the next option
    page.wait_for_selector(f'{options}.current[data-option="A-Actress"]')
    before = page.get_attribute("#scores [data-seat='0'] [data-type='Veterinarian']", "data-count")
    page.click(f'{options}[data-option="A-Veterinarian"]')
    wait_for_steps(page, 5)
    assert (
        "A-Veterinarian"
        in page.locator("#log [data-type='move'], #log [data-type='partial']").first.inner_text()
    )
    page.wait_for_selector("#choice", state="hidden")
    kinds = session.initial.setup.kinds
    held = server.call(lambda: session.state.counts[0][kinds.index("Veterinarian")])
    assert held == int(before) - 1
    vet = "#scores [data-seat='0'] [data-type='Veterinarian']"
    if held:
        page.wait_for_selector(f"{vet}[data-count='{held}']")
    else:
        page.wait_for_selector(vet, state="detached")
    shot(page, "sim-web-magnetmen-choice.png")


# The banner, the rules, the board picker, the layouts and the spectator view.

SCREENSHOTS = os.environ.get("MAGBOARD_SCREENSHOTS")
"""Where the game screenshots go (docs/screenshots for the README); a test run's own folder
otherwise, so a test run never changes the repository."""


def banner(page) -> str:
    return page.locator("#banner-text").inner_text()


def wait_for_banner(page, text: str) -> str:
    page.wait_for_function(
        "(text) => document.getElementById('banner-text').textContent.includes(text)", arg=text
    )
    return banner(page)


def save_small(png: bytes, path: Path) -> None:
    """A screenshot for the README, in a palette of 128 colours where Pillow is at hand."""
    try:
        from PIL import Image
    except ImportError:
        path.write_bytes(png)
        return
    with Image.open(io.BytesIO(png)) as image:
        image.convert("RGB").quantize(128).save(path, optimize=True)


def test_the_banner_says_whose_turn_what_to_fix_and_the_result(page, server):
    assert wait_for_banner(page, "X to move") == "X to move"
    assert not page.locator("#sound").is_checked()  # sounds are off unless asked for
    swatch = page.locator("#banner-swatch")
    assert swatch.is_visible()
    drag(page, "A1", "b2")
    wait_for_banner(page, "O to move")
    assert page.locator("#banner").get_attribute("data-seat") == "1"
    hands(server, "lift B1")
    wait_for_banner(page, "O: put the piece down on a lit square")
    hands(server, "put B1")
    wait_for_banner(page, "O to move")
    for turn, square in enumerate(["a1", "a2", "c1", "c2"], start=2):
        hands(server, f"play {square}")
        wait_for_log(page, "move", turn)
    text = wait_for_banner(page, "X wins: three in a row")
    assert page.locator("#banner").get_attribute("data-state") == "over", text


def test_a_mistake_is_named_in_the_games_squares_on_a_large_board(browser):
    with ServerThread(BoardHost("r1", "tic-tac-toe", speed=SPEED)) as running:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        opened = context.new_page()
        opened.set_default_timeout(TIMEOUT)
        opened.goto(running.url)
        opened.wait_for_selector("#board .game-area")
        # The game's b2 lies under r1's f6: the cell is captioned, and named, as the game has it.
        assert opened.text_content('[data-place="f6"] .place-label') == "b2"
        hands(running, "move A1 a1")
        text = wait_for_banner(opened, "take the piece off board square a1 (outside the game)")
        assert text.startswith("X: ") and "; put a piece back in X's tray" in text
        assert opened.locator("#banner").get_attribute("data-state") == "wrong"
        hands(running, "move a1 A1")
        wait_for_banner(opened, "X to move")
        context.close()


def test_the_board_picker_reaches_every_game_on_r1_and_shows_its_rules(page, server, tmp_path):
    boards = {
        b["name"]: b for b in json.loads(page.evaluate("fetch('/boards').then(r => r.text())"))
    }
    rules_written = page.evaluate("fetch('/rules/lights').then(r => r.ok)")
    shots = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1100, "height": 760})
    for game in [g["name"] for g in boards["r1"]["games"]]:
        page.select_option("#board-select", "r1")
        page.select_option("#game-select", game)
        page.click("#new-game")
        page.wait_for_function(
            "(game) => document.getElementById('board-title').textContent.endsWith(game)",
            arg=game,
        )
        page.wait_for_selector("#board .game-area")
        wait_for_banner(page, "to move")
        assert server.call(lambda: (server.host.spec.name, server.host.session.game.name)) == (
            "r1",
            game,
        )
        # Only the seats the game has.
        seats = len(server.call(lambda: server.host.session.initial.game.seats))
        players = page.evaluate(
            "[...document.querySelectorAll('#buttons [data-button^=\"seat-\"]')].length"
        )
        assert players <= max(seats, 1)
        page.wait_for_function(
            "() => document.getElementById('rules').dataset.loaded !== undefined"
        )
        if rules_written:  # the rules of this very game, and the legend of the lights
            page.wait_for_function("document.getElementById('rules').dataset.loaded === 'yes'")
            page.wait_for_function("document.getElementById('lights').children.length > 0")
            title = page.text_content("#rules h3")
            titles = {g["name"]: g["title"] for g in boards["r1"]["games"]}
            assert title and title.split()[0].lower() in titles[game].lower(), (game, title)
            assert page.locator("#lights table td").count() > 4
        save_small(page.screenshot(scale="css", type="png"), shots / f"{game}.png")
    page.select_option("#board-select", "mini")
    assert page.locator("#game-select option").count() == len(boards["mini"]["games"])
    if rules_written:  # the panel opens, and says what the lights mean
        page.click("#rules-panel summary")
        assert page.locator("#rules h3").first.is_visible()
        assert page.locator("#lights h3").first.inner_text().startswith("What the lights")


CONTROLS = ["#banner", "#board", "#hand", "#buttons button", "#connection"]
WALL_CONTROLS = [*CONTROLS, "#board-select", "#game-select", "#new-game"]


@pytest.mark.parametrize("size, controls", [((390, 844), CONTROLS), ((1920, 1080), WALL_CONTROLS)])
def test_every_control_is_on_the_screen_without_scrolling(browser, size, controls):
    width, height = size
    with ServerThread(BoardHost("r1", "lance-assembly", speed=SPEED)) as running:
        context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
        opened = context.new_page()
        opened.set_default_timeout(TIMEOUT)
        opened.goto(running.url)
        opened.wait_for_selector("#board .game-area")
        opened.wait_for_function("document.getElementById('connection').dataset.state === 'open'")
        shot(opened, f"r1-{width}x{height}.png")
        assert opened.evaluate("window.scrollY") == 0
        for selector in controls:
            for node in opened.locator(selector).all():
                box = node.bounding_box()
                assert box, f"{selector} is not shown at {width}x{height}"
                inside = (
                    box["x"] >= 0
                    and box["y"] >= 0
                    and box["x"] + box["width"] <= width + 0.5
                    and box["y"] + box["height"] <= height + 0.5
                )
                assert inside, f"{selector} is off the screen at {width}x{height}: {box}"
        # The panels beside or under the board are reached without the board leaving the screen.
        for selector in ("#new-game", "#clear-log", "[data-fault='i2c-burst']"):
            opened.locator(selector).scroll_into_view_if_needed()
            box = opened.locator(selector).bounding_box()
            assert box and box["y"] + box["height"] <= height + 0.5, selector
            board = opened.locator("#board").bounding_box()
            assert board and board["y"] >= 0 and board["y"] + board["height"] <= height + 0.5
        context.close()


def test_the_spectator_view_shows_the_board_and_nothing_to_press(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, bypass_csp=True)
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT)
    opened.goto(server.url + "spectator")
    opened.wait_for_selector('[data-place="b2"]')
    wait_for_banner(opened, "X to move")
    assert opened.locator("#board").is_visible()
    for hidden in ("#game-form", "#buttons", "#hand", "#log"):
        assert not opened.locator(hidden).is_visible(), hidden
    opened.mouse.click(*centre(opened, "A1"))  # no hands here
    assert server.call(lambda: list(server.host.session.world.hand)) == []
    opened.goto(server.url + "?view=spectator")
    opened.wait_for_selector('[data-place="b2"]')
    assert not opened.locator("#game-form").is_visible()
    context.close()
