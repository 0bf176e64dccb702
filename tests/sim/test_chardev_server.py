"""The CUSE server against a fake kernel: the handshake, the file operations, malformed requests,
requests a stalled bus keeps, interrupts, and a reply nobody waits for any more."""

from __future__ import annotations

import errno
import os
import time

import pytest
from cuse_kernel import (
    CUSE_INIT,
    CUSE_INIT_IN,
    FUSE_DESTROY,
    FUSE_INTERRUPT,
    FUSE_IOCTL,
    FUSE_OPEN,
    FUSE_POLL,
    FUSE_READ,
    FUSE_WRITE,
    IN_HEADER,
    INTERRUPT_IN,
    IOCTL_IN,
    POLL_IN,
    READ_IN,
    WRITE_IN,
    Connection,
)

from magboard.sim.chardev import server as server_module
from magboard.sim.chardev.ioctl import IoctlCall
from magboard.sim.chardev.server import CuseServer
from magboard.sim.chardev.stall import Stall


class EchoDevice:
    """Keeps what is written per open and reads it back; ioctl 1 returns its argument plus one,
    ioctl 2 blows up, and everything waits while `stall` is engaged."""

    name = "echo0"

    def __init__(self) -> None:
        self.stall = Stall("echo")
        self.released: list[bytearray] = []

    def open(self, flags: int) -> bytearray:
        return bytearray()

    def release(self, handle: object) -> None:
        assert isinstance(handle, bytearray)
        self.released.append(handle)

    def read(self, handle: object, size: int) -> bytes:
        assert isinstance(handle, bytearray)
        self.stall.check()
        data = bytes(handle[:size])
        del handle[:size]
        return data

    def write(self, handle: object, data: bytes) -> int:
        assert isinstance(handle, bytearray)
        self.stall.check()
        handle.extend(data)
        return len(data)

    def ioctl(self, handle: object, call: IoctlCall) -> int:
        if call.command == 1:
            return call.arg + 1
        if call.command == 2:
            raise KeyError("a bug in a device")
        raise OSError(errno.ENOTTY, "no such ioctl")


@pytest.fixture
def device() -> EchoDevice:
    return EchoDevice()


@pytest.fixture
def connection(device):
    def make(fd: int) -> CuseServer:
        server = CuseServer(fd, device)
        server.watch(device.stall)
        return server

    link = Connection(make)
    yield link
    link.close()


@pytest.fixture
def kernel(connection):
    connection.kernel.init()
    return connection.kernel


def test_cuse_init_names_the_device_and_asks_for_unrestricted_ioctls(connection):
    out, info = connection.kernel.init(minor=36)
    major, minor, _unused, flags, max_read, max_write, dev_major, dev_minor = out
    assert (major, minor) == (7, 36)  # the kernel's minor when it is older than ours
    assert flags == 1  # CUSE_UNRESTRICTED_IOCTL
    assert max_read >= 8192 and max_write >= 8192  # i2c-dev's cap fits in one request
    assert (dev_major, dev_minor) == (0, 0)  # the kernel chooses
    assert info == b"DEVNAME=echo0\0"
    assert connection.server.minor == 36
    assert connection.server.initialised.is_set()


def test_a_newer_kernel_is_answered_with_our_minor(connection):
    out, _ = connection.kernel.init(minor=41)
    assert out[:2] == (7, 38)


def test_a_kernel_too_old_for_64_bit_iovecs_is_refused(connection):
    answer = connection.kernel.request(CUSE_INIT, CUSE_INIT_IN.pack(7, 15, 0, 1))
    assert answer.error == -errno.EPROTO
    assert not connection.server.initialised.is_set()


def test_each_open_has_its_own_file_until_it_is_released(kernel, device, connection):
    first, second = kernel.open(), kernel.open()
    assert first != second
    assert kernel.write(first, b"hello") == 5
    assert kernel.write(second, b"other") == 5
    assert kernel.read(first, 3) == b"hel"
    assert kernel.read(second, 100) == b"other"
    kernel.flush(first)
    kernel.release(first)
    assert device.released == [bytearray(b"lo")]
    assert connection.server.open_files == 1
    with pytest.raises(OSError) as caught:
        kernel.read(first, 1)
    assert caught.value.errno == errno.EBADF


def test_ioctls_answer_their_result_and_errors_their_errno(kernel):
    fh = kernel.open()
    assert kernel.ioctl(fh, 1, 41) == 42
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, 99, 0)
    assert caught.value.errno == errno.ENOTTY


