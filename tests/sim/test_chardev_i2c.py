"""`/dev/i2c-1` over CUSE against a fake kernel: the byte protocol of every ioctl i2c-dev takes,
the round trips of I2C_RDWR's pointers, NACKs and malformed calls, on the project's models."""

from __future__ import annotations

import errno
import struct

import pytest
from cuse_kernel import (
    FUSE_IOCTL,
    FUSE_IOCTL_RETRY,
    FUSE_IOCTL_UNRESTRICTED,
    IOCTL_IN,
    IOCTL_IOVEC,
    IOCTL_OUT,
    OUT_HEADER,
    CallerMemory,
    Connection,
)

from magboard.sim.chardev.i2cdev import I2cDev
from magboard.sim.chardev.server import CuseServer
from magboard.sim.i2c import SimI2C
from magboard.sim.mcp23017 import Register, SimMCP23017
from magboard.sim.tca9548a import SimTCA9548A

# include/uapi/linux/i2c-dev.h and i2c.h
I2C_RETRIES = 0x0701
I2C_TIMEOUT = 0x0702
I2C_SLAVE = 0x0703
I2C_TENBIT = 0x0704
I2C_FUNCS = 0x0705
I2C_SLAVE_FORCE = 0x0706
I2C_RDWR = 0x0707
I2C_PEC = 0x0708
I2C_SMBUS = 0x0720
I2C_M_RD = 0x0001
I2C_M_RECV_LEN = 0x0400
RDWR_DATA = struct.Struct("=QI4x")  # struct i2c_rdwr_ioctl_data: msgs, nmsgs
RDWR_DATA32 = struct.Struct("=II")
I2C_MSG = struct.Struct("=HHH2xQ")  # struct i2c_msg: addr, flags, len, buf
I2C_MSG32 = struct.Struct("=HHH2xI")
SMBUS_DATA = struct.Struct(
    "=BB2xIQ"
)  # struct i2c_smbus_ioctl_data: read_write, command, size, data
SMBUS_READ, SMBUS_WRITE = 1, 0
QUICK, BYTE, BYTE_DATA, WORD_DATA, PROC_CALL, BLOCK_DATA = 0, 1, 2, 3, 4, 5
I2C_BLOCK_BROKEN, BLOCK_PROC_CALL, I2C_BLOCK_DATA = 6, 7, 8


class RecordingTarget:
    """A device that keeps every phase it gets and answers reads with a counting pattern."""

    def __init__(self, address: int) -> None:
        self.address = address
        self.calls: list[tuple] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def read(self, count: int) -> bytes:
        self.calls.append(("read", count))
        return bytes(i & 0xFF for i in range(count))

    def stop(self) -> None:
        self.calls.append(("stop",))


@pytest.fixture
def bus() -> SimI2C:
    return SimI2C()


@pytest.fixture
def chip(bus) -> SimMCP23017:
    return bus.attach(SimMCP23017(0x20))


@pytest.fixture
def recorder(bus) -> RecordingTarget:
    return bus.attach(RecordingTarget(0x50))


@pytest.fixture
def device(bus, chip, recorder) -> I2cDev:
    return I2cDev("i2c-1", bus)


@pytest.fixture
def kernel(device):
    link = Connection(lambda fd: CuseServer(fd, device))
    link.kernel.init()
    yield link.kernel
    link.close()


@pytest.fixture
def fh(kernel) -> int:
    return kernel.open()


def rdwr(memory: CallerMemory, *messages: tuple[int, int, bytes | int]) -> tuple[int, list[int]]:
    """An i2c_rdwr_ioctl_data in `memory` as Adafruit_PureIO's `make_i2c_rdwr_data` lays it
    out: (addr, flags, bytes to write or a count to read) per message. Returns its address and
    each message's buffer address."""
    buffers = [memory.place(payload) for _, _, payload in messages]
    table = b"".join(
        I2C_MSG.pack(addr & 0x7F, flags, payload if isinstance(payload, int) else len(payload), buf)
        for (addr, flags, payload), buf in zip(messages, buffers, strict=True)
    )
    return memory.place(RDWR_DATA.pack(memory.place(table), len(messages))), buffers


