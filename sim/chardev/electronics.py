"""The board's electronics below the Pi's pins, for the character devices to serve.

The wiring `SimBoard` stands on too (sim/wiring.py), without the drivers `SimBoard` puts on top:
here the drivers are the real service's, on the other side of `/dev/i2c-1`. Nothing touches a
chip before the service does, so it finds them at power-on.

It is the `Electronics` a `World` stands on (spec, clock, sensors, buttons, faults), and every
model is touched under `lock`, which the devices take around each transfer: the world moves
pieces from its own thread while the service reads the expanders from the kernel's.

The world's timing (contact bounce, a button's hold, a slide) is scheduled on the clock: a
`VirtualClock` by default, which whoever drives the world advances, or in the emulated machine
a `RealTimeClock` (clock.py), on which it happens as real time passes.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping

from magboard.hardware.spec import BoardSpec
from magboard.sim.clock import VirtualClock
from magboard.sim.wiring import BoardWiring

from .spidev import SpiTransfer

LINUX_I2C_BUS = {("SCL", "SDA"): 1, ("D1", "D0"): 0}
"""The Linux bus number of the Pi's I2C pins, as Blinka's `i2cPorts` map them (bcm283x,
bcm2711): `busio.I2C(board.SCL, board.SDA)` opens `/dev/i2c-1`."""


class UnknownBusPinsError(ValueError):
    """A bus on pins that are no Linux I2C bus of the Pi."""


class LedWire:
    """The LED chain's data line as the SPI controller drives it: every transfer, in order,
    for the LED chain's decoder to listen to. Keeps the last `keep` transfers."""

    def __init__(self, keep: int = 64) -> None:
        self.transfers: deque[SpiTransfer] = deque(maxlen=keep)
        self.listeners: list[Callable[[SpiTransfer], None]] = []
        self.count = 0

    def receive(self, transfer: SpiTransfer) -> None:
        self.transfers.append(transfer)
        self.count += 1
        for listener in self.listeners:
            listener(transfer)


class BoardElectronics(BoardWiring):
    """Implements `sim.world.Electronics` on models the character devices serve, each change
    made under `lock`."""

    def __init__(
        self,
        spec: BoardSpec,
        clock: VirtualClock | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        """`lock` is the one every model is touched under (by default a new one); a clock that
        runs the world's callbacks on a thread of its own runs them under it too."""
        super().__init__(spec)
        self.clock = clock or VirtualClock()
        self.lock = lock or threading.RLock()
        self.led_wire = LedWire()

    def linux_bus_number(self, bus: str) -> int:
        """N of the `/dev/i2c-N` the Pi reaches bus `bus` by."""
        spec = next((b for b in self.spec.buses if b.name == bus), None)
        if spec is None:
            raise KeyError(f"{self.spec.name} has no bus {bus!r}")
        try:
            return LINUX_I2C_BUS[spec.scl, spec.sda]
        except KeyError:
            raise UnknownBusPinsError(
                f"bus {bus!r} is on SCL={spec.scl}, SDA={spec.sda}: no I2C bus of the Pi"
            ) from None

    # What the world does (sim.world.Electronics) and the faults beyond it, under the lock.

    def set_sensors(self, levels: Mapping[int, bool]) -> None:
        with self.lock:
            super().set_sensors(levels)

    def press(self, button: str) -> None:
        with self.lock:
            super().press(button)

    def release(self, button: str) -> None:
        with self.lock:
            super().release(button)

    def inject_i2c_errors(self, expander: int, count: int) -> None:
        with self.lock:
            super().inject_i2c_errors(expander, count)

    def reset_expander(self, expander: int) -> None:
        with self.lock:
            super().reset_expander(expander)

    def kill_expander(self, expander: int) -> None:
        with self.lock:
            super().kill_expander(expander)

    def revive_expander(self, expander: int) -> None:
        with self.lock:
            super().revive_expander(expander)
