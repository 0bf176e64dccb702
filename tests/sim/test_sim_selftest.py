"""The simulator's pieces for the self-test: boards broken at the lowest boundary (a pin held, a
chip that never acknowledges), the scan's transfer count, and the person who follows the lights."""

from __future__ import annotations

import pytest

from magboard.hardware.spec import load_board
from magboard.sim.board import SimBoard
from magboard.sim.selftest_person import Pace, SelfTestPerson, puck_faces

MINI = load_board("mini")
R1 = load_board("r1")


def bit_of(spec, label: str) -> int:
    return next(s.bit for s in spec.sensors if s.label == label)


def test_a_held_pin_ignores_the_world_until_let_go(chip, raw):
    raw.write(0x0C, 0xFF, 0xFF)  # GPPU: released pins read high
    chip.hold(3, 0)
    chip.set_input(3, None)
    assert raw.read(0x12)[0] >> 3 & 1 == 0, "held low whatever the world does"
    chip.set_input(3, 1)
    assert raw.read(0x12)[0] >> 3 & 1 == 0
    assert chip.held == {3}
    chip.let_go(3)
    assert raw.read(0x12)[0] >> 3 & 1 == 1, "the world's last level is back"
    chip.hold(4, None)
    chip.set_input(4, 0)
    assert raw.read(0x12)[0] >> 4 & 1 == 1, "released: the pull-up wins"
    with pytest.raises(ValueError, match="output-only"):
        chip.hold(7, 0)


def test_a_stuck_sensor_always_reads_a_magnet_and_a_dead_one_never():
    board = SimBoard(MINI)
    stuck, dead = bit_of(MINI, "a1.s"), bit_of(MINI, "b2.m")
    board.stick_sensor(stuck)
    board.kill_sensor(dead)
    board.set_sensors({stuck: False, dead: True})
    assert board.scan().frame == 1 << stuck
    board.set_sensors({stuck: True, dead: True})
    assert board.scan().frame == 1 << stuck


def test_crossed_wires_show_each_magnet_on_the_other_sensor():
    board = SimBoard(MINI)
    a, b = bit_of(MINI, "a1.s"), bit_of(MINI, "b1.s")
    board.cross_sensors(a, b)
    board.set_sensors({a: True})
    assert board.scan().frame == 1 << b


def test_an_expander_dead_from_power_on_is_blind_and_reported_lost_once():
    board = SimBoard(R1, dead_expanders=[10])
    first, second = board.scan(), board.scan()
    chip_bits = ((1 << 14) - 1) << (10 * 14)
    assert first.blind == second.blind == chip_bits
    assert [(f.kind, f.where) for f in first.faults] == [
        ("expander-lost", "U11 i2c1 via mux ch1 0x22")
    ]
    assert second.faults == ()
    assert (second.transfers, second.errors) == (R1.scan_transactions - 1, 0)


def test_an_expander_that_dies_while_scanned_fails_its_reads_then_is_lost():
    board = SimBoard(MINI)
    board.scan()
    board.kill_expander(1)
    scan = board.scan()
    assert [f.kind for f in scan.faults] == ["i2c-error", "expander-lost"]
    assert (scan.transfers, scan.errors) == (MINI.scan_transactions + 2, 3)


def test_a_scan_counts_its_transfers_and_the_failed_ones():
    board = SimBoard(R1)
    scan = board.scan()
    assert (scan.transfers, scan.errors) == (R1.scan_transactions, 0)
    board.inject_i2c_errors(0, 2)
    scan = board.scan()
    assert (scan.transfers, scan.errors) == (R1.scan_transactions + 2, 2)


def test_the_puck_has_a_face_per_pole_where_the_switches_need_one():
    assert puck_faces(R1) == (frozenset("nio"), frozenset("sio"))
    assert puck_faces(MINI) == (frozenset("sml"),)


def show_only(board: SimBoard, *squares) -> None:
    pixels = [(0, 0, 0)] * board.spec.leds.count
    for square in squares:
        pixels[board.spec.led_index[square]] = (255, 255, 255)
    board.show(pixels)


def test_the_person_puts_the_puck_on_the_lit_square_and_turns_it_over():
    board = SimBoard(R1)
    person = SelfTestPerson(board, "menu", Pace())
    show_only(board, (2, 0))  # c1
    frames = []
    for _ in range(4):
        assert board.wait_for_change(5.0)
        frames.append(board.scan().frame)
    c1 = {s.channel: s.bit for s in R1.sensors if s.place == (2, 0)}
    assert frames == [
        sum(1 << c1[c] for c in "nio"),
        0,
        sum(1 << c1[c] for c in "sio"),
        0,
    ]
    assert person.tries == {(2, 0): 2}


def test_the_person_presses_the_button_when_the_lit_square_stays_dark():
    board = SimBoard(MINI)
    person = SelfTestPerson(board, "new", Pace(patience=1.0))
    show_only(board, (0, 0), (1, 0))  # two lit: the board is being cleared
    board.kill_led(MINI.led_index[(2, 2)])
    board.clock.sleep(1.0)
    show_only(board, (2, 2))
    board.clock.sleep(0.5)
    assert board.button_events() == []
    board.clock.sleep(1.0)
    assert [(e.button, e.pressed) for e in board.button_events()] == [
        ("new", True),
        ("new", False),
    ]
    assert person.presses == 1 and person.tries == {}
