"""The board's end of the serial link, on the simulated board in virtual time: events out as JSON
lines, commands in, garbage refused, and a host that misbehaves never stopping the loop.

The host end is a pseudo-terminal opened by its path, a socket, or an in-memory port. Where the
operating system carries the bytes (a pty, a socket), tests poll with a deadline.
"""

from __future__ import annotations

import json
import os
import re
import select
import socket
import time
from collections.abc import Callable

import pytest
import serial
from stones import StonesState, stones, stones_profile

from magboard.firmware.app import wiring
from magboard.firmware.app.link import LinkURLError, SerialLink
from magboard.firmware.app.loop import BoardLoop
from magboard.firmware.events import (
    ButtonPressed,
    Event,
    FaultSurvived,
    GameStarted,
    LedFrame,
    Moved,
    Note,
    Partial,
    event_from_json,
)
from magboard.firmware.journal import Journal
from magboard.firmware.referee import Referee
from magboard.hardware.spec import Slot, load_board
from magboard.host import cli
from magboard.sim.board import SimBoard
from magboard.sim.session import SimSession
from magboard.sim.world import PieceKind as WorldKind
from magboard.sim.world import World

DEADLINE = 5.0
"""Wall-clock seconds a test waits for bytes through the operating system, at most."""


class PtyHost:
    """A host on the far end of a `pty` link: the slave opened by its path, as a tool would."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self._buffer = b""
        self.events: list[Event] = []

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def command(self, **fields: object) -> None:
        self.write(json.dumps(fields).encode() + b"\n")

    def read(self, wait: float = 0.002) -> None:
        while select.select([self.fd], [], [], wait)[0]:
            try:
                self._buffer += os.read(self.fd, 65536)
            except BlockingIOError:
                break
            wait = 0
        *lines, self._buffer = self._buffer.split(b"\n")
        self.events += [event_from_json(line.decode()) for line in lines]

    def notes(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, Note)]

    def close(self) -> None:
        os.close(self.fd)


class SocketHost(PtyHost):
    """A host that listens on a socket the board connects to."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        conn.setblocking(False)
        self.fd = conn.fileno()
        self._buffer = b""
        self.events = []

    def close(self) -> None:
        self.conn.close()


