"""A simulated I2C bus that stands where Blinka's `busio.I2C` stands.

`SimI2C` has the methods `adafruit_bus_device.i2c_device.I2CDevice` calls on a bus
(`try_lock`, `unlock`, `writeto`, `readfrom_into`, `writeto_then_readfrom`), plus `scan`,
`deinit` and the context manager, so the real Adafruit drivers run on it unchanged.

Devices (targets) hang on an `I2CSegment`, a stretch of wire. The bus owns the root segment; a
mux owns one segment per channel and routes addresses to the channels it has enabled. A target
implements a small protocol that mirrors what happens on the wire after its address byte is
acknowledged:

- `write(data)`: one write phase (START or repeated START, address+W, then `data`);
- `read(count)`: one read phase (address+R, then `count` bytes clocked out by the target);
- `stop()`: the STOP condition ending the transaction.

A repeated start (write then read without STOP) is `write`, `read`, `stop`: a register pointer
set by the write is still in place for the read.

An address nobody acknowledges fails with `OSError(errno.EREMOTEIO)`, which is what Linux's
i2c-dev reports for a NACK, and what the drivers expect ("No I2C device at address").

Wire accounting charges what a logic analyser would see: a START or repeated START and a STOP
are one bit time each (an approximation; each takes about one SCL period), and every byte,
address bytes included, is 9 bits with its ACK. So a write of n bytes (a register address
included) is 11 + 9n bits, a plain read of n bytes 11 + 9n, and a write of m bytes, repeated
start, and read of n bytes 21 + 9(m + n): a two-port GPIO read is 48 bits, or 29 with the
pointer left on GPIOA in byte mode. A NACKed address costs 11 bits. `wire_seconds` is the total over
`frequency`, for a virtual clock to charge.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from errno import EREMOTEIO
from typing import Literal, Protocol, TypeVar, runtime_checkable

# Blinka's Linux scan probes 0x08..0x77, skipping the reserved addresses at both ends.
SCAN_FIRST = 0x08
SCAN_LAST = 0x77

_CONDITION_BITS = 1  # a START, repeated START or STOP, counted as one bit time
_BYTE_BITS = 9  # 8 data bits and the ACK/NACK bit
# START, address byte, STOP: a quick write, a NACKed address, or the frame around one phase.
_FRAME_BITS = 2 * _CONDITION_BITS + _BYTE_BITS
# START, address+W, repeated START, address+R, STOP: the frame of a register read.
_COMBINED_FRAME_BITS = 3 * _CONDITION_BITS + 2 * _BYTE_BITS


class AddressConflictError(ValueError):
    """Two targets attached at one address on one segment: a wiring mistake."""


class BusContentionError(RuntimeError):
    """More than one target answers an address (for example behind two enabled mux channels)."""


class BusLockError(RuntimeError):
    """The thread that holds the bus lock asked for it again; Blinka would spin forever."""


class BusClosedError(RuntimeError):
    """The bus was used after `deinit()`."""


class LockableBus:
    """Blinka's `Lockable` (a flag, not re-entrant), except that a thread asking again for the
    lock it already holds gets `BusLockError`: with the real bus that loop in the drivers'
    `__enter__` would spin forever, which a test should see as an error instead."""

    kind = "I2C"
    """The bus's name in what it says."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._owner: int | None = None

    def try_lock(self) -> bool:
        if self._mutex.acquire(blocking=False):
            self._owner = threading.get_ident()
            return True
        if self._owner == threading.get_ident():
            raise BusLockError(
                f"this thread already holds the {self.kind} bus lock and asked for it again;"
                " a lock taken before a failed transfer was never released"
            )
        return False

    def unlock(self) -> None:
        if self._owner is not None:
            self._owner = None
            self._mutex.release()

    @property
    def locked(self) -> bool:
        return self._owner is not None


@runtime_checkable
class I2CTarget(Protocol):
    """What a simulated device implements to hang on a segment."""

    address: int

    def write(self, data: bytes) -> None: ...

    def read(self, count: int) -> bytes: ...

    def stop(self) -> None: ...


@runtime_checkable
class I2CRouter(Protocol):
    """A target that connects further segments (a mux): it finds who answers behind it."""

    def downstream_target(self, address: int) -> I2CTarget | None: ...


@dataclass(frozen=True, slots=True)
class Transfer:
    """One delivered phase of a transaction, as recorded: who, which way, which bytes."""

    address: int
    direction: Literal["w", "r"]
    data: bytes


T = TypeVar("T", bound=I2CTarget)


