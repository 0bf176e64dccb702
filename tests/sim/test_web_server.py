"""`magboard sim`'s web server without a browser: the page and its files, the WebSocket's
events (every one of the schema), commands and what it refuses, and who may connect."""

from __future__ import annotations

import importlib.util
import json
import socket
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from magboard.firmware import events as ev
from magboard.firmware.games import all_games
from magboard.firmware.games.magnetmen.rules import Collect
from magboard.firmware.lights.palette import DEFAULT as PALETTE
from magboard.hardware.spec import load_board, place_label
from magboard.host.cli import main
from magboard.sim.scenario import shows
from magboard.sim.web.guard import host_name, is_loopback, refusal
from magboard.sim.web.server import HISTORY, MAX_MESSAGE, BoardHost, ServerThread, create_app
from magboard.sim.web.snapshot import hosted_games

with warnings.catch_warnings():  # its httpx transport is deprecated; it still serves here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

SEAT_X, SEAT_O = PALETTE.players[0], PALETTE.players[1]
WAIT = 10.0
"""Wall seconds any one expected message may take before the test fails."""


class Page:
    """A WebSocket client that reads the board's events, each checked against the schema."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.seen: list[dict[str, Any]] = []

    def next(self) -> dict[str, Any]:
        data = json.loads(self.socket.recv(timeout=WAIT))
        ev.event_from_dict(data)  # every message is an event of the one schema
        self.seen.append(data)
        return data

    def until(self, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first message that matches, within WAIT seconds: the board keeps sending LED
        frames, so a message that never comes would otherwise be waited for forever."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            data = self.next()
            if match(data):
                return data
        raise AssertionError(f"no matching message in {WAIT} s; the last: {self.seen[-3:]}")

    def until_type(self, kind: str, **fields: Any) -> dict[str, Any]:
        return self.until(
            lambda d: d["type"] == kind and all(d.get(k) == v for k, v in fields.items())
        )

    def send(self, command: Any) -> None:
        self.socket.send(command if isinstance(command, str | bytes) else json.dumps(command))

    def greeting(self) -> dict[str, dict[str, Any]]:
        """The messages sent on connecting, up to the LEDs, by type (last of each)."""
        got: dict[str, dict[str, Any]] = {}
        while "sim-leds" not in got:
            data = self.next()
            got[data["type"]] = data
        return got


@pytest.fixture
def server() -> Iterator[ServerThread]:
    with ServerThread(BoardHost("mini", speed=20)) as running:
        yield running


def ws_url(server: ServerThread) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


@pytest.fixture
def page(server: ServerThread) -> Iterator[Page]:
    with connect(ws_url(server), max_size=2**22) as socket:
        yield Page(socket)


def pixel(pixels: str, index: int) -> tuple[int, int, int]:
    value = int(pixels[index * 6 : index * 6 + 6], 16)
    return (value >> 16, value >> 8 & 0xFF, value & 0xFF)


# The page itself.


def local_client(app, **kwargs: Any) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1:8800", client=("127.0.0.1", 50000), **kwargs)


def test_the_page_and_its_files_are_served():
    app = create_app(BoardHost("mini"))
    with local_client(app) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert 'src="app.js"' in page.text and 'href="style.css"' in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
        script = client.get("/app.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert "new WebSocket" in script.text
        style = client.get("/style.css")
        assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
        for hidden in ("/server.py", "/guard.py", "/__init__.py", "/nothing.js", "/%2e%2e/cli.py"):
            assert client.get(hidden).status_code == 404, hidden


def test_the_page_needs_nothing_from_elsewhere():
    app = create_app(BoardHost("mini"))
    with local_client(app) as client:
        for name in ("/", "/app.js", "/style.css"):
            text = client.get(name).text
            assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
            assert "https://" not in text and "//cdn" not in text


# What a page is told.


def test_a_page_is_sent_the_board_the_pieces_and_the_leds(page):
    first = page.next()
    assert first["type"] == "sim-board"
    got = page.greeting()
    board, pieces, leds = first, got["sim-pieces"], got["sim-leds"]
    assert (board["board"], board["columns"], board["rows"], board["holes"]) == ("mini", 3, 3, [])
    assert [t["name"] for t in board["trays"]] == ["A", "B"]
    assert board["trays"][0]["rows"] == [5, 4, 4]
    assert board["trays"][0]["slots"][:2] == ["A1", "A2"] and len(board["trays"][0]["slots"]) == 13
    assert [b["name"] for b in board["buttons"]] == ["seat-1", "seat-2", "new"]
    assert board["status"] == ["seat-1", "seat-2"]
    assert board["leds"]["a1"] == 0 and board["leds"]["a2"] == 5  # serpentine
    assert board["leds"]["B13"] == 34 and board["leds"]["seat-2"] == 36
    assert board["led_count"] == 37
    assert board["expanders"] == ["U1", "U2", "U3", "U4"]
    assert (board["game"], board["players"]) == ("tic-tac-toe", ["X", "O"])
    assert len(board["area"]) == 9
    games = {g["name"]: g for g in board["games"]}
    assert "tic-tac-toe" in games and games["tic-tac-toe"]["seats"] == ["X", "O"]
    assert "game-started" in got
    trays = [f"{tray}{n}" for tray in "AB" for n in range(1, 6)]
    assert sorted(pieces["places"]) == sorted(trays)
    assert pieces["places"]["A1"] == [
        {"id": 1, "kind": "X", "label": "X", "size": 1, "owner": 0, "colour": "#285aff"}
    ]
    assert pieces["hand"] == []
    assert len(leds["pixels"]) == 37 * 6
    assert shows(pixel(leds["pixels"], 35), SEAT_X)  # X's turn: seat-1's LED in X's colour


def test_games_offered_are_those_with_a_profile_on_the_board(page):
    board = page.next()
    spec = BoardHost("mini").spec
    assert [g["name"] for g in board["games"]] == [g.name for g in hosted_games(spec)]
    for game in board["games"]:
        for option in game["options"]:
            assert set(option) == {"name", "default", "choices", "minimum", "maximum", "help"}


# Commands.


def test_moves_by_hand_move_pieces_and_the_referee_answers(page):
    page.greeting()
    page.send({"do": "move", "args": ["A1", "b2"]})
    moved = page.until_type("sim-pieces")
    assert moved["places"]["b2"][0]["kind"] == "X" and "A1" not in moved["places"]
    assert page.until_type("move")["actions"] == ["b2"]
    page.send({"do": "lift", "args": ["B2"]})
    held = page.until_type("sim-pieces")
    assert [p["kind"] for p in held["hand"]] == ["O"]
    assert page.until_type("in-hand", player=1)["lifted"] == ["supply:O"]
    page.send({"do": "put", "args": ["c3"]})
    assert page.until_type("move", player=1)["actions"] == ["c3"]
    page.send({"do": "play", "args": ["a1"]})
    assert page.until_type("move", player=0)["actions"] == ["a1"]
    page.send({"do": "press", "args": ["seat-2"]})
    assert page.until_type("button", button="seat-2", pressed=True)


def test_a_game_to_a_win_lights_the_winning_line(server, page):
    page.greeting()
    for source, target in (("A1", "b2"), ("B1", "a2"), ("A2", "a1"), ("B2", "c1"), ("A3", "c3")):
        page.send({"do": "move", "args": [source, target]})
        page.until_type("move")
    over = page.until_type("game-over")
    assert over["winners"] == [0] and over["line"] == ["a1", "b2", "c3"]
    lit = page.until(
        lambda d: (
            d["type"] == "sim-leds"
            and all(shows(pixel(d["pixels"], led), SEAT_X) for led in (0, 4, 8))
        )
    )
    assert not any(shows(pixel(lit["pixels"], led), SEAT_O) for led in range(9))


def test_an_illegal_move_is_shown_and_put_right(page):
    page.greeting()
    page.send({"do": "move", "args": ["B1", "b2"]})  # X takes O's piece
    illegal = page.until_type("illegal")
    assert (illegal["remove"], illegal["put_back"]) == (["b2"], ["B1"])
    page.until(
        lambda d: (
            d["type"] == "sim-leds"
            and shows(pixel(d["pixels"], 4), (255, 0, 0))  # b2: red
            and shows(pixel(d["pixels"], 22), SEAT_O)
        )  # B1: put back O's piece
    )
    page.send({"do": "move", "args": ["b2", "B1"]})
    page.until_type("restored")


def test_a_slide_goes_across_cells(page):
    page.greeting()
    page.send({"do": "move", "args": ["A1", "a1"]})
    page.until_type("move")
    page.send({"do": "slide", "args": ["a1", "b1", "c1"]})
    page.until_type("illegal")  # an X moved in O's turn: the referee says so
    # The piece on c1 is drawn before the refusal or after it, as the board's threads go.
    if not any(d["type"] == "sim-pieces" and "c1" in d["places"] for d in page.seen):
        page.until(lambda d: d["type"] == "sim-pieces" and "c1" in d["places"])


@pytest.fixture
def lance() -> Iterator[Page]:
    """A page on Lance Assembly on r1, whose tiles wait in boxes no sensor sees; its area lies
    on d4-i9."""
    with (
        ServerThread(BoardHost("r1", "lance-assembly", speed=20)) as running,
        connect(ws_url(running), max_size=2**22) as socket,
    ):
        yield Page(socket)


def boxes(pieces: dict[str, Any]) -> dict[str, int]:
    return {place: len(s) for place, s in pieces["places"].items() if place.startswith("supply:")}


def test_boxes_no_sensor_sees_are_places_a_hand_takes_from_and_puts_back(lance):
    pieces = lance.greeting()["sim-pieces"]
    assert boxes(pieces) == {"supply:A": 18, "supply:B": 18, "supply:N": 1}
    assert pieces["places"]["supply:N"][0] == {
        "id": 0,
        "kind": "N",
        "label": "N",
        "size": 1,
        "owner": None,
        "colour": "#c8c8c8",
        "single": "neutral tile N",
    }
    lance.send({"do": "lift", "args": ["supply:A"]})
    held = lance.until_type("sim-pieces")
    assert [p["kind"] for p in held["hand"]] == ["A"] and boxes(held)["supply:A"] == 17
    lance.send({"do": "put", "args": ["supply:B"]})
    assert "put: supply:B holds B, not A" in lance.until_type("note")["text"]
    lance.send({"do": "put", "args": ["d4"]})
    assert lance.until_type("move")["actions"] == ["a1"]
    lance.send({"do": "lift", "args": ["supply:B"]})
    lance.until(lambda d: d["type"] == "sim-pieces" and d["hand"])
    lance.send({"do": "put", "args": ["supply:B"]})  # changed its mind
    back = lance.until(lambda d: d["type"] == "sim-pieces" and not d["hand"])
    assert boxes(back) == {"supply:A": 17, "supply:B": 18, "supply:N": 1}
    lance.send({"do": "lift", "args": ["supply:X"]})
    assert "no box 'supply:X'" in lance.until_type("note")["text"]


@pytest.fixture
def magnetmen() -> Iterator[tuple[Page, ServerThread]]:
    """A page on a 3-player Magnetmen on r1, small board: its 6x6 area lies on d4-i9."""
    host = BoardHost("r1", "magnetmen", {"players": 3, "size": "small"}, speed=20)
    with ServerThread(host) as running, connect(ws_url(running), max_size=2**22) as socket:
        yield Page(socket), running


def test_a_page_is_sent_the_printed_overlay_and_the_seat_colours(magnetmen):
    page, server = magnetmen
    board = page.next()
    session = server.host.session
    printed = session.initial.printed
    assert board["players"] == ["A", "B", "C"]
    assert board["seat_colours"] == ["#{:02x}{:02x}{:02x}".format(*c) for c in PALETTE.players]
    pictures = {p["name"]: p for p in board["overlay"]}
    assert set(pictures) == set(printed.squares)
    on_cells = {cell: p["name"] for p in board["overlay"] for cell in p["cells"]}
    assert sorted(on_cells) == sorted(board["area"]) and len(on_cells) == 36
    assert on_cells["d4"] == printed.squares[0] and on_cells["i9"] == printed.squares[35]
    for picture in pictures.values():
        assert picture["drawing"], picture["name"]
        for shape in picture["drawing"]:
            assert shape["d"].startswith("M") and shape["width"] > 0
            assert shape["fill"] in ("ink", "paper", None)
            assert shape["stroke"] in ("ink", "paper", None)
            assert shape["fill"] or shape["stroke"]


def test_other_games_have_no_overlay_and_no_scores(page):
    board = page.next()
    assert board["overlay"] == []
    assert board["seat_colours"][0] == "#{:02x}{:02x}{:02x}".format(*SEAT_X)
    assert "sim-scores" not in page.greeting()


def test_running_scores_and_inventories_follow_the_moves(magnetmen):
    page, server = magnetmen
    got = page.greeting()
    assert got["sim-scores"]["scores"] == [0, 0, 0]
    assert got["sim-scores"]["inventories"] == [{}, {}, {}]
    assert {box: len(s) for box, s in got["sim-pieces"]["places"].items() if "supply:" in box} == {
        "supply:tokens": 36,
        "supply:tokens-turned": 36,
    }
    session = server.host.session
    printed = session.initial.printed
    first = next(i for i, name in enumerate(printed.squares) if name != "Explorer")
    cell = chr(ord("d") + first % 6) + str(4 + first // 6)
    page.send({"do": "lift", "args": ["supply:tokens"]})
    page.send({"do": "put", "args": [cell]})
    page.until_type("move")
    scores = page.until_type("sim-scores")
    assert scores["inventories"][0] == {printed.squares[first]: 1}
    assert scores["inventories"][1:] == [{}, {}]
    assert scores["scores"] == list(server.call(lambda: session.state.scores))


def test_each_collected_square_names_who_holds_it(magnetmen):
    page, server = magnetmen
    got = page.greeting()
    assert got["sim-scores"]["holders"] == []
    assert got["sim-board"]["game_trays"] == []  # its tokens wait in boxes
    session = server.host.session
    played: dict[str, int] = {}
    scores: dict[str, Any] = {}
    while len(played) < 4:
        state = server.call(lambda: session.state)
        action = state.legal_actions()[0]  # a collection, or what a power asks (a destruction)
        page.send({"do": "play", "args": [str(action)]})
        if not isinstance(action, Collect):
            page.until(lambda d, a=str(action): d.get("actions", [""])[-1:] == [a])
            continue
        played[place_label(session.profile.to_board(action.cell))] = state.to_move
        count = len(played)
        scores = page.until(lambda d, n=count: d["type"] == "sim-scores" and len(d["holders"]) == n)
    assert {h["place"]: h["seat"] for h in scores["holders"]} == played
    assert sorted(set(played.values())) == [0, 1, 2]


def test_the_led_menu_is_told_square_by_square_while_it_is_open():
    host = BoardHost("r1", "tic-tac-toe", speed=20)
    with ServerThread(host) as running, connect(ws_url(running), max_size=2**22) as socket:
        page = Page(socket)
        got = page.greeting()
        assert got["sim-leds"]["menu"] == []
        assert got["sim-board"]["game_trays"] == ["A", "B"]
        page.send({"do": "press", "args": ["menu"]})
        shown = page.until(lambda d: d["type"] == "sim-leds" and d["menu"])["menu"]
        assert shown[0] == {"place": "a1", "label": "tic-tac-toe", "at": True, "chosen": False}
        assert [s["label"] for s in shown[7:]] == [
            "brightness 0.25",
            "brightness 0.5",
            "brightness 1",
            "self-test",
        ]
        page.send({"do": "press", "args": ["seat-1"]})
        at = page.until(lambda d: d["type"] == "sim-leds" and any(s["at"] for s in d["menu"][1:2]))
        assert at["menu"][1]["label"] == "tic-tac-cap"
        page.send({"do": "press", "args": ["new"]})
        page.until(lambda d: d["type"] == "sim-leds" and d["menu"] == [])


def test_a_choice_is_made_by_its_option(server, page):
    page.greeting()
    page.send({"do": "choose", "args": ["A-Baker"]})
    assert "refused: " in page.until_type("note")["text"]


def test_no_box_where_the_game_has_none(page):
    page.greeting()
    page.send({"do": "lift", "args": ["supply:X"]})
    assert "no box 'supply:X' in tic-tac-toe (boxes: none)" in page.until_type("note")["text"]


def test_a_group_slides_together(lance):
    lance.greeting()
    for action, seat in (("a1", None), ("a2", "seat-2"), ("b1", "seat-1"), ("b2", "seat-2")):
        lance.send({"do": "play", "args": [action]})
        if seat:  # a placement after the first turn could go on: its player ends it
            lance.until_type("partial")
            lance.send({"do": "press", "args": [seat]})
        lance.until_type("move")
    for args, reason in (
        (["d4", "sideways", "1"], "usage: slide-group"),
        (["d4", "e4", "right", "far"], "usage: slide-group"),
        (["right", "1"], "usage: slide-group"),
        (["A1", "right", "1"], "only cells slide"),
        (["d4", "e5", "right", "1"], "one row"),
        (["g4", "right", "1"], "slide-group"),
    ):
        lance.send({"do": "slide-group", "args": args})
        assert reason in lance.until_type("note")["text"], args
    lance.send({"do": "slide-group", "args": ["d4", "e4", "right", "2"]})  # a1 and b1
    lance.until(lambda d: d["type"] == "sim-pieces" and {"f4", "g4"} <= set(d["places"]))
    assert "d4" not in lance.seen[-1]["places"] and "e4" not in lance.seen[-1]["places"]
    assert lance.until_type("move")["actions"] == ["a1>2:2"]  # a slide ends A's turn


@pytest.fixture
def meep() -> Iterator[Page]:
    """A page on Meep Tac Toe with two tile actions a turn on r1: game c3 is board e5, the
    tiles lie on e5-h8; A's meeples on f5, h5, e8, g8, B's on e5, g5, f8, h8."""
    host = BoardHost("r1", "meep-tac-toe", {"maneuver": "advanced"}, speed=20)
    with ServerThread(host) as running, connect(ws_url(running), max_size=2**22) as socket:
        yield Page(socket)


def test_a_page_is_sent_the_tiles_and_they_move_with_the_pieces_on_them(meep):
    pieces = meep.greeting()["sim-pieces"]
    assert pieces["tiles"] == [
        {"id": 1, "cells": ["e5", "f5", "e6", "f6"], "key": "e5"},
        {"id": 2, "cells": ["g5", "h5", "g6", "h6"], "key": "g5"},
        {"id": 3, "cells": ["e7", "f7", "e8", "f8"], "key": "e7"},
        {"id": 4, "cells": ["g7", "h7", "g8", "h8"], "key": "g7"},
    ]
    meep.send({"do": "move", "args": ["f5", "f6"]})
    assert meep.until_type("partial")["actions"] == ["d3-d4"]
    meep.send({"do": "shift-tile", "args": ["e5", "right"]})  # onto the tile beside it
    note = meep.until_type("note")["text"]
    assert note == (
        "refused: shift-tile: the tile on e5-f6 cannot shift right:"
        " it would cover the tile on g5-h6"
    )
    meep.send({"do": "shift-tile", "args": ["f6", "left"]})
    shifted = meep.until(lambda d: d["type"] == "sim-pieces" and d["tiles"] != pieces["tiles"])
    assert shifted["tiles"][0] == {"id": 1, "cells": ["d5", "e5", "d6", "e6"], "key": "d5"}
    assert [shifted["places"][c][0]["kind"] for c in ("d5", "e6")] == ["B", "A"]
    assert meep.until_type("partial")["actions"] == ["d3-d4", "Tc3<"]
    meep.send({"do": "turn-tile", "args": ["e6", "cw"]})
    turned = meep.until(lambda d: d["type"] == "sim-pieces" and d["tiles"] != shifted["tiles"])
    assert turned["tiles"][0] == {"id": 1, "cells": ["d5", "e5", "d6", "e6"], "key": "d6"}
    assert [turned["places"][c][0]["kind"] for c in ("d6", "e5")] == ["B", "A"]
    assert meep.until_type("move")["actions"] == ["d3-d4", "Tc3<", "Tb3cw"]


def test_a_tile_turned_with_nothing_on_it_is_sent_all_the_same(meep):
    meep.greeting()
    meep.send({"do": "turn-tile", "args": ["g6", "ccw"]})  # its key goes round, no piece moves
    turned = meep.until_type("sim-pieces")
    assert turned["tiles"][1] == {"id": 2, "cells": ["g5", "h5", "g6", "h6"], "key": "h5"}


def test_the_tile_games_are_offered_on_r1_with_their_options():
    games = {g["name"]: g for g in BoardHost("r1").greeting()[0].to_dict()["games"]}
    options = {o["name"]: o for o in games["meep-tac-toe"]["options"]}
    assert options["maneuver"]["choices"] == ["none", "rotate", "advanced"]
    assert options["area"]["default"] == "8x8"
    assert games["meeple-maneuver"]["title"] == "Meeple Maneuver"
    assert {o["name"] for o in games["meeple-maneuver"]["options"]} == {
        "area",
        "setup",
        "max_turns",
    }


def test_no_tiles_where_the_game_has_none(page):
    assert page.greeting()["sim-pieces"]["tiles"] == []


def test_a_page_is_told_where_the_clocks_stand_however_long_ago_they_changed():
    host = BoardHost("r1", "lance-assembly")
    for _ in range(HISTORY):  # more events than a page's log is sent, none of them the clock's
        host.handle(json.dumps({"do": "press", "args": ["seat-3"]}))
        host.session.run_for(0.2)
    greeting = [e.to_dict() for e in host.greeting()]
    assert [e["type"] for e in greeting[:3]] == ["sim-board", "clock", "button"]
    assert greeting[1] == {
        "type": "clock",
        "t": 0.0,
        "seat": 0,
        "stage": "turn",
        "turn_left": 60.0,
        "reserves": [300.0, 300.0],
    }
    assert len(greeting) == 1 + 1 + HISTORY + 2


def test_faults_are_injected_and_survived(page):
    page.greeting()
    page.send({"do": "fault", "args": ["expander-reset", "U1"]})
    page.send({"do": "fault", "args": ["bounce", "on"]})
    page.send({"do": "move", "args": ["A1", "b2"]})
    fault = page.until_type("fault")
    assert fault["kind"] == "expander-reset" and "U1" in fault["where"]
    page.until_type("move")


def test_a_new_game_is_laid_out_and_started(server, page):
    page.greeting()
    page.send({"do": "move", "args": ["A1", "b2"]})
    page.until_type("move")
    page.send({"do": "new-game", "game": "ttt", "options": {}})
    board = page.until_type("sim-board")
    assert board["game"] == "tic-tac-toe"
    page.until_type("game-started")
    pieces = page.until_type("sim-pieces")
    assert "b2" not in pieces["places"] and "A1" in pieces["places"]
    assert server.call(lambda: server.host.session.state.turn) == 0


def test_a_new_game_on_another_board(server, page):
    page.greeting()
    page.send({"do": "new-game", "board": "r1", "game": "tic-tac-toe"})
    board = page.until_type("sim-board")
    assert (board["board"], board["columns"], board["game"]) == ("r1", 12, "tic-tac-toe")
    assert "lance-assembly" in {g["name"] for g in board["games"]}
    assert board["area"][0] == "e5"  # the game's 3x3 in the middle of the lattice
    page.until_type("game-started", board="r1")
    page.send({"do": "new-game", "board": "mini", "game": "tic-tac-toe"})
    assert page.until_type("sim-board")["board"] == "mini"
    page.send({"do": "new-game", "board": "r9"})
    assert "board is one of mini, r1" in page.until_type("note")["text"]
    page.send({"do": "new-game", "board": "mini", "game": "lance-assembly"})
    assert "cannot be played on board mini" in page.until_type("note")["text"]
    assert server.call(lambda: server.host.spec.name) == "mini"


def test_the_reference_boards_and_their_games_are_listed():
    app = create_app(BoardHost("mini"))
    with local_client(app) as client:
        answer = client.get("/boards")
    assert (
        answer.status_code == 200
        and "default-src 'self'" in answer.headers["content-security-policy"]
    )
    boards = {board["name"]: board for board in answer.json()}
    assert set(boards) == {"mini", "r1"}
    for name, board in boards.items():
        games = [g["name"] for g in board["games"]]
        assert games == [g.name for g in hosted_games(load_board(name))]
        assert all("options" in g and "seats" in g for g in board["games"])


def test_the_spectator_view_is_the_same_page():
    app = create_app(BoardHost("mini"))
    with local_client(app) as client:
        assert client.get("/spectator").text == client.get("/").text


def test_rules_and_the_legend_of_the_lights_are_served_where_written():
    app = create_app(BoardHost("mini"))
    with local_client(app) as client:
        assert client.get("/rules/chess").status_code == 404
        rules = client.get("/rules/tic-tac-toe")
        lights = client.get("/rules/lights")
    if importlib.util.find_spec("magboard.firmware.rules_pages") is None:
        assert rules.status_code == lights.status_code == 404
        return
    assert rules.status_code == lights.status_code == 200
    assert rules.headers["content-type"].startswith("text/markdown")
    assert rules.text.strip() and lights.text.strip()


# What is refused.

MALFORMED = [
    ("this is not json", "not JSON"),
    ("[1, 2]", "a JSON object"),
    ('"move A1 b2"', "a JSON object"),
    ("null", "a JSON object"),
    ('{"do": "teleport", "args": []}', "unknown command 'teleport'"),
    ('{"args": ["A1"]}', "unknown command None"),
    ('{"do": "move", "args": [1, 2]}', "args are a list of words"),
    ('{"do": "move", "args": "A1 b2"}', "args are a list of words"),
    ('{"do": "move", "args": ["A1"]}', "usage: move FROM TO"),
    ('{"do": "move", "args": ["A1", "z9"]}', "no place 'z9'"),
    ('{"do": "lift", "args": ["c3"]}', "lift"),
    ('{"do": "move", "args": ["A1", "b2"], "then": "win"}', "unknown field 'then'"),
    ('{"do": "fault", "args": ["meteor"]}', "unknown fault 'meteor'"),
    ('{"do": "shift-tile", "args": ["b2", "up"]}', "shift-tile: no tile covers b2"),
    ('{"do": "turn-tile", "args": ["b2"]}', "usage: turn-tile CELL cw|ccw"),
    ('{"do": "new-game", "game": "chess"}', "chess"),
    ('{"do": "new-game", "game": 7}', "game is a name"),
    ('{"do": "new-game", "options": ["x"]}', "options is an object"),
    ('{"do": "new-game", "options": {"colour": "red"}}', "no option 'colour'"),
    ('{"do": "new-game", "board": "../r1"}', "board is one of"),
    ('{"do": "lift", "args": ["' + "A" * MAX_MESSAGE + '"]}', f"at most {MAX_MESSAGE} bytes"),
    (b"\x00\x01binary", "not binary"),
]


def test_malformed_messages_get_a_note_and_change_nothing(server, page):
    page.greeting()
    before = server.call(lambda: server.host.session.world.expected_frame())
    for message, reason in MALFORMED:
        page.send(message)
        note = page.until_type("note")
        assert note["text"].startswith("refused: ") and reason in note["text"], message
    assert server.call(lambda: server.host.session.world.expected_frame()) == before
    started = [m["type"] for m in page.seen if m["type"] in ("sim-board", "game-started")]
    assert started == ["sim-board", "game-started"]  # the greeting's, and no new game
    page.send({"do": "move", "args": ["A1", "b2"]})  # still connected, still playing
    assert page.until_type("move")["actions"] == ["b2"]


def test_games_the_board_cannot_host_are_refused(page):
    spec = BoardHost("mini").spec
    hosted = {g.name for g in hosted_games(spec)}
    others = [g.name for g in all_games() if g.name not in hosted]
    if not others:
        pytest.skip("every registered game has a profile on mini")
    page.greeting()
    page.send({"do": "new-game", "game": others[0]})
    assert "cannot be played on board mini" in page.until_type("note")["text"]


def test_a_bad_message_troubles_no_other_page(server, page):
    page.greeting()
    with connect(ws_url(server)) as socket:
        other = Page(socket)
        other.greeting()
        page.send("{garbage")
        page.until_type("note")
        page.send({"do": "move", "args": ["A1", "b2"]})
        page.until_type("move")
        other.until_type("move")
        assert not [m for m in other.seen if m["type"] == "note"]


def test_a_huge_message_closes_only_its_own_connection(server, page):
    page.greeting()
    with connect(ws_url(server), max_size=None) as socket:
        socket.send("x" * 200_000)
        with pytest.raises(ConnectionClosed):
            while True:
                socket.recv(timeout=WAIT)
    page.send({"do": "move", "args": ["A1", "b2"]})
    page.until_type("move")


# The LEDs a page is shown are the bytes on the wire.


def decoded(wire: bytes, order: str) -> str:
    """The chain's bytes as RGB hex per LED, undoing the pixel order."""
    width = len(order)
    out = []
    for i in range(0, len(wire), width):
        rgb = {c: wire[i + order.index(c)] for c in "RGB"}
        out.append(f"{rgb['R']:02x}{rgb['G']:02x}{rgb['B']:02x}")
    return "".join(out)


