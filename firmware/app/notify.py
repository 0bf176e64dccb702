"""systemd's notify protocol (sd_notify(3)), spoken by `magboard run` under its unit.

The unit is `Type=notify` with a watchdog: systemd counts the board as started only once it says
READY=1, and kills and restarts it when WATCHDOG=1 stops arriving, which is how a loop stuck on a
hung I2C bus gets a second chance with nobody at the board. The protocol is one datagram of
`KEY=value` lines to the AF_UNIX socket named by NOTIFY_SOCKET (a leading '@' means the abstract
namespace), so it needs no library.

Two rules keep it safe in the board loop. Time is the caller's: `watchdog(now)` is given the
loop's clock, so the simulator's virtual time and the tests drive it like the real one. And
sending never raises nor blocks: a socket that vanished or is full comes back as
`Delivery.FAILED`, and the loop goes on refereeing.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from enum import Enum


class Delivery(Enum):
    """What became of one message."""

    SENT = "sent"
    FAILED = "failed"
    """systemd did not get it: the socket is gone, refuses, or is full."""
    NOT_DUE = "not due"
    """Nothing was sent: the watchdog was pinged less than half its interval ago, or it does not
    watch this process."""


class Notifier:
    """The messages a service sends to systemd, over one socket kept open for the process."""

    def __init__(self, address: str, watchdog_interval: float | None = None) -> None:
        """`address` is NOTIFY_SOCKET's value; `watchdog_interval` is in seconds, None when
        systemd does not watch this process."""
        self.address = address
        self.watchdog_interval = watchdog_interval
        self._target = "\0" + address[1:] if address.startswith("@") else address
        self._socket: socket.socket | None = None
        self._last_ping: float | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], pid: int | None = None) -> Notifier | None:
        """The notifier systemd asked for in `environ`, or None when it did not ask (run by
        hand, or a unit of another type). `pid` is this process's (os.getpid() by default):
        WATCHDOG_PID names the process the watchdog is meant for, which may be another."""
        address = environ.get("NOTIFY_SOCKET", "")
        if not address.startswith(("/", "@")) or len(address) < 2:
            return None  # unset, or a kind of address this protocol's datagrams cannot reach
        return cls(address, _watchdog_interval(environ, os.getpid() if pid is None else pid))

    def ready(self) -> Delivery:
        """Startup is over: the board answered and the game is set up."""
        return self._send("READY=1")

    def status(self, text: str) -> Delivery:
        """A line `systemctl status magboard` shows, such as the game being played."""
        return self._send("STATUS=" + " ".join(text.splitlines()))

    def stopping(self) -> Delivery:
        """The service is shutting down on purpose, so a silent watchdog then is expected."""
        return self._send("STOPPING=1")

    def watchdog(self, now: float) -> Delivery:
        """Pings the watchdog if half its interval has passed since the last ping at `now`
        (seconds on the caller's clock); call it every loop step. A failed ping is not counted,
        so the next call tries again."""
        if self.watchdog_interval is None:
            return Delivery.NOT_DUE
        last = self._last_ping
        if last is not None and last <= now < last + self.watchdog_interval / 2:
            return Delivery.NOT_DUE
        delivery = self._send("WATCHDOG=1")
        if delivery is Delivery.SENT:
            self._last_ping = now
        return delivery

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def _send(self, message: str) -> Delivery:
        try:
            if self._socket is None:
                self._socket = socket.socket(
                    socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
                )
                self._socket.setblocking(False)  # a full queue must not stall the board loop
            self._socket.sendto(message.encode(), self._target)
        except OSError:
            return Delivery.FAILED
        return Delivery.SENT


def _watchdog_interval(environ: Mapping[str, str], pid: int) -> float | None:
    """The watchdog interval in seconds systemd set for process `pid`, or None: what
    sd_watchdog_enabled(3) answers."""
    try:
        usec = int(environ.get("WATCHDOG_USEC", ""))
        watched = int(environ["WATCHDOG_PID"]) if "WATCHDOG_PID" in environ else pid
    except ValueError:
        return None
    if usec <= 0 or watched != pid:
        return None
    return usec / 1_000_000
