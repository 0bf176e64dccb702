"""The simulated I2C bus: routing, NACKs, fault injection, wire accounting, locking."""

from __future__ import annotations

import errno
import threading

import pytest

from magboard.sim.i2c import (
    AddressConflictError,
    BusClosedError,
    BusLockError,
    SimI2C,
    Transfer,
)
from magboard.sim.mcp23017 import SimMCP23017


class ScriptedTarget:
    """A target that logs the protocol calls it gets and answers reads with a fixed byte."""

    def __init__(self, address: int, answer: int = 0xA5) -> None:
        self.address = address
        self.answer = answer
        self.calls: list[tuple] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def read(self, count: int) -> bytes:
        self.calls.append(("read", count))
        return bytes([self.answer]) * count

    def stop(self) -> None:
        self.calls.append(("stop",))


@pytest.fixture
def target(bus) -> ScriptedTarget:
    return bus.attach(ScriptedTarget(0x42))


def test_transactions_map_onto_write_read_stop(bus, target):
    bus.writeto(0x42, b"\x01\x02")
    bus.readfrom_into(0x42, bytearray(2))
    bus.writeto_then_readfrom(0x42, b"\x07", bytearray(1))
    assert target.calls == [
        ("write", b"\x01\x02"),
        ("stop",),
        ("read", 2),
        ("stop",),
        ("write", b"\x07"),  # repeated start: no stop between the phases
        ("read", 1),
        ("stop",),
    ]


def test_buffer_slices_are_honoured(bus, target):
    bus.writeto(0x42, b"\x00\x01\x02\x03", start=1, end=3)
    buffer = bytearray(4)
    bus.readfrom_into(0x42, buffer, start=1, end=3)
    assert buffer == b"\x00\xa5\xa5\x00"
    shared = bytearray(b"\x09\x00\x00")  # one buffer for out and in, as the Adafruit driver does
    bus.writeto_then_readfrom(0x42, shared, shared, out_end=1, in_start=1)
    assert target.calls[-3] == ("write", b"\x09")
    assert shared == b"\x09\xa5\xa5"


@pytest.mark.parametrize(
    "transaction",
    [
        lambda bus: bus.writeto(0x43, b"\x00"),
        lambda bus: bus.readfrom_into(0x43, bytearray(1)),
        lambda bus: bus.writeto_then_readfrom(0x43, b"\x00", bytearray(1)),
    ],
)
def test_absent_address_nacks_with_eremoteio(bus, target, transaction):
    with pytest.raises(OSError) as caught:
        transaction(bus)
    assert caught.value.errno == errno.EREMOTEIO == 121


def test_two_devices_at_one_address_is_a_wiring_error(bus, target):
    with pytest.raises(AddressConflictError, match="0x42"):
        bus.attach(ScriptedTarget(0x42))


def test_attach_checks_the_protocol_and_the_address(bus):
    with pytest.raises(TypeError, match="target protocol"):
        bus.attach(object())
    with pytest.raises(ValueError, match="7-bit"):
        bus.attach(ScriptedTarget(0x80))


def test_detached_device_nacks(bus, target):
    bus.detach(target)
    with pytest.raises(OSError):
        bus.writeto(0x42, b"")
    with pytest.raises(ValueError, match="not attached"):
        bus.detach(target)


def test_error_burst_fails_the_next_transactions_then_stops(bus, target):
    other = bus.attach(ScriptedTarget(0x43))
    bus.inject_errors(0x42, 2, errno=errno.ETIMEDOUT)
    bus.writeto(0x43, b"\x00")  # other addresses are untouched
    for _ in range(2):
        with pytest.raises(OSError) as caught:
            bus.readfrom_into(0x42, bytearray(1))
        assert caught.value.errno == errno.ETIMEDOUT
    assert target.calls == []  # a failed transaction never reached the device
    bus.readfrom_into(0x42, bytearray(1))
    assert target.calls == [("read", 1), ("stop",)]
    assert other.calls == [("write", b"\x00"), ("stop",)]


def test_error_bursts_queue_and_default_to_nack(bus, target):
    bus.inject_errors(0x42, 1)
    bus.inject_errors(0x42, 1, errno=errno.EIO)
    codes = []
    for _ in range(2):
        with pytest.raises(OSError) as caught:
            bus.writeto(0x42, b"")
        codes.append(caught.value.errno)
    assert codes == [errno.EREMOTEIO, errno.EIO]
    bus.writeto(0x42, b"")


