"""The host's end of the serial link: `BoardLink`, `magboard watch` and `magboard send`, against
pyserial's loopback, a socket the test listens on, and the simulated board behind a pty."""

from __future__ import annotations

import functools
import itertools
import json
import select
import socket
import subprocess
import sys
import threading
import time

import pytest
import serial

from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.link import SerialLink
from magboard.firmware.events import (
    ButtonPressed,
    Clear,
    ClockChanged,
    Event,
    FaultSurvived,
    GameOver,
    GameStarted,
    Illegal,
    InHand,
    LedFrame,
    Moved,
    Note,
    Restored,
)
from magboard.firmware.words import Describer
from magboard.host import cli
from magboard.host import link as host_link
from magboard.host.link import BoardLink, LinkError
from magboard.host.watch import command_of
from magboard.sim.session import SimSession

DEADLINE = 5.0
"""Wall-clock seconds a test waits for bytes through the operating system, at most."""

GAME = GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O"))
MOVE = Moved(12.483, 0, ("b2",), 1)


def lines(*events: Event) -> bytes:
    return b"".join(e.to_json().encode() + b"\n" for e in events)


# BoardLink over pyserial's loopback: what is written comes back.


def test_events_are_read_and_garbage_is_skipped_and_reported():
    skipped: list[tuple[str, bytes]] = []
    with BoardLink("loop://", on_skip=lambda reason, line: skipped.append((reason, line))) as link:
        link.port.write(
            lines(GAME)
            + b"not json\n"
            + b"\xff\xfe\n"
            + b'{"type":"teleport","t":1}\n'
            + b'{"type":"move","t":1,"player":"X","actions":["b2"],"turn":1}\n'
            + b'{"do":"hello"}\n'
            + b"\n"
            + MOVE.to_json().encode()
            + b"\r\n"
        )
        events = list(link.events(timeout=0.2))
    assert events == [GAME, MOVE]
    assert link.skipped == 5
    reasons = [reason for reason, _ in skipped]
    assert reasons[0].startswith("not JSON")
    assert reasons[1:] == [
        "not UTF-8",
        "unknown event type 'teleport'",
        "move event: player cannot be 'X'",
        "unknown event type None",
    ]
    assert skipped[1][1] == b"\xff\xfe"


def test_over_long_lines_are_skipped_whole(monkeypatch):
    monkeypatch.setattr(host_link, "MAX_LINE", 100)
    skipped = []
    with BoardLink("loop://", on_skip=lambda reason, line: skipped.append(reason)) as link:
        link.port.write(b"z" * 150)
        assert list(link.events(timeout=0.1)) == []
        link.port.write(b"z" * 150 + b"\n" + lines(MOVE))
        assert list(link.events(timeout=0.1)) == [MOVE]
    assert skipped == ["a line longer than 100 bytes"]


def test_send_writes_one_json_line():
    with BoardLink("loop://") as link:
        link.send({"do": "press", "button": "seat-1"})
        assert link.port.read(100) == b'{"do":"press","button":"seat-1"}\n'


def test_events_stop_at_the_timeout():
    with BoardLink("loop://") as link:
        started = time.monotonic()
        assert list(link.events(timeout=0.1)) == []
        assert time.monotonic() - started < 0.5


@pytest.mark.parametrize("url", ["/dev/magboard-nothing-here", "nope://somewhere"])
def test_a_port_that_cannot_open_is_a_link_error(url):
    with pytest.raises(LinkError, match=f"cannot open {url}"):
        BoardLink(url)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("tcp://127.0.0.1", "no port"),
        ("tcp://127.0.0.1:", "no port"),
        ("tcp://[::1]", "no port"),
        ("tcp://:7000", "no host"),
        ("tcp://127.0.0.1:http", "the port 'http' is not a number"),
        ("tcp://127.0.0.1:99999", "the port 99999 is above 65535"),
        ("socket://127.0.0.1", "no port"),
    ],
)
def test_a_malformed_address_says_what_is_missing(capsys, url, problem):
    status = cli.main(["send", url, "hello"])
    out, err = capsys.readouterr()
    scheme = url.split("//")[0]
    assert status == 2 and out == ""
    assert err == f"magboard: link {url!r}: {problem} (expected {scheme}//HOST:PORT)\n"


