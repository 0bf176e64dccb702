"""The referee loop: scan, debounce, judge, light, report; one step at a time.

One thread runs it and owns the board. Every input (a stable frame, a debounced change, a button,
a fault) turns into referee calls and events; every step ends by bringing the LEDs up to date.
Nothing here raises for what the hardware or the players do: faults become events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from magboard.firmware.events import ButtonPressed, Event, FaultSurvived, LedFrame
from magboard.firmware.lights import LedWriter
from magboard.firmware.referee import Referee
from magboard.firmware.sensing import Debouncer, Scanner
from magboard.hardware.interface import RGB, Board

FAULT_SHOWN = 5.0
"""Seconds the alert LED stays on after a fault the board survived."""


def pixels_hex(pixels: Iterable[RGB]) -> str:
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in pixels)


class BoardLoop:
    def __init__(
        self,
        board: Board,
        referee: Referee,
        sinks: Iterable[Callable[[Event], None]] = (),
        *,
        debounce: float | None = None,
    ) -> None:
        self.board = board
        self.referee = referee
        self.sinks = list(sinks)
        profile = referee.profile
        debouncer = Debouncer(board.spec, settle=profile.settle)
        if debounce is not None:
            debouncer.debounce = debounce
        self.scanner = Scanner(board, debouncer)
        self.writer = LedWriter(board, board.spec)
        self._fault_until = -1.0
        self.inputs: list[Callable[[float], None]] = []
        """Called once a step with the time, after the scan's buttons and before the judging:
        other ways in (the serial link) press buttons and ask things here, in the loop's thread."""
        referee.emit = self.emit

    def emit(self, event: Event) -> None:
        for sink in self.sinks:
            sink(event)

    def start(self, actions: Iterable[str] = ()) -> None:
        """Starts (or resumes) the game and says at once if the pieces do not match it."""
        now = self.board.clock.now()
        self.referee.start(now, tuple(actions))
        first = self.board.scan()
        self.scanner.debouncer.reset(first.frame, now)
        self.referee.check_board(first.frame, now)
        self._light(now)

    def step(self, until: float | None = None) -> None:
        """One wake-up and what follows from it (a scan, if the board can have changed);
        waits no later than `until` if given."""
        wake = self.writer.next_deadline()
        if until is not None:
            wake = until if wake is None else min(wake, until)
        reading = self.scanner.step(wake_at=wake)
        now = reading.now
        for fault in reading.faults:
            self._fault_until = now + FAULT_SHOWN
            self.emit(FaultSurvived(fault.at, fault.kind, fault.where, fault.detail))
        referee = self.referee
        for button in reading.buttons:
            self.button(button.button, button.pressed, button.at, now)
        for poll in self.inputs:
            poll(now)
        if reading.blind:
            self._fault_until = max(self._fault_until, now + FAULT_SHOWN)
        if reading.changed:
            referee.judge(reading.debounced, now, stable=False)
        if reading.stable is not None:
            referee.judge(reading.stable, now, stable=True)
        self._light(now)

    def button(self, name: str, pressed: bool, at: float, now: float) -> None:
        """A button went down or up (at `at`): reported, and a press goes to the referee. A
        virtual button (the serial link's `press`) comes through here too, so it is the same."""
        self.emit(ButtonPressed(at, name, pressed))
        if pressed:
            self.referee.press(name, now, self.scanner.debouncer.debounced)
            if name == "new":
                self.scanner.debouncer.forget_stable()

    def new_game(self, now: float) -> None:
        """Starts the game again, as the `new` button does (without the button)."""
        self.referee.new_game(now, self.scanner.debouncer.debounced)
        self.scanner.debouncer.forget_stable()

    def _light(self, now: float) -> None:
        view = self.referee.view(fault=now < self._fault_until)
        pixels = self.writer.update(view, now)
        if pixels is not None:
            self.emit(LedFrame(now, pixels_hex(pixels)))

    def run_until(self, end: float, look_every: float | None = None) -> None:
        """Steps until the board's clock reaches `end` (virtual time in the simulator; for ever
        on a Pi), waking at `end` rather than sleeping past it, and at least every `look_every`
        seconds where an input (the serial link) is polled."""
        clock = self.board.clock
        while clock.now() < end:
            wake = end if look_every is None else min(end, clock.now() + look_every)
            self.step(until=wake)
