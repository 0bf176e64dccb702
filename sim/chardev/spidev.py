"""`/dev/spidevB.C` as Linux's spidev gives it, behind the BCM2835 SPI controller.

What a caller sees follows `drivers/spi/spidev.c`, the checks of `drivers/spi/spi.c`
(`__spi_setup`, `__spi_validate`) and what `drivers/spi/spi-bcm2835.c` supports (Linux 6.1):

- The mode, word size and speed belong to the device, not to an open: every open shares them.
  SPI_IOC_RD/WR_MODE (u8), _MODE32 (u32), _LSB_FIRST, _BITS_PER_WORD and _MAX_SPEED_HZ read
  and set them. A mode bit spidev does not know is EINVAL; one the BCM2835 lacks is EINVAL too
  (LSB first, loopback, SPI_READY, CPHA flip), except the dual, quad and octal bits, which the
  core drops without a word. The BCM2835 sends 8-bit words only. A speed of 0 is EINVAL; any
  other is kept as asked (the controller rounds it when it clocks).
- SPI_IOC_MESSAGE(n): n `spi_ioc_transfer`s (the same layout for 32- and 64-bit callers), under
  one chip select; each moves `len` bytes, from `tx_buf` (zeros where it is NULL) and into
  `rx_buf` where that is not NULL. The tx bytes of all transfers, and the rx space, must each
  fit spidev's buffer (`bufsiz`, 4096 bytes unless the kernel command line raises it), each
  transfer rounded up to the kernel's allocation alignment (EMSGSIZE). A transfer's word size
  must be 0 or 8 and its tx/rx_nbits 0 or 1 (EINVAL); a three-wire mode cannot send and
  receive in one transfer. Answers the bytes moved.
- `write()` is one transfer from the caller's bytes, `read()` one transfer into them; each at
  most `bufsiz` bytes (EMSGSIZE).
- Nothing drives MISO (the LED chain only listens), and the BCM2835 leaves its pull-down on that
  pin: every byte received is 0.

Every transfer's MOSI bytes go to the sink, one `SpiTransfer` each, in order: the simulated LED
chain decodes them.
"""

from __future__ import annotations

import errno
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntFlag

from .ioctl import IocDirection, IocFields, IoctlCall, Region, ioc
from .stall import Stall

SPI_IOC_MAGIC = ord("k")
BUFSIZ = 4096
"""spidev's module parameter `bufsiz` by default: the most bytes one message may send (and
receive). The Pi's LED chain needs it raised (`spidev.bufsiz=65536` on the kernel command
line) to send a frame in one message; `SpiDev(bufsiz=...)` follows suit."""
KMALLOC_MINALIGN = 128
"""ARCH_KMALLOC_MINALIGN on arm64, where the Pi's kernel runs: spidev rounds each transfer up to
it inside its buffer."""
PI_SPI_MAX_SPEED_HZ = 125_000_000
"""The `spi-max-frequency` the Pi's device tree gives spidev0.0, its speed until one is set."""
BCM2835_MAX_SPEED_HZ = 250_000_000
"""Half the core clock at its most (500 MHz): the controller's `max_speed_hz`."""


class SpiMode(IntFlag):
    """SPI mode bits (`include/uapi/linux/spi/spi.h`)."""

    CPHA = 1 << 0
    CPOL = 1 << 1
    CS_HIGH = 1 << 2
    LSB_FIRST = 1 << 3
    THREE_WIRE = 1 << 4
    LOOP = 1 << 5
    NO_CS = 1 << 6
    READY = 1 << 7
    TX_DUAL = 1 << 8
    TX_QUAD = 1 << 9
    RX_DUAL = 1 << 10
    RX_QUAD = 1 << 11
    CS_WORD = 1 << 12
    TX_OCTAL = 1 << 13
    RX_OCTAL = 1 << 14
    THREE_WIRE_HIZ = 1 << 15
    RX_CPHA_FLIP = 1 << 16
    NO_TX = 1 << 31  # kernel-only bits: the controller check lets them through
    NO_RX = 1 << 30