# Readable lines.


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (MOVE, "12.48 X played b2"),
        (Moved(3.0, 1, ("pass",), 4, 0), "3.00 O passed"),
        (
            Illegal(4.2, 1, ("b2",), ("A4",), "no legal move gives this board"),
            "4.20 Not legal: no legal move gives this board. To put it right: take the piece"
            " off b2; put a piece back in X's tray",
        ),
        (
            InHand(1.3, 0, ("supply:X",), ("a1", "b2")),
            "1.30 X lifted a piece from X's tray: put the piece down on a1, b2",
        ),
        (Restored(5.1), "5.10 The board matches the game again"),
        (
            GameOver(9.0, (0,), ("X",), "three in a row", ("a1", "b2", "c3")),
            "9.00 Game over: X wins: three in a row (a1, b2, c3)",
        ),
        (GameOver(9.0, (), (), "board full"), "9.00 Game over: a draw: board full"),
        (
            FaultSurvived(1.0, "link-error", "/dev/ttyGS0", "gone"),
            "1.00 Fault survived: link-error at /dev/ttyGS0: gone",
        ),
        (ButtonPressed(2.5, "seat-1", True), "2.50 The seat-1 button pressed"),
        (Note(0.5, "refused: not JSON"), "0.50 refused: not JSON"),
        (LedFrame(0.0, "000000ff0000000000"), "0.00 leds: 1 of 3 lit"),
        (
            ClockChanged(3.0, 1, "turn", 60.0, (300.0, 245.0)),
            "3.00 O's clock: 60 s to play, then 245 s in reserve",
        ),
        (
            ClockChanged(9.0, 0, "reserve", 0.0, (280.4, 300.0)),
            "9.00 X's turn time is up: the reserve runs",
        ),
        (ClockChanged(9.5, 0, "flag", 0.0, (0.0, 300.0)), "9.50 X's time ran out"),
        (ClockChanged(9.5, None, "stopped", 0.0, (0.0, 300.0)), "9.50 The clocks stopped"),
        (Clear(4.0, ("b2",), ()), "4.00 Before the next game: take the piece off b2"),
    ],
)
def test_events_read_as_one_line_each(event, text):
    describe = Describer()
    assert describe(GAME) == "0.00 New game of Tic-tac-toe on mini: X against O"
    assert describe(event) == text


def test_send_words_become_commands():
    assert command_of("press", ["seat-1"]) == {"do": "press", "button": "seat-1"}
    assert command_of("new-game", []) == {"do": "new-game"}
    with pytest.raises(CommandError, match="usage: magboard send URL press BUTTON"):
        command_of("press", [])
    with pytest.raises(CommandError, match="no command 'launch'"):
        command_of("launch", [])


@pytest.mark.parametrize(
    "argv",
    [
        ["watch", "/dev/magboard-nothing-here"],
        ["send", "/dev/magboard-nothing-here", "hello"],
        ["send", "loop://", "press"],
        ["send", "loop://", "launch", "now"],
    ],
)
def test_command_errors_are_one_line(capsys, argv):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    assert status == 2
    assert err.startswith("magboard: ") and len(err.splitlines()) == 1
    assert out == ""


# Against a board: the simulated one behind a pty, and a socket the test listens on.


@pytest.fixture
def board():
    session = SimSession("mini", "tic-tac-toe")
    link = SerialLink("pty", session.loop)
    session.lay_out()
    session.start()
    yield session, link
    link.close()


def until(session: SimSession, host: BoardLink, done) -> list[Event]:
    """Runs the board and reads the host until `done(events)`; returns what the host read."""
    seen: list[Event] = []
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        session.run_for(0.02)
        seen += host.events(timeout=0)
        if done(seen):
            return seen
    raise AssertionError(f"the board did not answer in time: {seen}")