def ioctl_reply(data: bytes) -> tuple[int, int, int, int, list[tuple[int, int]], bytes]:
    """An IOCTL reply taken apart: result, flags, in_iovs, out_iovs, the iovecs, the data."""
    result, flags, n_in, n_out = IOCTL_OUT.unpack_from(data)
    rest = data[IOCTL_OUT.size :]
    if flags & FUSE_IOCTL_RETRY:
        iovs = [IOCTL_IOVEC.unpack_from(rest, 16 * i) for i in range(n_in + n_out)]
        return result, flags, n_in, n_out, iovs, b""
    return result, flags, n_in, n_out, [], rest


def test_writeto_then_readfrom_as_blinka_sends_it_byte_by_byte(kernel, fh, chip):
    """Adafruit_PureIO's `read_i2c_block_data(0x20, [IODIRA], 2)`: an I2C_RDWR of a one-byte
    write and a two-byte read, every round built and checked as raw bytes."""
    memory = CallerMemory()
    arg, (command, result) = rdwr(memory, (0x20, 0, bytes([Register.IODIRA])), (0x20, I2C_M_RD, 2))
    header = memory.read(arg, RDWR_DATA.size)
    msgs, nmsgs = RDWR_DATA.unpack(header)
    table = memory.read(msgs, nmsgs * I2C_MSG.size)

    def round_trip(copied: bytes, out_size: int) -> bytes:
        head = IOCTL_IN.pack(fh, FUSE_IOCTL_UNRESTRICTED, I2C_RDWR, arg, len(copied), out_size)
        unique = kernel.send(FUSE_IOCTL, head, copied)
        raw = kernel.sock.recv(65536)
        length, error, replied = OUT_HEADER.unpack_from(raw)
        assert (length, error, replied) == (len(raw), 0, unique)
        return raw[OUT_HEADER.size :]

    # Round 0: no memory; the server asks for the i2c_rdwr_ioctl_data.
    assert round_trip(b"", 0) == IOCTL_OUT.pack(0, FUSE_IOCTL_RETRY, 1, 0) + IOCTL_IOVEC.pack(
        arg, 16
    )
    # Round 1: it follows `msgs` to the i2c_msg array.
    assert ioctl_reply(round_trip(header, 0))[4] == [(arg, 16), (msgs, 32)]
    # Round 2: it follows each `buf`, read ones too, and names the read one as out.
    _, flags, n_in, n_out, iovs, _ = ioctl_reply(round_trip(header + table, 0))
    assert (flags, n_in, n_out) == (FUSE_IOCTL_RETRY, 4, 1)
    assert iovs == [(arg, 16), (msgs, 32), (command, 1), (result, 2), (result, 2)]
    assert chip.snapshot().pointer == 0  # nothing reached the bus yet
    # Round 3: everything is there: one transaction, the two bytes back, nmsgs as the result.
    copied = header + table + bytes([Register.IODIRA]) + b"\0\0"
    assert round_trip(copied, 2) == IOCTL_OUT.pack(2, 0, 0, 0) + b"\xff\xff"


def test_rdwr_through_the_whole_retry_loop_with_a_repeated_start(kernel, fh, recorder):
    memory = CallerMemory()
    arg, buffers = rdwr(memory, (0x50, 0, b"\x10\x11"), (0x50, 0, b"\x12"), (0x50, I2C_M_RD, 3))
    assert kernel.ioctl(fh, I2C_RDWR, arg, memory) == 3
    assert memory.read(buffers[2], 3) == b"\x00\x01\x02"
    assert recorder.calls == [
        ("write", b"\x10\x11"),
        ("write", b"\x12"),  # a repeated start, no STOP between the messages
        ("read", 3),
        ("stop",),
    ]
    assert len(kernel.rounds) == 4


def test_an_empty_write_is_the_quick_write_blinka_scans_with(kernel, fh, recorder):
    memory = CallerMemory()
    table = memory.place(I2C_MSG.pack(0x50, 0, 0, 0))  # `write_quick`: no buffer at all
    arg = memory.place(RDWR_DATA.pack(table, 1))
    assert kernel.ioctl(fh, I2C_RDWR, arg, memory) == 1
    assert recorder.calls == [("write", b""), ("stop",)]
    assert len(kernel.rounds) == 3  # no buffer to follow: one round fewer
    table = memory.place(I2C_MSG.pack(0x33, 0, 0, 0))
    arg = memory.place(RDWR_DATA.pack(table, 1))
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, arg, memory)
    assert caught.value.errno == errno.EREMOTEIO


