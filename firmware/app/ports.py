"""The ports a serial link runs over, opened from its URL: whatever pyserial opens (a real port,
`socket://`, `tcp://`), a listener many hosts connect to at once (`listen://`), or a
pseudo-terminal pair (`pty`); and the non-blocking reads and writes the link makes on any of
them. The link itself (firmware/app/link.py) frames events and commands over one.
"""

from __future__ import annotations

import contextlib
import os
import socket
import tty
from typing import Protocol

import serial

MAX_LINE = 1024
"""Longest command line in bytes; the rest of a longer one is discarded."""
BAUD = 115200

READ_CHUNK = 4096
"""Most bytes read in one poll, so a flooding host cannot hold up the loop."""

MAX_PENDING = 64 * 1024
"""Most bytes of events waiting for the host; beyond this, events are dropped and counted."""

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
        close_quietly(client)


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


class Wire:
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


def close_quietly(port: Port) -> None:
    with contextlib.suppress(Exception):  # a port that failed may fail to close
        port.close()
