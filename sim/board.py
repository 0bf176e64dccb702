"""The simulated board: a `Board` built from a BoardSpec, with the real drivers above fakes of
the lowest boundary.

Below: emulated MCP23017s and TCA9548As on simulated I2C buses, GPIO lines for the interrupt
and button wires, a simulated SPI bus whose MOSI is the LED chain's data line (or, for a chain on
another pin, a captured NeoPixel data pin), a virtual clock. Above: the same
`hardware.expanders.ExpanderArray` (adafruit_mcp230xx, adafruit_tca9548a) and
`hardware.leds.LedChain` (adafruit_neopixel_spi, or adafruit_neopixel) the Pi runs. The world
(sim/world.py) drives the sensors through `set_sensors`; the firmware sees only the `Board`
interface.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from magboard.hardware.expanders import ExpanderArray
from magboard.hardware.interface import RGB, ButtonEvent, Fault, Scan
from magboard.hardware.leds import LedChain, on_spi
from magboard.hardware.spec import INPUT_PINS, BoardSpec

from .clock import VirtualClock
from .gpio import GpioLine, LineDriver
from .i2c import I2CSegment, SimI2C
from .mcp23017 import SimMCP23017
from .neopixel_wire import SimLedPin, install
from .spi import SimSPI
from .tca9548a import SimTCA9548A
from .ws2812 import LedFrames, SpiLedWire, colours


class SimBoard:
    """Implements `hardware.interface.Board` on simulated electronics."""

    def __init__(
        self,
        spec: BoardSpec,
        clock: VirtualClock | None = None,
        *,
        charge_wire_time: bool = True,
        dead_expanders: Iterable[int] = (),
    ) -> None:
        """`dead_expanders`: indexes of expanders that never acknowledge, from power-on (the
        drivers meet them already dead, as a board would that was built or broken that way)."""
        self.spec = spec
        self.clock = clock or VirtualClock()
        self.charge_wire_time = charge_wire_time
        """Advance the clock by each scan's time on the wire, as a real scan takes time."""
        self.buses = {b.name: SimI2C(frequency=b.frequency) for b in spec.buses}
        self.muxes = {m.name: self.buses[m.bus].attach(SimTCA9548A(m.address)) for m in spec.muxes}
        self.chips: list[SimMCP23017] = []
        self.interrupt_lines: dict[int, GpioLine] = {}
        for expander in spec.expanders:
            chip = SimMCP23017(expander.address)
            if expander.mux:
                self.muxes[expander.mux].channel(expander.mux_channel).attach(chip)
            else:
                self.buses[expander.bus].attach(chip)
            self.chips.append(chip)
            if expander.interrupt is None:
                continue  # polled
            line = self.interrupt_lines.get(expander.interrupt)
            if line is None:
                line = GpioLine(f"GPIO{expander.interrupt}", pull="up")
                line.add_edge_callback(self._on_interrupt, edge="falling")
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
            line.add_edge_callback(self._on_button, edge="both")
            self.button_lines[button.name] = line
            self._button_drivers[button.name] = line.add_driver(f"button {button.name}")
        self._button_names = {id(line): name for name, line in self.button_lines.items()}
        self._events: list[ButtonEvent] = []
        self._changed = False
        self.dead_leds: set[int] = set()
        for index in dead_expanders:
            self.kill_expander(index)
        self.spi: SimSPI | None = None
        self.led_wire: LedFrames
        """The chain's data line: every frame it received, as the bytes the LEDs got."""
        if on_spi(spec.leds):
            self.spi = SimSPI()
            self.led_wire = SpiLedWire(self.spi, spec.leds.colours)
            line: object = self.spi
        else:
            install()
            self.led_wire = line = SimLedPin(spec.leds.pin)
        # The real drivers, on top.
        self.expanders = ExpanderArray(spec, self.buses, self.clock)
        self.leds = LedChain(spec, line)

    # The Board interface.

    def scan(self) -> Scan:
        before = sum(bus.bits / bus.frequency for bus in self.buses.values())
        scan = self.expanders.scan()
        if self.charge_wire_time:
            after = sum(bus.bits / bus.frequency for bus in self.buses.values())
            self.clock.sleep(after - before)
        return scan

    def wait_for_change(self, timeout: float) -> bool:
        """Lets virtual time run until an interrupt line or a button fires, or `timeout`."""
        deadline = self.clock.now() + timeout
        if not self.interrupt_lines:
            self.clock.advance_to(deadline)  # nothing to wake on: a poll
            self._changed = False
            return True
        while not self._changed and not self._interrupt_pending():
            if not self.clock.run_next(deadline):
                self.clock.advance_to(deadline)
                break
        changed = self._changed or self._interrupt_pending()
        self._changed = False
        return changed

    def show(self, pixels: Sequence[RGB]) -> None:
        self.leds.show(pixels)

    def button_events(self) -> list[ButtonEvent]:
        events, self._events = self._events, []
        return events

    def verify(self) -> tuple[Fault, ...]:
        return self.expanders.verify()

    def close(self) -> None:
        self.leds.close()

    # What the world and the tests do to the hardware.

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

    def kill_expander(self, index: int) -> None:
        """That expander stops acknowledging its address for good (dead, or unplugged): it is
        taken off its stretch of wire, so every transaction to it is NACKed."""
        self._segment_of(index).detach(self.chips[index])

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

    def visible_leds(self) -> list[RGB]:
        """What the LEDs show now: the last frame on the wire, dark where an LED is dead."""
        if not self.led_wire.frames:
            return [(0, 0, 0)] * self.spec.leds.count
        shown = colours(self.led_wire.last, self.spec.leds.order)
        for i in self.dead_leds:
            if i < len(shown):
                shown[i] = (0, 0, 0)
        return shown

    def frame_of(self, pins_per_chip: Sequence[int]) -> int:
        """A frame from raw expander words (tests): the inverse of the wiring map."""
        frame = 0
        for chip, word in enumerate(pins_per_chip):
            for j, pin in enumerate(INPUT_PINS):
                if word >> pin & 1:
                    frame |= 1 << (chip * len(INPUT_PINS) + j)
        return frame

    def _segment_of(self, index: int) -> I2CSegment:
        expander = self.spec.expanders[index]
        if expander.mux:
            return self.muxes[expander.mux].channel(expander.mux_channel)
        return self.buses[expander.bus].segment

    # Edges.

    def _on_interrupt(self, line: GpioLine, level: int) -> None:
        self._changed = True

    def _on_button(self, line: GpioLine, level: int) -> None:
        name = self._button_names[id(line)]
        self._events.append(ButtonEvent(name, level == 0, self.clock.now()))
        self._changed = True

    def _interrupt_pending(self) -> bool:
        return any(line.level == 0 for line in self.interrupt_lines.values())