def test_a_nack_is_eremoteio_and_nothing_is_copied_back(kernel, fh):
    memory = CallerMemory()
    arg, buffers = rdwr(memory, (0x33, 0, b"\x00"), (0x33, I2C_M_RD, 2))
    memory.write(buffers[1], b"\xaa\xbb")
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, arg, memory)
    assert caught.value.errno == errno.EREMOTEIO
    assert memory.read(buffers[1], 2) == b"\xaa\xbb"
    kernel.ioctl(fh, I2C_SLAVE, 0x33)
    for attempt in (lambda: kernel.write(fh, b"\x00"), lambda: kernel.read(fh, 1)):
        with pytest.raises(OSError) as caught:
            attempt()
        assert caught.value.errno == errno.EREMOTEIO


def test_read_and_write_go_to_the_opens_own_address(kernel, chip, recorder):
    to_chip, to_recorder = kernel.open(), kernel.open()
    assert kernel.ioctl(to_chip, I2C_SLAVE, 0x20) == 0
    assert kernel.ioctl(to_recorder, I2C_SLAVE_FORCE, 0x50) == 0
    assert kernel.write(to_chip, bytes([Register.OLATA, 0x5A])) == 2  # Blinka's writeto
    assert kernel.write(to_chip, bytes([Register.OLATA])) == 1
    assert kernel.read(to_chip, 1) == b"\x5a"  # Blinka's readfrom_into
    assert kernel.read(to_recorder, 2) == b"\x00\x01"
    assert chip.peek(Register.OLATA) == 0x5A
    assert recorder.calls == [("read", 2), ("stop",)]


def test_one_read_or_write_moves_at_most_8192_bytes(kernel, fh, recorder):
    kernel.ioctl(fh, I2C_SLAVE, 0x50)
    assert kernel.write(fh, bytes(9000)) == 8192
    assert len(kernel.read(fh, 10000)) == 8192
    assert recorder.calls == [("write", bytes(8192)), ("stop",), ("read", 8192), ("stop",)]


def test_target_addresses_are_checked_as_i2c_dev_checks_them(kernel, fh):
    for command in (I2C_SLAVE, I2C_SLAVE_FORCE):
        with pytest.raises(OSError) as caught:
            kernel.ioctl(fh, command, 0x80)
        assert caught.value.errno == errno.EINVAL
    assert kernel.ioctl(fh, I2C_TENBIT, 1) == 0
    assert kernel.ioctl(fh, I2C_SLAVE, 0x3FF) == 0
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_SLAVE, 0x400)
    assert caught.value.errno == errno.EINVAL


def test_funcs_are_the_bcm2835s_as_a_long(kernel, fh):
    memory = CallerMemory()
    out = memory.place(8)
    assert kernel.ioctl(fh, I2C_FUNCS, out, memory) == 0
    assert struct.unpack("=Q", memory.read(out, 8)) == (0x0EFF0009,)
    out32 = memory.place(b"\xee" * 8)
    assert kernel.ioctl(fh, I2C_FUNCS, out32, memory, compat=True) == 0
    assert memory.read(out32, 8) == struct.pack("=I", 0x0EFF0009) + b"\xee" * 4


@pytest.mark.parametrize(
    ("msgs", "nmsgs"),
    [(0, 1), (0x1234, 0), (0x1234, 43)],
    ids=["no array", "no messages", "more than 42"],
)
def test_rdwr_without_sane_messages_is_einval(kernel, fh, msgs, nmsgs):
    memory = CallerMemory()
    arg = memory.place(RDWR_DATA.pack(msgs, nmsgs))
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, arg, memory)
    assert caught.value.errno == errno.EINVAL


def test_rdwr_checks_each_message_as_i2c_dev_does(kernel, fh, recorder):
    memory = CallerMemory()
    buffer = memory.place(8193)
    arg = memory.place(RDWR_DATA.pack(memory.place(I2C_MSG.pack(0x50, 0, 8193, buffer)), 1))
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, arg, memory)
    assert caught.value.errno == errno.EINVAL
    # I2C_M_RECV_LEN needs a read whose buffer holds the prefilled count and a whole block.
    buffer = memory.place(b"\x01" + bytes(9))
    table = memory.place(I2C_MSG.pack(0x50, I2C_M_RD | I2C_M_RECV_LEN, 10, buffer))
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, memory.place(RDWR_DATA.pack(table, 1)), memory)
    assert caught.value.errno == errno.EINVAL
    assert recorder.calls == []


