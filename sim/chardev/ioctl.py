"""Unrestricted ioctls over CUSE: reaching into the caller's memory by asking the kernel to retry.

The kernel cannot know what an ioctl's argument points to, so with CUSE_UNRESTRICTED_IOCTL it
sends the ioctl first with no memory at all (`in_size` and `out_size` 0), and the server answers
FUSE_IOCTL_RETRY with the stretches of the caller's memory it wants copied in (`in_iovs`) and
the ones it will fill (`out_iovs`). The kernel copies those in and sends the ioctl again, the
copies concatenated after `fuse_ioctl_in`; the server may ask again (to follow a pointer it has
just read), until it answers without RETRY, its data copied out to the out stretches in order
(`fs/fuse/ioctl.c`, `fuse_do_ioctl`). I2C_RDWR takes four rounds: nothing, the
`i2c_rdwr_ioctl_data`, the `i2c_msg` array it points to, and the message buffers those point to.

Rounds share no state here: each one runs the device's handler from the start on `UserMemory`,
which hands the handler's reads, in the order it makes them, out of that round's copied data.
A handler is deterministic, so round n+1 makes the same reads as round n and more; the first
read past the copied data raises `NeedMemory` with every stretch read so far, which becomes the
retry (`read_many` asks for a whole table's buffers in one round). Out stretches are declared
with `reserve`; those declared before a read that misses go into the same retry. `settle` is
where the handler proves it has everything (all copied data consumed, the out stretches the
size the kernel prepared); only after it may the handler touch the bus, so a retry never
repeats a side effect. Memory the caller changes between rounds (another of its threads) shows
as copied data of the wrong length, and is asked for again.
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntFlag

from .fuse import FUSE_IOCTL_MAX_IOV, IoctlFlag, IoctlIovec, IoctlOut

IOC_NRBITS = 8
IOC_TYPEBITS = 8
IOC_SIZEBITS = 14  # every architecture the Pi runs, and x86; not mips, powerpc, sparc or alpha
IOC_NRSHIFT = 0
IOC_TYPESHIFT = IOC_NRSHIFT + IOC_NRBITS
IOC_SIZESHIFT = IOC_TYPESHIFT + IOC_TYPEBITS
IOC_DIRSHIFT = IOC_SIZESHIFT + IOC_SIZEBITS


class IocDirection(IntFlag):
    """_IOC_WRITE: the caller passes data in; _IOC_READ: the caller gets data back."""

    NONE = 0
    WRITE = 1
    READ = 2


def ioc(direction: IocDirection, kind: int, number: int, size: int) -> int:
    """`_IOC(dir, type, nr, size)`: an ioctl command number."""
    if not 0 <= size < 1 << IOC_SIZEBITS:
        raise ValueError(f"an ioctl's size field holds 0..{(1 << IOC_SIZEBITS) - 1}, not {size}")
    return (
        int(direction) << IOC_DIRSHIFT
        | kind << IOC_TYPESHIFT
        | number << IOC_NRSHIFT
        | size << IOC_SIZESHIFT
    )


@dataclass(frozen=True, slots=True)
class IocFields:
    """A command number taken apart, as `_IOC_DIR`, `_IOC_TYPE`, `_IOC_NR`, `_IOC_SIZE` do."""

    direction: IocDirection
    kind: int
    number: int
    size: int

    @classmethod
    def of(cls, command: int) -> IocFields:
        return cls(
            IocDirection(command >> IOC_DIRSHIFT & 3),
            command >> IOC_TYPESHIFT & (1 << IOC_TYPEBITS) - 1,
            command >> IOC_NRSHIFT & (1 << IOC_NRBITS) - 1,
            command >> IOC_SIZESHIFT & (1 << IOC_SIZEBITS) - 1,
        )


@dataclass(frozen=True, slots=True)
class Region:
    """A stretch of the caller's memory: `length` bytes at `address`."""

    address: int
    length: int


class NeedMemory(Exception):
    """The handler needs memory this round did not copy: answer RETRY with these stretches."""

    def __init__(self, reads: tuple[Region, ...], writes: tuple[Region, ...]) -> None:
        super().__init__(f"retry: {len(reads)} stretches in, {len(writes)} out")
        self.reads = reads
        self.writes = writes


