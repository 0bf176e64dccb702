"""Virtual time: the simulated board's clock, which moves only when someone waits.

Waiting (`sleep`, `advance_to`) runs whatever was scheduled up to then, in time order, with the
clock set to each event's time while it runs. So a scan loop that waits for an interrupt, and a
world that schedules a hand moving a piece, interleave exactly as they would in real time,
without any test ever sleeping.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(order=True)
class _Event:
    at: float
    order: int
    action: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class Scheduled:
    """A handle to cancel a scheduled callback."""

    __slots__ = ("_event",)

    def __init__(self, event: _Event) -> None:
        self._event = event

    @property
    def at(self) -> float:
        return self._event.at

    def cancel(self) -> None:
        self._event.cancelled = True


class VirtualClock:
    """A monotonic clock in seconds with a queue of callbacks at future times."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._queue: list[_Event] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_at(self, at: float, action: Callable[[], None]) -> Scheduled:
        """Runs `action` when the clock reaches `at` (at once on the next wait if it is past)."""
        event = _Event(max(at, self._now), next(self._order), action)
        heapq.heappush(self._queue, event)
        return Scheduled(event)

    def call_later(self, delay: float, action: Callable[[], None]) -> Scheduled:
        return self.call_at(self._now + delay, action)

    def next_at(self) -> float | None:
        """When the next pending callback is due, or None."""
        while self._queue and self._queue[0].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0].at if self._queue else None

    def run_next(self, until: float) -> bool:
        """Runs the next callback due at or before `until`, moving the clock to its time;
        False (clock untouched) if none is due."""
        at = self.next_at()
        if at is None or at > until:
            return False
        event = heapq.heappop(self._queue)
        self._now = max(self._now, event.at)
        event.action()
        return True

    def advance_to(self, at: float) -> None:
        """Runs everything due up to `at`, then sets the clock to `at`."""
        while self.run_next(at):
            pass
        self._now = max(self._now, at)

    def sleep(self, seconds: float) -> None:
        self.advance_to(self._now + max(0.0, seconds))

    def pending(self) -> int:
        return sum(not e.cancelled for e in self._queue)
