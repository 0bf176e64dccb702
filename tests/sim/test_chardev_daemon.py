"""The daemon serving r1 over fake kernels: its devices, the world beneath them, and its faults
(a hung bus, a chip gone and back, a chip reset), and stopping."""

from __future__ import annotations

import errno
import socket
import struct
import threading

import pytest
from cuse_kernel import FUSE_WRITE, WRITE_IN, CallerMemory, FakeKernel

from magboard.hardware.spec import load_board
from magboard.sim.chardev.daemon import Daemon
from magboard.sim.mcp23017 import Register
from magboard.sim.world import PieceKind

I2C_SLAVE = 0x0703
I2C_RDWR = 0x0707
I2C_M_RD = 1
RDWR_DATA = struct.Struct("=QI4x")  # struct i2c_rdwr_ioctl_data: msgs, nmsgs
I2C_MSG = struct.Struct("=HHH2xQ")  # struct i2c_msg: addr, flags, len, buf
NORTH = PieceKind("north", frozenset({"n"}))


@pytest.fixture
def spec():
    return load_board("r1")


@pytest.fixture
def running(spec):
    kernel_sides: list[socket.socket] = []

    def open_channel() -> int:
        kernel_side, server_side = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        kernel_sides.append(kernel_side)
        return server_side.detach()

    daemon = Daemon(spec, open_channel=open_channel)
    daemon.start()
    kernels = [FakeKernel(side) for side in kernel_sides]
    for kernel in kernels:
        kernel.init()
    assert daemon.wait_ready(5)
    yield daemon, kernels
    daemon.stop()
    for side in kernel_sides:
        side.close()


@pytest.fixture
def i2c(running) -> FakeKernel:
    return running[1][0]


def read_register(kernel: FakeKernel, fh: int, address: int, register: int) -> int:
    """Blinka's writeto_then_readfrom of one register: an I2C_RDWR of a write and a read."""
    memory = CallerMemory()
    command, result = memory.place(bytes([register])), memory.place(1)
    table = memory.place(
        I2C_MSG.pack(address, 0, 1, command) + I2C_MSG.pack(address, I2C_M_RD, 1, result)
    )
    kernel.ioctl(fh, I2C_RDWR, memory.place(RDWR_DATA.pack(table, 2)), memory)
    return memory.read(result, 1)[0]


def select_channel(kernel: FakeKernel, fh: int, channel: int) -> None:
    kernel.ioctl(fh, I2C_SLAVE, 0x70)
    kernel.write(fh, bytes([1 << channel]))


def test_r1_is_served_at_i2c_1_and_spidev0_0(running):
    daemon, _ = running
    assert [s.device.name for s in daemon.served] == ["i2c-1", "spidev0.0"]
    assert all(s.thread.is_alive() for s in daemon.served)


def test_the_chips_wait_at_power_on_until_the_service_speaks(running, i2c):
    daemon, _ = running
    fh = i2c.open()
    select_channel(i2c, fh, 5)
    assert read_register(i2c, fh, 0x23, Register.IODIRA) == 0xFF
    assert daemon.electronics.chips[43].peek(Register.IOCON) == 0  # nobody configured it


def test_a_piece_put_by_the_world_shows_on_its_expanders_pins(running, i2c, spec):
    daemon, _ = running
    sensor = next(s for s in spec.sensors if s.channel == "n")
    expander = spec.expanders[sensor.expander]
    fh = i2c.open()
    select_channel(i2c, fh, expander.mux_channel)
    i2c.ioctl(fh, I2C_SLAVE, expander.address)
    i2c.write(fh, bytes([Register.GPPUA, 0xFF, 0xFF]))  # pull-ups, as the service sets them
    port = Register.GPIOA if sensor.pin < 8 else Register.GPIOB
    bit = 1 << (sensor.pin % 8)
    assert read_register(i2c, fh, expander.address, port) & bit
    daemon.world.add(NORTH, sensor.place)  # its Hall switch pulls the pin low
    assert not read_register(i2c, fh, expander.address, port) & bit
    daemon.world.lift(sensor.place)
    assert read_register(i2c, fh, expander.address, port) & bit


