"""The FUSE wire protocol as CUSE speaks it over `/dev/cuse`: requests in, replies out.

Every structure is a frozen dataclass with the struct format of its C definition in
`include/uapi/linux/fuse.h` (protocol 7.38, Linux 6.1), field for field, padding named. The byte
order is the host's (`=`): the kernel and its server share one machine, and FUSE never swaps.

One `read` of `/dev/cuse` returns exactly one request: a `fuse_in_header` whose `len` counts the
whole request, then the opcode's arguments. One `write` is one reply: a `fuse_out_header` (`len`
of the whole reply, `error` as a negative errno or 0, the request's `unique`), then, when
`error` is 0, the opcode's reply arguments. The kernel rejects an error reply that carries
anything after its header, so `error_reply` never does.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, fields
from enum import IntEnum, IntFlag
from typing import ClassVar, Self

KERNEL_VERSION = 7
"""FUSE_KERNEL_VERSION: the major version; the kernel refuses any other in CUSE_INIT's reply."""

SUPPORTED_MINOR = 38
"""The minor version whose layouts this module follows (linux-libc-dev 6.1's fuse.h)."""

LOWEST_MINOR = 16
"""Below 7.16 the kernel reads a retried ioctl's iovecs as the machine's `struct iovec`, not as
`fuse_ioctl_iovec`; this server only speaks the latter."""

CUSE_INIT_INFO_MAX = 4096
"""The most device info (`DEVNAME=...`) the kernel reads from CUSE_INIT's reply."""

FUSE_IOCTL_MAX_IOV = 256
"""The most iovecs, in and out together, a retried ioctl may ask for."""


class Opcode(IntEnum):
    """The opcodes a CUSE connection carries (`enum fuse_opcode`); others are answered ENOSYS."""

    OPEN = 14
    READ = 15
    WRITE = 16
    RELEASE = 18
    FSYNC = 20
    FLUSH = 25
    INTERRUPT = 36
    DESTROY = 38
    IOCTL = 39
    POLL = 40
    CUSE_INIT = 4096


class CuseInitFlag(IntFlag):
    UNRESTRICTED_IOCTL = 1 << 0


class OpenFlag(IntFlag):
    """FOPEN_* in `fuse_open_out.open_flags`."""

    DIRECT_IO = 1 << 0
    KEEP_CACHE = 1 << 1
    NONSEEKABLE = 1 << 2
    STREAM = 1 << 4


class IoctlFlag(IntFlag):
    """FUSE_IOCTL_* in `fuse_ioctl_in.flags` and `fuse_ioctl_out.flags`."""

    COMPAT = 1 << 0
    UNRESTRICTED = 1 << 1
    RETRY = 1 << 2
    BITS32 = 1 << 3  # FUSE_IOCTL_32BIT: the caller's pointers and longs are 32 bits
    DIR = 1 << 4
    COMPAT_X32 = 1 << 5


INT_REQUEST_BIT = 1
"""FUSE_INT_REQ_BIT: set in the `unique` of an INTERRUPT request, clear in every other."""


class ProtocolError(ValueError):
    """Bytes that are not a well-formed request: too short, or a length that disagrees with
    what was read. The kernel never sends these; a broken test or a broken channel does."""


class _Packed:
    """A C structure: `FORMAT` packs the dataclass's fields, in order."""

    __slots__ = ()
    FORMAT: ClassVar[struct.Struct]

    @classmethod
    def packed_size(cls) -> int:
        return cls.FORMAT.size

    @classmethod
    def unpack_from(cls, data: bytes | memoryview, offset: int = 0) -> Self:
        if len(data) - offset < cls.FORMAT.size:
            raise ProtocolError(
                f"{cls.__name__} needs {cls.FORMAT.size} bytes, {len(data) - offset} are left"
            )
        return cls(*cls.FORMAT.unpack_from(data, offset))

    def pack(self) -> bytes:
        return self.FORMAT.pack(*(getattr(self, f.name) for f in fields(self)))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class InHeader(_Packed):
    """struct fuse_in_header."""

    len: int
    opcode: int
    unique: int
    nodeid: int
    uid: int
    gid: int
    pid: int
    total_extlen: int
    padding: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=IIQQIIIHH")


@dataclass(frozen=True, slots=True)
class OutHeader(_Packed):
    """struct fuse_out_header."""

    len: int
    error: int
    unique: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=IiQ")


@dataclass(frozen=True, slots=True)
class CuseInitIn(_Packed):
    """struct cuse_init_in."""

    major: int
    minor: int
    unused: int
    flags: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=IIII")


