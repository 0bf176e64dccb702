"""After any fault the board waits for a complete scan and the settle time again: whatever it
saw before a fault is not enough to conclude anything from, in every game alike."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from magboard.firmware.sensing import SETTLE, Debouncer, Scanner
from magboard.firmware.sensing.scanner import FAULT_WAIT
from magboard.hardware.interface import ButtonEvent, Fault, Scan
from magboard.hardware.spec import load_board

MINI = load_board("mini")
B2 = 1 << MINI.sensor_bit[((1, 1), "s")]
CHIP = (1 << 14) - 1
"""The blind bits of the first expander (its 14 inputs)."""


@dataclass
class Clock:
    t: float = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class ScriptedBoard:
    """A board whose scans are scripted: the frame from a moment on, and faults or blind
    expanders met by the scans at given moments. It wakes only at deadlines (no interrupts)."""

    spec: object = MINI
    clock: Clock = field(default_factory=Clock)
    frame: int = 0
    troubles: dict[float, tuple[int, tuple[Fault, ...]]] = field(default_factory=dict)
    """From `at` on, the next scan is blind to these bits and meets these faults (once)."""

    def scan(self) -> Scan:
        now = self.clock.now()
        due = [at for at in self.troubles if at <= now]
        if not due:
            return Scan(self.frame, 0, (), now)
        blind, faults = self.troubles.pop(min(due))
        return Scan(self.frame, blind, faults, now)

    def wait_for_change(self, timeout: float) -> bool:
        self.clock.sleep(timeout)
        return False

    def verify(self) -> tuple[Fault, ...]:
        return ()

    presses: list[ButtonEvent] = field(default_factory=list)

    def button_events(self) -> list[ButtonEvent]:
        now = self.clock.now()
        events = [press for press in self.presses if press.at <= now]
        self.presses = [press for press in self.presses if press.at > now]
        return events


def _reset(at: float) -> Fault:
    return Fault("expander-reset", "U1", "read 0xffff: registers lost", at)


def _stable_at(board: ScriptedBoard, scanner: Scanner, until: float) -> list[float]:
    """The moments at which a stable frame with the piece on it is concluded."""
    seen = []
    while board.clock.now() < until:
        reading = scanner.step(wake_at=until)
        if reading.stable == B2:
            seen.append(reading.now)
    return seen


def _landed(troubles: dict[float, tuple[int, tuple[Fault, ...]]]) -> tuple[ScriptedBoard, Scanner]:
    """A piece lands on b2 at 1.0 s; the scans meet `troubles` after that."""
    board = ScriptedBoard(troubles=troubles)
    scanner = Scanner(board, Debouncer(MINI, settle=SETTLE))
    scanner.step(wake_at=1.0)
    board.frame = B2
    return board, scanner


def test_a_fault_scan_as_the_board_settles_restarts_the_settle_time():
    board, scanner = _landed({1.2: (CHIP, (_reset(1.2),))})
    concluded = _stable_at(board, scanner, 3.0)
    assert len(concluded) == 1
    # The landing settles at 1.28; the fault's scan there concludes nothing; the next scan is
    # complete, and only the settle time after it concludes the move.
    assert concluded[0] >= 1.28 + 0.02 + SETTLE


def test_a_read_retried_then_good_still_counts_as_a_fault():
    retried = Fault("i2c-error", "U1", "read failed 2x, then ok", 1.2)
    board, scanner = _landed({1.2: (0, (retried,))})
    concluded = _stable_at(board, scanner, 3.0)
    assert len(concluded) == 1
    assert concluded[0] >= 1.28 + 0.02 + SETTLE


def test_an_expander_lost_for_good_does_not_stop_the_rest_of_the_board():
    lost = Fault("expander-lost", "U2", "not answering", 1.2)
    other_chip = CHIP << 14
    board, scanner = _landed({1.2: (other_chip, (lost,))})
    board.troubles.update({1.2 + i * 0.02: (other_chip, ()) for i in range(1, 200)})
    concluded = _stable_at(board, scanner, 3.0)
    assert concluded and concluded[0] >= 1.28 + 0.02 + SETTLE


def test_without_a_fault_the_settle_time_runs_from_the_landing():
    board, scanner = _landed({})
    concluded = _stable_at(board, scanner, 3.0)
    assert concluded == [pytest.approx(1.03 + SETTLE)]


def test_hold_delays_a_settling_board_and_never_hurries_one():
    d = Debouncer(MINI, debounce=0.03, settle=0.25)
    d.feed(B2, 1.0)
    d.promote(1.03)
    d.hold(1.2)
    assert d.stable(1.28) is None
    assert d.next_deadline() == pytest.approx(1.45)
    d.hold(1.1)  # an earlier moment changes nothing
    assert d.stable(1.45) == B2


def _pressed_at(board: ScriptedBoard, scanner: Scanner, until: float) -> list[float]:
    """The moments at which the scanner hands a press on to be judged."""
    seen = []
    while board.clock.now() < until:
        reading = scanner.step(wake_at=until)
        seen += [reading.now for _ in reading.buttons]
    return seen


def test_a_press_after_a_fault_waits_for_a_complete_scan_and_the_settle_time():
    board, scanner = _landed({1.1: (CHIP, (_reset(1.1),))})
    board.presses.append(ButtonEvent("seat-1", True, 1.1))
    released = _pressed_at(board, scanner, 3.0)
    assert len(released) == 1
    assert released[0] >= 1.1 + 0.02 + SETTLE


def test_a_press_is_never_held_for_ever_by_faults_that_keep_coming():
    board, scanner = _landed({1.1 + i * 0.02: (CHIP, (_reset(1.1),)) for i in range(200)})
    board.presses.append(ButtonEvent("seat-1", True, 1.1))
    released = _pressed_at(board, scanner, 3.0)
    assert len(released) == 1
    assert released[0] == pytest.approx(1.1 + FAULT_WAIT, abs=0.03)
