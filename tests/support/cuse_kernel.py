"""A stand-in for the kernel's side of `/dev/cuse`, for testing a CUSE server without one.

`FakeKernel` talks to a server over a SOCK_SEQPACKET socket pair (one message a request, one a
reply, as `/dev/cuse` reads and writes go) and builds every request byte by byte with `struct`
from the layouts in `include/uapi/linux/fuse.h`, written out here again rather than taken from
the code under test, so a layout mistake there shows. Its `ioctl` runs the retry loop of
`fs/fuse/ioctl.c` (`fuse_do_ioctl`) against a `CallerMemory`, the address space of the process
making the call, and records each round.
"""

from __future__ import annotations

import array
import ctypes
import errno
import os
import socket
import struct
import threading
from dataclasses import dataclass, field

# include/uapi/linux/fuse.h, protocol 7.38
IN_HEADER = struct.Struct("=IIQQIIIHH")  # len opcode unique nodeid uid gid pid total_extlen pad
OUT_HEADER = struct.Struct("=IiQ")  # len error unique
CUSE_INIT_IN = struct.Struct("=IIII")  # major minor unused flags
CUSE_INIT_OUT = struct.Struct("=IIIIIIII40x")  # major minor unused flags max_read max_write
#                                               dev_major dev_minor spare[10]
OPEN_IN = struct.Struct("=II")  # flags open_flags
OPEN_OUT = struct.Struct("=QII")  # fh open_flags padding
READ_IN = struct.Struct("=QQIIQII")  # fh offset size read_flags lock_owner flags padding
WRITE_IN = struct.Struct("=QQIIQII")  # fh offset size write_flags lock_owner flags padding
WRITE_OUT = struct.Struct("=II")  # size padding
RELEASE_IN = struct.Struct("=QIIQ")  # fh flags release_flags lock_owner
FLUSH_IN = struct.Struct("=QIIQ")  # fh unused padding lock_owner
INTERRUPT_IN = struct.Struct("=Q")  # unique
IOCTL_IN = struct.Struct("=QIIQII")  # fh flags cmd arg in_size out_size
IOCTL_OUT = struct.Struct("=iIII")  # result flags in_iovs out_iovs
IOCTL_IOVEC = struct.Struct("=QQ")  # base len
POLL_IN = struct.Struct("=QQII")  # fh kh flags events

FUSE_OPEN = 14
FUSE_READ = 15
FUSE_WRITE = 16
FUSE_RELEASE = 18
FUSE_FLUSH = 25
FUSE_INTERRUPT = 36
FUSE_DESTROY = 38
FUSE_IOCTL = 39
FUSE_POLL = 40
CUSE_INIT = 4096

CUSE_UNRESTRICTED_IOCTL = 1
FUSE_IOCTL_COMPAT = 1 << 0
FUSE_IOCTL_UNRESTRICTED = 1 << 1
FUSE_IOCTL_RETRY = 1 << 2
FUSE_IOCTL_32BIT = 1 << 3
FUSE_IOCTL_MAX_IOV = 256


class CallerMemory:
    """A process's memory: buffers placed at made-up addresses, anything else unmapped."""

    def __init__(self, base: int = 0x7F00_0000_1000) -> None:
        self._next = base
        self._buffers: dict[int, bytearray] = {}

    def place(self, data: bytes | int) -> int:
        """Put `data` (or that many zero bytes) in memory; its address."""
        buffer = bytearray(data)
        address = self._next
        self._next += max(len(buffer), 1) + 0x100  # a gap: a stray offset faults
        self._buffers[address] = buffer
        return address

    def read(self, address: int, length: int) -> bytes:
        buffer, (start, end) = self._find(address, length)
        return bytes(buffer[start:end])

    def write(self, address: int, data: bytes) -> None:
        buffer, (start, end) = self._find(address, len(data))
        buffer[start:end] = data

    def _find(self, address: int, length: int) -> tuple[bytearray, tuple[int, int]]:
        for base, buffer in self._buffers.items():
            if base <= address and address + length <= base + len(buffer):
                return buffer, (address - base, address - base + length)
        raise OSError(errno.EFAULT, f"{length} bytes at 0x{address:x} are not mapped")


@dataclass(frozen=True)
class Round:
    """One round of an ioctl as the server answered it."""

    in_size: int
    out_size: int
    retry: bool
    in_iovs: tuple[tuple[int, int], ...] = ()
    out_iovs: tuple[tuple[int, int], ...] = ()


