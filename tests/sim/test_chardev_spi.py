"""`/dev/spidev0.0` over CUSE against a fake kernel: the settings ioctls, SPI_IOC_MESSAGE's
transfers through the retry protocol, write(), and what the BCM2835 refuses."""

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

from magboard.sim.chardev.server import CuseServer
from magboard.sim.chardev.spidev import SpiDev, SpiTransfer

# include/uapi/linux/spi/spidev.h: _IOR/_IOW('k', nr, type)
RD_MODE, WR_MODE = 0x80016B01, 0x40016B01
RD_LSB_FIRST, WR_LSB_FIRST = 0x80016B02, 0x40016B02
RD_BITS_PER_WORD, WR_BITS_PER_WORD = 0x80016B03, 0x40016B03
RD_MAX_SPEED_HZ, WR_MAX_SPEED_HZ = 0x80046B04, 0x40046B04
RD_MODE32, WR_MODE32 = 0x80046B05, 0x40046B05
SPI_IOC_TRANSFER = struct.Struct("=QQIIHBBBBBB")  # tx_buf rx_buf len speed_hz delay_usecs
#   bits_per_word cs_change tx_nbits rx_nbits word_delay_usecs pad


def spi_ioc_message(count: int) -> int:
    return 0x40006B00 | (count * 32) << 16


@pytest.fixture
def wire() -> list[SpiTransfer]:
    return []


@pytest.fixture
def device(wire) -> SpiDev:
    return SpiDev("spidev0.0", wire.append, clock=lambda: 12.5)


@pytest.fixture
def kernel(device):
    link = Connection(lambda fd: CuseServer(fd, device))
    link.kernel.init()
    yield link.kernel
    link.close()


@pytest.fixture
def fh(kernel) -> int:
    return kernel.open()


def read_setting(kernel, fh, command: int, size: int) -> int:
    memory = CallerMemory()
    out = memory.place(size)
    assert kernel.ioctl(fh, command, out, memory) == 0
    return int.from_bytes(memory.read(out, size), "little")


def write_setting(kernel, fh, command: int, value: int, size: int) -> None:
    memory = CallerMemory()
    kernel.ioctl(fh, command, memory.place(value.to_bytes(size, "little")), memory)


def test_settings_start_as_the_pis_device_tree_gives_them(kernel, fh):
    assert read_setting(kernel, fh, RD_MODE, 1) == 0
    assert read_setting(kernel, fh, RD_MODE32, 4) == 0
    assert read_setting(kernel, fh, RD_LSB_FIRST, 1) == 0
    assert read_setting(kernel, fh, RD_BITS_PER_WORD, 1) == 8
    assert read_setting(kernel, fh, RD_MAX_SPEED_HZ, 4) == 125_000_000


def test_settings_are_the_devices_and_every_open_shares_them(kernel, fh):
    write_setting(kernel, fh, WR_MODE, 3, 1)  # SPI_MODE_3, as Adafruit_PureIO sets a mode
    write_setting(kernel, fh, WR_MAX_SPEED_HZ, 6_400_000, 4)  # neopixel_spi's clock
    write_setting(kernel, fh, WR_BITS_PER_WORD, 8, 1)
    other = kernel.open()
    assert read_setting(kernel, other, RD_MODE, 1) == 3
    assert read_setting(kernel, other, RD_MAX_SPEED_HZ, 4) == 6_400_000
    write_setting(kernel, fh, WR_MODE32, 0x44, 4)  # CS_HIGH | NO_CS
    assert read_setting(kernel, other, RD_MODE32, 4) == 0x44
    write_setting(kernel, fh, WR_BITS_PER_WORD, 0, 1)  # 0 means 8
    assert read_setting(kernel, fh, RD_BITS_PER_WORD, 1) == 8