def test_the_host_drives_the_simulated_board(board):
    session, link = board
    with BoardLink(link.pty_path) as host:
        host.send({"do": "hello"})
        seen = until(session, host, lambda es: any(isinstance(e, Note) for e in es))
        assert [e.text for e in seen if isinstance(e, Note)] == [
            "hello: board mini, game tic-tac-toe, protocol 1"
        ]
        host.send({"do": "press", "button": "seat-1"})
        seen = until(session, host, lambda es: len(es) >= 2)
        assert [(e.button, e.pressed) for e in seen if isinstance(e, ButtonPressed)] == [
            ("seat-1", True),
            ("seat-1", False),
        ]
        session.perform(session.state.parse_action("b2"))
        session.settle()
        host.send({"do": "new-game"})
        seen = until(session, host, lambda es: any(isinstance(e, GameStarted) for e in es))
        assert [e.actions for e in seen if isinstance(e, Moved)] == [("b2",)]
        host.send({"do": "launch"})
        seen = until(session, host, lambda es: any(isinstance(e, Note) for e in es))
        notes = [e.text for e in seen if isinstance(e, Note)]
        assert notes == [
            "refused: unknown command 'launch' (commands: hello, state, press, choose, new-game)"
        ]
        host.send({"do": "state"})
        seen = until(session, host, lambda es: any(isinstance(e, GameStarted) for e in es))
        state = [e for e in seen if isinstance(e, GameStarted)]
        assert state[0].game == "tic-tac-toe" and state[0].actions == session.referee.actions_played


def pumping(session: SimSession, link: SerialLink):
    """Runs the board in the background until stopped, a step whenever the host writes and
    at least every 10 ms (of wall time: the board's virtual time keeps pace with it)."""
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set():
            select.select([link.fileno()], [], [], 0.01)
            session.run_for(0.01)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return stop, thread


@pytest.mark.parametrize("json_lines", [False, True])
def test_magboard_send_prints_the_replies(board, capsys, json_lines):
    session, link = board
    stop, thread = pumping(session, link)
    try:
        argv = ["send", link.pty_path, "press", "seat-1", "--wait", "0.5"]
        status = cli.main(argv + (["--json"] if json_lines else []))
    finally:
        stop.set()
        thread.join()
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    if json_lines:
        events = [json.loads(line) for line in out.splitlines()]
        assert [e["type"] for e in events if e["type"] != "leds"] == ["button", "button"]
    else:
        assert [line.split(" ", 1)[1] for line in out.splitlines()] == [
            "The seat-1 button pressed",
            "The seat-1 button released",
        ]


def test_magboard_send_exits_1_and_says_so_when_the_board_refuses(board, capsys):
    session, link = board
    stop, thread = pumping(session, link)
    try:
        status = cli.main(["send", link.pty_path, "press", "seat-9", "--wait", "0.5"])
    finally:
        stop.set()
        thread.join()
    out, err = capsys.readouterr()
    assert status == 1
    assert "refused: press: no button 'seat-9' on board mini" in out
    assert err.startswith("magboard: the board refused the command: press: no button 'seat-9'")
    assert len(err.splitlines()) == 1