def test_sim_leds_are_the_captured_neopixel_bytes(server, page):
    host = server.host

    def wire() -> str:
        board = host.session.board
        return decoded(board.led_wire.last, board.spec.leds.order)

    before = server.call(wire)
    leds = page.greeting()["sim-leds"]
    assert leds["pixels"] == before == server.call(wire)
    assert any(c != "0" for c in leds["pixels"])  # the turn is shown
    page.send({"do": "move", "args": ["A1", "b2"]})
    page.until_type("move")
    quiet = server.call(lambda: (wire(), host.flush() or host._shown_leds))
    assert quiet[0] == quiet[1]
    page.until(lambda d: d["type"] == "sim-leds" and d["pixels"] == quiet[1])
    # A dead LED shows dark whatever the wire says: the page is told what the board shows.
    server.call(lambda: host.session.board.kill_led(36))
    server.call(lambda: host.session.board.kill_led(35))
    dark = page.until(lambda d: d["type"] == "sim-leds" and d["pixels"][35 * 6 :] == "0" * 12)
    assert dark["pixels"][: 35 * 6] == server.call(wire)[: 35 * 6]


# Who may connect.


def refused_code(client: TestClient, url: str, origin: str | None = None) -> int | None:
    """The close code a WebSocket upgrade is refused with, or None if it is accepted."""
    headers = {"origin": origin} if origin else {}
    try:
        with client.websocket_connect(url, headers=headers) as socket:
            assert socket.receive_json()["type"] == "sim-board"
    except WebSocketDisconnect as refused:
        return refused.code
    return None