def test_wire_accounting_counts_frames_bytes_and_acks(bus, target):
    bus.writeto(0x42, b"\x12\x00\x00")  # S + addr + 3 bytes + P
    assert (bus.transactions, bus.bits) == (1, 2 + 9 * 4)
    bus.readfrom_into(0x42, bytearray(2))  # the SEQOP fast path: about 29 bits
    assert bus.bits == 38 + 29
    bus.writeto_then_readfrom(0x42, b"\x12", bytearray(2))  # S addr reg Sr addr 2 bytes P
    assert bus.bits == 38 + 29 + 48
    with pytest.raises(OSError):
        bus.writeto(0x11, b"\x00\x00")  # a NACKed address: S + addr + P
    assert (bus.transactions, bus.bits) == (4, 38 + 29 + 48 + 11)
    assert bus.wire_seconds == pytest.approx(126 / 400_000)


def test_wire_time_follows_the_bus_frequency():
    bus = SimI2C(frequency=100_000)
    bus.attach(SimMCP23017(0x20))
    bus.writeto_then_readfrom(0x20, b"\x12", bytearray(2))
    assert bus.wire_seconds == pytest.approx(480e-6)


def test_recording_keeps_delivered_phases_only_while_on():
    bus = SimI2C()
    bus.attach(ScriptedTarget(0x42))
    bus.writeto(0x42, b"\x01")
    assert bus.transfers == []
    bus.record = True
    bus.writeto_then_readfrom(0x42, b"\x02", bytearray(1))
    with pytest.raises(OSError):
        bus.writeto(0x10, b"\x00")
    assert bus.transfers == [Transfer(0x42, "w", b"\x02"), Transfer(0x42, "r", b"\xa5")]


def test_scan_probes_like_blinka_and_pays_for_it(bus, target):
    bus.attach(SimMCP23017(0x20))
    assert bus.scan() == [0x20, 0x42]
    probed = 0x77 - 0x08 + 1
    # A present device answers the quick write; an absent one is also tried with a read.
    assert bus.transactions == 2 + 2 * (probed - 2)
    assert bus.bits == 11 * bus.transactions


def test_lock_is_a_flag_and_a_second_take_by_its_holder_raises(bus):
    assert bus.try_lock()
    assert bus.locked
    with pytest.raises(BusLockError):
        bus.try_lock()
    result = []
    thread = threading.Thread(target=lambda: result.append(bus.try_lock()))
    thread.start()
    thread.join()
    assert result == [False]
    bus.unlock()
    assert not bus.locked
    bus.unlock()  # unlocking an unlocked bus is harmless, as in Blinka
    assert bus.try_lock()


def test_deinit_and_context_manager_close_the_bus():
    with SimI2C() as bus:
        bus.attach(ScriptedTarget(0x42))
        bus.writeto(0x42, b"")
    with pytest.raises(BusClosedError):
        bus.writeto(0x42, b"")


def test_transact_sends_phases_under_one_stop_and_costs_what_the_wire_does(bus, target):
    other = bus.attach(ScriptedTarget(0x43, answer=0x5A))
    bus.record = True
    reads = bus.transact([(0x42, b"\x07"), (0x42, 2), (0x43, b""), (0x43, 1)])
    assert reads == [b"\xa5\xa5", b"\x5a"]
    assert target.calls == [("write", b"\x07"), ("read", 2), ("stop",)]
    assert other.calls == [("write", b""), ("read", 1), ("stop",)]
    assert bus.transactions == 1
    # Four phases (START and address each), four data bytes, one STOP.
    assert bus.bits == 4 * (1 + 9) + 9 * 4 + 1
    assert [t.direction for t in bus.transfers] == ["w", "r", "w", "r"]
    # Two phases cost what writeto_then_readfrom costs.
    bus.bits = 0
    bus.transact([(0x42, b"\x07"), (0x42, 2)])
    before = bus.bits
    bus.bits = 0
    bus.writeto_then_readfrom(0x42, b"\x07", bytearray(2))
    assert bus.bits == before


def test_transact_stops_at_a_nack_with_the_phases_before_it_done(bus, target):
    with pytest.raises(OSError) as caught:
        bus.transact([(0x42, b"\x01"), (0x44, 1), (0x42, 1)])
    assert caught.value.errno == errno.EREMOTEIO
    assert target.calls == [("write", b"\x01"), ("stop",)]
    assert bus.bits == (1 + 9 + 9) + (1 + 9) + 1
    bus.bits = 0
    with pytest.raises(OSError):
        bus.transact([(0x44, b"")])
    assert bus.bits == 11  # as a NACKed writeto costs


def test_transact_draws_an_injected_error_once_per_address(bus, target):
    bus.inject_errors(0x42, 2, errno=errno.EIO)
    with pytest.raises(OSError) as caught:
        bus.transact([(0x42, b"\x01"), (0x42, 1)])
    assert caught.value.errno == errno.EIO
    assert target.calls == []
    with pytest.raises(OSError):
        bus.transact([(0x42, 1)])
    assert bus.transact([(0x42, 1)]) == [b"\xa5"]