SPIDEV_MODE_MASK = int(
    SpiMode.CPHA
    | SpiMode.CPOL
    | SpiMode.CS_HIGH
    | SpiMode.LSB_FIRST
    | SpiMode.THREE_WIRE
    | SpiMode.LOOP
    | SpiMode.NO_CS
    | SpiMode.READY
    | SpiMode.TX_DUAL
    | SpiMode.TX_QUAD
    | SpiMode.TX_OCTAL
    | SpiMode.RX_DUAL
    | SpiMode.RX_QUAD
    | SpiMode.RX_OCTAL
    | SpiMode.RX_CPHA_FLIP
)
"""spidev.c's SPI_MODE_MASK: the bits a caller may set. (Plain ints from here on: `~` of an
IntFlag keeps only the flag's own bits.)"""
SPI_MODE_USER_MASK = (1 << 17) - 1
BCM2835_MODE_BITS = int(
    SpiMode.CPOL | SpiMode.CPHA | SpiMode.CS_HIGH | SpiMode.NO_CS | SpiMode.THREE_WIRE
)
_MULTI_WIRE = int(
    SpiMode.TX_DUAL
    | SpiMode.TX_QUAD
    | SpiMode.TX_OCTAL
    | SpiMode.RX_DUAL
    | SpiMode.RX_QUAD
    | SpiMode.RX_OCTAL
)


def _command(direction: IocDirection, number: int, size: int) -> int:
    return ioc(direction, SPI_IOC_MAGIC, number, size)


RD_MODE = _command(IocDirection.READ, 1, 1)
WR_MODE = _command(IocDirection.WRITE, 1, 1)
RD_LSB_FIRST = _command(IocDirection.READ, 2, 1)
WR_LSB_FIRST = _command(IocDirection.WRITE, 2, 1)
RD_BITS_PER_WORD = _command(IocDirection.READ, 3, 1)
WR_BITS_PER_WORD = _command(IocDirection.WRITE, 3, 1)
RD_MAX_SPEED_HZ = _command(IocDirection.READ, 4, 4)
WR_MAX_SPEED_HZ = _command(IocDirection.WRITE, 4, 4)
RD_MODE32 = _command(IocDirection.READ, 5, 4)
WR_MODE32 = _command(IocDirection.WRITE, 5, 4)


@dataclass(frozen=True, slots=True)
class SpiIocTransfer:
    """struct spi_ioc_transfer, the same for 32- and 64-bit callers."""

    tx_buf: int
    rx_buf: int
    len: int
    speed_hz: int
    delay_usecs: int
    bits_per_word: int
    cs_change: int
    tx_nbits: int
    rx_nbits: int
    word_delay_usecs: int
    pad: int

    LAYOUT = struct.Struct("=QQIIHBBBBBB")


def message_command(count: int) -> int:
    """SPI_IOC_MESSAGE(count)."""
    size = count * SpiIocTransfer.LAYOUT.size
    return _command(IocDirection.WRITE, 0, size if size < 1 << 14 else 0)


@dataclass(frozen=True, slots=True)
class SpiTransfer:
    """What one transfer clocked out on MOSI, for the sink."""

    data: bytes
    speed_hz: int
    """The clock asked for (the transfer's, else the device's), at most the controller's."""
    mode: int
    cs_change: bool
    delay_usecs: int
    at: float
    """When it was clocked out (`time.monotonic`)."""


Sink = Callable[[SpiTransfer], None]


@dataclass(frozen=True, slots=True)
class _Planned:
    tx: bytes | None
    rx_slot: int | None
    length: int
    speed_hz: int
    cs_change: bool
    delay_usecs: int