def pump(step: Callable[[], None], host: PtyHost | None, done: Callable[[], bool]) -> None:
    """Runs the board a little at a time until `done`, reading what the host was sent."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        step()
        if host is not None:
            host.read()
        if done():
            return
    raise AssertionError("the board did not get there in time")


def plain(events: list[Event]) -> list[str]:
    """As JSON lines, without LED frames (a link sends only the latest when it is busy)."""
    return [e.to_json() for e in events if not isinstance(e, LedFrame)]


def without_time(event: Event) -> dict:
    data = event.to_dict()
    del data["t"]
    return data


@pytest.fixture
def board(tmp_path):
    session = SimSession("mini", "tic-tac-toe", journal=tmp_path / "magboard.db")
    link = SerialLink("pty", session.loop)
    session.lay_out()
    session.start()
    host = PtyHost(link.pty_path)
    yield session, link, host
    host.close()
    link.close()


def run(session: SimSession) -> Callable[[], None]:
    return lambda: session.run_for(0.02)


def play(session: SimSession, move: str) -> None:
    session.perform(session.state.parse_action(move))
    session.settle()


def test_events_reach_the_host_as_the_schema(board):
    session, link, host = board
    assert session.events[0] == Note(0.0, f"link: {link.pty_path} (magboard watch {link.pty_path})")
    play(session, "b2")
    pump(run(session), host, lambda: any(isinstance(e, Moved) for e in host.events))
    assert plain(host.events) == plain(session.events)
    assert [e.actions for e in host.events if isinstance(e, Moved)] == [("b2",)]
    leds = [e for e in host.events if isinstance(e, LedFrame)]
    assert (
        leds
        and leds[-1].pixels == [e for e in session.events if isinstance(e, LedFrame)][-1].pixels
    )


def test_hello_and_state_answer_the_host_only(board, tmp_path):
    session, _link, host = board
    play(session, "b2")
    before = list(session.events)
    host.command(do="hello")
    host.command(do="state")
    pump(
        run(session), host, lambda: any(e.TYPE == "game-started" and e.actions for e in host.events)
    )
    assert "hello: board mini, game tic-tac-toe, protocol 1" in host.notes()
    state = [e for e in host.events if isinstance(e, GameStarted)][-1]
    assert (state.game, state.board, state.players, state.actions) == (
        "tic-tac-toe",
        "mini",
        ("X", "O"),
        ("b2",),
    )
    assert plain(session.events) == plain(before), "answers are not board events"
    assert Journal(tmp_path / "magboard.db").load().actions == ("b2",)


def test_a_virtual_press_is_the_physical_button(board, monkeypatch):
    session, _link, host = board
    pressed = []
    original = session.referee.press
    monkeypatch.setattr(
        session.referee,
        "press",
        lambda b, now, raw=None: (pressed.append(b), original(b, now, raw)),
    )
    host.command(do="press", button="seat-2")
    pump(run(session), host, lambda: pressed == ["seat-2"])
    virtual = [e for e in session.events if isinstance(e, ButtonPressed)]
    session.world.press("seat-2")
    session.run_for(0.5)
    physical = [e for e in session.events if isinstance(e, ButtonPressed)][len(virtual) :]
    assert pressed == ["seat-2", "seat-2"]
    assert [without_time(e) for e in virtual] == [without_time(e) for e in physical]
    assert [(e.button, e.pressed) for e in virtual] == [("seat-2", True), ("seat-2", False)]
    pump(run(session), host, lambda: len(plain(host.events)) == len(plain(session.events)))
    assert plain(host.events) == plain(session.events)


def test_new_game_restarts_as_the_new_button_does(board):
    session, _link, host = board
    play(session, "b2")
    host.command(do="new-game")
    pump(run(session), host, lambda: len([e for e in host.events if e.TYPE == "game-started"]) == 2)
    assert [e.actions for e in session.events if isinstance(e, GameStarted)] == [(), ()]
    assert not any(isinstance(e, ButtonPressed) for e in session.events), "a command, no button"


GARBAGE = [
    (b"\xff\xfe{}", "not UTF-8"),
    (b"hello", "not JSON"),
    (b'{"do": "hello"', "not JSON"),
    (b"[" * 1000, "not JSON"),
    (b"[1, 2]", "a command is a JSON object"),
    (b'"hello"', "a command is a JSON object"),
    (b"{}", "a command says what to do"),
    (b'{"type":"move","t":1.0,"player":0,"actions":["b2"],"turn":1}', "a command says"),
    (b'{"do": "fly"}', "unknown command 'fly' (commands: hello, state, press, choose, new-game)"),
    (b'{"do": 3}', "unknown command 3"),
    (b'{"do": "hello", "please": true}', "hello: unknown field 'please'"),
    (b'{"do": "new-game", "board": "r1"}', "new-game: unknown field 'board'"),
    (b'{"do": "new-game", "game": "chess"}', "new-game: no game called 'chess'"),
    (b'{"do": "press"}', "press: which button?"),
    (b'{"do": "press", "button": 1}', "press: no button 1 on board mini"),
    (
        b'{"do": "press", "button": "seat-9"}',
        "press: no button 'seat-9' on board mini (buttons: seat-1, seat-2, new)",
    ),
    (b"x" * 5000, "a line longer than 1024 bytes"),
    (b'{"do": "hello"}' + b" " * 1100, "a line longer than 1024 bytes"),
]


@pytest.mark.parametrize(("line", "reason"), GARBAGE)
def test_garbage_is_refused_and_the_next_command_works(board, line, reason):
    session, _link, host = board
    play(session, "b2")
    before = list(session.events)
    host.write(line + b"\n" + b'{"do": "hello"}\n')
    pump(run(session), host, lambda: any(n.startswith("hello:") for n in host.notes()))
    notes = host.notes()
    assert notes[-2].startswith(f"refused: {reason}")
    assert notes[-1].startswith("hello:")
    assert sum(n.startswith("refused:") for n in notes) == 1
    assert plain(session.events) == plain(before)
    assert session.referee.actions_played == ("b2",)


def test_a_long_line_over_many_reads_is_cut_and_refused_once(board):
    session, _link, host = board
    for _ in range(5):
        host.write(b"y" * 700)
        pump(run(session), host, lambda: True)
    host.write(b'y"}\r\n\r\n{"do": "hello"}\r\n')
    pump(run(session), host, lambda: any(n.startswith("hello:") for n in host.notes()))
    assert host.notes()[-2:] == [
        "refused: a line longer than 1024 bytes",
        "hello: board mini, game tic-tac-toe, protocol 1",
    ]


MINI = load_board("mini")


def stones_board():
    """The stones game refereed on a simulated mini board, pieces in the trays, with a link."""
    profile = stones_profile(MINI)
    board = SimBoard(MINI)
    world = World(board, 0)
    a_stone = profile.kinds[0]  # B's stones wait in a box no sensor sees
    for slot in range(1, 5):
        world.add(WorldKind(a_stone.name, a_stone.signature), Slot("A", slot))
    events: list[Event] = []
    loop = BoardLoop(
        board,
        Referee(profile, StonesState(), events.append),
        [events.append],
        referee_for=wiring.referee_for,
    )
    link = SerialLink("pty", loop)
    loop.start()
    return loop, world, events, link


@pytest.mark.parametrize("how", ["virtual", "physical"])
def test_a_virtual_press_ends_a_partial_turn_as_the_button_does(how):
    loop, world, events, link = stones_board()
    host = PtyHost(link.pty_path)
    try:
        world.move(Slot("A", 1), (0, 0))
        loop.run_until(loop.board.clock.now() + 1.0)
        assert [e for e in events if isinstance(e, Partial)][-1].actions == ("a1",)
        if how == "virtual":
            host.command(do="press", button="seat-1")
        else:
            world.press("seat-1")

        def step():
            loop.run_until(loop.board.clock.now() + 0.02)

        def released() -> bool:
            return any(isinstance(e, ButtonPressed) and not e.pressed for e in host.events)

        pump(step, host, released)
        after = [e for e in events if not isinstance(e, LedFrame)][-3:]
        assert [without_time(e) for e in after] == [
            without_time(ButtonPressed(0, "seat-1", True)),
            without_time(Moved(0, 0, ("a1", "end"), 1, 1)),
            without_time(ButtonPressed(0, "seat-1", False)),
        ]
        assert loop.referee.position == stones("a1", "end")
        assert [e.actions for e in host.events if isinstance(e, Moved)] == [("a1", "end")]
    finally:
        host.close()
        link.close()


# A host that goes away, a link that will not open, a host that does not read.


def test_a_host_that_disconnects_is_a_fault_and_the_link_reopens():
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(DEADLINE)
    url = f"socket://127.0.0.1:{server.getsockname()[1]}"
    session = SimSession("mini", "tic-tac-toe")
    link = SerialLink(url, session.loop, retry=1.0)
    session.lay_out()
    session.start()
    first = SocketHost(server.accept()[0])
    pump(run(session), first, lambda: any(e.TYPE == "game-started" for e in first.events))
    first.close()
    pump(run(session), None, lambda: not link.connected)
    faults = [e for e in session.events if isinstance(e, FaultSurvived)]
    assert [(f.kind, f.where) for f in faults] == [("link-error", url)]
    play(session, "b2")  # the board goes on refereeing
    server.setblocking(False)
    accepted: list[socket.socket] = []

    def reconnected() -> bool:
        try:
            accepted.append(server.accept()[0])
        except BlockingIOError:
            return False
        return True

    pump(run(session), None, reconnected)
    second = SocketHost(accepted[0])
    pump(run(session), second, lambda: any(e.TYPE == "game-started" for e in second.events))
    missed = [n for n in second.notes() if n.startswith("link: open again")]
    assert missed and re.fullmatch(r"link: open again; \d+ events? not sent meanwhile", missed[0])
    assert [e.actions for e in second.events if isinstance(e, GameStarted)] == [("b2",)]
    assert len([e for e in session.events if isinstance(e, FaultSurvived)]) == 1
    assert [e.actions for e in session.events if isinstance(e, Moved)] == [("b2",)]
    second.close()
    link.close()
    server.close()


class MemoryPort:
    """A port in memory, with no file descriptor: a host that may stop reading."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.outgoing = bytearray()
        self.reading = True
        self.closed = False
        self.broken = False

    def read(self, size: int) -> bytes:
        if self.broken:
            raise OSError(5, "Input/output error")
        data = bytes(self.incoming[:size])
        del self.incoming[:size]
        return data

    def write(self, data: bytes) -> int:
        if not self.reading:
            return 0
        self.outgoing += data
        return len(data)

    def close(self) -> None:
        self.closed = True

    def events(self) -> list[Event]:
        return [event_from_json(line) for line in self.outgoing.decode().splitlines()]


