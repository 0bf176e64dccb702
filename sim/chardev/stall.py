"""A hung bus: a switch that makes a device stop answering, so its caller's syscall blocks.

A real I2C bus hangs when a target holds SDA low (a brown-out in the middle of a read): the
controller cannot make a START, and the caller's transfer waits until the adapter gives up
(ETIMEDOUT after its timeout, a second by default on the Pi) or forever if nothing gives up.
To make that happen under the real service, a device consults its `Stall` before it touches
the bus; while the stall is engaged it raises `Held`, and the server keeps the request
unanswered. The kernel keeps the caller's syscall waiting meanwhile, exactly as for a slow
device. When the stall is released the server runs the kept requests again in order (nothing
of them reached the bus yet); with a timeout, a request kept that long is failed with the
stall's errno instead.
"""

from __future__ import annotations

import errno as errnos
import threading
from collections.abc import Callable


class Held(Exception):
    """The device's bus is stalled: keep this request until `stall` is released."""

    def __init__(self, stall: Stall) -> None:
        super().__init__(f"{stall.name} is stalled")
        self.stall = stall


class Stall:
    """Whether a bus answers; safe to flip from any thread."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._engaged = False
        self._timeout: float | None = None
        self._errno = errnos.ETIMEDOUT
        self._listeners: list[Callable[[], None]] = []

    @property
    def engaged(self) -> bool:
        return self._engaged

    @property
    def timeout(self) -> float | None:
        """Seconds a request is kept before it fails with `errno`; None keeps it until release."""
        return self._timeout

    @property
    def errno(self) -> int:
        return self._errno

    def engage(self, timeout: float | None = None, errno: int = errnos.ETIMEDOUT) -> None:
        """Stop answering: requests that would touch the bus wait from now on."""
        if timeout is not None and timeout < 0:
            raise ValueError(f"a stall's timeout is not negative, not {timeout}")
        with self._lock:
            self._engaged = True
            self._timeout = timeout
            self._errno = errno
        self._notify()

    def release(self) -> None:
        """Answer again: the waiting requests run, in the order they came."""
        with self._lock:
            self._engaged = False
        self._notify()

    def check(self) -> None:
        """Called by a device just before it touches the bus."""
        if self._engaged:
            raise Held(self)

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` (from the flipping thread) whenever the stall is engaged or
        released: a server wakes up to run or time out what it keeps."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.remove(listener)

    def _notify(self) -> None:
        with self._lock:
            listeners = tuple(self._listeners)
        for listener in listeners:
            listener()

    def __repr__(self) -> str:
        state = "engaged" if self._engaged else "released"
        return f"Stall({self.name!r}, {state})"
