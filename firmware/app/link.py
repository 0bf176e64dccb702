"""The board's end of the serial link: every event goes out as one JSON line, commands come in.

The link is whatever pyserial opens from a URL: a real port (`/dev/ttyGS0`, the Pi's USB gadget
serial; `/dev/ttyAMA0`, its UART), `socket://host:port` or `tcp://host:port` (a client),
`listen://host:port` (a listener any number of hosts connect to, so `magboard watch` and `magboard
send` can share one board), or `pty`, a pseudo-terminal pair whose other end a host opens by its
path (one host at a time: two readers of one terminal split its bytes between them). It never
blocks or stops the loop: reads and writes are non-blocking and polled once a loop step, a host
that does not read loses events (counted and reported), and a link that fails is reported once as a
`fault` and reopened every few seconds while the board goes on refereeing.

Commands are JSON objects, one a line (docs/protocol.md, "Serial link"): `hello`, `state`,
`press` (a virtual button, the same as the physical one), `choose` (a choice the rules leave to
a player) and `new-game`. Anything else is
answered with a `note` whose text begins "refused:", and nothing changes.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import tty
from collections.abc import Callable
from typing import Any, Protocol

import serial

from magboard.firmware.events import REFUSED, Event, FaultSurvived, GameStarted, LedFrame, Note

from .commands import Link, Refused, decoded, new_game_of, read, short, start
from .loop import BoardLoop

BAUD = 115200
PROTOCOL = 1
"""The link protocol's version, said in the answer to `hello`."""
MAX_LINE = 1024
"""Longest command line in bytes; the rest of a longer one is discarded."""
READ_CHUNK = 4096
"""Most bytes read in one poll, so a flooding host cannot hold up the loop."""
MAX_PENDING = 64 * 1024
"""Most bytes of events waiting for the host; beyond this, events are dropped and counted."""
RETRY = 2.0
"""Seconds between attempts to reopen a failed link."""
POLL = 0.05
"""On a real board, the longest the loop waits between two polls of the link."""
PTY = "pty"
"""The URL that asks for a pseudo-terminal pair."""
LISTEN = "listen://"
"""The scheme that asks for a TCP listener that many hosts may connect to at once."""
TCP = "tcp://"
"""Another spelling of pyserial's `socket://`, the one people expect."""
MAX_CLIENTS = 8
"""Most hosts connected to a listener at once; a further one is turned away."""


class LinkURLError(ValueError):
    """A link URL no port can be opened from, ever (an unknown scheme, a malformed address)."""


class Port(Protocol):
    """What the link needs of a port: pyserial's ports and `PtyPort` both have it."""

    def read(self, size: int) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


class PtyPort:
    """A pseudo-terminal pair: the board keeps the master end, a host opens `path` (the slave)
    like any serial port. The board holds the slave open too, so the pair survives hosts coming
    and going; what a host does not read stays in the terminal's buffer until it is full."""

    def __init__(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line editing, no newline translation
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)

    def fileno(self) -> int:
        return self._master

    def read(self, size: int) -> bytes:
        try:
            return os.read(self._master, size)
        except BlockingIOError:
            return b""

    def write(self, data: bytes) -> int:
        try:
            return os.write(self._master, data)
        except BlockingIOError:
            return 0

    def close(self) -> None:
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class ListenPort:
    """A TCP listener: every connected host gets every line the board sends, and the lines any
    of them sends are read whole, one host's at a time, so `watch` and `send` can share a board.
    A host that leaves, or stops reading until MAX_PENDING bytes wait for it, is dropped; the
    link itself never fails for what one host does."""

    def __init__(self, host: str, port: int, *, max_pending: int = MAX_PENDING) -> None:
        self.max_pending = max_pending
        self._server = socket.create_server((host, port))
        self._server.setblocking(False)
        host_name, number = self._server.getsockname()[:2]
        self.address = f"{host_name}:{number}"
        self._clients: dict[socket.socket, _Host] = {}

    @property
    def clients(self) -> int:
        return len(self._clients)

    def read(self, size: int) -> bytes:
        """Whole lines the hosts sent; new hosts are let in first. The start of a line longer
        than MAX_LINE is passed on cut off there, ended, for the link to refuse, and the rest of
        it is discarded here, so it cannot run into another host's line."""
        self._accept()
        self._send_waiting()
        lines = bytearray()
        for client, host in list(self._clients.items()):
            try:
                data = client.recv(size)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                self._drop(client)
                continue
            if not data:
                self._drop(client)
                continue
            lines += host.take(data)
        return bytes(lines)

    def write(self, data: bytes) -> int:
        """Takes all of `data` for every host; what a host cannot take now waits for it."""
        for client, host in list(self._clients.items()):
            host.out += data
            if len(host.out) > self.max_pending:
                self._drop(client)
        self._send_waiting()
        return len(data)

    def close(self) -> None:
        for client in list(self._clients):
            self._drop(client)
        self._server.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except (BlockingIOError, InterruptedError):
                return
            if len(self._clients) >= MAX_CLIENTS:
                client.close()
                continue
            client.setblocking(False)
            self._clients[client] = _Host()

    def _send_waiting(self) -> None:
        for client, host in list(self._clients.items()):
            out = host.out
            if not out:
                continue
            try:
                sent = client.send(out)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                self._drop(client)
                continue
            del out[:sent]

    def _drop(self, client: socket.socket) -> None:
        self._clients.pop(client, None)
        _close_quietly(client)