class SpiDev:
    """The spidev character device of one chip select, sending to `sink`."""

    def __init__(
        self,
        name: str,
        sink: Sink,
        *,
        lock: threading.RLock | None = None,
        stall: Stall | None = None,
        max_speed_hz: int = PI_SPI_MAX_SPEED_HZ,
        bufsiz: int = BUFSIZ,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if bufsiz <= 0:
            raise ValueError(f"spidev's buffer holds a positive number of bytes, not {bufsiz}")
        self.name = name
        self.bufsiz = bufsiz
        self.sink = sink
        self.lock = lock or threading.RLock()
        self.stall = stall or Stall(name)
        self.mode = 0
        self.bits_per_word = 8
        self.speed_hz = max_speed_hz
        self._clock = clock

    # The CharDevice interface.

    def open(self, flags: int) -> object:
        return _SpiOpen()

    def release(self, handle: object) -> None:
        pass

    def read(self, handle: object, size: int) -> bytes:
        if size > self.bufsiz:
            raise OSError(errno.EMSGSIZE, f"a read of {size} bytes is more than {self.bufsiz}")
        self._send([_Planned(None, None, size, self.speed_hz, False, 0)])
        return bytes(size)

    def write(self, handle: object, data: bytes) -> int:
        if len(data) > self.bufsiz:
            raise OSError(errno.EMSGSIZE, f"a write of {len(data)} bytes: more than {self.bufsiz}")
        self._send([_Planned(bytes(data), None, len(data), self.speed_hz, False, 0)])
        return len(data)

    def ioctl(self, handle: object, call: IoctlCall) -> int:
        fields = IocFields.of(call.command)
        if fields.kind != SPI_IOC_MAGIC:
            raise OSError(errno.ENOTTY, f"spidev has no ioctl 0x{call.command:x}")
        memory = call.memory
        readers = {
            RD_MODE: (1, lambda: self.mode & SPIDEV_MODE_MASK & 0xFF),
            RD_MODE32: (4, lambda: self.mode & SPIDEV_MODE_MASK),
            RD_LSB_FIRST: (1, lambda: 1 if self.mode & int(SpiMode.LSB_FIRST) else 0),
            RD_BITS_PER_WORD: (1, lambda: self.bits_per_word),
            RD_MAX_SPEED_HZ: (4, lambda: self.speed_hz),
        }
        if call.command in readers:
            size, value = readers[call.command]
            slot = memory.reserve(call.arg, size)
            memory.settle()
            memory.write(slot, value().to_bytes(size, "little"))
            return 0
        if call.command in (WR_MODE, WR_MODE32):
            size = 1 if call.command == WR_MODE else 4
            asked = int.from_bytes(memory.read(call.arg, size), "little")
            memory.settle()
            if asked & ~SPIDEV_MODE_MASK:
                raise OSError(errno.EINVAL, f"mode bits 0x{asked:x} are not spidev's")
            self.mode = self._setup((asked | self.mode & ~SPIDEV_MODE_MASK) & SPI_MODE_USER_MASK)
            return 0
        if call.command == WR_LSB_FIRST:
            asked = memory.read(call.arg, 1)[0]
            memory.settle()
            lsb = int(SpiMode.LSB_FIRST)
            self.mode = self._setup(self.mode | lsb if asked else self.mode & ~lsb)
            return 0
        if call.command == WR_BITS_PER_WORD:
            asked = memory.read(call.arg, 1)[0]
            memory.settle()
            if asked not in (0, 8):
                raise OSError(errno.EINVAL, f"the BCM2835 sends 8-bit words, not {asked}-bit")
            self.bits_per_word = 8
            return 0
        if call.command == WR_MAX_SPEED_HZ:
            asked = int.from_bytes(memory.read(call.arg, 4), "little")
            memory.settle()
            if asked == 0:
                raise OSError(errno.EINVAL, "a speed of 0 Hz")
            self.speed_hz = asked
            return 0
        return self._message(call, fields)

    # SPI_IOC_MESSAGE.

    def _message(self, call: IoctlCall, fields: IocFields) -> int:
        if fields.number != 0 or fields.direction != IocDirection.WRITE:
            raise OSError(errno.ENOTTY, f"spidev has no ioctl 0x{call.command:x}")
        layout = SpiIocTransfer.LAYOUT
        if fields.size % layout.size:
            raise OSError(errno.EINVAL, f"{fields.size} bytes are not whole transfers")
        count = fields.size // layout.size
        memory = call.memory
        if count == 0:
            memory.settle()
            return 0
        table = memory.read(call.arg, fields.size)
        transfers = [SpiIocTransfer(*values) for values in layout.iter_unpack(table)]
        # spidev copies each transfer's tx bytes in until one overflows its buffer (EMSGSIZE);
        # the rx space is declared first, to share their round.
        total = tx_total = rx_total = 0
        sane, failure = len(transfers), None
        for index, transfer in enumerate(transfers):
            aligned = -(-transfer.len // KMALLOC_MINALIGN) * KMALLOC_MINALIGN
            total += transfer.len
            rx_total += aligned if transfer.rx_buf else 0
            tx_total += aligned if transfer.tx_buf else 0
            if total > 2**31 - 1:
                failure = OSError(errno.EMSGSIZE, "more than INT_MAX bytes in one message")
            elif rx_total > self.bufsiz or tx_total > self.bufsiz:
                failure = OSError(errno.EMSGSIZE, f"more than {self.bufsiz} bytes a way")
            if failure is not None:
                sane = index
                break
        slots = [memory.reserve(t.rx_buf, t.len) if t.rx_buf else None for t in transfers[:sane]]
        sent = memory.read_many(
            [Region(t.tx_buf, t.len if t.tx_buf else 0) for t in transfers[:sane]]
        )
        if failure is not None:
            raise failure
        planned = [
            _Planned(
                data if transfer.tx_buf else None,
                slot,
                transfer.len,
                transfer.speed_hz or self.speed_hz,
                bool(transfer.cs_change),
                transfer.delay_usecs,
            )
            for transfer, slot, data in zip(transfers, slots, sent, strict=True)
        ]
        memory.settle()
        self._validate(transfers)
        self._send(planned)
        for plan in planned:
            if plan.rx_slot is not None:
                memory.write(plan.rx_slot, bytes(plan.length))
        return total

    def _validate(self, transfers: list[SpiIocTransfer]) -> None:
        """`__spi_validate` for this controller and mode."""
        for transfer in transfers:
            if transfer.bits_per_word not in (0, 8):
                raise OSError(errno.EINVAL, f"{transfer.bits_per_word}-bit words")
            if self.mode & int(SpiMode.THREE_WIRE) and transfer.tx_buf and transfer.rx_buf:
                raise OSError(errno.EINVAL, "three-wire: send or receive, not both")
            for buf, nbits in (
                (transfer.tx_buf, transfer.tx_nbits),
                (transfer.rx_buf, transfer.rx_nbits),
            ):
                # Dual and quad need mode bits the BCM2835 drops, so only single is left.
                if buf and nbits not in (0, 1):
                    raise OSError(errno.EINVAL, f"{nbits}-wire transfers")

    def _setup(self, mode: int) -> int:
        """`__spi_setup`'s checks of a new mode for this controller: the mode it keeps."""
        tx_wires = mode & int(SpiMode.TX_DUAL | SpiMode.TX_QUAD | SpiMode.NO_TX)
        rx_wires = mode & int(SpiMode.RX_DUAL | SpiMode.RX_QUAD | SpiMode.NO_RX)
        if tx_wires.bit_count() > 1 or rx_wires.bit_count() > 1:
            raise OSError(errno.EINVAL, "two of dual, quad and no-tx/rx at once")
        if mode & int(SpiMode.THREE_WIRE) and mode & _MULTI_WIRE:
            raise OSError(errno.EINVAL, "three-wire with dual, quad or octal")
        bad = mode & ~(BCM2835_MODE_BITS | int(SpiMode.CS_WORD | SpiMode.NO_TX | SpiMode.NO_RX))
        mode &= ~(bad & _MULTI_WIRE)  # dropped with a warning in the kernel log
        bad &= ~_MULTI_WIRE
        if bad:
            raise OSError(errno.EINVAL, f"the BCM2835 has no mode bits 0x{bad:x}")
        return mode

    def _send(self, planned: list[_Planned]) -> None:
        with self.lock:
            self.stall.check()
            for plan in planned:
                self.sink(
                    SpiTransfer(
                        plan.tx if plan.tx is not None else bytes(plan.length),
                        min(plan.speed_hz, BCM2835_MAX_SPEED_HZ),
                        self.mode,
                        plan.cs_change,
                        plan.delay_usecs,
                        self._clock(),
                    )
                )


class _SpiOpen:
    """An open of the device: spidev keeps nothing per open."""

    __slots__ = ()