class UserMemory:
    """The caller's memory as one round of an ioctl sees it (see the module docstring)."""

    def __init__(self, copied: bytes, out_size: int) -> None:
        self._copied = memoryview(copied)
        self._offset = 0
        self._out_size = out_size
        self._reads: list[Region] = []
        self._reserved: list[Region] = []
        self._written: dict[int, bytes] = {}
        self._settled = False

    def read(self, address: int, length: int) -> bytes:
        """`length` bytes at `address` (nothing is asked for an empty stretch)."""
        if length < 0:
            raise ValueError(f"a stretch of memory is not {length} bytes long")
        if length == 0:
            return b""
        self._reads.append(Region(address, length))
        end = self._offset + length
        if end > len(self._copied):
            raise NeedMemory(tuple(self._reads), self._writes())
        data = bytes(self._copied[self._offset : end])
        self._offset = end
        return data

    def read_many(self, regions: Sequence[Region]) -> list[bytes]:
        """Several stretches at once: one retry asks for all that are missing, so following a
        table of pointers costs one round, not one a pointer."""
        wanted = [region for region in regions if region.length]
        if any(region.length < 0 for region in regions):
            raise ValueError("a stretch of memory is not a negative number of bytes long")
        self._reads.extend(wanted)
        end = self._offset + sum(region.length for region in wanted)
        if end > len(self._copied):
            raise NeedMemory(tuple(self._reads), self._writes())
        out = []
        for region in regions:
            start = self._offset
            self._offset += region.length
            out.append(bytes(self._copied[start : self._offset]))
        return out

    def unpack(self, layout: struct.Struct, address: int) -> tuple:
        """A C structure at `address`, read and unpacked."""
        return layout.unpack(self.read(address, layout.size))

    def reserve(self, address: int, length: int) -> int:
        """Declare that `length` bytes at `address` will be written back (before `settle`);
        returns the number `write` fills it by, counting from 0 in the order reserved."""
        if self._settled:
            raise RuntimeError("out stretches are declared before settle(), not after")
        if length < 0:
            raise ValueError(f"a stretch of memory is not {length} bytes long")
        self._reserved.append(Region(address, length))
        return len(self._reserved) - 1

    def settle(self) -> None:
        """Everything read is here and the out stretches are ready, or `NeedMemory`."""
        out = sum(region.length for region in self._reserved)
        if self._offset != len(self._copied) or out != self._out_size:
            raise NeedMemory(tuple(self._reads), self._writes())
        self._settled = True

    def write(self, index: int, data: bytes) -> None:
        """Fill the stretch reserved as number `index`, all of it."""
        if not self._settled:
            raise RuntimeError("write() comes after settle(): a retry would repeat it")
        region = self._reserved[index]
        if len(data) != region.length:
            raise ValueError(f"{len(data)} bytes for a stretch of {region.length}")
        self._written[index] = bytes(data)

    def out_data(self) -> bytes:
        """What the kernel copies out, stretch after stretch, up to the last one written (one
        left unwritten before it reads as zeros)."""
        parts: list[bytes] = []
        pending: list[bytes] = []
        for index, region in enumerate(self._reserved):
            data = self._written.get(index)
            if data is None:
                pending.append(bytes(region.length))
                continue
            parts += pending
            pending = []
            parts.append(data)
        return b"".join(parts)

    def _writes(self) -> tuple[Region, ...]:
        return tuple(region for region in self._reserved if region.length)


@dataclass(frozen=True, slots=True)
class IoctlCall:
    """One round of an ioctl, as a device handles it."""

    command: int
    arg: int
    """The ioctl's third argument: a pointer or a plain number, as the command defines."""
    compat: bool
    """The caller is 32-bit: its pointers and longs are 4 bytes (FUSE_IOCTL_32BIT)."""
    memory: UserMemory

    @property
    def long_size(self) -> int:
        return 4 if self.compat else 8


def retry_payload(need: NeedMemory) -> bytes:
    """The reply body of a RETRY: `fuse_ioctl_out`, then the in and the out iovecs."""
    count = len(need.reads) + len(need.writes)
    if count > FUSE_IOCTL_MAX_IOV:
        raise OSError(
            errno.ENOMEM, f"{count} stretches of memory are more than one ioctl may ask for"
        )
    head = IoctlOut(0, int(IoctlFlag.RETRY), len(need.reads), len(need.writes)).pack()
    return head + b"".join(
        IoctlIovec(region.address, region.length).pack() for region in need.reads + need.writes
    )


def done_payload(result: int, data: bytes = b"") -> bytes:
    """The reply body of a finished ioctl: its return value, then the data to copy out."""
    return IoctlOut(result, 0, 0, 0).pack() + data
