"""Emulator of the TI TCA9548A eight-channel I2C switch (datasheet SCPS207).

The chip has one register (8.5.4): each bit connects one downstream channel (SCn/SDn) to the
upstream bus; several may be connected at once, and 0 (the power-up value) connects none.
Readings of the datasheet that shape this emulator:

- Writing: the bytes after the address byte go to the control register; if several are sent,
  the last one counts (8.5.4). An empty write (a scan's quick write) changes nothing.
- The new selection takes effect at the STOP that ends the write (8.5.4: "the channel becomes
  active after a stop condition"), not during the transaction that wrote it.
- Reading returns the control register, the same byte for every byte read.

Devices hang on `channel(n)`, an `I2CSegment`. The mux is attached to its upstream bus like any
target; the bus then asks it, for every transaction, whether a device behind an enabled channel
answers (`downstream_target`). Two devices answering one address behind two enabled channels
raise `BusContentionError`, because on the real wire both would acknowledge and their reads
would collide.
"""

from __future__ import annotations

from .i2c import BusContentionError, I2CSegment, I2CTarget

FIRST_ADDRESS = 0x70  # 0b1110 A2 A1 A0 (Table 1)
LAST_ADDRESS = 0x77
CHANNEL_COUNT = 8


class SimTCA9548A:
    """An I2C target at `address` that switches eight downstream segments onto its bus."""

    def __init__(self, address: int = FIRST_ADDRESS) -> None:
        if not FIRST_ADDRESS <= address <= LAST_ADDRESS:
            raise ValueError(
                f"a TCA9548A answers at 0x{FIRST_ADDRESS:02x}..0x{LAST_ADDRESS:02x}"
                f" (set by A2..A0), not 0x{address:02x}"
            )
        self.address = address
        self._channels = tuple(
            I2CSegment(f"TCA9548A@0x{address:02x} channel {n}") for n in range(CHANNEL_COUNT)
        )
        self._control = 0
        self._written: int | None = None
        self._enabled: tuple[tuple[int, I2CSegment], ...] = ()

    def channel(self, n: int) -> I2CSegment:
        """The downstream segment of channel `n` (0..7), to attach devices to."""
        if not 0 <= n < CHANNEL_COUNT:
            raise IndexError(f"channel must be 0..{CHANNEL_COUNT - 1}, not {n}")
        return self._channels[n]

    @property
    def control(self) -> int:
        """The control register: bit n set means channel n is connected."""
        return self._control

    # The I2C target protocol.

    def write(self, data: bytes) -> None:
        if data:
            self._written = data[-1]

    def read(self, count: int) -> bytes:
        return bytes((self._control,)) * count

    def stop(self) -> None:
        if self._written is None:
            return
        self._control = self._written
        self._written = None
        self._enabled = tuple(
            (n, segment) for n, segment in enumerate(self._channels) if self._control & (1 << n)
        )

    # Routing, for the upstream bus.

    def downstream_target(self, address: int) -> I2CTarget | None:
        """The device behind an enabled channel that answers `address`, if any."""
        found: I2CTarget | None = None
        found_channel = -1
        for n, segment in self._enabled:
            target = segment.target_at(address)
            if target is None:
                continue
            if found is not None:
                raise BusContentionError(
                    f"{self!r}: channels {found_channel} and {n} are both enabled and"
                    f" {found!r} and {target!r} both answer at 0x{address:02x}"
                )
            found, found_channel = target, n
        return found

    def __repr__(self) -> str:
        return f"SimTCA9548A(0x{self.address:02x})"
