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
BUTTON_WAIT = 0.1
"""Longest a press waits for the board to be known as it is (a debounce and a re-read)."""
FAULT_WAIT = 1.0
"""Longest a press waits after a fault for a complete scan and the settle time: long enough
for both, short enough that a bus failing for good never swallows a press."""


@dataclass(frozen=True)
class Scan:
    now: float
    debounced: int
    changed: bool
    """The debounced frame changed in this reading."""
    blind: int
    """Bits of expanders that could not be read: stale, so nothing is judged from them."""
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
        self.scans = 0
        """Full scans made so far (an idle board makes one a `poll`)."""
        self.transfers = 0
        self.errors = 0
        """I2C transactions of those scans and how many failed: a bus going bad shows as a
        rising rate long before it loses a chip."""
        self.blind = 0
        """The last scan's blind bits: the expanders not answering now."""
        self._complete = True
        self._doubtful = False
        """A fault was met and no untroubled scan has followed it yet."""
        self._doubt_until = float("-inf")
        """When the settle time after the last fault's complete scan is over."""
        self._held: tuple[ButtonEvent, ...] = ()

    def step(self, wake_at: float | None = None) -> Scan:
        """Waits for a change, a debounce or settle deadline, the poll, or `wake_at` (the
        lights' next animation step, the link's next look), whichever comes first; then scans,
        unless only `wake_at` woke it: lights and links have no business with the sensors, so
        an idle board scans no more often than its safety poll."""
        clock = self.board.clock
        deadlines = [self._next_poll, self._next_verify]
        settling = self.debouncer.next_deadline()
        if settling is not None:
            deadlines.append(settling)
        if self._held:  # a press held after a fault goes on when the doubt is over
            release = min(self._doubt_until, self._held[0].at + FAULT_WAIT)
            if release > clock.now():
                deadlines.append(release)
        due = min(deadlines)
        wake = due if wake_at is None else min(due, wake_at)
        woke = self.board.wait_for_change(max(0.0, wake - clock.now()))
        now = clock.now()
        if not woke and now < due:
            buttons = self._buttons(now, False)
            return Scan(now, self.debouncer.debounced, False, 0, None, (), (), buttons)
        self.scans += 1
        faults: tuple[Fault, ...] = ()
        if now >= self._next_verify:
            faults = self.board.verify()
            self._next_verify = now + self.verify_every
        scan = self.board.scan()
        self.transfers += scan.transfers
        self.errors += scan.errors
        faults += scan.faults
        troubled = bool(faults) or bool(scan.blind & ~self.blind)
        self.blind = scan.blind
        now = clock.now()
        # A fault's first incomplete scan holds stale bits of a chip just set up again, whose
        # changes in the meantime raised no interrupt: look again soon, and do not feed it to
        # the debouncer, or a piece taken from that chip's places would seem to arrive on its
        # square before it left (the order the referee reads). A chip that stays lost is
        # blind in every scan after that, and the rest of the board is judged without it.
        fresh_fault = not scan.complete and self._complete
        self._complete = scan.complete
        self._next_poll = now + (FAST_POLL if troubled else self.poll)
        changed = False if fresh_fault else self.debouncer.feed(scan.frame, now, scan.blind)
        self._doubt(troubled, now)
        stable = self.debouncer.stable(now)
        trail = tuple(self.debouncer.take_trail()) if stable is not None else ()
        return Scan(
            now,
            self.debouncer.debounced,
            changed,
            scan.blind,
            stable,
            trail,
            faults,
            self._buttons(now, fresh_fault),
        )

    def _doubt(self, troubled: bool, now: float) -> None:
        """After a fault (or an expander lost or back), nothing the board showed before may be
        concluded: a chip that reset or missed reads may have hidden a change, and its own
        interrupts were off meanwhile. The settle time starts again at the fault's scan and once
        more at the first untroubled scan after it (every expander that answers read, no new
        fault), so a conclusion always rests on a complete scan and the settle time after it,
        in every game alike."""
        if troubled:
            self._doubtful = True
        elif not self._doubtful:
            return
        else:
            self._doubtful = False
        self.debouncer.hold(now)
        self._doubt_until = now + self.debouncer.settle

    def _buttons(self, now: float, fresh_fault: bool) -> tuple[ButtonEvent, ...]:
        """Button events, held back while the board is not yet known as it is at the press
        (a piece landing with the press is still being debounced, or a fault scan hid it), for
        at most `BUTTON_WAIT`: a press judges the board first. After a fault a press waits,
        as the board's own judging does, for a complete scan and the settle time after it
        (at most `FAULT_WAIT`)."""
        held = (*self._held, *self.board.button_events())
        waiting = fresh_fault or self.debouncer.pending
        doubted = self._doubtful or now < self._doubt_until
        if held and (
            (waiting and now - held[0].at < BUTTON_WAIT)
            or (doubted and now - held[0].at < FAULT_WAIT)
        ):
            self._held = held
            return ()
        self._held = ()
        return held
