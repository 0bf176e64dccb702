"""Fixtures for the simulated hardware boundary: a bus and an expander spoken to in raw bytes."""

from __future__ import annotations

import pytest

from magboard.sim.i2c import SimI2C
from magboard.sim.mcp23017 import SimMCP23017


class RawRegisters:
    """Register reads and writes as bare I2C transactions, the way a driver would send them."""

    def __init__(self, bus: SimI2C, address: int) -> None:
        self.bus = bus
        self.address = address

    def write(self, register: int, *values: int) -> None:
        """One write transaction: the register address, then `values` at the moving pointer."""
        self.bus.writeto(self.address, bytes((register, *values)))

    def read(self, register: int, count: int = 1) -> bytes:
        """Pointer write, repeated start, `count`-byte read."""
        buffer = bytearray(count)
        self.bus.writeto_then_readfrom(self.address, bytes((register,)), buffer)
        return bytes(buffer)

    def read_on(self, count: int) -> bytes:
        """A plain read from wherever the pointer was left."""
        buffer = bytearray(count)
        self.bus.readfrom_into(self.address, buffer)
        return bytes(buffer)


@pytest.fixture
def bus() -> SimI2C:
    return SimI2C(record=True)


@pytest.fixture
def chip(bus: SimI2C) -> SimMCP23017:
    return bus.attach(SimMCP23017(0x20))


@pytest.fixture
def raw(bus: SimI2C, chip: SimMCP23017) -> RawRegisters:
    return RawRegisters(bus, chip.address)