def test_a_link_that_will_not_open_is_reported_once_and_retried():
    port = MemoryPort()
    attempts: list[str] = []

    def opener(url: str):
        attempts.append(url)
        if len(attempts) < 4:
            raise serial.SerialException(f"could not open port {url}")
        return port

    session = SimSession("mini", "tic-tac-toe")
    link = SerialLink("/dev/ttyGS0", session.loop, opener=opener, retry=2.0)
    session.lay_out()
    session.start()
    session.run_for(1.9)
    assert len(attempts) == 1, "not before the retry interval"
    play(session, "b2")
    pump(run(session), None, lambda: link.connected)
    assert len(attempts) == 4
    faults = [e for e in session.events if isinstance(e, FaultSurvived)]
    assert [(f.kind, f.where) for f in faults] == [("link-error", "/dev/ttyGS0")]
    assert "could not open port /dev/ttyGS0; trying again every 2 s" in faults[0].detail
    sent = port.events()
    assert sent[0].TYPE == "note" and sent[0].text.startswith("link: open again; ")
    assert sent[1].TYPE == "game-started" and sent[1].actions == ("b2",)
    session.run_for(3.0)  # back for longer than a retry interval: the outage is over
    port.broken = True
    session.run_for(0.1)
    details = [e.detail for e in session.events if isinstance(e, FaultSurvived)]
    assert details[1:] == ["[Errno 5] Input/output error; trying again every 2 s"]
    link.close()


