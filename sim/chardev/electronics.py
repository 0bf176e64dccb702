"""The board's electronics below the Pi's pins, for the character devices to serve.

The same wiring `sim/board.py`'s `SimBoard` builds from a BoardSpec (a `SimI2C` per bus, a
`SimTCA9548A` per mux, a `SimMCP23017` per expander on its bus or mux channel, INT outputs
through diodes onto shared pulled-up GPIO lines, buttons on pulled-up lines), without the
drivers `SimBoard` puts on top: here the drivers are the real service's, on the other side of
`/dev/i2c-1`. Nothing touches a chip before the service does, so it finds them at power-on.

It is the `Electronics` a `World` stands on (spec, clock, sensors, buttons, faults), and every
model is touched under `lock`, which the devices take around each transfer: the world moves
pieces from its own thread while the service reads the expanders from the kernel's.

The world's timing (contact bounce, a button's hold, a slide) is scheduled on the clock: a
`VirtualClock` by default, which whoever drives the world advances, or in the emulated machine
a `RealTimeClock` (clock.py), on which it happens as real time passes.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Callable, Mapping

from magboard.hardware.spec import BoardSpec
from magboard.sim.clock import VirtualClock
from magboard.sim.gpio import GpioLine, LineDriver
from magboard.sim.i2c import I2CSegment, SimI2C
from magboard.sim.mcp23017 import SimMCP23017
from magboard.sim.tca9548a import SimTCA9548A

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


class BoardElectronics:
    """Implements `sim.world.Electronics` on models the character devices serve."""

    def __init__(
        self,
        spec: BoardSpec,
        clock: VirtualClock | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        """`lock` is the one every model is touched under (by default a new one); a clock that
        runs the world's callbacks on a thread of its own runs them under it too."""
        self.spec = spec
        self.clock = clock or VirtualClock()
        self.lock = lock or threading.RLock()
        self.buses = {b.name: SimI2C(frequency=b.frequency) for b in spec.buses}
        self.muxes = {m.name: self.buses[m.bus].attach(SimTCA9548A(m.address)) for m in spec.muxes}
        self.chips: list[SimMCP23017] = []
        self.interrupt_lines: dict[int, GpioLine] = {}
        for expander in spec.expanders:
            chip = SimMCP23017(expander.address)
            self._segment_of(len(self.chips)).attach(chip)
            self.chips.append(chip)
            if expander.interrupt is None:
                continue
            line = self.interrupt_lines.get(expander.interrupt)
            if line is None:
                line = GpioLine(f"GPIO{expander.interrupt}", pull="up")
                self.interrupt_lines[expander.interrupt] = line
            chip.connect_int("A", line, diode=True)
            chip.connect_int("B", line, diode=True)
        self._sensor_pins = {s.bit: (s.expander, s.pin) for s in spec.sensors}
        self.button_lines: dict[str, GpioLine] = {}
        self._button_drivers: dict[str, LineDriver] = {}
        for button in spec.buttons:
            line = GpioLine(f"GPIO{button.gpio}", pull="up")
            self.button_lines[button.name] = line
            self._button_drivers[button.name] = line.add_driver(f"button {button.name}")
        self.dead_leds: set[int] = set()
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

    # What the world does (sim.world.Electronics).

    def set_sensors(self, levels: Mapping[int, bool]) -> None:
        """Frame bit -> whether that Hall switch sees a magnet (it pulls its pin low)."""
        by_chip: dict[int, dict[int, int | None]] = defaultdict(dict)
        for bit, present in levels.items():
            chip, pin = self._sensor_pins[bit]
            by_chip[chip][pin] = 0 if present else None
        with self.lock:
            for chip, pins in by_chip.items():
                self.chips[chip].set_inputs(pins)

    def press(self, button: str) -> None:
        with self.lock:
            self._button_drivers[button].drive(0)

    def release(self, button: str) -> None:
        with self.lock:
            self._button_drivers[button].drive(None)

    def inject_i2c_errors(self, expander: int, count: int) -> None:
        """The next `count` transactions to that expander fail (noise, a loose connector)."""
        spec = self.spec.expanders[expander]
        with self.lock:
            self.buses[spec.bus].inject_errors(spec.address, count, target=self.chips[expander])

    def reset_expander(self, expander: int) -> None:
        """The chip loses its registers, as after a brown-out on its supply."""
        with self.lock:
            self.chips[expander].power_on_reset()

    def kill_led(self, index: int) -> None:
        self.dead_leds.add(index)

    # Faults beyond the world's.

    def kill_expander(self, expander: int) -> None:
        """The chip stops acknowledging its address (dead, or unplugged): every transaction to
        it is NACKed."""
        with self.lock:
            self._segment_of(expander).detach(self.chips[expander])

    def revive_expander(self, expander: int) -> None:
        """A chip answers at that place again, fresh from power-on (replaced, or plugged back
        in); the world's levels on its pins are as they were."""
        with self.lock:
            chip = self.chips[expander]
            segment = self._segment_of(expander)
            if chip not in segment.targets:
                chip.power_on_reset()
                segment.attach(chip)

    def _segment_of(self, index: int) -> I2CSegment:
        expander = self.spec.expanders[index]
        if expander.mux:
            return self.muxes[expander.mux].channel(expander.mux_channel)
        return self.buses[expander.bus].segment