def test_a_pointer_into_nowhere_faults_before_the_bus_is_touched(kernel, fh, recorder):
    memory = CallerMemory()
    table = memory.place(I2C_MSG.pack(0x50, 0, 4, 0xDEAD0000))
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, memory.place(RDWR_DATA.pack(table, 1)), memory)
    assert caught.value.errno == errno.EFAULT  # the kernel's copy of what the server asked
    assert kernel.rounds[-1].in_iovs[-1] == (0xDEAD0000, 4)
    assert recorder.calls == []
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, 0xBAD00000, memory)
    assert caught.value.errno == errno.EFAULT


def test_the_bcm2835_reads_only_in_the_last_message(kernel, fh, recorder):
    memory = CallerMemory()
    arg, _ = rdwr(memory, (0x50, I2C_M_RD, 1), (0x50, 0, b"\x00"))
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, I2C_RDWR, arg, memory)
    assert caught.value.errno == errno.EOPNOTSUPP
    assert recorder.calls == []


def test_a_32_bit_caller_lays_its_structures_out_in_32_bits(kernel, fh, chip):
    memory = CallerMemory(base=0x1000)
    command, result = memory.place(bytes([Register.IODIRB])), memory.place(1)
    table = memory.place(
        I2C_MSG32.pack(0x20, 0, 1, command) + I2C_MSG32.pack(0x20, I2C_M_RD, 1, result)
    )
    arg = memory.place(RDWR_DATA32.pack(table, 2))
    assert kernel.ioctl(fh, I2C_RDWR, arg, memory, compat=True) == 2
    assert memory.read(result, 1) == b"\xff"
    assert kernel.rounds[1].in_iovs == ((arg, 8), (table, 24))


def smbus(kernel, fh, memory, read_write, command, size, data=None) -> int | None:
    """One I2C_SMBUS ioctl; `data` starts the `union i2c_smbus_data` (34 bytes) it points to."""
    pointer = 0 if data is None else memory.place(data.ljust(34, b"\0"))
    arg = memory.place(SMBUS_DATA.pack(read_write, command, size, pointer))
    kernel.ioctl(fh, I2C_SMBUS, arg, memory)
    return pointer


def test_smbus_transactions_are_emulated_with_i2c_messages(kernel, fh, chip, recorder):
    """What i2cdetect, i2cget and i2cset send."""
    memory = CallerMemory()
    kernel.ioctl(fh, I2C_SLAVE, 0x20)
    smbus(kernel, fh, memory, SMBUS_WRITE, 0, QUICK)  # i2cdetect's probe
    data = smbus(kernel, fh, memory, SMBUS_READ, Register.IODIRA, BYTE_DATA, bytes(34))
    assert memory.read(data, 1) == b"\xff"
    smbus(kernel, fh, memory, SMBUS_WRITE, Register.OLATB, BYTE_DATA, b"\x42")
    assert chip.peek(Register.OLATB) == 0x42
    smbus(kernel, fh, memory, SMBUS_WRITE, Register.GPPUA, WORD_DATA, b"\x34\x12")
    assert (chip.peek(Register.GPPUA), chip.peek(Register.GPPUB)) == (0x34, 0x12)
    data = smbus(kernel, fh, memory, SMBUS_READ, Register.GPPUA, WORD_DATA, bytes(2))
    assert memory.read(data, 2) == b"\x34\x12"
    data = smbus(kernel, fh, memory, SMBUS_READ, Register.IODIRA, I2C_BLOCK_DATA, b"\x03")
    assert memory.read(data, 4) == b"\x03\xff\xff\x00"
    kernel.ioctl(fh, I2C_SLAVE, 0x50)
    smbus(kernel, fh, memory, SMBUS_WRITE, 0x07, BYTE)
    data = smbus(kernel, fh, memory, SMBUS_READ, 0, BYTE, b"\xee")
    smbus(kernel, fh, memory, SMBUS_WRITE, 0x08, BLOCK_DATA, b"\x02\xaa\xbb")
    smbus(kernel, fh, memory, SMBUS_WRITE, 0x09, I2C_BLOCK_DATA, b"\x02\xcc\xdd")
    assert memory.read(data, 1) == b"\x00"
    assert recorder.calls == [
        ("write", b"\x07"),
        ("stop",),
        ("read", 1),
        ("stop",),
        ("write", b"\x08\x02\xaa\xbb"),  # the count goes on the wire
        ("stop",),
        ("write", b"\x09\xcc\xdd"),  # an I2C block does not send it
        ("stop",),
    ]


