"""The daemon's clock: real time, with the interface of `sim.clock.VirtualClock`.

In the emulated machine the service runs on the machine's own time, so the world beneath it must
too: a button pressed with a hold lets go when that much real time has passed, a slide moves one
cell a step in real seconds. `RealTimeClock` is a `VirtualClock` whose `now` is the monotonic
clock (seconds since it was made) and whose callbacks run on a thread of their own when their
time comes, each under `lock` (the electronics' lock, so a callback never runs in the middle of
a transfer or of a request from the world channel). Waiting (`sleep`, `advance_to`) just lets
real time pass.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections.abc import Callable

from magboard.sim.clock import Scheduled, VirtualClock, _Event

log = logging.getLogger(__name__)


class RealTimeClock(VirtualClock):
    """Monotonic seconds since it was made; callbacks run at their time on the clock's thread."""

    def __init__(self, lock: threading.RLock | None = None) -> None:
        super().__init__(0.0)
        self._start = time.monotonic()
        self.lock = lock or threading.RLock()
        """Held while a callback runs."""
        self._queue_lock = threading.Condition(threading.Lock())
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="world clock", daemon=True)
        self._thread.start()

    def now(self) -> float:
        return time.monotonic() - self._start

    def call_at(self, at: float, action: Callable[[], None]) -> Scheduled:
        with self._queue_lock:
            event = _Event(at, next(self._order), action)
            heapq.heappush(self._queue, event)
            self._queue_lock.notify()
        return Scheduled(event)

    def call_later(self, delay: float, action: Callable[[], None]) -> Scheduled:
        return self.call_at(self.now() + delay, action)

    def next_at(self) -> float | None:
        with self._queue_lock:
            return self._next_at()

    def run_next(self, until: float) -> bool:
        """Waits for the next callback due at or before `until` and runs it here; False if none
        is due by then (after waiting until then)."""
        self.advance_to(until)
        return False

    def advance_to(self, at: float) -> None:
        """Lets real time pass until `at`; the clock's thread runs what falls due meanwhile."""
        delay = at - self.now()
        if delay > 0:
            time.sleep(delay)

    def sleep(self, seconds: float) -> None:
        self.advance_to(self.now() + max(0.0, seconds))

    def pending(self) -> int:
        with self._queue_lock:
            return sum(not e.cancelled for e in self._queue)

    def stop(self, timeout: float = 5.0) -> None:
        """Stops the thread; callbacks still pending never run."""
        with self._queue_lock:
            self._stopped = True
            self._queue_lock.notify()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _next_at(self) -> float | None:
        while self._queue and self._queue[0].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0].at if self._queue else None

    def _run(self) -> None:
        while True:
            with self._queue_lock:
                while not self._stopped:
                    at = self._next_at()
                    if at is not None and at <= self.now():
                        break
                    self._queue_lock.wait(None if at is None else at - self.now())
                if self._stopped:
                    return
                event = heapq.heappop(self._queue)
            with self.lock:
                if event.cancelled:
                    continue
                try:
                    event.action()
                except Exception:
                    log.exception("a scheduled action of the world failed")