def serve(monkeypatch, send: bytes, wait_for_close: bool):
    """A board at the other end of a socket: once the host has opened it (pyserial empties a
    socket as it opens it), sends `send`, then (if told to) stays until the host closes the
    connection. Returns the URL and the thread."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(DEADLINE)
    opened = threading.Event()
    serial_for_url = serial.serial_for_url

    def opening(*args, **kwargs):
        port = serial_for_url(*args, **kwargs)
        opened.set()
        return port

    monkeypatch.setattr(serial, "serial_for_url", opening)

    def board() -> None:
        conn, _ = server.accept()
        opened.wait(DEADLINE)
        conn.sendall(send)
        conn.settimeout(DEADLINE)
        while wait_for_close and conn.recv(100):
            pass
        conn.close()
        server.close()

    thread = threading.Thread(target=board, daemon=True)
    thread.start()
    return f"socket://127.0.0.1:{server.getsockname()[1]}", thread


@pytest.mark.parametrize("json_lines", [False, True])
def test_magboard_watch_prints_the_events(capsys, monkeypatch, json_lines):
    leds = LedFrame(13.0, "ffffff")
    url, thread = serve(
        monkeypatch, lines(GAME, MOVE) + b"garbage\n" + lines(leds), wait_for_close=True
    )
    status = cli.main(["watch", url, "--for", "0.3"] + (["--json"] if json_lines else []))
    thread.join()
    out, err = capsys.readouterr()
    assert status == 0
    if json_lines:
        assert out.splitlines() == [GAME.to_json(), MOVE.to_json(), leds.to_json()]
    else:
        assert out.splitlines() == [
            "0.00 New game of Tic-tac-toe on mini: X against O",
            "12.48 X played b2",
        ]
    assert err.startswith("skipped a line that is not an event (not JSON")
    assert len(err.splitlines()) == 1


class RestartingBoard:
    """A board behind a TCP listener that restarts: each life listens on the same port, takes
    one host, sends it `send` once the host has opened the port (pyserial empties a socket as
    it opens it), then stops listening and hangs up, as a board going down does."""

    def __init__(self, monkeypatch) -> None:
        self.port = 0
        self.opened = threading.Event()
        self.threads: list[threading.Thread] = []
        serial_for_url = serial.serial_for_url

        def opening(*args, **kwargs):
            port = serial_for_url(*args, **kwargs)
            self.opened.set()
            return port

        monkeypatch.setattr(serial, "serial_for_url", opening)

    @property
    def url(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def start(self, send: bytes) -> None:
        server = socket.create_server(("127.0.0.1", self.port))
        server.settimeout(DEADLINE)
        self.port = server.getsockname()[1]
        self.opened.clear()

        def life() -> None:
            conn, _ = server.accept()
            server.close()  # down before it hangs up: a host that tries again is refused
            self.opened.wait(DEADLINE)
            conn.sendall(send)
            conn.close()

        thread = threading.Thread(target=life, daemon=True)
        thread.start()
        self.threads.append(thread)


def test_magboard_watch_carries_on_when_the_board_restarts(capsys, monkeypatch):
    """Lost once, said once; tried again with waits that double up to a cap; said when back;
    Ctrl-C (here, during a wait) ends it as ever."""
    from magboard.host import watch

    board = RestartingBoard(monkeypatch)
    board.start(lines(GAME))
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # instead of waiting: the board comes back, or Ctrl-C
        waits.append(seconds)
        if len(waits) == 7:
            board.start(lines(MOVE))
        elif len(waits) == 8:
            raise KeyboardInterrupt

    monkeypatch.setattr(watch, "main", functools.partial(watch.main, sleep=sleep))
    status = cli.main(["watch", board.url])
    for thread in board.threads:
        thread.join(DEADLINE)
    out, err = capsys.readouterr()
    assert status == 130
    assert out.splitlines() == [
        "0.00 New game of Tic-tac-toe on mini: X against O",
        "12.48 X played b2",
    ]
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 0.5]
    said = err.splitlines()
    assert len(said) == 3
    assert said[0].startswith("magboard: lost the board (link ") and "trying again" in said[0]
    assert said[1] == f"magboard: the board is back at {board.url}"
    assert said[2].startswith("magboard: lost the board (link ")


@pytest.mark.slow
def test_magboard_run_sim_link_pty_end_to_end(tmp_path):
    """The whole thing as people type it: a simulated board on a pty, then `magboard send`."""
    board = subprocess.Popen(
        [
            *(sys.executable, "-m", "magboard.host.cli", "run", "--sim", "--board", "mini"),
            *("--journal", str(tmp_path / "magboard.db"), "--link", "pty"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = json.loads(board.stdout.readline())
        assert first["type"] == "note" and first["text"].startswith("link: /dev/")
        path = first["text"].split()[1]
        drain = threading.Thread(target=board.stdout.read, daemon=True)  # never a full pipe
        drain.start()
        done = subprocess.run(
            [sys.executable, "-m", "magboard.host.cli", "send", path, "hello"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stderr
        assert "hello: board mini, game tic-tac-toe, protocol 1" in done.stdout
    finally:
        board.stdin.close()
        assert board.wait(timeout=30) == 0


def test_the_waits_to_reopen_a_lost_link_double_up_to_a_cap():
    from magboard.host.follow import Backoff

    assert list(itertools.islice(Backoff(0.5, 3.0).waits(), 6)) == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