def test_a_device_bug_is_eio_and_the_server_goes_on(kernel):
    fh = kernel.open()
    with pytest.raises(OSError) as caught:
        kernel.ioctl(fh, 2, 0)
    assert caught.value.errno == errno.EIO
    assert kernel.ioctl(fh, 1, 1) == 2


def test_poll_and_unknown_opcodes_are_enosys(kernel):
    fh = kernel.open()
    # ENOSYS to FUSE_POLL makes the kernel report the file always ready, as i2c-dev and spidev
    # (which have no poll) are.
    assert kernel.request(FUSE_POLL, POLL_IN.pack(fh, 0, 0, 1)).error == -errno.ENOSYS
    assert kernel.request(3, b"").error == -errno.ENOSYS  # FUSE_GETATTR
    assert kernel.request(4321, b"\0" * 8).error == -errno.ENOSYS


def test_malformed_requests_get_einval_or_are_dropped_and_never_stop_the_server(kernel):
    fh = kernel.open()
    assert kernel.request(FUSE_OPEN, b"\0\0").error == -errno.EINVAL  # a short fuse_open_in
    short_ioctl = IOCTL_IN.pack(fh, 2, 1, 0, 8, 0) + b"\0" * 3  # says 8 bytes in, carries 3
    assert kernel.request(FUSE_IOCTL, short_ioctl).error == -errno.EINVAL
    # A header whose length disagrees with the message: nothing to answer it by.
    kernel.sock.send(IN_HEADER.pack(999, FUSE_OPEN, 77, 1, 0, 0, 0, 0, 0) + b"\0" * 8)
    kernel.sock.send(b"\1\2\3")  # shorter than a header
    assert kernel.quiet()
    assert kernel.ioctl(fh, 1, 5) == 6


def test_a_stalled_device_keeps_requests_until_released_then_runs_them_in_order(
    kernel, device, connection
):
    fh = kernel.open()
    device.stall.engage()
    first = kernel.send(FUSE_WRITE, WRITE_IN.pack(fh, 0, 2, 0, 0, 0, 0), b"ab")
    second = kernel.send(FUSE_READ, READ_IN.pack(fh, 0, 2, 0, 0, 0, 0))
    assert kernel.quiet()  # the callers' syscalls block
    assert kernel.ioctl(fh, 1, 0) == 1  # what does not touch the bus still answers
    assert connection.server.kept == 2
    device.stall.release()
    answers = [kernel.receive(), kernel.receive()]
    assert [a.unique for a in answers] == [first, second]
    assert answers[1].payload == b"ab"
    assert connection.server.kept == 0


def test_a_stall_with_a_timeout_fails_kept_requests_with_its_errno(kernel, device):
    fh = kernel.open()
    device.stall.engage(timeout=0.2)
    started = time.monotonic()
    with pytest.raises(OSError) as caught:
        kernel.read(fh, 1)
    assert caught.value.errno == errno.ETIMEDOUT
    assert time.monotonic() - started >= 0.19


def test_an_interrupted_kept_request_ends_with_eintr(kernel, device, connection):
    fh = kernel.open()
    device.stall.engage()
    unique = kernel.send(FUSE_READ, READ_IN.pack(fh, 0, 1, 0, 0, 0, 0))
    assert kernel.quiet()
    kernel.send(FUSE_INTERRUPT, INTERRUPT_IN.pack(unique), unique=unique | 1)
    answer = kernel.receive()
    assert (answer.unique, answer.error) == (unique, -errno.EINTR)
    assert kernel.quiet()  # no reply to the interrupt itself
    assert connection.server.kept == 0
    # An interrupt for a request already answered is ignored.
    kernel.send(FUSE_INTERRUPT, INTERRUPT_IN.pack(2), unique=3)
    assert kernel.quiet()


def test_a_reply_nobody_waits_for_is_dropped(kernel, monkeypatch):
    fh = kernel.open()
    real_write = os.write
    refused = []

    def write(fd: int, data: bytes) -> int:
        if not refused:
            refused.append(data)
            raise OSError(errno.ENOENT, "the request is gone")  # the caller was killed
        return real_write(fd, data)

    monkeypatch.setattr(server_module.os, "write", write)
    kernel.send(FUSE_READ, READ_IN.pack(fh, 0, 1, 0, 0, 0, 0))
    assert kernel.quiet()
    assert refused
    assert kernel.ioctl(fh, 1, 2) == 3


def test_destroy_is_answered_and_ends_serving(kernel, connection):
    assert kernel.request(FUSE_DESTROY, b"").error == 0
    connection.thread.join(5)
    assert not connection.thread.is_alive()


def test_the_server_ends_when_the_channel_closes(connection):
    connection.kernel.sock.close()
    connection.thread.join(5)
    assert not connection.thread.is_alive()