def test_smbus_failures_are_what_i2c_dev_and_the_adapter_answer(kernel, fh):
    memory = CallerMemory()
    kernel.ioctl(fh, I2C_SLAVE, 0x33)
    with pytest.raises(OSError) as caught:
        smbus(kernel, fh, memory, SMBUS_WRITE, 0, QUICK)
    assert caught.value.errno == errno.EREMOTEIO  # i2cdetect's "--"
    kernel.ioctl(fh, I2C_SLAVE, 0x50)
    cases = [
        ((SMBUS_READ, 0, 9, bytes(34)), errno.EINVAL),  # no such size
        ((2, 0, BYTE_DATA, bytes(34)), errno.EINVAL),  # neither read nor write
        ((SMBUS_READ, 0, BYTE_DATA, None), errno.EINVAL),  # data is NULL
        ((SMBUS_READ, 0, BLOCK_DATA, bytes(34)), errno.EOPNOTSUPP),  # needs I2C_M_RECV_LEN
        ((SMBUS_WRITE, 0, BLOCK_DATA, b"\x21" + bytes(33)), errno.EINVAL),  # 33 bytes
    ]
    for args, code in cases:
        with pytest.raises(OSError) as caught:
            smbus(kernel, fh, memory, *args)
        assert caught.value.errno == code, args


def test_retries_and_timeout_are_range_checked_and_kept(kernel, fh, device):
    assert kernel.ioctl(fh, I2C_RETRIES, 3) == 0
    assert kernel.ioctl(fh, I2C_TIMEOUT, 50) == 0
    assert kernel.ioctl(fh, I2C_PEC, 1) == 0
    assert (device.retries, device.timeout_jiffies_10ms) == (3, 50)
    for command, value in ((I2C_RETRIES, 2**31), (I2C_TIMEOUT, (2**31 - 1) // 10 + 1)):
        with pytest.raises(OSError) as caught:
            kernel.ioctl(fh, command, value)
        assert caught.value.errno == errno.EINVAL
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, 0x0799, 0)
    assert caught.value.errno == errno.ENOTTY


def test_devices_behind_a_mux_answer_once_their_channel_is_selected(bus, kernel, fh):
    mux = bus.attach(SimTCA9548A(0x70))
    behind = mux.channel(2).attach(SimMCP23017(0x21))
    behind.set_input(3, 0)  # a Hall switch sees a magnet
    memory = CallerMemory()
    kernel.ioctl(fh, I2C_SLAVE, 0x21)
    with pytest.raises(OSError) as caught:
        kernel.write(fh, bytes([Register.GPPUA, 0xFF]))
    assert caught.value.errno == errno.EREMOTEIO  # its channel is not connected yet
    kernel.ioctl(fh, I2C_SLAVE, 0x70)
    kernel.write(fh, bytes([1 << 2]))  # connect channel 2
    kernel.ioctl(fh, I2C_SLAVE, 0x21)
    kernel.write(fh, bytes([Register.GPPUA, 0xFF]))
    arg, (_, result) = rdwr(memory, (0x21, 0, bytes([Register.GPIOA])), (0x21, I2C_M_RD, 1))
    assert kernel.ioctl(fh, I2C_RDWR, arg, memory) == 2
    assert memory.read(result, 1) == bytes([0xFF & ~(1 << 3)])


def test_a_caller_gone_between_rounds_leaves_nothing_behind(kernel, recorder):
    """A killed caller's ioctl simply never comes back for its next round: the retry asked
    for memory, nothing happened on the bus, and the file is released as any other."""
    fh = kernel.open()
    memory = CallerMemory()
    arg, _ = rdwr(memory, (0x50, 0, b"\x01"))
    kernel.ioctl_request(fh, I2C_RDWR, arg)
    _, flags, *_ = ioctl_reply(kernel.receive().payload)
    assert flags == FUSE_IOCTL_RETRY
    kernel.release(fh)
    assert recorder.calls == []
    again = kernel.open()
    assert kernel.ioctl(again, I2C_RDWR, arg, memory) == 1
    assert recorder.calls == [("write", b"\x01"), ("stop",)]