class I2CSegment:
    """A stretch of bus wire and the targets attached to it, by address."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._targets: dict[int, I2CTarget] = {}
        self._routers: list[I2CRouter] = []

    def attach(self, target: T) -> T:
        """Connect `target` at its own `address`; returns it, for chaining."""
        if not isinstance(target, I2CTarget):
            raise TypeError(f"{target!r} does not implement the I2C target protocol")
        address = target.address
        if not 0 <= address <= 0x7F:
            raise ValueError(f"{target!r}: 0x{address:x} is not a 7-bit I2C address")
        existing = self._targets.get(address)
        if existing is not None:
            raise AddressConflictError(
                f"{self.name}: {target!r} and {existing!r} both answer at 0x{address:02x}"
            )
        self._targets[address] = target
        if isinstance(target, I2CRouter):
            self._routers.append(target)
        return target

    def detach(self, target: I2CTarget) -> None:
        """Disconnect `target` (an expander unplugged or dead): its address NACKs from now on."""
        if self._targets.get(target.address) is not target:
            raise ValueError(f"{self.name}: {target!r} is not attached here")
        del self._targets[target.address]
        if target in self._routers:
            self._routers.remove(target)

    @property
    def targets(self) -> tuple[I2CTarget, ...]:
        """The targets attached directly to this segment, by address."""
        return tuple(self._targets[address] for address in sorted(self._targets))

    def target_at(self, address: int) -> I2CTarget | None:
        """Who acknowledges `address` here, looking through routers' enabled segments too."""
        found = self._targets.get(address)
        for router in self._routers:
            behind = router.downstream_target(address)
            if behind is not None:
                if found is not None:
                    raise BusContentionError(
                        f"{self.name}: {found!r} and {behind!r} both answer at 0x{address:02x}"
                    )
                found = behind
        return found

    def __repr__(self) -> str:
        return f"I2CSegment({self.name!r})"


