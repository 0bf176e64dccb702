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

from collections.abc import Iterable, Sequence

from magboard.hardware.expanders import ExpanderArray
from magboard.hardware.interface import RGB, ButtonEvent, Fault, Scan
from magboard.hardware.leds import LedChain, on_spi
from magboard.hardware.spec import INPUT_PINS, BoardSpec

from .clock import VirtualClock
from .gpio import GpioLine
from .neopixel_wire import SimLedPin, install
from .spi import SimSPI
from .wiring import BoardWiring
from .ws2812 import LedFrames, SpiLedWire, colours


class SimBoard(BoardWiring):
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
        super().__init__(spec)
        self.clock = clock or VirtualClock()
        self.charge_wire_time = charge_wire_time
        """Advance the clock by each scan's time on the wire, as a real scan takes time."""
        for line in self.interrupt_lines.values():
            line.add_edge_callback(self._on_interrupt, edge="falling")
        for line in self.button_lines.values():
            line.add_edge_callback(self._on_button, edge="both")
        self._button_names = {id(line): name for name, line in self.button_lines.items()}
        self._events: list[ButtonEvent] = []
        self._changed = False
        for index in dead_expanders:
            self.kill_expander(index)
        self.spi: SimSPI | None = None
        self.led_wire: LedFrames
        """The chain's data line: every frame it received, as the bytes the LEDs got."""
        if on_spi(spec.leds):
            self.spi = SimSPI()
            self.led_wire = SpiLedWire(self.spi, spec.leds.colours)
            data: object = self.spi
        else:
            install()
            self.led_wire = data = SimLedPin(spec.leds.pin)
        # The real drivers, on top.
        self.expanders = ExpanderArray(spec, self.buses, self.clock)
        self.leds = LedChain(spec, data)

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

    # What the tests see.

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

    # Edges.

    def _on_interrupt(self, line: GpioLine, level: int) -> None:
        self._changed = True

    def _on_button(self, line: GpioLine, level: int) -> None:
        name = self._button_names[id(line)]
        self._events.append(ButtonEvent(name, level == 0, self.clock.now()))
        self._changed = True

    def _interrupt_pending(self) -> bool:
        return any(line.level == 0 for line in self.interrupt_lines.values())
