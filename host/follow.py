"""A board's events across its restarts, for `magboard watch`.

A board that restarts (an update, a power cut, a crash the service recovers from) closes its link
for a few seconds: a TCP listener refuses connections, a USB gadget port disappears and comes
back. A person watching wants the stream to carry on, so a lost link is said once, reopened with a
wait that doubles up to a cap (a board that stays away is not hammered), and said again when it is
back. The first open is not retried: a wrong address must fail at once, not wait forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from magboard.firmware.events import Event

from .link import BoardLink, LinkError, Skipped


@dataclass(frozen=True)
class Backoff:
    """The waits between tries to reopen a lost link: `first`, doubled each time, at most `most`."""

    first: float = 0.5
    most: float = 10.0

    def waits(self) -> Iterator[float]:
        wait = self.first
        while True:
            yield wait
            wait = min(wait * 2, self.most)


def follow(
    url: str,
    *,
    say: Callable[[str], None],
    on_skip: Skipped | None = None,
    timeout: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    backoff: Backoff = Backoff(),
) -> Iterator[Event]:
    """The board's events for `timeout` seconds (None: until interrupted), across lost links.
    LinkError only if the link cannot be opened the first time."""
    deadline = None if timeout is None else time.monotonic() + timeout
    link: BoardLink | None = BoardLink(url, on_skip=on_skip)
    while link is not None:
        try:
            with link:
                yield from link.events(timeout=_left(deadline))
            return
        except LinkError as error:
            say(f"lost the board ({error}); trying again until it is back")
        link = _reopen(url, on_skip, deadline, sleep, backoff)
        if link is not None:
            say(f"the board is back at {url}")


def _reopen(
    url: str,
    on_skip: Skipped | None,
    deadline: float | None,
    sleep: Callable[[float], None],
    backoff: Backoff,
) -> BoardLink | None:
    """The link opened again, or None if the deadline came first."""
    waits = backoff.waits()
    while True:
        wait, left = next(waits), _left(deadline)
        if left is not None and left <= 0:
            return None
        sleep(wait if left is None else min(wait, left))
        try:
            return BoardLink(url, on_skip=on_skip)
        except LinkError:
            pass


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(0.0, deadline - time.monotonic())
