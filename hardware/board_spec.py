"""BoardSpec: one board as the firmware sees it, with the maps the firmware needs.

The file says what a person wired: the lattice and the sensor channels under every cell, trays,
buttons, the LED chain, the power budget, buses, muxes and expanders. Everything the firmware
uses (which expander pin is which sensor, which LED sits under which place) is held here, derived
once on load, so the docs (`magboard board show`) and the running code read one source.
`spec.load_board` finds the file; `spec_reader` reads and checks it.

No driver library is imported here: the referee may use the spec on any machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

Cell = tuple[int, int]
BOARDS_DIR = Path(__file__).resolve().parent / "boards"

MAX_SIDE = 16
"""The line kernel's limit, and more than any game here needs."""
INPUT_PINS = tuple(p for p in range(16) if p not in (7, 15))
"""GPA0-6 and GPB0-6: GPA7/GPB7 are output-only on current MCP23017 silicon."""
EXPANDER_ADDRESSES = range(0x20, 0x28)
MUX_ADDRESSES = range(0x70, 0x78)
PI_GPIOS = range(2, 28)
I2C_GPIOS = (2, 3)
SENSES = ("north", "south", "any")
LAYOUTS = ("rows", "serpentine")
FILL_GROUPS = ("cells", "trays")
WS2812_BIT_US = 1.25
"""One bit on a WS2812 data line: 800 kbit/s."""
WS2812_LATCH_US = 280
"""Reset (latch) gap of current WS2812B parts; older ones needed 50 us."""
MAX_FRAME_SECONDS = 1 / 30
"""Longest wire time of one LED frame. The lights send up to 30 frames a second
(firmware/lights/writer.py) from the thread that scans the sensors: a longer frame would leave
the scan no time at all."""
MIN_PITCH_MM = 5.0
"""A WS2812B (5050 package, 5 mm square) sits under every cell: a narrower cell cannot hold it."""
MAX_BOARD_MM = 1000.0
"""Widest lattice, columns or rows times the pitch: pieces are moved by hand, and a player
seated at the board reaches about a metre across it at most."""
MAX_SUPPLY_AMPS = 100.0
"""500 W at 5 V, more than a Pi and the longest chain at full white draw (about 66 A at 20 mA a
colour): a larger figure is milliamps written as amps."""
MAX_CHANNEL_MA = 100.0
"""WS2812-class LEDs take 5 to 20 mA a colour: a larger figure is microamps written as mA."""
MAX_FILE_BYTES = 1 << 20
"""Largest board file read: r1's, with 44 expanders and 185 LEDs, is under 3 kB."""

# Wire costs of one scan, in bit times: START + address byte + ACKs + data bytes + STOP.
MUX_SELECT_BITS = 1 + 9 + 9 + 1
"""One control byte written to a TCA9548A (a channel select, or 0 to release them all)."""
SEQOP_READ_BITS = 1 + 9 + 2 * 9 + 1
"""A bare 2-byte read of GPIOA and GPIOB, the pointer parked on GPIOA by IOCON.SEQOP."""


class BoardSpecError(ValueError):
    """A board file that cannot describe a working board; the message names file and field."""


@dataclass(frozen=True, order=True)
class Slot:
    """A sensed place in a tray, numbered from 1 as printed on the board."""

    tray: str
    number: int

    def __str__(self) -> str:
        return f"{self.tray}{self.number}"


Place = Cell | Slot


def cell_label(cell: Cell) -> str:
    return f"{chr(ord('a') + cell[0])}{cell[1] + 1}"


def place_label(place: Place) -> str:
    return str(place) if isinstance(place, Slot) else cell_label(place)


def place_label_any(place: Place | str) -> str:
    return place if isinstance(place, str) else place_label(place)


@dataclass(frozen=True)
class Channel:
    """A Hall switch under every cell: where it sits and which pole trips it."""

    name: str
    where: str
    senses: str


@dataclass(frozen=True)
class Tray:
    name: str
    side: str
    rows: tuple[int, ...]
    """Slots per row of the tray, as laid out (for drawing); numbered across rows."""

    @property
    def slots(self) -> tuple[Slot, ...]:
        return tuple(Slot(self.name, n) for n in range(1, sum(self.rows) + 1))


@dataclass(frozen=True)
class Button:
    name: str
    gpio: int
    label: str


@dataclass(frozen=True)
class Bus:
    name: str
    frequency: int
    sda: str
    scl: str


@dataclass(frozen=True)
class Mux:
    name: str
    bus: str
    address: int


@dataclass(frozen=True)
class Expander:
    """One MCP23017, in scan order."""

    index: int
    bus: str
    mux: str | None
    mux_channel: int | None
    address: int
    interrupt: int | None
    """BCM number of the Pi GPIO its INT line (open drain, mirrored) pulls low; None where no
    INT line is wired and the chip is polled."""

    @property
    def label(self) -> str:
        via = f" via {self.mux} ch{self.mux_channel}" if self.mux else ""
        return f"U{self.index + 1} {self.bus}{via} 0x{self.address:02x}"

    @property
    def segment(self) -> tuple[str, str | None, int | None]:
        """The stretch of bus it sits on: addresses must be unique within one."""
        return self.bus, self.mux, self.mux_channel