@pytest.mark.parametrize(
    ("command", "value", "size"),
    [
        (WR_MODE32, 1 << 20, 4),  # not a mode bit spidev knows
        (WR_MODE, 0x08, 1),  # LSB first: the BCM2835 cannot
        (WR_MODE, 0x20, 1),  # loopback: nor that
        (WR_LSB_FIRST, 1, 1),
        (WR_BITS_PER_WORD, 9, 1),  # 8-bit words only
        (WR_MAX_SPEED_HZ, 0, 4),
    ],
)
def test_what_spidev_or_the_bcm2835_refuses_is_einval_and_changes_nothing(
    kernel, fh, command, value, size
):
    with pytest.raises(OSError) as caught:
        write_setting(kernel, fh, command, value, size)
    assert caught.value.errno == errno.EINVAL
    assert read_setting(kernel, fh, RD_MODE32, 4) == 0
    assert read_setting(kernel, fh, RD_BITS_PER_WORD, 1) == 8
    assert read_setting(kernel, fh, RD_MAX_SPEED_HZ, 4) == 125_000_000


def test_dual_and_quad_bits_are_dropped_not_refused(kernel, fh):
    write_setting(kernel, fh, WR_MODE32, 0x100 | 0x1, 4)  # TX_DUAL | CPHA
    assert read_setting(kernel, fh, RD_MODE32, 4) == 0x1


def test_a_message_byte_by_byte_as_adafruit_pureio_writes_it(kernel, fh, wire):
    """`SPI.writebytes`: SPI_IOC_MESSAGE(1) of one tx transfer, no rx; every round raw."""
    memory = CallerMemory()
    frame = bytes([0xF8, 0xC0] * 12)  # one WS2812 pixel's bits, one SPI byte a bit
    tx = memory.place(frame)
    transfer = SPI_IOC_TRANSFER.pack(tx, 0, len(frame), 0, 0, 0, 0, 0, 0, 0, 0)
    arg = memory.place(transfer)
    command = spi_ioc_message(1)

    def round_trip(copied: bytes, out_size: int) -> bytes:
        head = IOCTL_IN.pack(fh, FUSE_IOCTL_UNRESTRICTED, command, arg, len(copied), out_size)
        unique = kernel.send(FUSE_IOCTL, head, copied)
        raw = kernel.sock.recv(65536)
        assert OUT_HEADER.unpack_from(raw) == (len(raw), 0, unique)
        return raw[OUT_HEADER.size :]

    assert round_trip(b"", 0) == IOCTL_OUT.pack(0, FUSE_IOCTL_RETRY, 1, 0) + IOCTL_IOVEC.pack(
        arg, 32
    )
    assert round_trip(transfer, 0) == IOCTL_OUT.pack(0, FUSE_IOCTL_RETRY, 2, 0) + (
        IOCTL_IOVEC.pack(arg, 32) + IOCTL_IOVEC.pack(tx, len(frame))
    )
    assert wire == []
    assert round_trip(transfer + frame, 0) == IOCTL_OUT.pack(len(frame), 0, 0, 0)
    assert wire == [SpiTransfer(frame, 125_000_000, 0, False, 0, 12.5)]


def test_a_message_of_several_transfers_sends_and_receives_through_the_retries(kernel, fh, wire):
    memory = CallerMemory()
    tx1, tx2, rx2 = memory.place(b"\x01\x02"), memory.place(b"\x03"), memory.place(b"\xee")
    rx3 = memory.place(b"\xee\xee")
    table = b"".join(
        [
            SPI_IOC_TRANSFER.pack(tx1, 0, 2, 6_400_000, 0, 8, 0, 1, 0, 0, 0),
            SPI_IOC_TRANSFER.pack(tx2, rx2, 1, 0, 10, 0, 1, 0, 0, 0, 0),
            SPI_IOC_TRANSFER.pack(0, rx3, 2, 0, 0, 0, 0, 0, 1, 0, 0),
        ]
    )
    assert kernel.ioctl(fh, spi_ioc_message(3), memory.place(table), memory) == 5
    assert len(kernel.rounds) == 3
    assert kernel.rounds[1].out_iovs == ((rx2, 1), (rx3, 2))
    assert memory.read(rx2, 1) + memory.read(rx3, 2) == b"\0\0\0"  # nothing drives MISO
    assert [(t.data, t.speed_hz, t.cs_change, t.delay_usecs) for t in wire] == [
        (b"\x01\x02", 6_400_000, False, 0),
        (b"\x03", 125_000_000, True, 10),
        (b"\0\0", 125_000_000, False, 0),  # no tx buffer: zeros clocked out
    ]


