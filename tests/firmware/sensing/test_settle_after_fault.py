"""After any fault the board waits for a complete scan and the settle time again: whatever it
saw before a fault is not enough to conclude anything from, in every game alike."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest

from magboard.firmware.sensing import SETTLE, Debouncer, Scanner
from magboard.firmware.sensing.scanner import FAST_POLL, FAULT_WAIT
from magboard.hardware.interface import ButtonEvent, Fault, Scan
from magboard.hardware.spec import load_board

MINI = load_board("mini")
B2 = 1 << MINI.sensor_bit[((1, 1), "s")]
CHIP = (1 << 14) - 1
"""The blind bits of the first expander (its 14 inputs)."""
OTHER_CHIP = CHIP << 14
SCAN_TIME = 0.001
"""A scan takes time on the wire, as on a real board."""


@dataclass
class Clock:
    t: float = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class ScriptedBoard:
    """A board whose scans are scripted: a frame, faults met by the first scan at or after
    their moment (blind to a chip in that scan), expanders that stay blind for a while, and
    presses. It wakes only at deadlines (no interrupts)."""

    spec: object = MINI
    clock: Clock = field(default_factory=Clock)
    frame: int = 0
    faults: list[tuple[Fault, int]] = field(default_factory=list)
    """(fault, the bits its scan could not read)."""
    blind: list[tuple[float, float, int]] = field(default_factory=list)
    """(from, until, bits): expanders that do not answer meanwhile."""
    presses: list[ButtonEvent] = field(default_factory=list)

    def scan(self) -> Scan:
        now = self.clock.now()
        met = [(fault, bits) for fault, bits in self.faults if fault.at <= now]
        self.faults = [(fault, bits) for fault, bits in self.faults if fault.at > now]
        blind = 0
        for start, end, bits in self.blind:
            blind |= bits if start <= now < end else 0
        for _, bits in met:
            blind |= bits
        self.clock.sleep(SCAN_TIME)
        return Scan(self.frame, blind, tuple(fault for fault, _ in met), now)

    def wait_for_change(self, timeout: float) -> bool:
        self.clock.sleep(timeout)
        return False

    def verify(self) -> tuple[Fault, ...]:
        return ()

    def button_events(self) -> list[ButtonEvent]:
        now = self.clock.now()
        events = [press for press in self.presses if press.at <= now]
        self.presses = [press for press in self.presses if press.at > now]
        return events


def _fault(kind: str, at: float) -> Fault:
    return Fault(kind, "U1", "scripted", at)


@dataclass
class Run:
    concluded: list[float] = field(default_factory=list)
    """When a stable frame with the piece on it was concluded."""
    pressed: list[float] = field(default_factory=list)
    """When a press was handed on to be judged."""
    fault_scans: list[float] = field(default_factory=list)
    """When a scan met a fault."""


def _run(board: ScriptedBoard, scanner: Scanner, until: float = 3.0) -> Run:
    run = Run()
    while board.clock.now() < until:
        reading = scanner.step(wake_at=until)
        if reading.stable == B2:
            run.concluded.append(reading.now)
        run.pressed += [reading.now for _ in reading.buttons]
        if reading.faults:
            run.fault_scans.append(reading.now)
    return run


def _landed(board: ScriptedBoard) -> Scanner:
    """A piece lands on b2 at 1.0 s (it settles at 1.28 s without a fault)."""
    scanner = Scanner(board, Debouncer(MINI, settle=SETTLE))
    scanner.step(wake_at=1.0)
    board.frame = B2
    return scanner


def test_a_fault_scan_as_the_board_settles_restarts_the_settle_time():
    board = ScriptedBoard(faults=[(_fault("expander-reset", 1.1), CHIP)])
    run = _run(board, _landed(board))
    # The fault is met by the scan at the landing's settle deadline; it concludes nothing,
    # and neither does the settle time counted from the landing.
    assert run.fault_scans == [pytest.approx(1.28, abs=0.01)]
    assert len(run.concluded) == 1
    assert run.concluded[0] >= run.fault_scans[-1] + FAST_POLL + SETTLE


def test_a_read_retried_then_good_still_counts_as_a_fault():
    board = ScriptedBoard(faults=[(_fault("i2c-error", 1.1), 0)])
    run = _run(board, _landed(board))
    assert len(run.concluded) == 1
    assert run.concluded[0] >= run.fault_scans[-1] + SETTLE


def test_an_expander_lost_and_back_settles_again_from_its_first_complete_scan():
    board = ScriptedBoard(
        faults=[(_fault("expander-lost", 1.1), CHIP), (_fault("expander-back", 1.5), CHIP)],
        blind=[(1.1, 1.5, CHIP)],
    )
    run = _run(board, _landed(board))
    assert len(run.fault_scans) == 2
    assert len(run.concluded) == 1
    assert run.concluded[0] >= run.fault_scans[-1] + FAST_POLL + SETTLE


def test_an_expander_lost_for_good_does_not_stop_the_rest_of_the_board():
    board = ScriptedBoard(
        faults=[(_fault("expander-lost", 1.1), OTHER_CHIP)],
        blind=[(1.1, math.inf, OTHER_CHIP)],
    )
    run = _run(board, _landed(board))
    assert len(run.concluded) == 1
    assert run.concluded[0] >= run.fault_scans[-1] + FAST_POLL + SETTLE


def test_without_a_fault_the_settle_time_runs_from_the_landing():
    board = ScriptedBoard()
    run = _run(board, _landed(board))
    assert run.concluded == [pytest.approx(1.03 + SETTLE, abs=0.01)]


def test_a_press_after_a_fault_waits_for_a_complete_scan_and_the_settle_time():
    board = ScriptedBoard(
        faults=[(_fault("expander-reset", 2.0), CHIP)],
        presses=[ButtonEvent("seat-1", True, 2.0)],
    )
    scanner = _landed(board)
    board.clock.t = 2.0  # the press wakes a scan, which meets the fault
    run = _run(board, scanner)
    assert run.fault_scans == [pytest.approx(2.0, abs=0.01)]
    assert len(run.pressed) == 1
    assert run.pressed[0] >= 2.0 + FAST_POLL + SETTLE


def test_a_press_is_never_held_for_ever_by_faults_that_keep_coming():
    faults = [(_fault("expander-reset", 2.0 + i * FAST_POLL), CHIP) for i in range(100)]
    board = ScriptedBoard(faults=faults, presses=[ButtonEvent("seat-1", True, 2.0)])
    scanner = _landed(board)
    board.clock.t = 2.0
    run = _run(board, scanner)
    assert len(run.pressed) == 1
    assert run.pressed[0] == pytest.approx(2.0 + FAULT_WAIT, abs=FAST_POLL)


def test_hold_delays_a_settling_board_and_never_hurries_one():
    d = Debouncer(MINI, debounce=0.03, settle=0.25)
    d.feed(B2, 1.0)
    d.promote(1.03)
    d.hold(1.2)
    assert d.stable(1.28) is None
    assert d.next_deadline() == pytest.approx(1.45)
    d.hold(1.1)  # an earlier moment changes nothing
    assert d.stable(1.45) == B2
