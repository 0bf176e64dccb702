"""The board's electronics below the Pi's pins, wired from a BoardSpec.

A `SimI2C` per bus, a `SimTCA9548A` per mux, a `SimMCP23017` per expander on its bus or mux
channel, each expander's INT outputs through a diode onto a shared pulled-up GPIO line, each
button on a pulled-up line; and what hands, wear and faults do to them. Two boards stand on it:
`SimBoard` (board.py), which puts the real drivers on top in the same process, and the
character devices' `BoardElectronics` (chardev/electronics.py), whose drivers are the real
service's on the other side of `/dev/i2c-1`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from magboard.hardware.spec import BoardSpec

from .gpio import GpioLine, LineDriver
from .i2c import I2CSegment, SimI2C
from .mcp23017 import SimMCP23017
from .tca9548a import SimTCA9548A


class BoardWiring:
    """The chips and lines of a board, and what the world does to them."""

    def __init__(self, spec: BoardSpec) -> None:
        self.spec = spec
        self.buses = {b.name: SimI2C(frequency=b.frequency) for b in spec.buses}
        self.muxes = {m.name: self.buses[m.bus].attach(SimTCA9548A(m.address)) for m in spec.muxes}
        self.chips: list[SimMCP23017] = []
        self.interrupt_lines: dict[int, GpioLine] = {}
        for index, expander in enumerate(spec.expanders):
            chip = SimMCP23017(expander.address)
            self._segment_of(index).attach(chip)
            self.chips.append(chip)
            if expander.interrupt is None:
                continue  # polled
            line = self.interrupt_lines.get(expander.interrupt)
            if line is None:
                line = GpioLine(f"GPIO{expander.interrupt}", pull="up")
                self.interrupt_lines[expander.interrupt] = line
            # Through a diode each, as hardware/README.md wires them: a chip that reset itself
            # (push-pull again, driving high) cannot fight the others on the shared line.
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

    def set_sensors(self, levels: Mapping[int, bool]) -> None:
        """Frame bit -> True where that Hall switch sees a magnet (its open-drain output pulls
        the expander pin low); False lets the pin go back to its pull-up."""
        by_chip: dict[int, dict[int, int | None]] = defaultdict(dict)
        for bit, present in levels.items():
            chip, pin = self._sensor_pins[bit]
            by_chip[chip][pin] = 0 if present else None
        for chip, pins in by_chip.items():
            self.chips[chip].set_inputs(pins)

    def held_buttons(self) -> frozenset[str]:
        return frozenset(name for name, line in self.button_lines.items() if line.level == 0)

    def press(self, button: str) -> None:
        self._button_drivers[button].drive(0)

    def release(self, button: str) -> None:
        self._button_drivers[button].drive(None)

    def inject_i2c_errors(self, expander: int, count: int) -> None:
        """The next `count` transactions to that one expander fail (a burst of noise on its
        wires, or a loose connector)."""
        spec = self.spec.expanders[expander]
        self.buses[spec.bus].inject_errors(spec.address, count, target=self.chips[expander])

    def reset_expander(self, expander: int) -> None:
        """The chip loses its registers, as after a brown-out on its supply."""
        self.chips[expander].power_on_reset()

    def kill_expander(self, expander: int) -> None:
        """That expander stops acknowledging its address (dead, or unplugged): it is taken off
        its stretch of wire, so every transaction to it is NACKed."""
        self._segment_of(expander).detach(self.chips[expander])

    def revive_expander(self, expander: int) -> None:
        """A chip answers at that place again, fresh from power-on (replaced, or plugged back
        in); the world's levels on its pins are as they were."""
        chip = self.chips[expander]
        segment = self._segment_of(expander)
        if chip not in segment.targets:
            chip.power_on_reset()
            segment.attach(chip)

    def stick_sensor(self, bit: int) -> None:
        """That Hall switch reads a magnet for good: its output holds the pin low."""
        chip, pin = self._sensor_pins[bit]
        self.chips[chip].hold(pin, 0)

    def kill_sensor(self, bit: int) -> None:
        """That Hall switch never sees a magnet again: its output never pulls the pin low."""
        chip, pin = self._sensor_pins[bit]
        self.chips[chip].hold(pin, None)

    def cross_sensors(self, bit: int, other: int) -> None:
        """The two switches' wires are swapped: each one's magnet shows on the other's input."""
        pins = self._sensor_pins
        pins[bit], pins[other] = pins[other], pins[bit]

    def kill_led(self, index: int) -> None:
        self.dead_leds.add(index)

    def _segment_of(self, index: int) -> I2CSegment:
        expander = self.spec.expanders[index]
        if expander.mux:
            return self.muxes[expander.mux].channel(expander.mux_channel)
        return self.buses[expander.bus].segment