@dataclass
class Reply:
    error: int
    unique: int
    payload: bytes


@dataclass
class FakeKernel:
    """The kernel's side of a CUSE connection (see the module docstring)."""

    sock: socket.socket
    unique: int = 0
    rounds: list[Round] = field(default_factory=list)
    pid: int = 4242

    # Raw requests.

    def send(self, opcode: int, *parts: bytes, nodeid: int = 1, unique: int | None = None) -> int:
        """Write one request; its unique."""
        if unique is None:
            self.unique += 2  # the kernel's uniques are even; odd ones mark interrupts
            unique = self.unique
        body = b"".join(parts)
        header = IN_HEADER.pack(IN_HEADER.size + len(body), opcode, unique, nodeid, 0, 0,
                                self.pid, 0, 0)  # fmt: skip
        self.sock.send(header + body)
        return unique

    def receive(self, timeout: float = 5.0) -> Reply:
        self.sock.settimeout(timeout)
        data = self.sock.recv(1 << 21)
        length, error, unique = OUT_HEADER.unpack_from(data)
        assert length == len(data), f"the reply says {length} bytes and is {len(data)}"
        if error:
            assert length == OUT_HEADER.size, "an error reply carries nothing but its header"
        return Reply(error, unique, data[OUT_HEADER.size :])

    def request(self, opcode: int, *parts: bytes) -> Reply:
        unique = self.send(opcode, *parts)
        answer = self.receive()
        assert answer.unique == unique
        return answer

    def quiet(self, timeout: float = 0.2) -> bool:
        """Whether nothing arrives within `timeout`."""
        try:
            self.receive(timeout)
        except TimeoutError:
            return True
        return False

    # The kernel's requests, as cuse.c and file.c make them.

    def init(self, minor: int = 38) -> tuple[tuple[int, ...], bytes]:
        answer = self.request(CUSE_INIT, CUSE_INIT_IN.pack(7, minor, 0, CUSE_UNRESTRICTED_IOCTL))
        assert answer.error == 0, os.strerror(-answer.error)
        out = CUSE_INIT_OUT.unpack_from(answer.payload)
        return out, answer.payload[CUSE_INIT_OUT.size :]

    def open(self, flags: int = os.O_RDWR) -> int:
        answer = self.request(FUSE_OPEN, OPEN_IN.pack(flags, 0))
        _check(answer)
        fh, _open_flags, _ = OPEN_OUT.unpack(answer.payload)
        return fh

    def read(self, fh: int, size: int) -> bytes:
        answer = self.request(FUSE_READ, READ_IN.pack(fh, 0, size, 0, 0, os.O_RDWR, 0))
        _check(answer)
        assert len(answer.payload) <= size
        return answer.payload

    def write(self, fh: int, data: bytes) -> int:
        answer = self.request(FUSE_WRITE, WRITE_IN.pack(fh, 0, len(data), 0, 0, os.O_RDWR, 0), data)
        _check(answer)
        size, _ = WRITE_OUT.unpack(answer.payload)
        return size

    def flush(self, fh: int) -> None:
        _check(self.request(FUSE_FLUSH, FLUSH_IN.pack(fh, 0, 0, 0)))

    def release(self, fh: int) -> None:
        _check(self.request(FUSE_RELEASE, RELEASE_IN.pack(fh, os.O_RDWR, 0, 0)))

    def ioctl_request(
        self, fh: int, cmd: int, arg: int, copied: bytes = b"", out_size: int = 0, flags: int = 0
    ) -> int:
        """Send one round of an ioctl; its unique."""
        head = IOCTL_IN.pack(fh, flags | FUSE_IOCTL_UNRESTRICTED, cmd, arg, len(copied), out_size)
        return self.send(FUSE_IOCTL, head, copied)

    def ioctl(
        self,
        fh: int,
        cmd: int,
        arg: int,
        memory: CallerMemory | ProcessMemory | None = None,
        compat: bool = False,
    ) -> int:
        """The whole ioctl, retries and all, as `fuse_do_ioctl` runs it; its result, or the
        OSError the caller would get."""
        self.rounds = []
        memory = memory or CallerMemory()
        flags = FUSE_IOCTL_COMPAT | FUSE_IOCTL_32BIT if compat else 0
        in_iovs: list[tuple[int, int]] = []
        out_iovs: list[tuple[int, int]] = []
        for _ in range(16):
            copied = b"".join(memory.read(base, length) for base, length in in_iovs)
            out_size = sum(length for _, length in out_iovs)
            unique = self.ioctl_request(fh, cmd, arg, copied, out_size, flags)
            answer = self.receive()
            assert answer.unique == unique
            if answer.error:
                self.rounds.append(Round(len(copied), out_size, False))
                error = -answer.error
                raise OSError(errno.ENOTTY if error == errno.ENOSYS else error, os.strerror(error))
            result, out_flags, n_in, n_out = IOCTL_OUT.unpack_from(answer.payload)
            data = answer.payload[IOCTL_OUT.size :]
            if out_flags & FUSE_IOCTL_RETRY:
                assert n_in + n_out <= FUSE_IOCTL_MAX_IOV
                assert len(data) == (n_in + n_out) * IOCTL_IOVEC.size
                iovs = [IOCTL_IOVEC.unpack_from(data, i * 16) for i in range(n_in + n_out)]
                in_iovs, out_iovs = iovs[:n_in], iovs[n_in:]
                self.rounds.append(
                    Round(len(copied), out_size, True, tuple(in_iovs), tuple(out_iovs))
                )
                continue
            self.rounds.append(Round(len(copied), out_size, False))
            assert len(data) <= out_size, "more out data than the out iovecs hold (EIO)"
            for base, length in out_iovs:
                chunk, data = data[:length], data[length:]
                memory.write(base, chunk)
                if not data:
                    break
            if result < 0:
                raise OSError(-result, os.strerror(-result))
            return result
        raise AssertionError("the server kept asking to retry")


