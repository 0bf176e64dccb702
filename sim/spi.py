"""A simulated SPI bus that stands where Blinka's `busio.SPI` stands.

`SimSPI` has what `adafruit_bus_device.spi_device.SPIDevice` and the drivers above it call on a
bus: `try_lock`, `unlock`, `configure(baudrate, polarity, phase, bits)`, `frequency` (the rate
configured, as Blinka's Linux SPI reports it), `write(buf, start, end)`, `deinit` and the context
manager. Only MOSI is wired (the LED chain's data line), so nothing is ever read.

Each write is one message on the wire, as Blinka's write is one (or, past spidev's buffer size,
several) SPI_IOC_MESSAGE ioctls: its bytes go to the listeners (what hangs on MOSI), and with
`record` it is kept, with the bus settings it went out at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .i2c import BusClosedError, LockableBus


@dataclass(frozen=True, slots=True)
class SpiWrite:
    """One message as recorded: its bytes and the settings the bus sent them at."""

    data: bytes
    baudrate: int
    polarity: int
    phase: int
    bits: int


class SimSPI(LockableBus):
    """A simulated SPI controller with Blinka's `busio.SPI` interface.

    Locking is `LockableBus`'s, as `SimI2C`'s is.
    """

    kind = "SPI"

    def __init__(self, *, record: bool = False) -> None:
        self.record = record
        self.writes: list[SpiWrite] = []
        self.listeners: list[Callable[[bytes], None]] = []
        """Called with the bytes of each write, in order: what listens on MOSI."""
        # Blinka's defaults until `configure`.
        self.baudrate = 100_000
        self.polarity = 0
        self.phase = 0
        self.bits = 8
        self.wire_seconds = 0.0
        """Time all writes so far held the wire, each at the rate it went out at."""
        super().__init__()
        self._closed = False

    # The busio.SPI interface.

    def configure(
        self, baudrate: int = 100_000, polarity: int = 0, phase: int = 0, bits: int = 8
    ) -> None:
        self._check_open()
        if not self.locked:
            raise RuntimeError("First call try_lock()")  # as Blinka's busio.SPI says it
        if baudrate <= 0:
            raise ValueError(f"baudrate must be positive, not {baudrate}")
        if polarity not in (0, 1) or phase not in (0, 1):
            raise ValueError(f"polarity and phase are 0 or 1, not {polarity} and {phase}")
        if bits != 8:
            raise ValueError(f"spidev sends 8-bit words here, not {bits}-bit ones")
        self.baudrate, self.polarity, self.phase, self.bits = baudrate, polarity, phase, bits

    @property
    def frequency(self) -> int:
        return self.baudrate

    def write(self, buf, start: int = 0, end: int | None = None) -> None:
        self._check_open()
        data = bytes(buf[start:end])
        if not data:
            return  # Blinka sends nothing for an empty buffer
        self.wire_seconds += 8 * len(data) / self.baudrate
        if self.record:
            self.writes.append(SpiWrite(data, self.baudrate, self.polarity, self.phase, self.bits))
        for listener in self.listeners:
            listener(data)

    def deinit(self) -> None:
        self._closed = True

    def __enter__(self) -> SimSPI:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.deinit()

    def _check_open(self) -> None:
        if self._closed:
            raise BusClosedError("the SPI bus was used after deinit()")

    def __repr__(self) -> str:
        return f"SimSPI(baudrate={self.baudrate})"