class _Host:
    """One host on a listener: the bytes it sent not yet ending a line, and those waiting for
    it."""

    def __init__(self) -> None:
        self.inbox = bytearray()
        self.out = bytearray()
        self.discarding = False
        """The start of an over-long line was passed on: skip to its end."""

    def take(self, data: bytes) -> bytes:
        """The whole lines `data` completes, an over-long one cut off and ended."""
        inbox, whole = self.inbox, bytearray()
        inbox += data
        while True:
            end = inbox.find(b"\n")
            if end < 0:
                if len(inbox) > MAX_LINE:
                    if not self.discarding:
                        whole += inbox[: MAX_LINE + 1] + b"\n"
                    self.discarding = True
                    inbox.clear()
                return bytes(whole)
            if not self.discarding:
                whole += inbox[: min(end, MAX_LINE + 1)] + b"\n"
            self.discarding = False
            del inbox[: end + 1]


def address(url: str, scheme: str) -> tuple[str, int]:
    """The host and port of `scheme` HOST:PORT, or the LinkURLError naming what is wrong with
    it (a person typed it: "no port" helps more than a socket library's type error)."""
    rest = url[len(scheme) :]
    host, sep, port = rest.rpartition(":")
    if not sep or rest.endswith("]"):  # nothing after the host, [::1] included
        problem = "no port"
    elif not host:
        problem = "no host"
    elif not port.isdigit():
        problem = f"the port {port!r} is not a number" if port else "no port"
    elif int(port) > 65535:
        problem = f"the port {port} is above 65535"
    else:
        return host.strip("[]"), int(port)
    raise LinkURLError(f"link {url!r}: {problem} (expected {scheme}HOST:PORT)")


def socket_url(url: str) -> str:
    """`tcp://HOST:PORT` as pyserial spells it, `socket://HOST:PORT`; other URLs unchanged."""
    return "socket://" + url[len(TCP) :] if url.startswith(TCP) else url


def open_port(url: str) -> Port:
    """Opens a link; LinkURLError if the URL can never work, SerialException or OSError if the
    port cannot be opened now (it may appear later)."""
    if url == PTY:
        return PtyPort()
    if url.startswith(LISTEN):
        return ListenPort(*address(url, LISTEN))
    if url.startswith(TCP):
        address(url, TCP)
    try:
        return serial.serial_for_url(socket_url(url), baudrate=BAUD, timeout=0)
    except ValueError as error:
        raise LinkURLError(f"link {url!r}: {error}") from None


class _Wire:
    """Non-blocking reads and writes on a port, whatever pyserial made of the URL."""

    def __init__(self, port: Port) -> None:
        self.port = port
        fileno = getattr(port, "fileno", None)
        try:
            self.fd: int | None = fileno() if fileno else None
        except (OSError, ValueError, serial.SerialException):
            self.fd = None

    def read(self) -> bytes:
        return self.port.read(READ_CHUNK)

    def write(self, data: bytes) -> int:
        """Writes what the port takes now (maybe nothing); never waits."""
        if self.fd is not None:  # a tty or a socket: pyserial's own write may spin when full
            try:
                return os.write(self.fd, data)
            except BlockingIOError:
                return 0
        room = getattr(self.port, "buffer_size", None)  # loop://: a bounded queue
        if room is not None:
            data = data[: max(0, room - self.port.out_waiting)]
        if not data:
            return 0
        written = self.port.write(data)
        return len(data) if written is None else written


