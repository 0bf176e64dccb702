"""One contract for every board the firmware can drive (gpiozero's pin-factory tests are the model).

Runs on the simulated board for both reference boards, and on a real board only on a Pi with
MAGBOARD_HW=1 (MAGBOARD_BOARD names the board file; default r1). On real hardware, clear the
board first; the tests that need something to move are skipped there, since no one moves a
magnet on cue.
"""

from __future__ import annotations

import os

import pytest

from magboard.hardware.interface import Board
from magboard.hardware.spec import load_board

BOARDS = ["sim:mini", "sim:r1", "real"]


@pytest.fixture(params=BOARDS)
def board(request) -> Board:
    kind = request.param
    if kind == "real":
        if os.environ.get("MAGBOARD_HW") != "1":
            pytest.skip("real-board contract runs only on a Pi with MAGBOARD_HW=1")
        from magboard.hardware.real import PiBoard

        made = PiBoard(load_board(os.environ.get("MAGBOARD_BOARD", "r1")))
    else:
        from magboard.sim.board import SimBoard

        made = SimBoard(load_board(kind.split(":")[1]))
    yield made
    made.close()


def simulated(board: Board):
    from magboard.sim.board import SimBoard

    if not isinstance(board, SimBoard):
        pytest.skip("needs something to move on the board")
    return board


def test_an_empty_board_scans_complete_and_empty(board):
    scan = board.scan()
    assert scan.complete
    assert scan.faults == ()
    assert scan.frame == 0


def test_nothing_moving_means_wait_times_out(board):
    board.scan()
    start = board.clock.now()
    assert board.wait_for_change(0.05) is False
    assert board.clock.now() - start >= 0.05


def test_leds_take_one_colour_per_led_and_nothing_else(board):
    count = board.spec.leds.count
    board.show([(0, 0, 0)] * count)
    with pytest.raises(ValueError, match=f"{count} colours"):
        board.show([(0, 0, 0)] * (count - 1))


def test_no_button_events_before_any_press(board):
    assert board.button_events() == []


def test_every_sensor_lands_on_its_own_frame_bit(board):
    sim = simulated(board)
    sensors = sim.spec.sensors
    step = max(1, len(sensors) // 60)
    for sensor in sensors[::step]:
        sim.set_sensors({sensor.bit: True})
        assert sim.wait_for_change(1.0), sensor.label
        assert sim.scan().frame == 1 << sensor.bit, sensor.label
        sim.set_sensors({sensor.bit: False})
        assert sim.wait_for_change(1.0)
        assert sim.scan().frame == 0


def test_a_change_wakes_the_waiter_at_once(board):
    sim = simulated(board)
    sim.scan()
    bit = sim.spec.sensors[-1].bit
    sim.clock.call_later(0.2, lambda: sim.set_sensors({bit: True}))
    start = sim.clock.now()
    assert sim.wait_for_change(5.0)
    assert sim.clock.now() - start == pytest.approx(0.2)
    assert sim.scan().frame == 1 << bit
    assert sim.wait_for_change(0.01) is False  # reading cleared the interrupt


def test_button_presses_and_releases_arrive_in_order(board):
    sim = simulated(board)
    name = sim.spec.buttons[0].name
    sim.clock.call_later(0.1, lambda: sim.press(name))
    sim.clock.call_later(0.3, lambda: sim.release(name))
    assert sim.wait_for_change(1.0)
    assert sim.wait_for_change(1.0)
    events = sim.button_events()
    assert [(e.button, e.pressed) for e in events] == [(name, True), (name, False)]
    assert events[1].at - events[0].at == pytest.approx(0.2)


def test_a_held_button_is_read_from_its_line(board):
    assert board.held_buttons() == frozenset()  # on a real board: hands off the buttons
    sim = simulated(board)
    name = sim.spec.buttons[0].name
    sim.press(name)
    sim.button_events()  # the edge is not what is read here: the level is
    assert sim.held_buttons() == {name}
    sim.release(name)
    assert sim.held_buttons() == frozenset()


def test_an_i2c_error_burst_is_survived_and_reported(board):
    sim = simulated(board)
    bit = sim.spec.sensors[0].bit
    sim.set_sensors({bit: True})
    sim.scan()
    sim.inject_i2c_errors(0, 2)
    scan = sim.scan()
    assert scan.complete and scan.frame == 1 << bit
    assert [f.kind for f in scan.faults] == ["i2c-error"]
    sim.inject_i2c_errors(0, 12)
    scans = [sim.scan() for _ in range(6)]
    assert not scans[0].complete
    assert scans[0].frame == 1 << bit, "the last good value is kept, marked incomplete"
    kinds = [f.kind for s in scans for f in s.faults]
    assert "expander-lost" in kinds and "expander-back" in kinds
    assert scans[-1].complete and scans[-1].frame == 1 << bit


def test_an_expander_that_resets_itself_is_set_up_again(board):
    sim = simulated(board)
    bit = sim.spec.sensors[0].bit
    sim.set_sensors({bit: True})
    sim.scan()
    sim.reset_expander(0)
    scan = sim.scan()
    assert not scan.complete
    assert [f.kind for f in scan.faults] == ["expander-reset"]
    scan = sim.scan()
    assert scan.complete and scan.frame == 1 << bit


def test_a_reset_between_scans_is_caught_by_verify(board):
    sim = simulated(board)
    sim.scan()
    sim.reset_expander(len(sim.spec.expanders) - 1)
    sim.chips[-1].write(bytes((0x12,)))  # pointer back on GPIOA: the canaries cannot see it
    assert [f.kind for f in sim.verify()] == ["expander-reset"]
    assert sim.scan().complete
