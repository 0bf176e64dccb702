"""`/dev/i2c-N` as Linux's i2c-dev gives it, on a simulated bus, behind a BCM2835 controller.

What a caller sees follows `drivers/i2c/i2c-dev.c` (Linux 6.1), the SMBus emulation of
`drivers/i2c/i2c-core-smbus.c` and the controller driver `drivers/i2c/busses/i2c-bcm2835.c`:

- Each open has its own target address (I2C_SLAVE / I2C_SLAVE_FORCE: above 0x3ff, or above
  0x7f without I2C_TENBIT, is EINVAL; the EBUSY check for an address a kernel driver owns is
  left out, no kernel driver owns one here), ten-bit and PEC flags.
- `read()` is one read message and `write()` one write message to that address, 8192 bytes at
  most (a longer call moves 8192), answering the count moved.
- I2C_RDWR: at most 42 messages (I2C_RDWR_IOCTL_MAX_MSGS), none longer than 8192 bytes, a
  repeated START between them and a STOP at the end; answers the number of messages. Every
  message buffer is copied in first, read ones too, as i2c-dev does (so a bad pointer fails
  with EFAULT before anything reaches the bus); I2C_M_RECV_LEN is checked as i2c-dev checks
  it. The BCM2835 can only read in the last message: a read before it is EOPNOTSUPP.
- I2C_SMBUS: emulated with I2C messages, as the BCM2835 has no SMBus controller; the block
  reads that need I2C_M_RECV_LEN (SMBus block read, block process call) are EOPNOTSUPP, as
  the adapter does not offer them (I2C_FUNCS says so). I2C_PEC is remembered, but no packet
  error code is added or checked.
- I2C_FUNCS answers the BCM2835's I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL.
- I2C_RETRIES and I2C_TIMEOUT are range-checked and kept for the adapter (every open shares
  them); the simulated bus never times out on its own.
- A target that does not acknowledge fails the transfer with what the bus raises:
  EREMOTEIO, as the BCM2835 reports a NACK. Its address register has seven bits, so a ten-bit
  address reaches the target at its low seven bits.
- Anything else is ENOTTY.

What Blinka's `busio.I2C` sends through Adafruit_PureIO's `SMBus`: `writeto` is I2C_SLAVE and
`write()`; `readfrom_into` is I2C_SLAVE and `read()`; `writeto_then_readfrom` is one I2C_RDWR
of a write and a read message; `scan` is I2C_RDWR with one empty write per address (and
I2C_SLAVE and a one-byte `read()` where that fails). An empty `write()` never reaches this
server: the kernel answers it 0 itself (`fuse_direct_io` forwards no empty write), so the
Adafruit drivers' probe (`writeto(address, b"")`) succeeds whether a chip is there or not.
"""

from __future__ import annotations

import errno
import struct
import sys
import threading
from dataclasses import dataclass
from enum import IntEnum, IntFlag

from magboard.sim.i2c import SimI2C

from .ioctl import IoctlCall, Region
from .stall import Stall

MAX_MESSAGE = 8192
"""i2c-dev's cap on one message (and on one read() or write())."""
RDWR_MAX_MESSAGES = 42
"""I2C_RDWR_IOCTL_MAX_MSGS."""
SMBUS_BLOCK_MAX = 32
"""I2C_SMBUS_BLOCK_MAX."""
SMBUS_DATA_SIZE = SMBUS_BLOCK_MAX + 2
"""sizeof(union i2c_smbus_data): block[0] the length, up to 32 bytes, one spare."""
INT_MAX = 2**31 - 1


class I2cIoctl(IntEnum):
    """The commands of `include/uapi/linux/i2c-dev.h`."""

    RETRIES = 0x0701
    TIMEOUT = 0x0702
    SLAVE = 0x0703
    TENBIT = 0x0704
    FUNCS = 0x0705
    SLAVE_FORCE = 0x0706
    RDWR = 0x0707
    PEC = 0x0708
    SMBUS = 0x0720


class MessageFlag(IntFlag):
    """`struct i2c_msg` flags (`include/uapi/linux/i2c.h`)."""

    RD = 0x0001
    TEN = 0x0010
    RECV_LEN = 0x0400


class Func(IntFlag):
    """I2C_FUNC_* bits a caller reads with I2C_FUNCS."""

    I2C = 0x00000001
    SMBUS_PEC = 0x00000008
    SMBUS_QUICK = 0x00010000
    SMBUS_READ_BYTE = 0x00020000
    SMBUS_WRITE_BYTE = 0x00040000
    SMBUS_READ_BYTE_DATA = 0x00080000
    SMBUS_WRITE_BYTE_DATA = 0x00100000
    SMBUS_READ_WORD_DATA = 0x00200000
    SMBUS_WRITE_WORD_DATA = 0x00400000
    SMBUS_PROC_CALL = 0x00800000
    SMBUS_WRITE_BLOCK_DATA = 0x02000000
    SMBUS_READ_I2C_BLOCK = 0x04000000
    SMBUS_WRITE_I2C_BLOCK = 0x08000000