def test_spidevs_buffer_bounds_a_message_each_way(kernel, fh, wire):
    memory = CallerMemory()
    tx = memory.place(4096)

    def transfer(length: int) -> bytes:
        return SPI_IOC_TRANSFER.pack(tx, 0, length, 0, 0, 0, 0, 0, 0, 0, 0)

    assert kernel.ioctl(fh, spi_ioc_message(1), memory.place(transfer(4096)), memory) == 4096
    # Two halves fill the buffer; one more byte, rounded up to the alignment, does not fit.
    table = memory.place(transfer(2048) * 2 + transfer(1))
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, spi_ioc_message(3), table, memory)
    assert caught.value.errno == errno.EMSGSIZE
    assert len(wire) == 1
    with pytest.raises(OSError) as caught:
        kernel.write(fh, bytes(4097))
    assert caught.value.errno == errno.EMSGSIZE


@pytest.mark.parametrize(
    "transfer",
    [
        (1, 0, 1, 0, 0, 16, 0, 0, 0, 0, 0),  # 16-bit words
        (1, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0),  # dual tx
    ],
)
def test_transfers_the_bcm2835_cannot_make_are_einval(kernel, fh, wire, transfer):
    memory = CallerMemory()
    tx = memory.place(1)
    packed = SPI_IOC_TRANSFER.pack(tx, *transfer[1:])
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, spi_ioc_message(1), memory.place(packed), memory)
    assert caught.value.errno == errno.EINVAL
    assert wire == []


def test_malformed_messages(kernel, fh):
    memory = CallerMemory()
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, 0x40216B00, memory.place(33), memory)  # 33 bytes: no whole transfer
    assert caught.value.errno == errno.EINVAL
    assert kernel.ioctl(fh, spi_ioc_message(0), 0, memory) == 0  # nothing to do
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, 0x80206B00, memory.place(32), memory)  # SPI_IOC_MESSAGE but _IOR
    assert caught.value.errno == errno.ENOTTY
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, 0x0703, 0x20)  # another driver's ioctl (I2C_SLAVE)
    assert caught.value.errno == errno.ENOTTY
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, spi_ioc_message(1), 0xBAD000, memory)
    assert caught.value.errno == errno.EFAULT


def test_write_and_read_are_one_transfer_each(kernel, fh, wire):
    write_setting(kernel, fh, WR_MAX_SPEED_HZ, 2_400_000, 4)
    assert kernel.write(fh, b"\xaa\x55") == 2
    assert kernel.read(fh, 3) == b"\0\0\0"
    assert [(t.data, t.speed_hz) for t in wire] == [
        (b"\xaa\x55", 2_400_000),
        (b"\0\0\0", 2_400_000),
    ]


def test_a_raised_bufsiz_takes_an_led_frame_in_one_message(wire):
    """r1's frame on SPI is 4,920 bytes; the service asks for spidev.bufsiz=65536 to send it."""
    device = SpiDev("spidev0.0", wire.append, bufsiz=65536)
    link = Connection(lambda fd: CuseServer(fd, device))
    try:
        link.kernel.init()
        fh = link.kernel.open()
        memory = CallerMemory()
        frame = bytes(4920)
        packed = SPI_IOC_TRANSFER.pack(memory.place(frame), 0, len(frame), 0, 0, 0, 0, 0, 0, 0, 0)
        assert link.kernel.ioctl(fh, spi_ioc_message(1), memory.place(packed), memory) == 4920
        assert [len(t.data) for t in wire] == [4920]
    finally:
        link.close()


def test_the_daemon_takes_the_kernels_spidev_bufsiz(tmp_path):
    from magboard.sim.chardev.daemon import kernel_spidev_bufsiz

    parameter = tmp_path / "bufsiz"
    parameter.write_text("65536\n")
    assert kernel_spidev_bufsiz(parameter) == 65536
    assert kernel_spidev_bufsiz(tmp_path / "none") == 4096  # no spidev here: its default
