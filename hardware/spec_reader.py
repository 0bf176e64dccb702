"""Reading a board file: its TOML checked key by key and turned into a BoardSpec.

Apart from board_spec.py so the values the firmware uses on every scan do not carry the rules
of a hand-written file. Every rule lives here, each broken one refused with one line naming file and
field; the wiring maps (sensor bits, LEDs under places) are built here too, as the file is
checked, since a map that cannot be built is a fault of the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .board_spec import (
    EXPANDER_ADDRESSES,
    FILL_GROUPS,
    I2C_GPIOS,
    INPUT_PINS,
    LAYOUTS,
    MAX_BOARD_MM,
    MAX_CHANNEL_MA,
    MAX_FILE_BYTES,
    MAX_FRAME_SECONDS,
    MAX_SIDE,
    MAX_SUPPLY_AMPS,
    MIN_PITCH_MM,
    MUX_ADDRESSES,
    PI_GPIOS,
    SENSES,
    WS2812_BIT_US,
    BoardSpec,
    BoardSpecError,
    Bus,
    Button,
    Cell,
    Channel,
    Expander,
    Leds,
    LedSegment,
    Mux,
    Place,
    Power,
    Sensor,
    Tray,
    chain_seconds,
    max_leds,
    place_label,
    place_label_any,
)
from .spec_fields import NAME, FieldReader, shown, wide_integer

_LED_PIN = re.compile(r"D([0-9]{1,2})")
_I2C_ROLE = {2: "SDA", 3: "SCL"}
KEYS: Mapping[str, tuple[str, ...]] = {
    "": (
        "name",
        "title",
        "lattice",
        "channels",
        "trays",
        "buttons",
        "i2c",
        "muxes",
        "expanders",
        "wiring",
        "leds",
        "power",
    ),
    "lattice": ("columns", "rows", "pitch_mm", "holes"),
    "channels": ("name", "where", "senses"),
    "trays": ("name", "side", "rows"),
    "buttons": ("name", "gpio", "label"),
    "i2c": ("name", "frequency", "sda", "scl"),
    "muxes": ("name", "bus", "address"),
    "expanders": ("bus", "mux", "mux_channel", "addresses", "interrupt"),
    "wiring": ("fill",),
    "leds": ("pin", "order", "count", "segments"),
    "leds.segments": ("places", "start", "layout", "names"),
    "power": ("supply_amps", "reserve_amps", "led_channel_ma", "max_brightness"),
}
"""Every key a board file may use, by table; anything else is a typo and is refused."""


def read_board(path: Path) -> BoardSpec:
    """The board in the file at `path`, checked; BoardSpecError names the file and the field."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise BoardSpecError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise BoardSpecError(
            f"{path}: more than {MAX_FILE_BYTES // 1024} kB; a board file takes a few kB"
        )
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise BoardSpecError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise BoardSpecError(f"{path}: not valid TOML: {error}") from None
    except ValueError:  # tomllib lets int() refuse a number of more than 4300 digits
        raise BoardSpecError(f"{path}: not valid TOML: a number too long to read") from None
    except RecursionError:
        raise BoardSpecError(f"{path}: not valid TOML: arrays or tables nested too deep") from None
    return _Reader(path).board(data)


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:,.1f} s"


def _hex(address: int) -> str:
    return f"0x{address:02x}" if address >= 0 else str(address)