def test_a_hung_bus_keeps_the_service_waiting_until_it_is_let_go(running, i2c):
    daemon, _ = running
    fh = i2c.open()
    i2c.ioctl(fh, I2C_SLAVE, 0x70)
    daemon.hang_i2c()
    i2c.ioctl(fh, I2C_SLAVE, 0x70)  # no bus traffic: answered at once
    i2c.send(FUSE_WRITE, WRITE_IN.pack(fh, 0, 1, 0, 0, 0, 0), b"\x01")
    assert i2c.quiet(0.3)  # the write() blocks, as on a bus held low
    daemon.release_i2c()
    answer = i2c.receive()
    assert answer.error == 0
    assert daemon.electronics.muxes["mux"].control == 0x01


def test_a_hung_bus_with_a_timeout_fails_as_the_adapter_gives_up(running, i2c):
    daemon, _ = running
    fh = i2c.open()
    i2c.ioctl(fh, I2C_SLAVE, 0x70)
    daemon.hang_i2c(timeout=0.1)
    with pytest.raises(OSError) as caught:
        i2c.write(fh, b"\x01")
    assert caught.value.errno == errno.ETIMEDOUT
    daemon.release_i2c()
    assert i2c.write(fh, b"\x01") == 1


def test_a_chip_gone_nacks_and_comes_back_fresh(running, i2c):
    daemon, _ = running
    fh = i2c.open()
    select_channel(i2c, fh, 0)
    i2c.ioctl(fh, I2C_SLAVE, 0x21)
    i2c.write(fh, bytes([Register.IODIRA, 0x00]))
    daemon.kill_expander(1)
    with pytest.raises(OSError) as caught:
        read_register(i2c, fh, 0x21, Register.IODIRA)
    assert caught.value.errno == errno.EREMOTEIO
    daemon.revive_expander(1)
    assert read_register(i2c, fh, 0x21, Register.IODIRA) == 0xFF  # power-on value again
    i2c.write(fh, bytes([Register.IODIRA, 0x00]))
    daemon.reset_expander(1)
    assert read_register(i2c, fh, 0x21, Register.IODIRA) == 0xFF


def test_the_led_chains_bytes_reach_the_wire(running):
    daemon, kernels = running
    spi = kernels[1]
    fh = spi.open()
    assert spi.write(fh, b"\xf8\xc0") == 2
    assert [t.data for t in daemon.electronics.led_wire.transfers] == [b"\xf8\xc0"]


def test_the_world_and_the_service_may_work_at_once(running, i2c, spec):
    daemon, _ = running
    fh = i2c.open()
    select_channel(i2c, fh, 0)
    stop = threading.Event()

    def hands() -> None:
        place = next(s for s in spec.sensors if s.channel == "n").place
        while not stop.is_set():
            daemon.world.add(NORTH, place)
            daemon.world.lift(place)

    thread = threading.Thread(target=hands)
    thread.start()
    try:
        for _ in range(50):
            read_register(i2c, fh, 0x20, Register.GPIOA)
    finally:
        stop.set()
        thread.join()


def test_stopping_ends_every_server_and_closes_the_channels(spec):
    sides: list[socket.socket] = []

    def open_channel() -> int:
        kernel_side, server_side = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sides.append(kernel_side)
        return server_side.detach()

    with Daemon(spec, open_channel=open_channel, spi_device=None) as daemon:
        FakeKernel(sides[0]).init()
        assert daemon.wait_ready(5)
        threads = [s.thread for s in daemon.served]
    assert not any(thread.is_alive() for thread in threads)
    assert sides[0].recv(16) == b""  # the server's end is closed


def test_the_runner_says_why_it_cannot_serve(monkeypatch, capsys, tmp_path):
    from magboard.sim.chardev import __main__ as runner

    monkeypatch.setattr(runner.signal, "signal", lambda *args: None)
    assert runner.main(["--cuse", str(tmp_path / "cuse")]) == 1
    assert "cannot open" in capsys.readouterr().err


def test_a_bus_is_served_at_the_linux_number_of_its_pins(spec):
    from dataclasses import replace

    from magboard.sim.chardev.electronics import BoardElectronics, UnknownBusPinsError

    assert BoardElectronics(spec).linux_bus_number("i2c1") == 1
    other = replace(spec, buses=(replace(spec.buses[0], sda="D0", scl="D1"),))
    assert BoardElectronics(other).linux_bus_number("i2c1") == 0
    odd = replace(spec, buses=(replace(spec.buses[0], sda="D20", scl="D21"),))
    with pytest.raises(UnknownBusPinsError, match="no I2C bus of the Pi"):
        BoardElectronics(odd).linux_bus_number("i2c1")
