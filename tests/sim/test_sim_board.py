"""The simulated board runs the real drivers: what they put on the bus and on the LED wire."""

from __future__ import annotations

from magboard.hardware.expanders import IOCON, ExpanderArray
from magboard.hardware.spec import load_board
from magboard.sim.board import SimBoard
from magboard.sim.clock import VirtualClock
from magboard.sim.i2c import SimI2C, Transfer
from magboard.sim.mcp23017 import Register, SimMCP23017

MINI = load_board("mini")


def recorded_setup():
    bus = SimI2C(record=True)
    chips = [bus.attach(SimMCP23017(e.address)) for e in MINI.expanders]
    array = ExpanderArray(MINI, {"i2c1": bus}, VirtualClock())
    return bus, chips, array


def writes_to(bus: SimI2C, address: int) -> list[bytes]:
    return [t.data for t in bus.transfers if t.address == address and t.direction == "w"]


def test_the_driver_configures_each_chip_register_by_register():
    bus, chips, _ = recorded_setup()
    writes = writes_to(bus, 0x20)
    # adafruit_mcp230xx's constructor: probe, IODIR, GPPU, IPOL (and never IOCON) ...
    assert writes[:4] == [b"", bytes([0x00, 0xFF, 0xFF]), bytes([0x0C, 0, 0]), bytes([0x02, 0, 0])]
    # ... then this project's set-up through the same driver, IOCON first.
    assert bytes([Register.IOCON, IOCON]) in writes
    assert bytes([Register.GPINTENA, 0x7F, 0x7F]) in writes
    assert bytes([Register.IPOLA, 0x7F, 0x7F]) in writes
    assert writes[-1] == bytes([Register.GPIOA]), "the pointer is parked on GPIOA"
    for chip in chips:
        assert chip.peek(Register.IOCON) == IOCON
        assert chip.peek(Register.IODIRA) == chip.peek(Register.IODIRB) == 0x7F


def test_a_scan_is_one_bare_two_byte_read_per_chip():
    bus, chips, array = recorded_setup()
    bus.transfers.clear()
    chips[1].set_input(3, 0)  # a magnet over the sensor on GPA3 of the second chip
    scan = array.scan()
    assert bus.transfers == [Transfer(c.address, "r", bytes([0, 0])) for c in chips[:1]] + [
        Transfer(0x21, "r", bytes([0x08, 0]))
    ] + [Transfer(c.address, "r", bytes([0, 0])) for c in chips[2:]]
    assert scan.frame == 1 << (14 + 3)


def test_the_led_wire_carries_what_the_led_driver_sends():
    board = SimBoard(MINI)
    colours = [(0, 0, 0)] * MINI.leds.count
    under_b2 = MINI.led_index[(1, 1)]
    under_c2 = MINI.led_index[(2, 1)]
    colours[under_b2] = (200, 100, 50)
    colours[under_c2] = (255, 255, 255)
    colours[MINI.led_index["seat-2"]] = (0, 0, 255)
    board.show(colours)
    brightness = MINI.power.max_brightness
    expected = bytearray()
    for r, g, b in colours:  # GRB order, scaled as the driver scales: int(v * brightness)
        expected += bytes(int(v * brightness) for v in (g, r, b))
    assert board.led_wire.last == bytes(expected)
    assert (under_b2, under_c2) == (4, 3), "serpentine: the second row runs right to left"
    assert board.visible_leds()[under_b2] == (100, 50, 25)


def test_a_dead_led_stays_dark_whatever_the_wire_says():
    board = SimBoard(MINI)
    board.kill_led(0)
    board.show([(255, 0, 0)] * MINI.leds.count)
    assert board.visible_leds()[0] == (0, 0, 0)
    assert board.visible_leds()[1] == (127, 0, 0)


def test_r1_scans_through_the_mux_one_select_per_channel():
    board = SimBoard(load_board("r1"))
    bus = board.buses["i2c1"]
    bus.record = True
    board.scan()
    selects = [t.data for t in bus.transfers if t.address == 0x70]
    assert selects == [bytes([1 << ch]) for ch in range(6)] + [b"\x00"]
    reads = [t for t in bus.transfers if t.address != 0x70]
    assert len(reads) == 44 and all(t.direction == "r" and len(t.data) == 2 for t in reads)


def test_a_board_without_interrupt_lines_is_polled():
    from dataclasses import replace

    spec = replace(MINI, expanders=tuple(replace(e, interrupt=None) for e in MINI.expanders))
    board = SimBoard(spec)
    assert board.wait_for_change(0.05) is True  # a poll: always scan
    assert board.clock.now() >= 0.05
    bit = spec.sensors[5].bit
    board.set_sensors({bit: True})
    assert board.scan().frame == 1 << bit


def test_an_expander_reset_does_not_fight_the_others_on_its_int_line():
    board = SimBoard(MINI)
    board.scan()
    board.reset_expander(1)  # INT pins back to push-pull, driving high
    board.set_sensors({MINI.sensors[0].bit: True})  # another chip on the line pulls low
    assert board.wait_for_change(0.1)
    scan = board.scan()
    assert [f.kind for f in scan.faults] == ["expander-reset"]
    assert board.scan().frame == 1 << MINI.sensors[0].bit
