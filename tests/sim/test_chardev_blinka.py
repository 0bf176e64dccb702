"""Adafruit_PureIO, Blinka's Linux I2C and the project's expander code, run unchanged over the
character devices: only the syscalls are a fake kernel's (`open` of `/dev/i2c-1`, `read`,
`write`, `fcntl.ioctl`), which copies to and from their real ctypes buffers as the kernel would.
The real proof is in the emulated machine; this is every byte of the same calls, here."""

from __future__ import annotations

import errno
import socket

import pytest
from Adafruit_PureIO import smbus
from Adafruit_PureIO import spi as pureio_spi
from cuse_kernel import FakeFile, FakeKernel, fake_ioctl

from magboard.hardware.expanders import ExpanderArray
from magboard.hardware.spec import load_board
from magboard.sim.chardev.daemon import Daemon
from magboard.sim.clock import VirtualClock
from magboard.sim.mcp23017 import Register
from magboard.sim.world import PieceKind


class BlinkaI2C:
    """What `busio.I2C` adds on Linux to the generic Linux I2C class it delegates to (its
    Lockable flag and its buffer slicing), without the board detection `busio` needs."""

    def __init__(self) -> None:
        from adafruit_blinka.microcontroller.generic_linux.i2c import I2C

        self._i2c = I2C(1)  # opens /dev/i2c-1 through Adafruit_PureIO's SMBus
        self._locked = False

    def try_lock(self) -> bool:
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self) -> None:
        self._locked = False

    def scan(self) -> list[int]:
        return self._i2c.scan()

    def readfrom_into(self, address, buffer, *, start=0, end=None) -> None:
        if start != 0 or end is not None:
            buffer = memoryview(buffer)[start : len(buffer) if end is None else end]
        self._i2c.readfrom_into(address, buffer, stop=True)

    def writeto(self, address, buffer, *, start=0, end=None) -> None:
        if start != 0 or end is not None:
            buffer = memoryview(buffer)[start:end]
        self._i2c.writeto(address, buffer, stop=True)

    def writeto_then_readfrom(self, address, buffer_out, buffer_in, **slices) -> None:
        self._i2c.writeto_then_readfrom(address, buffer_out, buffer_in, **slices)

    def deinit(self) -> None:
        pass


@pytest.fixture
def spec():
    return load_board("r1")


@pytest.fixture
def daemon(spec):
    sides: list[socket.socket] = []

    def open_channel() -> int:
        kernel_side, server_side = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sides.append(kernel_side)
        return server_side.detach()

    running = Daemon(spec, open_channel=open_channel)
    running.start()
    running.kernels = [FakeKernel(side) for side in sides]
    for kernel in running.kernels:
        kernel.init()
    yield running
    running.stop()
    for side in sides:
        side.close()


@pytest.fixture
def i2c_files(daemon, monkeypatch) -> dict[int, FakeFile]:
    """`/dev/i2c-1` opened by Adafruit_PureIO's SMBus lands on the daemon's I2C device."""
    files: dict[int, FakeFile] = {}

    def open_bus(self: smbus.SMBus, bus: int) -> None:
        assert bus == 1
        self._device = FakeFile(daemon.kernels[0])
        files[self._device.fileno()] = self._device

    monkeypatch.setattr(smbus.SMBus, "open", open_bus)
    monkeypatch.setattr(smbus, "ioctl", fake_ioctl(files))
    return files


def test_pureio_smbus_calls_each_reach_the_chip(daemon, i2c_files):
    bus = smbus.SMBus(1)
    bus.write_bytes(0x70, bytearray([1 << 0]))  # the mux: channel 0
    chip = daemon.electronics.chips[0]
    assert bus.read_i2c_block_data(0x20, Register.IODIRA, 2) == bytearray(b"\xff\xff")
    bus.write_i2c_block_data(0x20, Register.GPPUA, [0xAB, 0xCD])
    assert (chip.peek(Register.GPPUA), chip.peek(Register.GPPUB)) == (0xAB, 0xCD)
    assert bus.read_byte_data(0x20, Register.GPPUB) == 0xCD
    assert bus.read_word_data(0x20, Register.GPPUA) == 0xCDAB
    bus.write_byte_data(0x20, Register.OLATA, 0x11)
    bus.write_byte(0x20, Register.OLATA)
    assert bus.read_byte(0x20) == 0x11
    assert bus.read_bytes(0x20, 2) == b"\x00\xff"  # on from OLATA: OLATB, then IODIRA
    bus.write_quick(0x20)
    with pytest.raises(OSError) as caught:
        bus.write_quick(0x30)
    assert caught.value.errno == errno.EREMOTEIO
    bus.close()
    assert all(file.closed for file in i2c_files.values())


def test_blinkas_linux_i2c_scans_and_transfers(daemon, i2c_files):
    i2c = BlinkaI2C()
    assert i2c.scan() == [0x70]  # every channel of the mux is off at power-on
    i2c.writeto(0x70, bytes([1 << 5]))
    assert i2c.scan() == [0x20, 0x21, 0x22, 0x23, 0x70]  # r1's last channel has four chips
    buffer = bytearray(3)
    i2c.writeto_then_readfrom(0x23, bytes([Register.IODIRA]), buffer, in_start=1)
    assert buffer == b"\x00\xff\xff"
    i2c.readfrom_into(0x70, buffer, end=1)
    assert buffer[0] == 1 << 5


def test_the_projects_expander_code_scans_r1_over_the_devices(daemon, i2c_files, spec):
    """`hardware.expanders.ExpanderArray`, as the service runs it on the Pi: the drivers set
    every chip up through the devices, and a scan reads the world's pieces."""
    array = ExpanderArray(spec, {"i2c1": BlinkaI2C()}, VirtualClock())
    assert array.scan().frame == 0
    sensor = next(s for s in spec.sensors if s.channel == "n")
    daemon.world.add(PieceKind("north", frozenset({"n"})), sensor.place)
    scan = array.scan()
    assert scan.frame == 1 << sensor.bit
    assert scan.blind == 0 and scan.faults == ()
    daemon.kill_expander(sensor.expander)
    scan = array.scan()
    assert scan.blind >> sensor.bit & 1  # the lost chip's bits
    assert "expander-lost" in {f.kind for f in scan.faults}
    daemon.revive_expander(sensor.expander)
    scan = array.scan()
    assert scan.frame == 1 << sensor.bit


def test_pureio_spi_writes_as_blinkas_spi_write_does(daemon, monkeypatch):
    kernel = daemon.kernels[1]
    file = FakeFile(kernel)
    monkeypatch.setattr(pureio_spi, "ioctl", fake_ioctl({file.fileno(): file}))
    spi = pureio_spi.SPI.__new__(pureio_spi.SPI)  # past its os.open of /dev/spidev0.0
    spi.handle = file.fileno()
    spi.chunk_size = pureio_spi.SPI_DEFAULT_CHUNK_SIZE
    # Blinka's generic Linux SPI.write: speed, mode and word size, then writebytes.
    spi.max_speed_hz = 6_400_000
    spi.mode = 0
    spi.bits_per_word = 8
    frame = bytes(range(256)) * 18  # more than one chunk of 4096
    spi.writebytes(frame)
    transfers = list(daemon.electronics.led_wire.transfers)
    assert [len(t.data) for t in transfers] == [4096, len(frame) - 4096]
    assert b"".join(t.data for t in transfers) == frame
    assert {t.speed_hz for t in transfers} == {6_400_000}
    assert (spi.max_speed_hz, spi.mode, spi.bits_per_word) == (6_400_000, 0, 8)