SMBUS_EMUL = (
    Func.SMBUS_QUICK
    | Func.SMBUS_READ_BYTE
    | Func.SMBUS_WRITE_BYTE
    | Func.SMBUS_READ_BYTE_DATA
    | Func.SMBUS_WRITE_BYTE_DATA
    | Func.SMBUS_READ_WORD_DATA
    | Func.SMBUS_WRITE_WORD_DATA
    | Func.SMBUS_PROC_CALL
    | Func.SMBUS_WRITE_BLOCK_DATA
    | Func.SMBUS_READ_I2C_BLOCK
    | Func.SMBUS_WRITE_I2C_BLOCK
    | Func.SMBUS_PEC
)
"""I2C_FUNC_SMBUS_EMUL: what the core's SMBus emulation offers on a plain I2C adapter."""
BCM2835_FUNCS = Func.I2C | SMBUS_EMUL
"""`bcm2835_i2c_func`: 0x0eff0009."""


class SmbusSize(IntEnum):
    """I2C_SMBUS transaction types (`size` in `struct i2c_smbus_ioctl_data`)."""

    QUICK = 0
    BYTE = 1
    BYTE_DATA = 2
    WORD_DATA = 3
    PROC_CALL = 4
    BLOCK_DATA = 5
    I2C_BLOCK_BROKEN = 6
    BLOCK_PROC_CALL = 7
    I2C_BLOCK_DATA = 8


SMBUS_READ = 1
SMBUS_WRITE = 0


@dataclass(frozen=True, slots=True)
class RdwrData:
    """struct i2c_rdwr_ioctl_data (and i2c_rdwr_ioctl_data32 for a 32-bit caller)."""

    msgs: int
    nmsgs: int

    @staticmethod
    def layout(compat: bool) -> struct.Struct:
        # msgs (pointer), nmsgs (u32), then the 64-bit struct's tail padding
        return _RDWR32 if compat else _RDWR64


@dataclass(frozen=True, slots=True)
class I2cMsg:
    """struct i2c_msg (and i2c_msg32)."""

    addr: int
    flags: int
    len: int
    buf: int

    @staticmethod
    def layout(compat: bool) -> struct.Struct:
        # addr, flags, len (u16 each), padding to the pointer's alignment, buf (pointer)
        return _MSG32 if compat else _MSG64


@dataclass(frozen=True, slots=True)
class SmbusIoctlData:
    """struct i2c_smbus_ioctl_data (and i2c_smbus_ioctl_data32)."""

    read_write: int
    command: int
    size: int
    data: int

    @staticmethod
    def layout(compat: bool) -> struct.Struct:
        # read_write, command (u8 each), padding, size (u32), data (pointer)
        return _SMBUS32 if compat else _SMBUS64


_RDWR64 = struct.Struct("=QI4x")
_RDWR32 = struct.Struct("=II")
_MSG64 = struct.Struct("=HHH2xQ")
_MSG32 = struct.Struct("=HHH2xI")
_SMBUS64 = struct.Struct("=BB2xIQ")
_SMBUS32 = struct.Struct("=BB2xII")