def _check(answer: Reply) -> None:
    if answer.error:
        raise OSError(-answer.error, os.strerror(-answer.error))


class Connection:
    """A server serving on a thread, and the fake kernel talking to it."""

    def __init__(self, make_server) -> None:
        self.kernel_side, self.server_side = socket.socketpair(
            socket.AF_UNIX, socket.SOCK_SEQPACKET
        )
        self.server = make_server(self.server_side.fileno())
        self.kernel = FakeKernel(self.kernel_side)
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.stop()
        self.thread.join(5)
        assert not self.thread.is_alive(), "the server did not stop"
        self.server.close()
        self.kernel_side.close()
        self.server_side.close()


class ProcessMemory:
    """This process's own memory, for a caller that is real Python code (Adafruit_PureIO)
    whose ctypes buffers the fake kernel copies from and to, as the kernel would."""

    def read(self, address: int, length: int) -> bytes:
        if not address:
            raise OSError(errno.EFAULT, "NULL")
        return ctypes.string_at(address, length)

    def write(self, address: int, data: bytes) -> None:
        if not address:
            raise OSError(errno.EFAULT, "NULL")
        ctypes.memmove(address, data, len(data))


class FakeFile:
    """An open of a CUSE device, as Python's `open(..., buffering=0)` file would use it."""

    def __init__(self, kernel: FakeKernel) -> None:
        self.kernel = kernel
        self.fh = kernel.open()
        self.closed = False

    def fileno(self) -> int:
        return self.fh

    def read(self, size: int) -> bytes:
        return self.kernel.read(self.fh, size)

    def write(self, data: bytes) -> int:
        if not len(data):
            return 0  # the kernel forwards no empty write to a CUSE server (fuse_direct_io)
        return self.kernel.write(self.fh, bytes(data))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.kernel.release(self.fh)
        except OSError as error:
            if error.errno != errno.EBADF:
                raise  # EBADF: the connection is gone, and the open with it


def fake_ioctl(files: dict[int, FakeFile]):
    """A stand-in for `fcntl.ioctl` on the files in `files` (by fileno): the argument's address
    is what the kernel would get, an int argument goes as it is."""

    def ioctl(fd: int, request: int, arg: object = 0, mutate_flag: bool = True) -> object:
        file = files[fd]
        keep = None
        if isinstance(arg, int):
            address = arg
        elif isinstance(arg, bytes):
            keep = ctypes.create_string_buffer(arg, len(arg))  # fcntl copies immutable bytes
            address = ctypes.addressof(keep)
        elif isinstance(arg, array.array):
            address = arg.buffer_info()[0]
        else:
            address = ctypes.addressof(arg)  # a ctypes structure
        result = file.kernel.ioctl(file.fh, request, address, ProcessMemory())
        if keep is not None:
            return keep.raw
        return result

    return ioctl