class SimI2C(LockableBus):
    """A simulated I2C bus controller with Blinka's `busio.I2C` interface.

    Locking is `LockableBus`'s.
    """

    def __init__(self, *, frequency: int = 400_000, record: bool = False) -> None:
        if frequency <= 0:
            raise ValueError(f"frequency must be positive, not {frequency}")
        self.frequency = frequency
        self.record = record
        self.transfers: list[Transfer] = []
        self.transactions = 0
        self.bits = 0
        self._root = I2CSegment("root bus")
        self._injected: dict[tuple[int, I2CTarget | None], deque[int]] = {}
        super().__init__()
        self._closed = False

    # Wiring.

    @property
    def segment(self) -> I2CSegment:
        """The root segment: the wire the Pi's SDA/SCL pins drive."""
        return self._root

    def attach(self, target: T) -> T:
        """Connect `target` to the root segment at its address; returns it."""
        return self._root.attach(target)

    def detach(self, target: I2CTarget) -> None:
        self._root.detach(target)

    # Fault injection and accounting.

    def inject_errors(
        self,
        address: int,
        count: int,
        errno: int = EREMOTEIO,
        target: I2CTarget | None = None,
    ) -> None:
        """Make the next `count` transactions to `address` fail with `OSError(errno)`.

        The failure is at the address byte (as a NACK or a lost arbitration would be), so the
        target sees nothing of a failed transaction. Bursts queue behind each other. With
        `target`, only transactions that would reach that device fail: behind a mux, one
        address names a device on every channel, and a fault belongs to one of them.
        """
        if count < 0:
            raise ValueError(f"count must not be negative, not {count}")
        if count:
            self._injected.setdefault((address, target), deque()).extend([errno] * count)

    @property
    def wire_seconds(self) -> float:
        """Time all transactions so far held the wire at `frequency`."""
        return self.bits / self.frequency

    # The busio.I2C interface.

    def writeto(self, address: int, buffer, *, start: int = 0, end: int | None = None) -> None:
        data = bytes(buffer[start:end])
        target = self._acknowledge(address)
        target.write(data)
        target.stop()
        self.bits += _FRAME_BITS + _BYTE_BITS * len(data)
        if self.record:
            self.transfers.append(Transfer(address, "w", data))

    def readfrom_into(
        self, address: int, buffer, *, start: int = 0, end: int | None = None
    ) -> None:
        if end is None:
            end = len(buffer)
        target = self._acknowledge(address)
        data = target.read(end - start)
        target.stop()
        buffer[start:end] = data
        self.bits += _FRAME_BITS + _BYTE_BITS * len(data)
        if self.record:
            self.transfers.append(Transfer(address, "r", bytes(data)))

    def writeto_then_readfrom(
        self,
        address: int,
        buffer_out,
        buffer_in,
        *,
        out_start: int = 0,
        out_end: int | None = None,
        in_start: int = 0,
        in_end: int | None = None,
    ) -> None:
        """A write, a repeated START and a read, with no STOP between them."""
        if in_end is None:
            in_end = len(buffer_in)
        # Copy first: the Adafruit drivers pass one buffer as both out and in.
        out = bytes(buffer_out[out_start:out_end])
        target = self._acknowledge(address)
        target.write(out)
        data = target.read(in_end - in_start)
        target.stop()
        buffer_in[in_start:in_end] = data
        self.bits += _COMBINED_FRAME_BITS + _BYTE_BITS * (len(out) + len(data))
        if self.record:
            self.transfers.append(Transfer(address, "w", out))
            self.transfers.append(Transfer(address, "r", bytes(data)))

    def transact(self, phases: Sequence[tuple[int, bytes | int]]) -> list[bytes]:
        """Phases under one START and one STOP, a repeated START between them, as Linux's
        I2C_RDWR sends its messages: each phase is `(address, data)` to write `data`, or
        `(address, count)` to read `count` bytes. Returns what each read phase read, in order.

        A phase may address another target than the one before it. A NACK (or an injected
        error) at a phase's address byte ends the transaction there with a STOP, so the targets
        already spoken to see it, and raises the OSError; the phases before it have happened.
        Injected errors are drawn once for each address, at its first phase. Every target
        spoken to gets the STOP, in the order they were first addressed.
        """
        if self._closed:
            raise BusClosedError("the I2C bus was used after deinit()")
        self.transactions += 1
        spoken: list[I2CTarget] = []
        drawn: set[int] = set()
        reads: list[bytes] = []
        bits = _CONDITION_BITS  # the STOP
        try:
            for address, payload in phases:
                target = self._root.target_at(address)
                code = None
                if self._injected and address not in drawn:
                    drawn.add(address)
                    code = self._draw_injected(address, target)
                if code is None and target is None:
                    code = EREMOTEIO
                bits += _CONDITION_BITS + _BYTE_BITS
                if code is not None:
                    raise OSError(code, os.strerror(code))
                assert target is not None
                if not any(target is seen for seen in spoken):
                    spoken.append(target)
                if isinstance(payload, int):
                    data = target.read(payload)
                    reads.append(data)
                    direction: Literal["w", "r"] = "r"
                else:
                    data = bytes(payload)
                    target.write(data)
                    direction = "w"
                bits += _BYTE_BITS * len(data)
                if self.record:
                    self.transfers.append(Transfer(address, direction, data))
        finally:
            for target in spoken:
                target.stop()
            self.bits += bits
        return reads

    def scan(self) -> list[int]:
        """Addresses that acknowledge, probed as Blinka's Linux scan probes them.

        Each address gets a quick write (address only); if that fails, a one-byte read. Both
        are real transactions: they count, cost wire time, and a read may have side effects on
        the target (reading an MCP23017's GPIO clears its interrupt), as on the real bus.
        """
        found = []
        for address in range(SCAN_FIRST, SCAN_LAST + 1):
            try:
                self.writeto(address, b"")
            except OSError:
                try:
                    self.readfrom_into(address, bytearray(1))
                except OSError:
                    continue
            found.append(address)
        return found

    def deinit(self) -> None:
        self._closed = True

    def __enter__(self) -> SimI2C:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.deinit()

    def _acknowledge(self, address: int) -> I2CTarget:
        """Start a transaction: the target that ACKs `address`, or the OSError Linux reports."""
        if self._closed:
            raise BusClosedError("the I2C bus was used after deinit()")
        self.transactions += 1
        target = self._root.target_at(address)
        if self._injected:
            self._fail_if_injected(address, target)
        if target is None:
            self.bits += _FRAME_BITS
            raise OSError(EREMOTEIO, os.strerror(EREMOTEIO))
        return target

    def _fail_if_injected(self, address: int, target: I2CTarget | None) -> None:
        code = self._draw_injected(address, target)
        if code is not None:
            self.bits += _FRAME_BITS
            raise OSError(code, os.strerror(code))

    def _draw_injected(self, address: int, target: I2CTarget | None) -> int | None:
        """The errno of the next injected failure for this address and target, used up; None
        when nothing is pending for them."""
        for key in ((address, target), (address, None)):
            pending = self._injected.get(key)
            if pending and (key[1] is None or target is key[1]):
                code = pending.popleft()
                if not pending:
                    del self._injected[key]
                return code
        return None

    def __repr__(self) -> str:
        return f"SimI2C(frequency={self.frequency})"