def test_other_machines_are_refused():
    app = create_app(BoardHost("mini"))
    with TestClient(app, base_url="http://127.0.0.1:8800", client=("192.168.1.20", 5000)) as c:
        assert c.get("/").status_code == 403
        assert "--allow-remote" in c.get("/").text
        assert refused_code(c, "ws://127.0.0.1:8800/ws") == 1008


def test_other_machines_may_connect_with_allow_remote():
    app = create_app(BoardHost("mini"), allow_remote=True)
    with TestClient(app, base_url="http://192.168.1.2:8800", client=("192.168.1.20", 5000)) as c:
        assert c.get("/").status_code == 200
        assert refused_code(c, "ws://192.168.1.2:8800/ws") is None


def test_a_foreign_origin_is_refused():
    app = create_app(BoardHost("mini"))
    with local_client(app) as client:
        url = "ws://127.0.0.1:8800/ws"
        for origin in ("http://evil.example", "null", "http://127.0.0.1:9999"):
            assert refused_code(client, url, origin) == 1008, origin
        assert refused_code(client, url, "http://127.0.0.1:8800") is None
        assert refused_code(client, url) is None  # a local program, not a browser


def test_dns_rebinding_is_refused():
    """Another site's name resolved to 127.0.0.1: its origin and host agree, the host is not
    loopback."""
    app = create_app(BoardHost("mini"))
    with TestClient(app, base_url="http://evil.example:8800", client=("127.0.0.1", 5000)) as c:
        assert c.get("/").status_code == 403
        url = "ws://evil.example:8800/ws"
        assert refused_code(c, url, "http://evil.example:8800") == 1008


