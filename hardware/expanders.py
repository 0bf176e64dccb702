"""The board's MCP23017 expanders: configured through adafruit_mcp230xx, read fast, kept alive.

Runs on any bus object with Blinka's `busio.I2C` interface: the Pi's real bus, or the
simulator's, so the same driver code is exercised in CI as on the board.

Configuration goes through the driver (and adafruit_tca9548a where a mux is fitted). Its reset
never writes IOCON, so that is set here: MIRROR (either port's change pulls both INT pins, so one
wire per chip serves), ODR (open drain: the INT pins of many chips share one Pi GPIO with a
pull-up), SEQOP (byte mode: with the address pointer parked on GPIOA, every 2-byte read returns
GPIOA and GPIOB with no register write, about 29 bit times instead of 48).

GPA7 and GPB7 are output-only on current silicon; they are driven low and serve as canaries: a
scan that reads either high has not read GPIO (the chip reset itself: its pointer went back to
IODIRA, which reads 0xFF), and the chip is set up again.

The scan holds the root bus for its whole duration and selects each mux channel once, rather than
going through the TCA9548A driver per read (which writes the channel before and 0 after every
transaction, and leaves the bus locked for good if one of those writes fails).

Every scan counts its transactions and the ones that failed (`Scan.transfers`, `Scan.errors`):
a retried read hides an error from the frame, and only the count shows a bus going bad.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adafruit_mcp230xx.mcp23017 import MCP23017
from adafruit_tca9548a import TCA9548A

from .interface import Clock, Fault, Scan
from .spec import BoardSpec, Expander, place_label

INPUTS = 0x7F7F
"""GPA0-6 and GPB0-6."""
CANARIES = 0x8080
IOCON_MIRROR = 0x40
IOCON_SEQOP = 0x20
IOCON_ODR = 0x04
IOCON = IOCON_MIRROR | IOCON_SEQOP | IOCON_ODR
GPIOA = 0x12
ATTEMPTS = 3
"""Reads of one chip per scan before it counts as lost for this scan."""
INPUT_BITS = 14
ALL_INPUTS = (1 << INPUT_BITS) - 1


def port_word_to_bits(word: int) -> int:
    """The 14 input bits of a chip's GPIOB:GPIOA word, in frame order (GPA0-6, then GPB0-6)."""
    return (word & 0x7F) | ((word >> 1) & 0x3F80)


@dataclass
class _Chip:
    spec: Expander
    bus: Any
    """The root bus this chip's transactions go over."""
    driver_bus: Any
    """What the Adafruit driver talks through: the root bus, or a TCA9548A channel."""
    driver: MCP23017 | None = None
    ready: bool = False
    """Configured, pointer parked on GPIOA: a bare 2-byte read returns its ports."""
    lost: bool = False
    """Reported as not answering; cleared (and reported) when it answers again."""
    word: int = 0