def test_a_host_that_does_not_read_loses_events_not_the_loop():
    port = MemoryPort()
    port.reading = False
    session = SimSession("mini", "tic-tac-toe")
    link = SerialLink("memory", session.loop, opener=lambda url: port, max_pending=2000)
    session.lay_out()
    session.start()
    port.incoming += b'{"do": "hello"}\n' * 100
    session.run_for(0.5)
    play(session, "b2")
    assert [e.actions for e in session.events if isinstance(e, Moved)] == [("b2",)]
    assert link.dropped > 50
    dropped = link.dropped
    port.reading = True
    session.run_for(0.1)
    notes = [e.text for e in port.events() if isinstance(e, Note)]
    assert notes[-1] == f"link: {dropped} events dropped: the host was not reading them"
    assert 0 < sum(n.startswith("hello:") for n in notes) < 100
    link.close()


def test_a_full_pty_never_blocks_the_loop(board):
    session, link, host = board
    started = time.monotonic()
    for i in range(4000):
        link.send(Note(session.clock.now(), f"filler {i:04d} " + "." * 100))
    assert time.monotonic() - started < 2.0
    assert link.dropped > 0
    dropped = link.dropped
    note = f"link: {dropped} events dropped: the host was not reading them"
    pump(run(session), host, lambda: note in host.notes())
    fillers = [n for n in host.notes() if n.startswith("filler")]
    assert len(fillers) == 4000 - dropped
    assert fillers == sorted(fillers), "what is sent arrives whole and in order"


def test_a_link_url_that_can_never_open_is_refused():
    session = SimSession("mini", "tic-tac-toe")
    with pytest.raises(LinkURLError, match="nope"):
        SerialLink("nope://somewhere", session.loop)
    assert session.loop.sinks == [session.events.append]
    assert session.loop.inputs == []


def test_run_with_a_bad_link_says_so_in_one_line(capsys, tmp_path):
    argv = ["run", "--sim", "--board", "mini", "--journal", str(tmp_path / "magboard.db")]
    status = cli.main([*argv, "--link", "nope://somewhere"])
    _out, err = capsys.readouterr()
    assert status == 2
    assert err.startswith("magboard: link 'nope://somewhere': ")
    assert len(err.splitlines()) == 1


def test_whatever_a_port_raises_is_a_link_error_not_the_loops():
    """Reported once, though every reopened port fails again at once."""

    class Broken(MemoryPort):
        def read(self, size: int) -> bytes:
            raise RuntimeError("the driver tripped over itself")

    session = SimSession("mini", "tic-tac-toe")
    SerialLink("odd", session.loop, opener=lambda url: Broken(), retry=1.0)
    session.lay_out()
    session.start()
    session.run_for(5.0)
    play(session, "b2")
    faults = [e for e in session.events if isinstance(e, FaultSurvived)]
    assert [(f.kind, f.detail) for f in faults] == [
        ("link-error", "the driver tripped over itself; trying again every 1 s")
    ]
    assert [e.actions for e in session.events if isinstance(e, Moved)] == [("b2",)]
