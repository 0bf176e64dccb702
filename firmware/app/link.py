"""The board's end of the serial link: every event goes out as one JSON line, commands come in.

The link is whatever firmware/app/ports.py opens from a URL: a real port (`/dev/ttyGS0`, the Pi's
USB gadget serial; `/dev/ttyAMA0`, its UART), `socket://host:port` or `tcp://host:port` (a client),
`listen://host:port` (a listener any number of hosts connect to, so `magboard watch` and `magboard
send` can share one board), or `pty`, a pseudo-terminal pair whose other end a host opens by its
path (one host at a time: two readers of one terminal split its bytes between them). It never blocks
or stops the loop: reads and writes are non-blocking and polled once a loop step, a host that does
not read loses events (counted and reported), and a link that fails is reported once as a `fault`
and reopened every few seconds while the board goes on refereeing.

Commands are JSON objects, one a line (docs/protocol.md, "Serial link"): `hello`, `state`,
`press` (a virtual button, the same as the physical one), `choose` (a choice the rules leave to
a player) and `new-game`. Anything else is
answered with a `note` whose text begins "refused:", and nothing changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from magboard.firmware.events import REFUSED, Event, FaultSurvived, GameStarted, LedFrame, Note

from .commands import Link, Refused, decoded, new_game_of, read, short, start
from .loop import BoardLoop
from .ports import (
    MAX_LINE,
    MAX_PENDING,
    READ_CHUNK,
    LinkURLError,
    ListenPort,
    Port,
    PtyPort,
    Wire,
    close_quietly,
    open_port,
)

PROTOCOL = 1
"""The link protocol's version, said in the answer to `hello`."""


RETRY = 2.0
"""Seconds between attempts to reopen a failed link."""

POLL = 0.05
"""On a real board, the longest the loop waits between two polls of the link."""


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
        self._wire: Wire | None = None
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
            close_quietly(wire.port)
        else:  # closing may wait (pyserial's socket pauses; a tty drains what it holds)
            threading.Thread(
                target=close_quietly, args=(wire.port,), name="magboard-link-close", daemon=True
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
        self._wire = Wire(port)
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


def _events(count: int) -> str:
    return "1 event" if count == 1 else f"{count} events"


def _option(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
