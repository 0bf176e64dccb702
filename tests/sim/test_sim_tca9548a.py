"""The TCA9548A emulator, alone and under the real adafruit_tca9548a driver."""

from __future__ import annotations

import adafruit_tca9548a
import pytest
from adafruit_mcp230xx.mcp23017 import MCP23017

from magboard.sim.i2c import BusContentionError, BusLockError, SimI2C, Transfer
from magboard.sim.mcp23017 import SimMCP23017
from magboard.sim.tca9548a import SimTCA9548A


@pytest.fixture
def mux(bus) -> SimTCA9548A:
    return bus.attach(SimTCA9548A())


def _select(bus: SimI2C, mask: int) -> None:
    bus.writeto(0x70, bytes([mask]))


def test_real_driver_reaches_an_expander_behind_its_channel_only(bus, mux):
    chip = mux.channel(3).attach(SimMCP23017(0x21))
    chip.set_input(5, 1)
    tca = adafruit_tca9548a.TCA9548A(bus)
    mcp = MCP23017(tca[3], 0x21)
    assert mcp.gpio == 0x0020
    for other in (0, 2, 4, 7):
        with pytest.raises(ValueError, match="No I2C device at address: 0x21"):
            MCP23017(tca[other], 0x21)
    assert mux.control == 0  # the driver deselects in unlock


def test_driver_selects_then_deselects_around_every_access(bus, mux):
    mux.channel(1).attach(SimMCP23017(0x20))
    mcp = MCP23017(adafruit_tca9548a.TCA9548A(bus)[1], 0x20)
    bus.transfers.clear()
    mcp.gpio  # noqa: B018
    assert bus.transfers == [
        Transfer(0x70, "w", b"\x02"),
        Transfer(0x20, "w", b"\x12"),
        Transfer(0x20, "r", b"\x00\x00"),
        Transfer(0x70, "w", b"\x00"),
    ]


def test_several_channels_at_once_and_reading_the_control_byte(bus, mux):
    mux.channel(0).attach(SimMCP23017(0x20))
    mux.channel(6).attach(SimMCP23017(0x27))
    _select(bus, 0x41)
    assert bus.scan() == [0x20, 0x27, 0x70]
    buffer = bytearray(2)
    bus.readfrom_into(0x70, buffer)
    assert buffer == b"\x41\x41"


def test_last_byte_written_counts_and_takes_effect_at_stop(bus, mux):
    chip = mux.channel(2).attach(SimMCP23017(0x20))
    bus.writeto(0x70, b"\x01\x80\x04")
    assert mux.control == 0x04
    buffer = bytearray(1)
    bus.writeto_then_readfrom(0x20, b"\x00", buffer)  # reaches channel 2
    assert buffer == b"\xff"
    mux.write(b"\x01")  # written but not yet stopped: still channel 2
    assert mux.control == 0x04
    assert mux.downstream_target(0x20) is chip
    mux.stop()
    assert mux.downstream_target(0x20) is None


def test_empty_write_keeps_the_selection(bus, mux):
    _select(bus, 0x10)
    bus.writeto(0x70, b"")
    assert mux.control == 0x10


def test_same_address_behind_two_enabled_channels_is_contention(bus, mux):
    mux.channel(0).attach(SimMCP23017(0x20))
    mux.channel(1).attach(SimMCP23017(0x20))
    _select(bus, 0x01)
    bus.writeto(0x20, b"\x00")
    _select(bus, 0x03)
    with pytest.raises(BusContentionError, match="channels 0 and 1"):
        bus.writeto(0x20, b"\x00")


def test_root_device_and_channel_device_at_one_address_is_contention(bus, mux):
    bus.attach(SimMCP23017(0x20))
    mux.channel(5).attach(SimMCP23017(0x20))
    _select(bus, 0x20)
    with pytest.raises(BusContentionError, match="0x20"):
        bus.writeto(0x20, b"\x00")


def test_mux_address_must_be_one_its_pins_can_select():
    with pytest.raises(ValueError, match=r"0x70\.\.0x77"):
        SimTCA9548A(0x20)
    with pytest.raises(IndexError):
        SimTCA9548A().channel(8)


def test_failed_channel_select_leaves_the_root_locked_and_says_so(bus, mux):
    """The driver takes the root lock, then selects; if the select fails, nothing unlocks.

    On the real bus the next access would spin forever in I2CDevice.__enter__; here it raises,
    and the caller can recover by unlocking the root bus.
    """
    mux.channel(0).attach(SimMCP23017(0x20))
    mcp = MCP23017(adafruit_tca9548a.TCA9548A(bus)[0], 0x20)
    bus.inject_errors(0x70, 1)
    with pytest.raises(OSError):
        mcp.gpio  # noqa: B018
    assert bus.locked
    with pytest.raises(BusLockError):
        mcp.gpio  # noqa: B018
    bus.unlock()
    assert mcp.gpio == 0