@dataclass(frozen=True, slots=True)
class CuseInitOut(_Packed):
    """struct cuse_init_out; `dev_major` 0 lets the kernel choose the device number."""

    major: int
    minor: int
    unused: int
    flags: int
    max_read: int
    max_write: int
    dev_major: int
    dev_minor: int
    spare0: int = 0
    spare1: int = 0
    spare2: int = 0
    spare3: int = 0
    spare4: int = 0
    spare5: int = 0
    spare6: int = 0
    spare7: int = 0
    spare8: int = 0
    spare9: int = 0
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=IIIIIIII10I")


@dataclass(frozen=True, slots=True)
class OpenIn(_Packed):
    """struct fuse_open_in."""

    flags: int
    open_flags: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=II")


@dataclass(frozen=True, slots=True)
class OpenOut(_Packed):
    """struct fuse_open_out."""

    fh: int
    open_flags: int
    padding: int = 0
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QII")


@dataclass(frozen=True, slots=True)
class ReadIn(_Packed):
    """struct fuse_read_in (full size since 7.9)."""

    fh: int
    offset: int
    size: int
    read_flags: int
    lock_owner: int
    flags: int
    padding: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QQIIQII")


@dataclass(frozen=True, slots=True)
class WriteIn(_Packed):
    """struct fuse_write_in (full size since 7.9); the data follows it."""

    fh: int
    offset: int
    size: int
    write_flags: int
    lock_owner: int
    flags: int
    padding: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QQIIQII")


@dataclass(frozen=True, slots=True)
class WriteOut(_Packed):
    """struct fuse_write_out."""

    size: int
    padding: int = 0
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=II")


@dataclass(frozen=True, slots=True)
class ReleaseIn(_Packed):
    """struct fuse_release_in."""

    fh: int
    flags: int
    release_flags: int
    lock_owner: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QIIQ")


@dataclass(frozen=True, slots=True)
class FlushIn(_Packed):
    """struct fuse_flush_in."""

    fh: int
    unused: int
    padding: int
    lock_owner: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QIIQ")


@dataclass(frozen=True, slots=True)
class InterruptIn(_Packed):
    """struct fuse_interrupt_in: the `unique` of the request to interrupt."""

    unique: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=Q")


@dataclass(frozen=True, slots=True)
class IoctlIn(_Packed):
    """struct fuse_ioctl_in; `in_size` bytes of the caller's memory follow it."""

    fh: int
    flags: int
    cmd: int
    arg: int
    in_size: int
    out_size: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QIIQII")


@dataclass(frozen=True, slots=True)
class IoctlOut(_Packed):
    """struct fuse_ioctl_out; with RETRY, `in_iovs + out_iovs` iovecs follow, else the data
    to copy out."""

    result: int
    flags: int
    in_iovs: int
    out_iovs: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=iIII")


@dataclass(frozen=True, slots=True)
class IoctlIovec(_Packed):
    """struct fuse_ioctl_iovec: a stretch of the caller's memory, 64-bit whatever the caller."""

    base: int
    len: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QQ")


@dataclass(frozen=True, slots=True)
class PollIn(_Packed):
    """struct fuse_poll_in."""

    fh: int
    kh: int
    flags: int
    events: int
    FORMAT: ClassVar[struct.Struct] = struct.Struct("=QQII")


@dataclass(frozen=True, slots=True)
class Request:
    """One request as read from the channel: its header and the bytes after it."""

    header: InHeader
    body: bytes

    @property
    def opcode(self) -> int:
        return self.header.opcode

    @property
    def unique(self) -> int:
        return self.header.unique


def parse_request(data: bytes | memoryview) -> Request:
    """The request in `data`, which must be exactly what one read returned."""
    header = InHeader.unpack_from(data)
    if header.len != len(data):
        raise ProtocolError(f"the header says {header.len} bytes, the read returned {len(data)}")
    return Request(header, bytes(data[InHeader.packed_size() :]))


def reply(unique: int, *parts: bytes) -> bytes:
    """A successful reply to request `unique` carrying `parts`, in order."""
    payload = b"".join(parts)
    return OutHeader(OutHeader.packed_size() + len(payload), 0, unique).pack() + payload


def error_reply(unique: int, errno: int) -> bytes:
    """A failed reply: the header alone, with `-errno`."""
    if not 0 < errno < 512:
        raise ValueError(f"an error reply carries an errno in 1..511, not {errno}")
    return OutHeader(OutHeader.packed_size(), -errno, unique).pack()


def device_info(devname: str) -> bytes:
    """CUSE_INIT's reply info: `DEVNAME=name`, NUL-terminated, as the kernel parses it."""
    if not devname or "/" in devname or "\0" in devname or "=" in devname:
        raise ValueError(f"{devname!r} is not a device name CUSE accepts")
    info = f"DEVNAME={devname}\0".encode()
    if len(info) > CUSE_INIT_INFO_MAX:
        raise ValueError(f"device name {devname!r} is too long for CUSE_INIT")
    return info
