"""The real adafruit_mcp230xx driver, unchanged, running on the simulated bus and expander."""

from __future__ import annotations

import errno

import digitalio
import pytest
from adafruit_mcp230xx.mcp23017 import MCP23017

from magboard.sim.gpio import GpioLine
from magboard.sim.i2c import Transfer
from magboard.sim.mcp23017 import Iocon
from magboard.sim.mcp23017 import Register as R


@pytest.fixture
def mcp(bus, chip) -> MCP23017:
    driver = MCP23017(bus, chip.address)
    bus.transfers.clear()
    return driver


def test_constructor_probes_then_writes_iodir_gppu_ipol_and_never_iocon(bus, chip):
    MCP23017(bus, 0x20)
    assert bus.transfers == [
        Transfer(0x20, "w", b""),  # the probe: an empty write
        Transfer(0x20, "w", bytes([R.IODIRA, 0xFF, 0xFF])),
        Transfer(0x20, "w", bytes([R.GPPUA, 0x00, 0x00])),
        Transfer(0x20, "w", bytes([R.IPOLA, 0x00, 0x00])),
    ]
    assert chip.peek(R.IOCON) == 0  # `self.iocon = 0x4` in the driver is only an attribute


def test_constructing_at_an_absent_address_reports_no_device(bus, chip):
    with pytest.raises(ValueError, match="No I2C device at address: 0x21"):
        MCP23017(bus, 0x21)
    assert not bus.locked


def test_gpio_reads_both_ports_in_one_transaction(mcp, bus, chip):
    chip.set_inputs({0: 1, 9: 1})
    assert mcp.gpio == 0x0201
    assert bus.transfers == [
        Transfer(0x20, "w", bytes([R.GPIOA])),
        Transfer(0x20, "r", bytes([0x01, 0x02])),
    ]
    assert (mcp.gpioa, mcp.gpiob) == (0x01, 0x02)


def test_gppu_and_ipol_round_trip_and_act(mcp, chip):
    mcp.gppu = 0x00FF
    assert mcp.gppu == 0x00FF
    assert mcp.gpio == 0x00FF
    mcp.ipol = 0xFFFF
    assert mcp.ipol == 0xFFFF
    chip.set_input(0, 0)
    assert mcp.gpio == 0xFF01


def test_get_pin_value_as_input_and_output(mcp, chip):
    pin = mcp.get_pin(3)
    pin.switch_to_input(pull=digitalio.Pull.UP)
    assert pin.value is True
    chip.set_input(3, 0)
    assert pin.value is False
    out = mcp.get_pin(10)
    out.switch_to_output(value=True)
    assert chip.pin_level(10) == 1
    assert out.value is True
    out.value = False
    assert chip.pin_level(10) == 0
    assert chip.peek(R.OLATB) == 0


def test_interrupt_registers_round_trip(mcp, chip):
    mcp.interrupt_enable = 0x0102
    mcp.default_value = 0x0300
    mcp.interrupt_configuration = 0x0100
    assert (mcp.interrupt_enable, mcp.default_value, mcp.interrupt_configuration) == (
        0x0102,
        0x0300,
        0x0100,
    )
    assert (chip.peek(R.GPINTENA), chip.peek(R.GPINTENB)) == (0x02, 0x01)


def test_int_flag_int_cap_and_clear_ints_as_on_the_chip(mcp, chip):
    mcp.gppu = 0xFFFF
    mcp.interrupt_configuration = 0x0000
    mcp.interrupt_enable = 0x0006
    chip.set_inputs({1: 0, 2: 0})
    assert mcp.int_flag == [1, 2]
    assert mcp.int_flag == [1, 2]  # reading INTF clears nothing
    cap = mcp.int_cap  # reading INTCAP clears
    assert cap[:4] == [1, 0, 0, 1]
    assert mcp.int_flag == []
    chip.set_input(1, None)
    assert mcp.int_flag == [1]
    mcp.clear_ints()
    assert mcp.int_flag == []
    assert chip.inta == 1


def test_defval_compare_through_the_driver(mcp, chip):
    mcp.gppu = 0xFFFF
    mcp.default_value = 0xFFFF
    mcp.interrupt_configuration = 0x0100
    mcp.interrupt_enable = 0x0100
    chip.set_input(8, 0)
    assert mcp.int_flagb == [8]
    mcp.clear_intb()
    assert mcp.int_flagb == [8]  # the mismatch persists
    chip.set_input(8, None)
    mcp.clear_intb()
    assert mcp.int_flagb == []


def test_io_control_configures_int_outputs_and_masks_bank(mcp, chip):
    line = GpioLine("GPIO4", pull="up")
    chip.connect_int("A", line)
    chip.connect_int("B", line)
    mcp.io_control = Iocon.BANK | Iocon.MIRROR | Iocon.ODR  # the driver drops BANK
    assert mcp.io_control == Iocon.MIRROR | Iocon.ODR
    mcp.gppu = 0xFFFF
    mcp.interrupt_enable = 0x0100
    chip.set_input(8, 0)
    assert (chip.inta, chip.intb, line.level) == (0, 0, 0)
    mcp.gpio  # noqa: B018 - the read clears both ports
    assert (chip.inta, chip.intb, line.level) == (None, None, 1)


def test_driver_works_with_seqop_set(mcp, chip):
    mcp.io_control = Iocon.SEQOP
    mcp.gppu = 0xFFFF  # a two-byte write toggles GPPUA -> GPPUB
    chip.set_input(12, 0)
    assert mcp.gpio == 0xEFFF


def test_error_burst_surfaces_as_oserror_then_recovers(mcp, bus, chip):
    chip.set_input(0, 1)
    bus.inject_errors(0x20, 2, errno=errno.EIO)
    for _ in range(2):
        with pytest.raises(OSError) as caught:
            mcp.gpio  # noqa: B018
        assert caught.value.errno == errno.EIO
        assert not bus.locked  # I2CDevice's context manager released the lock
    assert mcp.gpio == 0x0001


def test_expander_reset_loses_the_drivers_configuration(mcp, chip):
    mcp.gppu = 0xFFFF
    mcp.iodir = 0x00FF
    chip.power_on_reset()
    assert (mcp.gppu, mcp.iodir) == (0x0000, 0xFFFF)
    assert mcp.gpio == 0x0000