class ExpanderArray:
    """Every expander of a board, configured, scanned in spec order, recovered after faults."""

    def __init__(self, spec: BoardSpec, buses: Mapping[str, Any], clock: Clock) -> None:
        self.spec = spec
        self.clock = clock
        self._buses = dict(buses)
        muxes = {m.name: TCA9548A(self._buses[m.bus], m.address) for m in spec.muxes}
        self._mux_address = {m.name: m.address for m in spec.muxes}
        self._chips = [
            _Chip(e, self._buses[e.bus], muxes[e.mux][e.mux_channel] if e.mux else buses[e.bus])
            for e in spec.expanders
        ]
        self._faults: list[Fault] = []
        self._transfers = 0
        self._errors = 0
        """Transactions the scan in progress made, and how many failed (`Scan.transfers`)."""
        self._places = {
            e.index: ", ".join(
                sorted({place_label(s.place) for s in spec.sensors if s.expander == e.index})
            )
            for e in spec.expanders
        }
        """The places each chip reads, named in its fault when it is lost."""
        for chip in self._chips:
            self._setup(chip)

    def _fault(self, kind: str, chip: _Chip, detail: str) -> None:
        self._faults.append(Fault(kind, chip.spec.label, detail, self.clock.now()))

    def _take_faults(self) -> tuple[Fault, ...]:
        faults, self._faults = tuple(self._faults), []
        return faults

    def _setup(self, chip: _Chip) -> None:
        """Configures one chip from scratch through the driver."""
        try:
            mcp = MCP23017(chip.driver_bus, chip.spec.address)
            mcp.io_control = IOCON
            mcp.gpio = 0  # OLAT: the canaries low
            mcp.iodir = INPUTS
            mcp.gppu = INPUTS
            mcp.ipol = INPUTS  # Hall switches pull low at a magnet: read it as 1
            mcp.default_value = 0
            mcp.interrupt_configuration = 0  # compare with the previous value
            mcp.interrupt_enable = INPUTS
            mcp.clear_ints()
            chip.driver = mcp
            self._park(chip)
        except (OSError, ValueError) as error:
            # ValueError: the driver's "No I2C device at address" after a failed probe.
            self._release_if_held(chip)
            chip.ready = False
            if not chip.lost:
                chip.lost = True
                blind = self._places[chip.spec.index]
                self._fault(
                    "expander-lost", chip, f"not answering: {error}; blind board places: {blind}"
                )
            return
        chip.ready = True
        if chip.lost:
            chip.lost = False
            self._fault("expander-back", chip, "answering again, set up afresh")

    def _park(self, chip: _Chip) -> None:
        """Leaves the address pointer on GPIOA, where the scan's bare reads expect it."""
        assert chip.driver is not None
        with chip.driver._device as device:  # the driver's own I2CDevice: mux and address
            device.write(bytes((GPIOA,)))

    def _release_if_held(self, chip: _Chip) -> None:
        """A failed transaction through a TCA9548A channel leaves the root bus locked (the driver
        has no try/finally); as the one thread that owns the buses, take it back."""
        if chip.spec.mux and getattr(chip.bus, "locked", False):
            chip.bus.unlock()

    def scan(self) -> Scan:
        """Reads every chip once (both ports, SEQOP), in spec order; sets up again any chip that
        reset or stopped answering, after the bus is released."""
        unread: set[int] = set()
        """Chips behind a mux channel that could not be selected (they stay set up)."""
        buffer = bytearray(2)
        self._transfers = self._errors = 0
        for name, bus in self._buses.items():
            chips = [c for c in self._chips if c.spec.bus == name and c.ready]
            while not bus.try_lock():
                pass
            try:
                selected = None
                for chip in chips:
                    if chip.spec.mux:
                        segment = (chip.spec.mux, chip.spec.mux_channel)
                        if segment != selected:
                            selected = segment if self._select(bus, chip) else None
                        if selected != segment:
                            unread.add(chip.spec.index)
                            continue
                    self._read(bus, chip, buffer)
            finally:
                self._deselect_all(bus)
                bus.unlock()
        frame = blind = 0
        for chip in self._chips:
            shift = chip.spec.index * INPUT_BITS
            if not chip.ready or chip.spec.index in unread:
                blind |= ALL_INPUTS << shift
                if not chip.ready:
                    self._setup(chip)
            frame |= port_word_to_bits(chip.word) << shift
        return Scan(
            frame,
            blind,
            self._take_faults(),
            self.clock.now(),
            transfers=self._transfers,
            errors=self._errors,
        )

    def _select(self, bus: Any, chip: _Chip) -> bool:
        assert chip.spec.mux is not None and chip.spec.mux_channel is not None
        mux = self._mux_address[chip.spec.mux]
        for attempt in range(ATTEMPTS):
            self._transfers += 1
            try:
                bus.writeto(mux, bytes((1 << chip.spec.mux_channel,)))
                return True
            except OSError as error:
                self._errors += 1
                if attempt == ATTEMPTS - 1:
                    self._fault("i2c-error", chip, f"mux channel select failed: {error}")
        return False

    def _deselect_all(self, bus: Any) -> None:
        for mux in self.spec.muxes:
            if self._buses[mux.bus] is bus:
                self._transfers += 1
                try:
                    bus.writeto(mux.address, b"\x00")
                except OSError:  # the next scan selects afresh either way
                    self._errors += 1

    def _read(self, bus: Any, chip: _Chip, buffer: bytearray) -> None:
        """One chip's two ports into `chip.word`, retrying; a chip that fails, or shows it
        reset, is marked to be set up again (not ready)."""
        errors: list[OSError] = []
        for _ in range(ATTEMPTS):
            self._transfers += 1
            try:
                bus.readfrom_into(chip.spec.address, buffer)
            except OSError as error:
                self._errors += 1
                errors.append(error)
                continue
            word = buffer[0] | buffer[1] << 8
            if word & CANARIES:
                self._fault("expander-reset", chip, f"read 0x{word:04x}: registers lost")
                chip.ready = False
                return
            chip.word = word
            if errors:
                self._fault("i2c-error", chip, f"read failed {len(errors)}x, then ok: {errors[0]}")
            return
        self._fault("i2c-error", chip, f"read failed {ATTEMPTS}x: {errors[-1]}; set up again")
        chip.ready = False

    def verify(self) -> tuple[Fault, ...]:
        """Reads back every chip's IOCON and sets up again any that lost it. A reset between two
        scans shows at the next scan's canaries; this also catches a chip that reset and was
        written to before it was read. Cheap enough for the slow safety poll."""
        for chip in self._chips:
            if not chip.ready or chip.driver is None:
                continue
            try:
                iocon = chip.driver.io_control
                self._park(chip)
            except (OSError, ValueError) as error:
                self._release_if_held(chip)
                self._fault("i2c-error", chip, f"IOCON read-back failed: {error}")
                chip.ready = False
                continue
            if iocon != IOCON:
                self._fault("expander-reset", chip, f"IOCON read 0x{iocon:02x}: set up again")
                self._setup(chip)
        return self._take_faults()