class SerialLink:
    """Joins a board's loop to a host: a sink for the loop's events and a poll once a step."""

    def __init__(
        self,
        url: str,
        loop: BoardLoop,
        *,
        opener: Callable[[str], Port] = open_port,
        retry: float = RETRY,
        max_line: int = MAX_LINE,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self.url = url
        self.loop = loop
        self.retry = retry
        self.max_line = max_line
        self.max_pending = max_pending
        self._opener = opener
        self._wire: _Wire | None = None
        self._inbox = bytearray()
        self._discarding = False
        """The start of an over-long line was refused: skip to the end of it."""
        self._out = bytearray()
        self._leds: bytes | None = None
        """The latest LED frame not yet sent: frames are sent only when the link is idle, and a
        newer one replaces it (a frame says what the LEDs show; the last one is all that counts)."""
        self._overflow = 0
        """Events dropped since the last report because the host was not reading."""
        self._missed = 0
        """Events not sent while the link was down."""
        self.dropped = 0
        """All events dropped so far, either way."""
        self._down = False
        """In an outage: reported once, until the link has been back for a retry interval."""
        self._steady_at: float | None = None
        """When a reopened link has been up long enough to end the outage."""
        self._next_try = 0.0
        self._opening: threading.Thread | None = None
        self._opened: list[Port | BaseException] = []
        self._closed = False
        loop.sinks.append(self.send)
        loop.inputs.append(self.poll)
        now = self._now()
        try:
            port = opener(url)
        except LinkURLError:
            self.close()
            raise
        except Exception as error:  # SerialException, OSError, a terminal that will not set up
            self._fail(now, error)
        else:
            self._connect(port, now)

    @property
    def connected(self) -> bool:
        return self._wire is not None

    @property
    def pty_path(self) -> str | None:
        """Where a host opens a `pty` link (None for other links, or while it is down)."""
        port = self._wire.port if self._wire else None
        return port.path if isinstance(port, PtyPort) else None

    def fileno(self) -> int | None:
        """The link's file descriptor, to wait on with select (None while down, or for a port
        that has none)."""
        return self._wire.fd if self._wire else None

    def _now(self) -> float:
        return self.loop.board.clock.now()

    # Out: events.

    def send(self, event: Event) -> None:
        """A sink of the loop: sends one event, or keeps it a moment, or drops and counts it.
        Never raises: whatever goes wrong is the link's failure, not the loop's."""
        try:
            self._queue(event)
            self._flush()
        except Exception as error:
            self._fail(self._now(), error)

    def _queue(self, event: Event) -> None:
        line = (event.to_json() + "\n").encode()
        if isinstance(event, LedFrame):
            self._leds = line
        elif self._wire is None:
            self._missed += 1
            self.dropped += 1
            return
        elif len(self._out) + len(line) > self.max_pending:
            self._overflow += 1
            self.dropped += 1
            return
        else:
            self._out += line

    def _flush(self) -> None:
        wire = self._wire
        while wire is not None:
            if not self._out:
                if self._overflow:
                    text = f"link: {_events(self._overflow)} dropped: the host was not reading them"
                    self._overflow = 0
                    self._out += (Note(self._now(), text).to_json() + "\n").encode()
                elif self._leds is not None:
                    self._out, self._leds = bytearray(self._leds), None
                else:
                    return
            written = wire.write(bytes(self._out[:READ_CHUNK]))
            if written <= 0:
                return
            del self._out[:written]

    # In: commands.

    def poll(self, now: float) -> None:
        """Reads what the host sent and carries out its commands; reopens a failed link when it
        is time. Called once a loop step; never raises for what the link or the host does."""
        try:
            if self._wire is None:
                self._try_again(now)
                if self._wire is None:
                    return
            if self._steady_at is not None and now >= self._steady_at:
                self._down, self._steady_at = False, None
            data = self._wire.read()
            if data:
                self._take(data, now)
            self._flush()
        except Exception as error:  # SerialException, OSError; whatever it is, not the loop's
            self._fail(now, error)

    def _take(self, data: bytes, now: float) -> None:
        inbox = self._inbox
        inbox += data
        while self._wire is not None:
            end = inbox.find(b"\n")
            if end < 0:
                if len(inbox) > self.max_line:
                    if not self._discarding:
                        self._refuse(now, f"a line longer than {self.max_line} bytes")
                    self._discarding = True
                    inbox.clear()
                return
            line = bytes(inbox[:end])
            del inbox[: end + 1]
            if self._discarding:
                self._discarding = False
            elif len(line) > self.max_line:
                self._refuse(now, f"a line longer than {self.max_line} bytes")
            else:
                self._line(line, now)

    def _line(self, line: bytes, now: float) -> None:
        try:
            text = decoded(line)
        except Refused as error:
            self._refuse(now, str(error))
            return
        if not text.strip():
            return
        try:
            self._do(read(text, Link.SERIAL), now)
        except Refused as error:
            self._refuse(now, str(error))
        except Exception as error:  # a bug must not take the board down
            self._refuse(now, f"the board could not do that ({type(error).__name__})")

    def _do(self, command: dict[str, Any], now: float) -> None:
        """Carries out a command `read` has checked."""
        name = command["do"]
        if name == "hello":
            self._reply(Note(now, self.hello()))
        elif name == "state":
            self._reply(self.state(now))
        elif name == "press":
            button = self._button(command)
            self.loop.button(button, True, now, now)
            self.loop.button(button, False, now, now)
        elif name == "choose":
            action = command.get("action")
            if not isinstance(action, str):
                raise Refused('choose: which option? like {"do": "choose", "action": "A-Baker"}')
            try:
                self.loop.choose(action, now)
            except ValueError as error:
                raise Refused(f"choose: {error}") from None
        else:
            start(new_game_of(command), self.loop, now)

    def _button(self, command: dict[str, Any]) -> str:
        spec = self.loop.board.spec
        names = [b.name for b in spec.buttons]
        if "button" not in command:
            raise Refused('press: which button? like {"do": "press", "button": "seat-1"}')
        button = command["button"]
        if not isinstance(button, str) or button not in names:
            raise Refused(
                f"press: no button {short(button)} on board {spec.name} "
                f"(buttons: {', '.join(names)})"
            )
        return button

    def hello(self) -> str:
        referee = self.loop.referee
        options = ", ".join(f"{k}={_option(v)}" for k, v in sorted(referee.options.items()))
        game = f"{referee.game.name} ({options})" if options else referee.game.name
        return f"hello: board {self.loop.board.spec.name}, game {game}, protocol {PROTOCOL}"

    def state(self, now: float) -> GameStarted:
        """The game so far, as a `game-started` whose actions replay it."""
        referee = self.loop.referee
        return GameStarted(
            now,
            referee.game.name,
            referee.options,
            self.loop.board.spec.name,
            referee.game.seats[: referee.initial.players],
            referee.actions_played,
            None if referee.position.outcome() else referee.position.to_move,
        )

    def _reply(self, event: Event) -> None:
        """To the host only: answers are not board events (the journal must not see them)."""
        self.send(event)

    def _refuse(self, now: float, reason: str) -> None:
        self._reply(Note(now, REFUSED + reason))

    # Failing and reopening.

    def _fail(self, now: float, error: BaseException) -> None:
        self._drop_port()
        self._next_try = now + self.retry
        self._steady_at = None
        if not self._down:
            self._down = True
            reason = str(error) or type(error).__name__
            detail = f"{reason}; trying again every {self.retry:g} s"
            self.loop.emit(FaultSurvived(now, "link-error", self.url, detail))

    def _drop_port(self, wait: bool = False) -> None:
        wire, self._wire = self._wire, None
        self._out.clear()
        self._inbox.clear()
        self._discarding = False
        if wire is None:
            return
        if wait:
            _close_quietly(wire.port)
        else:  # closing may wait (pyserial's socket pauses; a tty drains what it holds)
            threading.Thread(
                target=_close_quietly, args=(wire.port,), name="magboard-link-close", daemon=True
            ).start()

    def _try_again(self, now: float) -> None:
        """Reopens in the background (a connection may take seconds to fail); picks up what
        the last attempt made."""
        if self._opening is not None:
            if self._opening.is_alive():
                return
            self._opening = None
            result = self._opened.pop() if self._opened else None
            if isinstance(result, BaseException) or result is None:
                self._next_try = now + self.retry
                return
            self._connect(result, now)
            return
        if now < self._next_try:
            return

        def attempt() -> None:
            try:
                port = self._opener(self.url)
            except BaseException as error:
                self._opened.append(error)
                return
            if self._closed:
                port.close()
            else:
                self._opened.append(port)

        self._opening = threading.Thread(target=attempt, name="magboard-link-open", daemon=True)
        self._opening.start()

    def _connect(self, port: Port, now: float) -> None:
        self._wire = _Wire(port)
        if isinstance(port, PtyPort):
            self.loop.emit(Note(now, f"link: {port.path} (magboard watch {port.path})"))
        elif isinstance(port, ListenPort):
            where = f"tcp://{port.address}"
            self.loop.emit(Note(now, f"link: listening on {where} (magboard watch {where})"))
        if self._down:
            self._steady_at = now + self.retry
            missed, self._missed = self._missed, 0
            self._queue(Note(now, f"link: open again; {_events(missed)} not sent meanwhile"))
            self._queue(self.state(now))
            self._flush()

    def close(self) -> None:
        self._closed = True
        self._drop_port(wait=True)
        if self.send in self.loop.sinks:
            self.loop.sinks.remove(self.send)
        if self.poll in self.loop.inputs:
            self.loop.inputs.remove(self.poll)
        for result in self._opened:
            if not isinstance(result, BaseException):
                result.close()
        self._opened.clear()


def _close_quietly(port: Port) -> None:
    with contextlib.suppress(Exception):  # a port that failed may fail to close
        port.close()


def _events(count: int) -> str:
    return "1 event" if count == 1 else f"{count} events"


def _option(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
