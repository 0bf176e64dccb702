"""The host's end of a board's serial link: events in, commands out.

`BoardLink(url)` opens what pyserial opens from a URL: a port (`/dev/ttyACM0` for a Pi's USB gadget
serial, a USB-serial adapter on its UART, `/dev/pts/N` for `magboard run --sim --link pty`),
`tcp://host:port` (the same as pyserial's `socket://host:port`; a board started with `--link
listen://HOST:PORT` takes any number of hosts at once), or `loop://`. `events()` yields the events
the board sends, in the one schema of firmware/events.py; a line that is not an event is skipped
and reported, never fatal. `send()` sends one command (docs/protocol.md, "Serial link").
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import serial

from magboard.firmware.app.ports import TCP, LinkURLError, address, socket_url
from magboard.firmware.events import Event, EventError, event_from_json

BAUD = 115200
MAX_LINE = 256 * 1024
"""Longest line the host reads; a longer one is skipped (a board's lines are far shorter)."""
READ_WAIT = 0.05
"""Longest a read waits for bytes before the iterator checks its deadline (so `events()` may
run this much past its timeout)."""
SOCKET = "socket://"
"""pyserial's own scheme for a TCP connection (`tcp://` is the project's spelling of it)."""
WRITE_WAIT = 1.0
"""Longest a command's write may wait for the port."""


class LinkError(OSError):
    """The link cannot be opened, or failed while in use; the message says which and why."""


Skipped = Callable[[str, bytes], None]
"""Told of each line that is not an event: the reason and the line (cut short)."""


class BoardLink:
    def __init__(
        self,
        url: str,
        *,
        on_skip: Skipped | None = None,
        opener: Callable[..., Any] | None = None,
    ) -> None:
        self.url = url
        self.on_skip = on_skip
        self.skipped = 0
        """Lines that were not events."""
        self._buffer = bytearray()
        self._discarding = False
        opener = opener or serial.serial_for_url
        for scheme in (TCP, SOCKET):
            if url.startswith(scheme):
                try:
                    address(url.partition("?")[0], scheme)  # pyserial's ?options aside
                except LinkURLError as error:
                    raise LinkError(str(error)) from None
        try:
            self.port = opener(
                socket_url(url), baudrate=BAUD, timeout=READ_WAIT, write_timeout=WRITE_WAIT
            )
        except (serial.SerialException, OSError, ValueError) as error:
            raise LinkError(f"cannot open {url}: {error}") from None
        if isinstance(self.port, serial.Serial):  # a terminal device, not a socket or a loopback:
            with contextlib.suppress(serial.SerialException, OSError):  # what it holds is stale
                self.port.reset_input_buffer()

    def __enter__(self) -> BoardLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(serial.SerialException, OSError):
            self.port.close()

    def send(self, command: Mapping[str, Any]) -> None:
        """Sends one command, e.g. {"do": "press", "button": "seat-1"}."""
        line = json.dumps(dict(command), separators=(",", ":")) + "\n"
        try:
            self.port.write(line.encode())
            self.port.flush()
        except (serial.SerialException, OSError) as error:
            raise LinkError(f"cannot send to {self.url}: {error}") from None

    def events(self, timeout: float | None = None) -> Iterator[Event]:
        """The board's events as they arrive, for `timeout` seconds (None: until the link
        closes, when LinkError is raised). Lines that are not events are skipped and reported
        to `on_skip`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:  # what is waiting, or one byte: so what came before a disconnection is kept
                waiting = self.port.in_waiting
                data = self.port.read(max(1, waiting))
            except (serial.SerialException, OSError) as error:
                raise LinkError(f"link {self.url} failed: {error}") from None
            if data:
                self._buffer += data
            while (line := self._next_line()) is not None:
                event = self._parse(line)
                if event is not None:
                    yield event
            if deadline is not None and time.monotonic() >= deadline:
                return

    def _next_line(self) -> bytes | None:
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > MAX_LINE:
                    if not self._discarding:
                        self._skip(f"a line longer than {MAX_LINE} bytes", bytes(buffer))
                    self._discarding = True
                    buffer.clear()
                return None
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            if self._discarding:
                self._discarding = False
                continue
            return line

    def _parse(self, line: bytes) -> Event | None:
        line = line.rstrip(b"\r")
        if not line.strip():
            return None
        try:
            return event_from_json(line.decode("utf-8"))
        except UnicodeDecodeError:
            self._skip("not UTF-8", line)
        except EventError as error:
            self._skip(str(error), line)
        except RecursionError:
            self._skip("not JSON (nested too deeply)", line)
        return None

    def _skip(self, reason: str, line: bytes) -> None:
        self.skipped += 1
        if self.on_skip is not None:
            self.on_skip(reason, line[:200])