class _Reader(FieldReader):
    """Reads one file, raising BoardSpecError that names the file and the field at fault."""

    keys = KEYS

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.interrupt_at: dict[int, str] = {}
        """GPIO of each INT line and the first field that names it."""

    def board(self, data: Mapping[str, Any]) -> BoardSpec:
        wide = wide_integer(data)
        if wide is not None:
            where, value = wide
            raise self.fail(
                where, f"a {value.bit_length()}-bit integer; TOML's integers are 64-bit"
            )
        if not data:
            raise BoardSpecError(f"{self.path.name}: no keys at all (the format: docs/boards.md)")
        self.known(data, "", "")
        name = self.name(data, "")
        title = self.get(data, "title", str, "")
        lattice = self.table(data, "lattice")
        columns = self.get(lattice, "columns", int, "lattice")
        rows = self.get(lattice, "rows", int, "lattice")
        for key, value in (("columns", columns), ("rows", rows)):
            if not 1 <= value <= MAX_SIDE:
                raise self.fail(f"lattice.{key}", f"must be 1 to {MAX_SIDE}, not {value}")
        pitch = self.finite(lattice, "pitch_mm", "lattice")
        if pitch < MIN_PITCH_MM:
            raise self.fail(
                "lattice.pitch_mm",
                f"must be {MIN_PITCH_MM:g} or more (the 5 mm LED under every cell), not {pitch:g}",
            )
        if pitch * max(columns, rows) > MAX_BOARD_MM:
            raise self.fail(
                "lattice.pitch_mm",
                f"{pitch:g} mm makes the {columns}x{rows} lattice "
                f"{pitch * max(columns, rows):g} mm across; at most {MAX_BOARD_MM:g} mm, "
                "so that a seated player reaches every cell",
            )
        holes = frozenset(
            self.cell(text, columns, rows, f"lattice.holes[{i}]")
            for i, text in enumerate(self.get(lattice, "holes", list, "lattice", []))
        )
        cells = [(c, r) for r in range(rows) for c in range(columns) if (c, r) not in holes]
        if not cells:
            raise self.fail("lattice.holes", "leave no cell on the lattice")
        channels = tuple(self.channel(where, t) for where, t in self.tables(data, "channels"))
        self.unique([c.name for c in channels], "channels")
        trays = tuple(self.tray(where, t) for where, t in self.tables(data, "trays", False))
        self.unique([t.name for t in trays], "trays")
        buses = tuple(self.bus(where, t) for where, t in self.tables(data, "i2c"))
        self.unique([b.name for b in buses], "i2c")
        bus_names = {b.name for b in buses}
        muxes = tuple(
            self.mux(where, t, bus_names) for where, t in self.tables(data, "muxes", False)
        )
        self.unique([m.name for m in muxes], "muxes")
        self.mux_addresses(muxes)
        expanders = self.expanders(data, bus_names, {m.name: m for m in muxes})
        buttons = tuple(self.button(where, t) for where, t in self.tables(data, "buttons", False))
        self.unique([b.name for b in buttons], "buttons")
        leds = self.leds(self.table(data, "leds"))
        self.gpios(buttons, leds)
        wiring = self.get(data, "wiring", dict, "", {})
        self.known(wiring, "wiring", "wiring")
        fill = self.get(wiring, "fill", list, "wiring", list(FILL_GROUPS))
        if not all(isinstance(group, str) for group in fill) or sorted(fill) != sorted(FILL_GROUPS):
            raise self.fail(
                "wiring.fill", f"must order exactly {list(FILL_GROUPS)}, not {shown(fill)}"
            )
        sensors = self.sensors(cells, channels, trays, tuple(fill), expanders)
        led_index = self.led_map(leds, cells, columns, trays)
        power = self.power(self.table(data, "power"))
        return BoardSpec(
            name=name,
            title=title,
            path=self.path,
            columns=columns,
            rows=rows,
            pitch_mm=pitch,
            holes=holes,
            channels=channels,
            trays=trays,
            buttons=buttons,
            leds=leds,
            power=power,
            buses=buses,
            muxes=muxes,
            expanders=expanders,
            fill=tuple(fill),
            sensors=sensors,
            led_index=MappingProxyType(led_index),
        )

    def cell(self, text: Any, columns: int, rows: int, where: str) -> Cell:
        match = re.fullmatch(r"([a-p])([0-9]{1,2})", text) if isinstance(text, str) else None
        if not match:
            raise self.fail(where, f"{shown(text)} is not a cell name like b2")
        cell = ord(match[1]) - ord("a"), int(match[2]) - 1
        if not (0 <= cell[0] < columns and 0 <= cell[1] < rows):
            raise self.fail(where, f"{text} is off the {columns}x{rows} lattice")
        return cell

    def channel(self, where: str, t: Mapping[str, Any]) -> Channel:
        senses = self.get(t, "senses", str, where)
        if senses not in SENSES:
            raise self.fail(
                f"{where}.senses", f"must be one of {', '.join(SENSES)}, not {shown(senses)}"
            )
        return Channel(self.name(t, where), self.get(t, "where", str, where), senses)

    def tray(self, where: str, t: Mapping[str, Any]) -> Tray:
        rows = self.get(t, "rows", list, where)
        if not rows or not all(
            isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in rows
        ):
            raise self.fail(f"{where}.rows", "must list the slots of each row, each 1 or more")
        most = max_leds(3)
        if sum(rows) > most:
            raise self.fail(
                f"{where}.rows",
                f"{sum(rows)} slots; at most {most}, since every slot has an LED of its own "
                f"and a chain holds at most {most} (leds.count)",
            )
        return Tray(self.name(t, where), self.get(t, "side", str, where), tuple(rows))

    def button(self, where: str, t: Mapping[str, Any]) -> Button:
        gpio = self.get(t, "gpio", int, where)
        if gpio not in PI_GPIOS:
            raise self.fail(f"{where}.gpio", f"GPIO{gpio} is not a Pi header GPIO (2 to 27)")
        return Button(self.name(t, where), gpio, self.get(t, "label", str, where))

    def bus(self, where: str, t: Mapping[str, Any]) -> Bus:
        frequency = self.get(t, "frequency", int, where)
        if not 10_000 <= frequency <= 400_000:
            raise self.fail(
                f"{where}.frequency",
                f"{frequency} Hz is outside 10 kHz to 400 kHz (the Pi's I2C ceiling)",
            )
        return Bus(
            self.name(t, where),
            frequency,
            self.get(t, "sda", str, where, "SDA"),
            self.get(t, "scl", str, where, "SCL"),
        )

    def mux(self, where: str, t: Mapping[str, Any], buses: set[str]) -> Mux:
        bus = self.get(t, "bus", str, where)
        if bus not in buses:
            raise self.fail(f"{where}.bus", f"no i2c bus named {shown(bus)}")
        address = self.get(t, "address", int, where)
        if address not in MUX_ADDRESSES:
            raise self.fail(
                f"{where}.address", f"{_hex(address)} is not a TCA9548A address (0x70 to 0x77)"
            )
        return Mux(self.name(t, where), bus, address)

    def mux_addresses(self, muxes: tuple[Mux, ...]) -> None:
        first: dict[tuple[str, int], int] = {}
        for i, mux in enumerate(muxes):
            other = first.setdefault((mux.bus, mux.address), i)
            if other != i:
                raise self.fail(
                    f"muxes[{i}].address",
                    f"0x{mux.address:02x} is also the address of muxes[{other}] on {mux.bus}",
                )

    def expanders(
        self, data: Mapping[str, Any], buses: set[str], muxes: Mapping[str, Mux]
    ) -> tuple[Expander, ...]:
        found: list[Expander] = []
        taken: dict[tuple[tuple[str, str | None, int | None], int], str] = {}
        for where, t in self.tables(data, "expanders"):
            bus = self.get(t, "bus", str, where)
            if bus not in buses:
                raise self.fail(f"{where}.bus", f"no i2c bus named {shown(bus)}")
            mux = self.get(t, "mux", str, where, None)
            channel = None
            if mux is None:
                if "mux_channel" in t:
                    raise self.fail(f"{where}.mux_channel", "needs a mux (mux = NAME)")
            else:
                if mux not in muxes:
                    raise self.fail(f"{where}.mux", f"no mux named {shown(mux)}")
                if muxes[mux].bus != bus:
                    raise self.fail(
                        f"{where}.mux", f"mux {mux!r} is on bus {muxes[mux].bus}, not on {bus}"
                    )
                channel = self.get(t, "mux_channel", int, where)
                if not 0 <= channel <= 7:
                    raise self.fail(f"{where}.mux_channel", f"must be 0 to 7, not {channel}")
            interrupt = self.get(t, "interrupt", int, where, None)
            if interrupt is None:
                pass  # polled: the scan loop reads it on its safety poll
            elif interrupt in I2C_GPIOS:
                raise self.fail(
                    f"{where}.interrupt", f"GPIO{interrupt} is I2C1 {_I2C_ROLE[interrupt]}"
                )
            elif interrupt not in PI_GPIOS:
                raise self.fail(
                    f"{where}.interrupt", f"GPIO{interrupt} is not a Pi header GPIO (2 to 27)"
                )
            else:
                self.interrupt_at.setdefault(interrupt, f"{where}.interrupt")
            addresses = self.get(t, "addresses", list, where)
            if not addresses:
                raise self.fail(f"{where}.addresses", "needs at least one address")
            segment = (bus, mux, channel)
            for i, address in enumerate(addresses):
                at = f"{where}.addresses[{i}]"
                if (
                    not isinstance(address, int)
                    or isinstance(address, bool)
                    or address not in EXPANDER_ADDRESSES
                ):
                    text = _hex(address) if isinstance(address, int) else shown(address)
                    raise self.fail(at, f"{text} is not an MCP23017 address (0x20 to 0x27)")
                clash = taken.get((segment, address))
                if clash is not None:
                    raise self.fail(
                        at,
                        f"0x{address:02x} is already used by {clash} on the same bus segment "
                        "(8 addresses, 0x20 to 0x27, per segment)",
                    )
                # A chip on the bus itself answers whichever mux channel is selected.
                clash = next(
                    (
                        other
                        for (seg, a), other in taken.items()
                        if a == address and seg[0] == bus and (seg[1] is None) != (mux is None)
                    ),
                    None,
                )
                if clash is not None:
                    raise self.fail(
                        at,
                        f"0x{address:02x} is already used by {clash}: a chip on {bus} itself "
                        f"also answers behind every mux channel of {bus}",
                    )
                taken[(segment, address)] = at
                found.append(Expander(len(found), bus, mux, channel, address, interrupt))
        return tuple(found)

    def gpios(self, buttons: tuple[Button, ...], leds: Leds) -> None:
        """One job per GPIO: I2C, the LED data line, INT lines and buttons never share."""
        used = {gpio: f"I2C1 {role}" for gpio, role in _I2C_ROLE.items()}
        used.setdefault(leds.gpio, "the LED data line (leds.pin)")
        for gpio, where in self.interrupt_at.items():
            if gpio in used:
                raise self.fail(where, f"GPIO{gpio} is already {used[gpio]}")
            used[gpio] = f"an INT line ({where})"
        for i, button in enumerate(buttons):
            if button.gpio in used:
                raise self.fail(
                    f"buttons[{i}].gpio", f"GPIO{button.gpio} is already {used[button.gpio]}"
                )
            used[button.gpio] = f"buttons[{i}] ({button.name})"

    def sensors(
        self,
        cells: list[Cell],
        channels: tuple[Channel, ...],
        trays: tuple[Tray, ...],
        fill: tuple[str, ...],
        expanders: tuple[Expander, ...],
    ) -> tuple[Sensor, ...]:
        wanted: list[tuple[Place, str]] = []
        for group in fill:
            if group == "cells":
                wanted += [(cell, ch.name) for cell in cells for ch in channels]
            else:
                wanted += [(slot, "") for tray in trays for slot in tray.slots]
        per_chip = len(INPUT_PINS)
        if len(wanted) > len(expanders) * per_chip:
            raise self.fail(
                "expanders",
                f"{len(wanted)} sensors need {-(-len(wanted) // per_chip)} MCP23017s "
                f"({per_chip} inputs each: GPA7/GPB7 are output-only), "
                f"only {len(expanders)} listed",
            )
        return tuple(
            Sensor(i, place, channel, i // per_chip, INPUT_PINS[i % per_chip])
            for i, (place, channel) in enumerate(wanted)
        )

    def leds(self, t: Mapping[str, Any]) -> Leds:
        pin = self.get(t, "pin", str, "leds")
        match = _LED_PIN.fullmatch(pin)
        if not match or int(match[1]) not in PI_GPIOS or int(match[1]) in I2C_GPIOS:
            raise self.fail(
                "leds.pin",
                f"{shown(pin)} is not a free Pi GPIO named as Blinka does (D4 to D27)",
            )
        order = self.get(t, "order", str, "leds", "GRB")
        if sorted(order) not in (sorted("RGB"), sorted("RGBW")):
            raise self.fail("leds.order", f"{shown(order)} is not a pixel order like GRB")
        count = self.get(t, "count", int, "leds")
        if count < 1:
            raise self.fail("leds.count", f"must be 1 or more, not {count}")
        most = max_leds(len(order))
        if count > most:
            each_us = len(order) * 8 * WS2812_BIT_US
            raise self.fail(
                "leds.count",
                f"{count} LEDs take {_duration(chain_seconds(count, len(order)))} a frame "
                f"at 800 kHz ({each_us:g} us each); at most {most}, for a frame to fit the "
                f"{_duration(MAX_FRAME_SECONDS)} between two frames",
            )
        segments = []
        for where, s in self.tables(t, "segments", within="leds"):
            places = self.get(s, "places", str, where)
            layout = self.get(s, "layout", str, where, "rows")
            if layout not in LAYOUTS:
                raise self.fail(
                    f"{where}.layout", f"must be one of {', '.join(LAYOUTS)}, not {shown(layout)}"
                )
            names = self.get(s, "names", list, where, [])
            for i, status in enumerate(names):
                if not isinstance(status, str) or not NAME.fullmatch(status):
                    raise self.fail(f"{where}.names[{i}]", f"{shown(status)} is not a name")
            if names and places != "status":
                raise self.fail(f"{where}.names", "only a 'status' segment has names")
            start = self.get(s, "start", int, where)
            if not 0 <= start < count:
                raise self.fail(
                    f"{where}.start",
                    f"must be 0 to {count - 1} (leds.count is {count}), not {start}",
                )
            segments.append(LedSegment(places, start, layout, tuple(names)))
        return Leds(pin, order, count, tuple(segments))

    def led_map(
        self, leds: Leds, cells: list[Cell], columns: int, trays: tuple[Tray, ...]
    ) -> dict[Place | str, int]:
        index: dict[Place | str, int] = {}
        owner: dict[int, str] = {}
        tray_names = {t.name: t for t in trays}
        for i, segment in enumerate(leds.segments):
            where = f"leds.segments[{i}]"
            places: list[Place | str]
            if segment.places == "cells":
                places = self.cell_order(cells, columns, segment.layout)
            elif segment.places.startswith("tray:") and segment.places[5:] in tray_names:
                places = list(tray_names[segment.places[5:]].slots)
            elif segment.places == "status":
                if not segment.names:
                    raise self.fail(f"{where}.names", "status LEDs need names")
                places = list(segment.names)
            else:
                raise self.fail(
                    f"{where}.places",
                    f"{shown(segment.places)} is not 'cells', "
                    "'status' or 'tray:NAME' of a tray on this board",
                )
            for offset, place in enumerate(places):
                led = segment.start + offset
                label = place_label_any(place)
                if not 0 <= led < leds.count:
                    raise self.fail(
                        f"{where}.start",
                        f"puts {label} on LED {led}, beyond the chain of {leds.count} (leds.count)",
                    )
                if led in owner:
                    raise self.fail(
                        f"{where}.start", f"puts {label} on LED {led}, already under {owner[led]}"
                    )
                if place in index:
                    raise self.fail(
                        f"{where}.places", f"{label} has two LEDs ({index[place]} and {led})"
                    )
                owner[led] = label
                index[place] = led
        missing = [
            place_label(p) for p in [*cells, *(s for t in trays for s in t.slots)] if p not in index
        ]
        if missing:
            raise self.fail(
                "leds.segments",
                f"no LED under {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else ""),
            )
        return index

    @staticmethod
    def cell_order(cells: list[Cell], columns: int, layout: str) -> list[Place | str]:
        """LEDs along rows from a1; a serpentine chain turns back at the end of every row."""

        def key(cell: Cell) -> tuple[int, int]:
            col, row = cell
            return row, (columns - 1 - col if layout == "serpentine" and row % 2 else col)

        return sorted(cells, key=key)

    def power(self, t: Mapping[str, Any]) -> Power:
        supply = self.finite(t, "supply_amps", "power")
        reserve = self.finite(t, "reserve_amps", "power")
        channel = self.finite(t, "led_channel_ma", "power")
        brightness = self.finite(t, "max_brightness", "power")
        if supply <= 0:
            raise self.fail("power.supply_amps", f"must be above 0, not {supply:g}")
        if supply > MAX_SUPPLY_AMPS:
            raise self.fail(
                "power.supply_amps",
                f"{supply:g} A is more than {MAX_SUPPLY_AMPS:g} A (500 W at 5 V, beyond what "
                "a board draws): milliamps written as amps?",
            )
        if not 0 <= reserve < supply:
            raise self.fail(
                "power.reserve_amps", f"must be 0 or more and below supply_amps, not {reserve:g}"
            )
        if channel <= 0:
            raise self.fail("power.led_channel_ma", f"must be above 0, not {channel:g}")
        if channel > MAX_CHANNEL_MA:
            raise self.fail(
                "power.led_channel_ma",
                f"{channel:g} mA is more than {MAX_CHANNEL_MA:g} mA (a WS2812-class LED takes "
                "5 to 20 mA a colour): microamps written as mA?",
            )
        if not 0 < brightness <= 1:
            raise self.fail(
                "power.max_brightness", f"must be above 0 and at most 1, not {brightness:g}"
            )
        return Power(supply, reserve, channel, brightness)
