"""Unrestricted ioctls: the caller's memory reached round by round, with no state between them."""

from __future__ import annotations

import struct

import pytest

from magboard.sim.chardev.ioctl import (
    IocDirection,
    IocFields,
    NeedMemory,
    Region,
    UserMemory,
    done_payload,
    ioc,
    retry_payload,
)

HEAD = struct.Struct("=QI4x")


def handler(memory: UserMemory, arg: int) -> int:
    """Follows a pointer, then a table of buffers; writes the sum of each buffer back."""
    table, count = memory.unpack(HEAD, arg)
    entries = list(struct.iter_unpack("=QQ", memory.read(table, 16 * count)))
    slots = [memory.reserve(address, 1) for address, _ in entries]
    buffers = memory.read_many([Region(address, length) for address, length in entries])
    memory.settle()
    for slot, data in zip(slots, buffers, strict=True):
        memory.write(slot, bytes((sum(data) & 0xFF,)))
    return count


def run_rounds(space: dict[int, bytes], arg: int) -> tuple[list[NeedMemory], UserMemory, int]:
    """The rounds the kernel would run against `space` (address -> bytes there)."""
    needs: list[NeedMemory] = []
    reads: tuple[Region, ...] = ()
    writes: tuple[Region, ...] = ()
    for _ in range(10):
        copied = b"".join(space[r.address][: r.length] for r in reads)
        memory = UserMemory(copied, sum(w.length for w in writes))
        try:
            result = handler(memory, arg)
        except NeedMemory as need:
            needs.append(need)
            reads, writes = need.reads, need.writes
            continue
        return needs, memory, result
    raise AssertionError("never settled")


def test_each_round_asks_for_what_the_last_one_showed_it_needs():
    space = {
        0x1000: HEAD.pack(0x2000, 2),
        0x2000: struct.pack("=QQQQ", 0x3000, 2, 0x4000, 3),
        0x3000: b"\x01\x02",
        0x4000: b"\x10\x20\x30",
    }
    needs, memory, result = run_rounds(space, 0x1000)
    assert [need.reads for need in needs] == [
        (Region(0x1000, 16),),
        (Region(0x1000, 16), Region(0x2000, 32)),
        (Region(0x1000, 16), Region(0x2000, 32), Region(0x3000, 2), Region(0x4000, 3)),
    ]
    # The out stretches, declared before the buffers were read, came with them.
    assert needs[2].writes == (Region(0x3000, 1), Region(0x4000, 1))
    assert result == 2
    assert memory.out_data() == b"\x03\x60"


def test_settle_wants_every_copied_byte_used_and_the_out_space_exact():
    memory = UserMemory(b"abcd", 0)
    assert memory.read(0x10, 2) == b"ab"
    with pytest.raises(NeedMemory) as caught:
        memory.settle()  # two copied bytes unread: the caller's memory changed between rounds
    assert caught.value.reads == (Region(0x10, 2),)
    memory = UserMemory(b"", 4)
    memory.reserve(0x20, 2)
    with pytest.raises(NeedMemory):
        memory.settle()


def test_writes_only_after_settle_and_only_to_what_was_reserved():
    memory = UserMemory(b"", 3)
    first = memory.reserve(0x10, 1)
    second = memory.reserve(0x20, 2)
    with pytest.raises(RuntimeError, match="after settle"):
        memory.write(first, b"x")
    memory.settle()
    with pytest.raises(RuntimeError, match="before settle"):
        memory.reserve(0x30, 1)
    with pytest.raises(ValueError, match="stretch of 2"):
        memory.write(second, b"x")
    memory.write(second, b"yz")
    assert memory.out_data() == b"\0yz"  # an unwritten stretch before a written one is zeros
    memory = UserMemory(b"", 3)
    memory.reserve(0x10, 1)
    memory.reserve(0x20, 2)
    memory.settle()
    assert memory.out_data() == b""  # nothing written: nothing copied out


def test_empty_stretches_are_never_asked_for():
    memory = UserMemory(b"", 0)
    assert memory.read(0, 0) == b""
    assert memory.read_many([Region(0, 0), Region(0x10, 0)]) == [b"", b""]
    memory.reserve(0, 0)
    memory.settle()


def test_the_retry_and_done_replies_are_fuse_ioctl_out_then_iovecs_or_data():
    need = NeedMemory((Region(0x1000, 16),), (Region(0x2000, 4),))
    assert retry_payload(need) == struct.pack("=iIII", 0, 4, 1, 1) + struct.pack(
        "=QQQQ", 0x1000, 16, 0x2000, 4
    )
    assert done_payload(7, b"ab") == struct.pack("=iIII", 7, 0, 0, 0) + b"ab"
    too_many = NeedMemory(tuple(Region(i, 1) for i in range(257)), ())
    with pytest.raises(OSError, match="more than one ioctl may ask for"):
        retry_payload(too_many)


def test_ioctl_numbers_are_built_and_taken_apart_as_the_kernel_does():
    assert ioc(IocDirection.WRITE, ord("k"), 0, 32) == 0x40206B00  # SPI_IOC_MESSAGE(1)
    assert ioc(IocDirection.READ, ord("k"), 4, 4) == 0x80046B04  # SPI_IOC_RD_MAX_SPEED_HZ
    assert IocFields.of(0x40206B00) == IocFields(IocDirection.WRITE, ord("k"), 0, 32)
    assert IocFields.of(0x0707) == IocFields(IocDirection.NONE, 0x07, 0x07, 0)  # I2C_RDWR
    with pytest.raises(ValueError):
        ioc(IocDirection.WRITE, 1, 0, 1 << 14)