def test_a_real_server_refuses_a_foreign_origin(server):
    with pytest.raises(InvalidStatus) as refused, connect(ws_url(server), origin="http://evil.com"):
        pass
    assert refused.value.response.status_code == 403
    with connect(ws_url(server), origin=f"http://127.0.0.1:{server.port}") as socket:
        assert json.loads(socket.recv(timeout=WAIT))["type"] == "sim-board"


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.1", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("10.0.0.1", False),
        ("192.168.1.20", False),
        ("testclient", False),
        ("", False),
        (None, False),
    ],
)
def test_loopback_addresses(address, loopback):
    assert is_loopback(address) is loopback


def test_host_names():
    assert host_name("127.0.0.1:8800") == "127.0.0.1"
    assert host_name("[::1]:8800") == "::1"
    assert host_name("localhost") == "localhost"


def test_a_connection_without_a_client_address_is_refused():
    scope = {"type": "websocket", "client": None, "headers": [(b"host", b"127.0.0.1:8800")]}
    assert "unknown address" in refusal(scope, allow_remote=False)
    assert refusal(scope, allow_remote=True) is None


# The command.


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "70000"], "--port is 0 to 65535"),
        (["--board", "nowhere"], "no board called 'nowhere'"),
        (["--game", "chess"], "no game called 'chess'"),
        (["--option", "colour=red"], "no option 'colour'"),
        (["--speed", "0"], "--speed is above 0"),
    ],
)
def test_the_command_explains_what_it_cannot_do(argv, message, capsys):
    assert main(["sim", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_port_in_use_is_explained(capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["sim", "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1 port {port}" in capsys.readouterr().err


def test_a_new_game_against_the_board_says_so_and_the_board_opens(server, page):
    page.greeting()
    page.send({"do": "new-game", "game": "tic-tac-toe", "ai": "X:easy"})
    page.until_type("sim-board")
    assert page.until_type("note")["text"] == "the board plays X (easy)"
    move = page.until_type("move")
    assert move["player"] == 0  # the board's opening, owed until a hand makes it
    asked = page.until_type("obligation")
    assert asked["detail"] == f"the board plays X: {move['actions'][0]}: make it"
    page.send({"do": "new-game", "game": "tic-tac-toe"})  # left out: the board keeps its seat
    page.until_type("sim-board")
    assert page.until_type("note")["text"] == "the board plays X (easy)"
    page.send({"do": "new-game", "game": "tic-tac-toe", "ai": None})
    page.until_type("sim-board")
    assert server.call(lambda: server.host.session.loop.player) is None
    page.send({"do": "new-game", "game": "tic-tac-toe", "ai": "Z"})
    assert "new-game: ai 'Z': Tic-tac-toe has no seat 'z'" in page.until_type("note")["text"]
