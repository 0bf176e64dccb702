"""The scan loop's sensing half: wait for an interrupt (or a deadline), scan, debounce.

Interrupt lines wake it at once; a slow safety poll scans anyway (an edge can be lost) and now and
then reads back the expanders' configuration. Time comes from the board's clock, so in the
simulator the whole loop runs in virtual time.
"""

from __future__ import annotations

from dataclasses import dataclass

from magboard.hardware.interface import Board, ButtonEvent, Fault

from .debounce import Debouncer

POLL = 1.0
FAST_POLL = 0.02
"""Where an expander has no INT line wired, the poll is what finds changes."""
VERIFY = 10.0


@dataclass(frozen=True)
class Reading:
    now: float
    debounced: int
    changed: bool
    """The debounced frame changed in this reading."""
    complete: bool
    """Every expander was read: otherwise some bits are stale and nothing may be judged."""
    stable: int | None
    """A stable frame, the first time the board is still with it."""
    trail: tuple[int, ...]
    """With a stable frame: the debounced frames seen since the previous one."""
    faults: tuple[Fault, ...]
    buttons: tuple[ButtonEvent, ...]


class Scanner:
    def __init__(
        self, board: Board, debouncer: Debouncer, poll: float = POLL, verify: float = VERIFY
    ) -> None:
        self.board = board
        self.debouncer = debouncer
        polled = any(e.interrupt is None for e in board.spec.expanders)
        self.poll = min(poll, FAST_POLL) if polled else poll
        self.verify_every = verify
        now = board.clock.now()
        self._next_poll = now
        self._next_verify = now + verify

    def step(self, wake_at: float | None = None) -> Reading:
        """Waits for a change, a debounce or settle deadline, the poll, or `wake_at` (the
        lights' next animation step), whichever comes first; then scans."""
        clock = self.board.clock
        deadlines = [self._next_poll]
        for extra in (self.debouncer.next_deadline(), wake_at):
            if extra is not None:
                deadlines.append(extra)
        self.board.wait_for_change(max(0.0, min(deadlines) - clock.now()))
        now = clock.now()
        faults: tuple[Fault, ...] = ()
        if now >= self._next_verify:
            faults = self.board.verify()
            self._next_verify = now + self.verify_every
        scan = self.board.scan()
        now = clock.now()
        self._next_poll = now + self.poll
        changed = self.debouncer.feed(scan.frame, now, scan.complete)
        stable = self.debouncer.stable(now)
        trail = tuple(self.debouncer.take_trail()) if stable is not None else ()
        return Reading(
            now,
            self.debouncer.debounced,
            changed,
            scan.complete,
            stable,
            trail,
            faults + scan.faults,
            tuple(self.board.button_events()),
        )
