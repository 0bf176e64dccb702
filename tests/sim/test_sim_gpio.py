"""Simulated Pi input lines: pulls, wired drivers, contention, edge callbacks."""

from __future__ import annotations

import pytest

from magboard.sim.gpio import GpioLine, LineContentionError
from magboard.sim.i2c import SimI2C
from magboard.sim.mcp23017 import Iocon, SimMCP23017
from magboard.sim.mcp23017 import Register as R


def _edges(line: GpioLine, edge: str = "both") -> list[int]:
    seen: list[int] = []
    line.add_edge_callback(lambda _line, level: seen.append(level), edge)
    return seen


@pytest.mark.parametrize(("pull", "level"), [("up", 1), ("down", 0), ("none", 0)])
def test_undriven_line_reads_its_pull(pull, level):
    assert GpioLine("x", pull=pull).level == level


def test_open_drain_drivers_wire_and():
    line = GpioLine("INT", pull="up")
    a, b = line.add_driver("a"), line.add_driver("b")
    a.drive(0)
    b.drive(0)
    assert line.level == 0
    a.drive(None)
    assert line.level == 0
    b.drive(None)
    assert line.level == 1


def test_push_pull_high_against_low_is_contention():
    line = GpioLine("INT")
    high, low = line.add_driver("high"), line.add_driver("low")
    high.drive(1)
    assert line.level == 1
    with pytest.raises(LineContentionError, match="'high' drives high while 'low' drives low"):
        low.drive(0)


def test_edge_callbacks_fire_once_per_edge_and_filter():
    line = GpioLine("INT", pull="up")
    both, falling, rising = _edges(line), _edges(line, "falling"), _edges(line, "rising")
    a, b = line.add_driver("a"), line.add_driver("b")
    a.drive(0)
    b.drive(0)  # already low: no edge
    a.drive(None)
    b.drive(None)
    a.drive(1)  # already high: no edge
    assert both == [0, 1]
    assert falling == [0]
    assert rising == [1]


def test_changing_the_pull_can_make_an_edge():
    line = GpioLine("BTN")
    seen = _edges(line)
    line.pull = "up"
    assert seen == [1]
    with pytest.raises(ValueError):
        line.pull = "sideways"


def test_remove_edge_callback():
    line = GpioLine("INT", pull="up")
    seen = []

    def record(_line, level):
        seen.append(level)

    line.add_edge_callback(record, "falling")
    line.add_edge_callback(record, "rising")
    line.remove_edge_callback(record)
    line.add_driver("a").drive(0)
    assert seen == []
    with pytest.raises(ValueError, match="not an edge callback"):
        line.remove_edge_callback(record)
    with pytest.raises(ValueError, match="edge"):
        line.add_edge_callback(record, "sideways")


def test_edges_caused_inside_a_callback_are_delivered_after_it():
    line = GpioLine("INT", pull="up")
    driver = line.add_driver("int")
    order = []

    def on_edge(_line, level):
        order.append(("start", level))
        if level == 0:
            driver.drive(None)  # the handler clears the interrupt: a rising edge
        order.append(("end", level))

    line.add_edge_callback(on_edge)
    driver.drive(0)
    assert order == [("start", 0), ("end", 0), ("start", 1), ("end", 1)]


def test_two_open_drain_int_outputs_share_one_line():
    bus = SimI2C()
    line = GpioLine("GPIO17", pull="up")
    falling = _edges(line, "falling")
    chips = [bus.attach(SimMCP23017(address)) for address in (0x20, 0x21)]
    for chip in chips:
        chip.connect_int("A", line)
        bus.writeto(chip.address, bytes([R.IOCON, Iocon.ODR]))
        bus.writeto(chip.address, bytes([R.GPPUA, 0xFF]))
        bus.writeto(chip.address, bytes([R.GPINTENA, 0x01]))
    assert line.level == 1
    chips[0].set_input(0, 0)
    chips[1].set_input(0, 0)
    assert line.level == 0
    assert falling == [0]  # the second chip joined a line already low
    bus.writeto_then_readfrom(0x20, bytes([R.GPIOA]), bytearray(1))
    assert line.level == 0  # the other chip still holds it low
    bus.writeto_then_readfrom(0x21, bytes([R.GPIOA]), bytearray(1))
    assert line.level == 1


def test_push_pull_int_outputs_sharing_a_line_are_caught():
    """After power-on reset INT is push-pull; sharing it without setting ODR is a short."""
    bus = SimI2C()
    line = GpioLine("GPIO17")
    chips = [bus.attach(SimMCP23017(address)) for address in (0x20, 0x21)]
    for chip in chips:
        chip.connect_int("A", line)
        bus.writeto(chip.address, bytes([R.GPINTENA, 0x01]))
    assert line.level == 1  # both idle high: no conflict yet
    with pytest.raises(LineContentionError):
        chips[0].set_input(0, 1)


def test_an_output_through_a_diode_can_only_pull_low():
    line = GpioLine("int", pull="up")
    diode = line.add_driver("reset chip", diode=True)
    other = line.add_driver("open drain")
    diode.drive(1)  # push-pull high after a reset: blocked by the diode
    other.drive(0)
    assert line.level == 0
    other.drive(None)
    assert line.level == 1
    diode.drive(0)
    assert line.level == 0