@dataclass(frozen=True)
class Sensor:
    """One Hall switch and the expander input it is wired to; `bit` is its place in a frame."""

    bit: int
    place: Place
    channel: str
    expander: int
    pin: int

    @property
    def label(self) -> str:
        if isinstance(self.place, Slot):
            return str(self.place)
        return f"{cell_label(self.place)}.{self.channel}"

    @property
    def pin_name(self) -> str:
        return f"GP{'AB'[self.pin // 8]}{self.pin % 8}"


@dataclass(frozen=True)
class LedSegment:
    places: str
    """'cells', 'tray:NAME' or 'status'."""
    start: int
    layout: str = "rows"
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Leds:
    pin: str
    """Blinka's name of the data GPIO, `D<n>`."""
    order: str
    count: int
    segments: tuple[LedSegment, ...]

    @property
    def gpio(self) -> int:
        """BCM number of the data line."""
        return int(self.pin[1:])

    @property
    def colours(self) -> int:
        """Colour channels per LED: 3 (RGB) or 4 (RGBW)."""
        return len(self.order)

    def frame_seconds(self) -> float:
        """Wire time of one frame: 8 bits per colour per LED, then the latch."""
        return chain_seconds(self.count, self.colours)


def chain_seconds(count: int, colours: int) -> float:
    """Wire time of one frame of `count` LEDs of `colours` channels: 8 bits per colour per
    LED, then the latch."""
    return (count * colours * 8 * WS2812_BIT_US + WS2812_LATCH_US) / 1e6


def max_leds(colours: int) -> int:
    """The longest chain of LEDs of `colours` channels whose frame fits `MAX_FRAME_SECONDS`."""
    per_led_us = colours * 8 * WS2812_BIT_US
    return int((MAX_FRAME_SECONDS * 1e6 - WS2812_LATCH_US) // per_led_us)


@dataclass(frozen=True)
class Power:
    supply_amps: float
    reserve_amps: float
    """What the Pi, expanders and sensors take from the same supply."""
    led_channel_ma: float
    """Current of one colour channel of one LED at full brightness."""
    max_brightness: float

    @property
    def led_budget_ma(self) -> float:
        return (self.supply_amps - self.reserve_amps) * 1000


@dataclass(frozen=True)
class BoardSpec:
    name: str
    title: str
    path: Path
    columns: int
    rows: int
    pitch_mm: float
    holes: frozenset[Cell]
    channels: tuple[Channel, ...]
    trays: tuple[Tray, ...]
    buttons: tuple[Button, ...]
    leds: Leds
    power: Power
    buses: tuple[Bus, ...]
    muxes: tuple[Mux, ...]
    expanders: tuple[Expander, ...]
    fill: tuple[str, ...]
    # Derived from the fields above, so left out of equality and hashing.
    sensors: tuple[Sensor, ...] = field(repr=False, compare=False)
    led_index: Mapping[Place | str, int] = field(repr=False, compare=False)
    """LED under each cell and slot; status LEDs by name."""

    @cached_property
    def cells(self) -> tuple[Cell, ...]:
        """Lattice cells that exist, row by row from a1."""
        return tuple(
            (c, r)
            for r in range(self.rows)
            for c in range(self.columns)
            if (c, r) not in self.holes
        )

    @cached_property
    def slots(self) -> tuple[Slot, ...]:
        return tuple(slot for tray in self.trays for slot in tray.slots)

    @cached_property
    def sensor_bit(self) -> Mapping[tuple[Place, str], int]:
        """Frame bit of (place, channel); a slot's single sensor has channel ''."""
        return {(s.place, s.channel): s.bit for s in self.sensors}

    @property
    def frame_bits(self) -> int:
        """Bits in a frame: 14 per expander, whether wired or spare."""
        return len(INPUT_PINS) * len(self.expanders)

    def tray(self, name: str) -> Tray:
        for tray in self.trays:
            if tray.name == name:
                return tray
        raise KeyError(f"board {self.name} has no tray {name!r}")

    @property
    def mux_selects(self) -> int:
        """Mux channel selects in one full scan: the scan reads expanders in file order on each
        bus and selects a channel whenever the next chip sits behind another one."""
        selects = 0
        for bus in self.buses:
            selected = None
            for e in self.expanders:
                if e.bus == bus.name and e.mux and e.segment != selected:
                    selects += 1
                    selected = e.segment
        return selects

    @property
    def mux_releases(self) -> int:
        """Writes at the end of a scan that turn every channel of every mux off."""
        return len(self.muxes)

    @property
    def scan_transactions(self) -> int:
        """I2C transactions in one full scan: a read per expander, the selects, the releases."""
        return len(self.expanders) + self.mux_selects + self.mux_releases

    def scan_bits(self) -> int:
        """Bit times on the wire for one full scan."""
        writes = self.mux_selects + self.mux_releases
        return len(self.expanders) * SEQOP_READ_BITS + writes * MUX_SELECT_BITS

    def scan_seconds(self, frequency: int) -> float:
        """Wire time of one full scan at `frequency` Hz: every expander read once (SEQOP, both
        ports in one 2-byte read), plus the mux writes (`mux_selects`, `mux_releases`)."""
        return self.scan_bits() / frequency

    def led_full_white_ma(self) -> float:
        """The chain at full white and full brightness: every colour of every LED lit."""
        return self.leds.count * self.leds.colours * self.power.led_channel_ma