@dataclass(slots=True)
class I2cClient:
    """What one open of the device remembers (i2c-dev's anonymous `i2c_client`)."""

    address: int = 0
    ten_bit: bool = False
    pec: bool = False


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a transfer: a write of `data`, or a read of `length` bytes."""

    address: int
    read: bool
    data: bytes = b""
    length: int = 0


class I2cDev:
    """The i2c-dev character device of one adapter, whose bus is `bus`.

    `lock` serialises the bus with whatever else touches the models (the world moving pieces,
    another device); `stall` hangs the bus (see `stall.py`).
    """

    def __init__(
        self,
        name: str,
        bus: SimI2C,
        *,
        lock: threading.RLock | None = None,
        stall: Stall | None = None,
    ) -> None:
        self.name = name
        self.bus = bus
        self.lock = lock or threading.RLock()
        self.stall = stall or Stall(name)
        self.retries = 0
        self.timeout_jiffies_10ms = 100
        """I2C_TIMEOUT's last value, in i2c-dev's units of 10 ms (the adapter's default is a
        second)."""

    # The CharDevice interface.

    def open(self, flags: int) -> I2cClient:
        return I2cClient()

    def release(self, handle: object) -> None:
        pass

    def read(self, handle: object, size: int) -> bytes:
        client = _client(handle)
        count = min(size, MAX_MESSAGE)
        (data,) = self.transfer([Message(_wire_address(client.address), True, length=count)])
        return data

    def write(self, handle: object, data: bytes) -> int:
        client = _client(handle)
        data = bytes(data[:MAX_MESSAGE])
        self.transfer([Message(_wire_address(client.address), False, data)])
        return len(data)

    def ioctl(self, handle: object, call: IoctlCall) -> int:
        client = _client(handle)
        command, arg = call.command, call.arg
        if command in (I2cIoctl.SLAVE, I2cIoctl.SLAVE_FORCE):
            if arg > 0x3FF or (not client.ten_bit and arg > 0x7F):
                raise OSError(errno.EINVAL, f"0x{arg:x} is not a target address here")
            client.address = arg
            return 0
        if command == I2cIoctl.TENBIT:
            client.ten_bit = bool(arg)
            return 0
        if command == I2cIoctl.PEC:
            client.pec = bool(arg)
            return 0
        if command == I2cIoctl.FUNCS:
            size = call.long_size
            slot = call.memory.reserve(arg, size)
            call.memory.settle()
            call.memory.write(slot, int(BCM2835_FUNCS).to_bytes(size, sys.byteorder))
            return 0
        if command == I2cIoctl.RDWR:
            return self._rdwr(call)
        if command == I2cIoctl.SMBUS:
            return self._smbus(client, call)
        if command == I2cIoctl.RETRIES:
            if arg > INT_MAX:
                raise OSError(errno.EINVAL, "too many retries")
            self.retries = arg
            return 0
        if command == I2cIoctl.TIMEOUT:
            if arg > INT_MAX // 10:
                raise OSError(errno.EINVAL, "too long a timeout")
            self.timeout_jiffies_10ms = arg
            return 0
        raise OSError(errno.ENOTTY, f"i2c-dev has no ioctl 0x{command:x}")

    # The bus.

    def transfer(self, messages: list[Message]) -> list[bytes]:
        """Messages under one STOP, as the BCM2835 sends them; what the reads read."""
        if any(m.read for m in messages[:-1]):
            raise OSError(errno.EOPNOTSUPP, "the BCM2835 reads only in the last message")
        phases: list[tuple[int, bytes | int]] = [
            (m.address, m.length if m.read else m.data) for m in messages
        ]
        with self.lock:
            self.stall.check()
            return self.bus.transact(phases)

    # I2C_RDWR.

    def _rdwr(self, call: IoctlCall) -> int:
        memory = call.memory
        head = RdwrData(*memory.unpack(RdwrData.layout(call.compat), call.arg))
        if not head.msgs or head.nmsgs == 0:
            raise OSError(errno.EINVAL, "I2C_RDWR without messages")
        if head.nmsgs > RDWR_MAX_MESSAGES:
            raise OSError(errno.EINVAL, f"I2C_RDWR of {head.nmsgs} messages")
        layout = I2cMsg.layout(call.compat)
        table = memory.read(head.msgs, head.nmsgs * layout.size)
        msgs = [I2cMsg(*fields) for fields in layout.iter_unpack(table)]
        # i2c-dev copies the buffers in, read ones too, message by message, until one is too
        # long (EINVAL); out space for the reads is declared first, to share their round.
        sane = next((i for i, msg in enumerate(msgs) if msg.len > MAX_MESSAGE), len(msgs))
        slots = {
            i: memory.reserve(msg.buf, msg.len)
            for i, msg in enumerate(msgs[:sane])
            if msg.flags & MessageFlag.RD and not msg.flags & MessageFlag.RECV_LEN
        }
        datas = memory.read_many([Region(msg.buf, msg.len) for msg in msgs[:sane]])
        if sane < len(msgs):
            raise OSError(errno.EINVAL, f"an I2C message of {msgs[sane].len} bytes")
        messages: list[Message] = []
        for i, (msg, data) in enumerate(zip(msgs, datas, strict=True)):
            length = msg.len
            if msg.flags & MessageFlag.RECV_LEN:
                if (
                    not msg.flags & MessageFlag.RD
                    or msg.len < 1
                    or data[0] < 1
                    or msg.len < data[0] + SMBUS_BLOCK_MAX
                ):
                    raise OSError(errno.EINVAL, "a bad I2C_M_RECV_LEN message")
                length = data[0]
                slots[i] = memory.reserve(msg.buf, length)
            read = bool(msg.flags & MessageFlag.RD)
            messages.append(Message(_wire_address(msg.addr), read, data, length))
        memory.settle()
        results = self.transfer(messages)
        readers = [i for i, m in enumerate(messages) if m.read]
        for i, data in zip(readers, results, strict=True):
            memory.write(slots[i], data)
        return head.nmsgs

    # I2C_SMBUS.

    def _smbus(self, client: I2cClient, call: IoctlCall) -> int:
        memory = call.memory
        args = SmbusIoctlData(*memory.unpack(SmbusIoctlData.layout(call.compat), call.arg))
        if args.size not in SmbusSize.__members__.values():
            raise OSError(errno.EINVAL, f"SMBus size {args.size}")
        size = SmbusSize(args.size)
        if args.read_write not in (SMBUS_READ, SMBUS_WRITE):
            raise OSError(errno.EINVAL, f"SMBus read_write {args.read_write}")
        address = _wire_address(client.address)
        if size == SmbusSize.QUICK or (size == SmbusSize.BYTE and args.read_write == SMBUS_WRITE):
            memory.settle()
            self._smbus_transfer(address, args.read_write, args.command, size, bytearray(0))
            return 0
        if not args.data:
            raise OSError(errno.EINVAL, "SMBus data is a NULL pointer")
        if size in (SmbusSize.BYTE, SmbusSize.BYTE_DATA):
            datasize = 1
        elif size in (SmbusSize.WORD_DATA, SmbusSize.PROC_CALL):
            datasize = 2
        else:
            datasize = SMBUS_DATA_SIZE
        copied_in = size in (
            SmbusSize.PROC_CALL,
            SmbusSize.BLOCK_PROC_CALL,
            SmbusSize.I2C_BLOCK_DATA,
        )
        copied_out = size in (SmbusSize.PROC_CALL, SmbusSize.BLOCK_PROC_CALL)
        slot = None
        if copied_out or args.read_write == SMBUS_READ:
            slot = memory.reserve(args.data, datasize)
        if copied_in or args.read_write == SMBUS_WRITE:
            temp = bytearray(memory.read(args.data, datasize))
        else:
            temp = bytearray(datasize)
        temp.extend(bytes(SMBUS_DATA_SIZE - len(temp)))
        if size == SmbusSize.I2C_BLOCK_BROKEN:
            size = SmbusSize.I2C_BLOCK_DATA
            if args.read_write == SMBUS_READ:
                temp[0] = SMBUS_BLOCK_MAX
        memory.settle()
        self._smbus_transfer(address, args.read_write, args.command, size, temp)
        if slot is not None:
            memory.write(slot, bytes(temp[:datasize]))
        return 0

    def _smbus_transfer(
        self, address: int, read_write: int, command: int, size: SmbusSize, data: bytearray
    ) -> None:
        """`i2c_smbus_xfer_emulated` without PEC: the messages for one SMBus transaction,
        results into `data` (the union's bytes)."""
        reading = read_write == SMBUS_READ
        cmd = bytes((command,))
        if size == SmbusSize.QUICK:
            self.transfer([Message(address, reading)])
        elif size == SmbusSize.BYTE:
            if reading:
                (got,) = self.transfer([Message(address, True, length=1)])
                data[0] = got[0]
            else:
                self.transfer([Message(address, False, cmd)])
        elif size == SmbusSize.BYTE_DATA:
            if reading:
                data[0] = self._read_after(address, cmd, 1)[0]
            else:
                self.transfer([Message(address, False, cmd + bytes(data[:1]))])
        elif size == SmbusSize.WORD_DATA:
            if reading:
                data[0:2] = self._read_after(address, cmd, 2)
            else:
                self.transfer([Message(address, False, cmd + bytes(data[:2]))])
        elif size == SmbusSize.PROC_CALL:
            data[0:2] = self._read_after(address, cmd + bytes(data[:2]), 2)
        elif size == SmbusSize.BLOCK_DATA and not reading:
            if data[0] > SMBUS_BLOCK_MAX:
                raise OSError(errno.EINVAL, f"an SMBus block write of {data[0]} bytes")
            self.transfer([Message(address, False, cmd + bytes(data[: data[0] + 1]))])
        elif size == SmbusSize.I2C_BLOCK_DATA:
            count = data[0]
            if count > SMBUS_BLOCK_MAX:
                raise OSError(errno.EINVAL, f"an I2C block transfer of {count} bytes")
            if reading:
                data[1 : 1 + count] = self._read_after(address, cmd, count)
            else:
                self.transfer([Message(address, False, cmd + bytes(data[1 : 1 + count]))])
        else:
            # SMBus block read and block process call need I2C_M_RECV_LEN.
            raise OSError(errno.EOPNOTSUPP, f"SMBus {size.name} is not offered by this adapter")

    def _read_after(self, address: int, written: bytes, count: int) -> bytes:
        (got,) = self.transfer(
            [Message(address, False, written), Message(address, True, length=count)]
        )
        return got


def _client(handle: object) -> I2cClient:
    if not isinstance(handle, I2cClient):
        raise TypeError(f"{handle!r} is not an open i2c-dev file")
    return handle


def _wire_address(address: int) -> int:
    """The BCM2835's address register has seven bits."""
    return address & 0x7F
