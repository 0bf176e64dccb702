"""The BoardSpec loader: the reference boards' derived maps, and one clear line per bad file."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.hardware.show import describe
from magboard.hardware.spec import (
    BOARDS_DIR,
    INPUT_PINS,
    MUX_SELECT_BITS,
    SEQOP_READ_BITS,
    BoardSpec,
    BoardSpecError,
    Slot,
    board_names,
    cell_label,
    load_board,
)

MINI = (BOARDS_DIR / "mini.toml").read_text(encoding="utf-8")


def variant(tmp_path: Path, *edits: tuple[str, str], name: str = "mini.toml") -> Path:
    """mini.toml with each `old` text replaced by `new`; every `old` must occur exactly once."""
    text = MINI
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in mini.toml"
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path) -> str:
    with pytest.raises(BoardSpecError) as caught:
        load_board(path)
    message = str(caught.value)
    assert "\n" not in message, message
    assert path.name in message, message
    return message


def wiring_order(spec: BoardSpec) -> list[tuple[object, str]]:
    """(place, channel) in the order the wiring fills inputs, rebuilt from the rules."""
    cells = [
        (c, r) for r in range(spec.rows) for c in range(spec.columns) if (c, r) not in spec.holes
    ]
    groups = {
        "cells": [(cell, ch.name) for cell in cells for ch in spec.channels],
        "trays": [
            (Slot(tray.name, n), "") for tray in spec.trays for n in range(1, sum(tray.rows) + 1)
        ],
    }
    return [item for group in spec.fill for item in groups[group]]


# The reference boards.


def test_reference_boards_are_listed_and_named_after_their_files() -> None:
    assert board_names() == ["mini", "r1"]
    for name in board_names():
        spec = load_board(name)
        assert spec.name == name
        assert spec.path == BOARDS_DIR / f"{name}.toml"
    assert load_board(BOARDS_DIR / "mini.toml") == load_board("mini")


def test_r1_counts() -> None:
    r1 = load_board("r1")
    assert (r1.columns, r1.rows, r1.holes) == (12, 12, frozenset())
    assert [c.name for c in r1.channels] == ["n", "s", "i", "o"]
    assert [c.senses for c in r1.channels] == ["north", "south", "any", "any"]
    assert len(r1.cells) == 144
    assert [(t.name, len(t.slots)) for t in r1.trays] == [("A", 18), ("B", 18)]
    assert len(r1.sensors) == 144 * 4 + 2 * 18 == 612
    assert len(r1.expanders) == math.ceil(612 / 14) == 44
    assert r1.frame_bits == 44 * 14


def test_r1_expanders_fill_each_mux_channel_in_address_order() -> None:
    r1 = load_board("r1")
    assert [m.address for m in r1.muxes] == [0x70]
    for i, expander in enumerate(r1.expanders):
        assert expander.index == i
        assert (expander.bus, expander.mux) == ("i2c1", "mux")
        assert expander.mux_channel == i // 8
        assert expander.address == 0x20 + i % 8
    # One INT line per mux channel, in the file's order.
    lines = [17, 27, 22, 23, 24, 25]
    assert [e.interrupt for e in r1.expanders] == [lines[i // 8] for i in range(44)]
    assert r1.expanders[0].label == "U1 i2c1 via mux ch0 0x20"
    assert r1.expanders[-1].label == "U44 i2c1 via mux ch5 0x23"


def test_mini_has_four_expanders_on_the_bus_itself() -> None:
    mini = load_board("mini")
    assert len(mini.sensors) == 9 * 3 + 2 * 13 == 53
    assert [(e.mux, e.mux_channel, e.address, e.interrupt) for e in mini.expanders] == [
        (None, None, 0x20 + i, 17) for i in range(4)
    ]
    assert mini.muxes == ()


@pytest.mark.parametrize("name", ["r1", "mini"])
def test_sensor_bits_follow_the_wiring_fill_order(name: str) -> None:
    spec = load_board(name)
    assert spec.fill == ("cells", "trays")
    assert [(s.place, s.channel) for s in spec.sensors] == wiring_order(spec)
    assert [s.bit for s in spec.sensors] == list(range(len(spec.sensors)))
    pins = [*range(7), *range(8, 15)]
    for sensor in spec.sensors:
        assert sensor.expander == sensor.bit // 14
        assert sensor.pin == pins[sensor.bit % 14]
    assert spec.sensor_bit == {(s.place, s.channel): s.bit for s in spec.sensors}


@pytest.mark.parametrize("name", ["r1", "mini"])
def test_gpa7_and_gpb7_are_never_inputs(name: str) -> None:
    spec = load_board(name)
    assert INPUT_PINS == (0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14)
    used = {s.pin for s in spec.sensors}
    assert 7 not in used and 15 not in used
    assert not {s.pin_name for s in spec.sensors} & {"GPA7", "GPB7"}


def test_first_and_last_sensors_of_r1() -> None:
    r1 = load_board("r1")
    first, last = r1.sensors[0], r1.sensors[-1]
    assert (first.label, first.expander, first.pin_name) == ("a1.n", 0, "GPA0")
    # The 8th sensor lands on GPB0: GPA7 is skipped.
    assert (r1.sensors[7].label, r1.sensors[7].pin_name) == ("b1.o", "GPB0")
    assert (last.label, last.expander) == ("B18", 43)
    assert r1.sensor_bit[((11, 11), "o")] == 144 * 4 - 1
    assert r1.sensor_bit[(Slot("A", 1), "")] == 144 * 4


def test_mini_fill_can_put_the_trays_first(tmp_path: Path) -> None:
    path = variant(tmp_path, ('fill = ["cells", "trays"]', 'fill = ["trays", "cells"]'))
    spec = load_board(path)
    assert [s.label for s in spec.sensors[:2]] == ["A1", "A2"]
    assert spec.sensors[25].label == "B13"
    assert spec.sensors[26].label == "a1.s"
    assert [(s.place, s.channel) for s in spec.sensors] == wiring_order(spec)


def test_r1_serpentine_leds_under_the_corners() -> None:
    r1 = load_board("r1")
    assert r1.leds.count == 185
    index = r1.led_index
    assert index[(0, 0)] == 0  # a1: the chain starts here
    assert index[(11, 0)] == 11  # l1: end of row 1
    assert index[(11, 1)] == 12  # l2: the chain turns back
    assert index[(0, 1)] == 23
    assert index[(11, 11)] == 132  # l12: row 12 runs right to left
    assert index[(0, 11)] == 143  # a12: the last cell LED
    for r in range(12):
        for c in range(12):
            along = c if r % 2 == 0 else 11 - c
            assert index[(c, r)] == r * 12 + along


def test_mini_serpentine_leds_under_the_corners() -> None:
    index = load_board("mini").led_index
    assert [index[cell] for cell in [(0, 0), (2, 0), (2, 1), (0, 1), (0, 2), (2, 2)]] == [
        0,
        2,
        3,
        5,
        6,
        8,
    ]


@pytest.mark.parametrize(
    ("name", "tray_a", "tray_b", "status"),
    [
        (
            "r1",
            range(144, 162),
            range(162, 180),
            {"seat-1": 180, "seat-2": 181, "seat-3": 182, "seat-4": 183, "alert": 184},
        ),
        ("mini", range(9, 22), range(22, 35), {"seat-1": 35, "seat-2": 36}),
    ],
)
def test_tray_slots_and_status_leds(name: str, tray_a: range, tray_b: range, status: dict) -> None:
    spec = load_board(name)
    assert [spec.led_index[slot] for slot in spec.tray("A").slots] == list(tray_a)
    assert [spec.led_index[slot] for slot in spec.tray("B").slots] == list(tray_b)
    assert {k: v for k, v in spec.led_index.items() if isinstance(k, str)} == status
    # Every LED of the chain is under exactly one place.
    assert sorted(spec.led_index.values()) == list(range(spec.leds.count))
    with pytest.raises(KeyError, match="no tray 'C'"):
        spec.tray("C")


def test_tray_slots_are_numbered_across_rows() -> None:
    mini = load_board("mini")
    tray = mini.tray("A")
    assert tray.rows == (5, 4, 4)
    assert [str(s) for s in tray.slots] == [f"A{n}" for n in range(1, 14)]
    assert mini.slots == (*mini.tray("A").slots, *mini.tray("B").slots)


def test_scan_time_from_the_bit_costs() -> None:
    # START + address + ACK + two data bytes with ACKs + STOP; a mux write is one byte.
    assert SEQOP_READ_BITS == 1 + 9 + 9 + 9 + 1 == 29
    assert MUX_SELECT_BITS == 1 + 9 + 9 + 1 == 20
    r1, mini = load_board("r1"), load_board("mini")
    # r1: 44 reads, a select for each of the 6 mux channels, one release of the mux.
    r1_bits = 44 * SEQOP_READ_BITS + (6 + 1) * MUX_SELECT_BITS
    mini_bits = 4 * SEQOP_READ_BITS
    assert (r1.mux_selects, r1.mux_releases, r1.scan_transactions) == (6, 1, 51)
    assert r1.scan_bits() == r1_bits == 1416
    assert (mini.mux_selects, mini.mux_releases, mini.scan_transactions) == (0, 0, 4)
    assert mini.scan_bits() == mini_bits == 116
    for hz in (100_000, 400_000):
        assert r1.scan_seconds(hz) == pytest.approx(r1_bits / hz)
        assert mini.scan_seconds(hz) == pytest.approx(mini_bits / hz)
    assert r1.scan_seconds(100_000) == pytest.approx(0.01416)
    assert r1.scan_seconds(400_000) == pytest.approx(0.00354)


def test_a_mux_channel_met_again_is_selected_again(tmp_path: Path) -> None:
    group = 'bus = "i2c1"\nmux = "m"\nmux_channel = {}\naddresses = [{}]\ninterrupt = 17\n'
    path = variant(
        tmp_path,
        (
            "[[expanders]]\n",
            '[[muxes]]\nname = "m"\nbus = "i2c1"\naddress = 0x70\n\n[[expanders]]\n',
        ),
        (
            'bus = "i2c1"\naddresses = [0x20, 0x21, 0x22, 0x23]\ninterrupt = 17\n',
            group.format(0, "0x20, 0x21")
            + "\n[[expanders]]\n"
            + group.format(1, "0x20")
            + "\n[[expanders]]\n"
            + group.format(0, "0x22"),
        ),
    )
    spec = load_board(path)
    assert [e.mux_channel for e in spec.expanders] == [0, 0, 1, 0]
    assert spec.mux_selects == 3
    assert spec.scan_bits() == 4 * SEQOP_READ_BITS + (3 + 1) * MUX_SELECT_BITS


def test_led_budget_numbers() -> None:
    r1 = load_board("r1")
    assert r1.leds.colours == 3
    assert r1.led_full_white_ma() == 185 * 3 * 20
    assert r1.power.led_budget_ma == pytest.approx((10 - 1.5) * 1000)
    assert r1.led_full_white_ma() * r1.power.max_brightness < r1.power.led_budget_ma
    assert r1.leds.frame_seconds() == pytest.approx((185 * 24 * 1.25 + 280) / 1e6)


def test_rgbw_chain_counts_four_colours(tmp_path: Path) -> None:
    spec = load_board(variant(tmp_path, ('order = "GRB"', 'order = "GRBW"')))
    assert spec.leds.colours == 4
    assert spec.led_full_white_ma() == 37 * 4 * 20


def test_spec_is_a_hashable_value_with_a_read_only_led_map() -> None:
    r1 = load_board("r1")
    assert hash(r1) == hash(load_board("r1"))
    with pytest.raises(TypeError):
        r1.led_index[(0, 0)] = 5  # type: ignore[index]


def test_a_board_with_holes_and_a_mux(tmp_path: Path) -> None:
    path = variant(
        tmp_path,
        ("holes = []", 'holes = ["b2"]'),
        (
            "[[expanders]]\n",
            '[[muxes]]\nname = "m"\nbus = "i2c1"\naddress = 0x71\n\n[[expanders]]\n',
        ),
        ("addresses = [0x20, 0x21, 0x22, 0x23]", 'mux = "m"\nmux_channel = 0\naddresses = [0x20]'),
        (
            "interrupt = 17\n",
            'interrupt = 17\n\n[[expanders]]\nbus = "i2c1"\nmux = "m"\nmux_channel = 1\n'
            "addresses = [0x20, 0x21, 0x22]\ninterrupt = 27\n",
        ),
        ("count = 37", "count = 36"),
        ("start = 9", "start = 8"),
        ("start = 22", "start = 21"),
        ("start = 35", "start = 34"),
    )
    spec = load_board(path)
    assert spec.holes == {(1, 1)}
    assert len(spec.cells) == 8
    assert (1, 1) not in spec.led_index
    assert not any(s.place == (1, 1) for s in spec.sensors)
    assert len(spec.sensors) == 8 * 3 + 26
    # The same addresses behind two channels of one mux are two chips.
    assert [(e.mux_channel, e.address) for e in spec.expanders] == [
        (0, 0x20),
        (1, 0x20),
        (1, 0x21),
        (1, 0x22),
    ]
    assert spec.mux_selects == 2
    # a2, then c2: the serpentine row 2 skips the hole.
    assert [spec.led_index[c] for c in [(2, 1), (0, 1)]] == [3, 4]


# One clear line per broken file.

CASES = [
    pytest.param(
        [("columns = 3", "columns = = 3")],
        "not valid TOML",
        "line 6",
        id="toml-syntax",
    ),
    pytest.param([("pitch_mm = 40\n", "")], "lattice.pitch_mm", "missing", id="missing-field"),
    pytest.param(
        [("columns = 3", 'columns = "3"')],
        "lattice.columns",
        "must be int, not '3'",
        id="wrong-type",
    ),
    pytest.param(
        [("max_brightness = 0.5", "max_brightness = true")],
        "power.max_brightness",
        "must be int or float, not True",
        id="bool-is-not-a-number",
    ),
    pytest.param([('title = "Mini', "title = 3\n#")], "title", "must be str", id="wrong-type-top"),
    pytest.param(
        [("[lattice]\ncolumns = 3\nrows = 3\npitch_mm = 40\nholes = []", "lattice = 3")],
        "lattice",
        "must be dict",
        id="not-a-table",
    ),
    pytest.param(
        [("columns = 3", "columns = 17")], "lattice.columns", "1 to 16, not 17", id="over-16"
    ),
    pytest.param([("rows = 3", "rows = 0")], "lattice.rows", "1 to 16, not 0", id="zero-rows"),
    pytest.param(
        [("holes = []", 'holes = ["a1", "d1"]')],
        "lattice.holes[1]",
        "d1 is off the 3x3 lattice",
        id="hole-off-lattice",
    ),
    pytest.param(
        [("holes = []", 'holes = ["A1"]')],
        "lattice.holes[0]",
        "not a cell name",
        id="hole-not-a-cell",
    ),
    pytest.param(
        [
            (
                "holes = []",
                'holes = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]',
            )
        ],
        "lattice.holes",
        "leave no cell",
        id="holes-everywhere",
    ),
    pytest.param(
        [
            (
                'senses = "any"\n\n[[channels]]\nname = "m"',
                'senses = "east"\n\n[[channels]]\nname = "m"',
            )
        ],
        "channels[0].senses",
        "must be one of north, south, any, not 'east'",
        id="unknown-senses",
    ),
    pytest.param(
        [('name = "m"', 'name = "s"')],
        "channels[1].name",
        "'s' is also the name of channels[0]",
        id="duplicate-channel",
    ),
    pytest.param(
        [('name = "B"', 'name = "A"')],
        "trays[1].name",
        "'A' is also the name of trays[0]",
        id="duplicate-tray",
    ),
    pytest.param(
        [('name = "new"', 'name = "seat-1"')],
        "buttons[2].name",
        "'seat-1' is also the name of buttons[0]",
        id="duplicate-button",
    ),
    pytest.param(
        [('name = "l"', 'name = "l.x"')], "channels[2].name", "is not a name", id="bad-name"
    ),
    pytest.param(
        [("rows = [5, 4, 4]\n\n[[trays]]", "rows = [5, 0, 4]\n\n[[trays]]")],
        "trays[0].rows",
        "each 1 or more",
        id="empty-tray-row",
    ),
    pytest.param(
        [("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21, 0x28, 0x23]")],
        "expanders[0].addresses[2]",
        "0x28 is not an MCP23017 address (0x20 to 0x27)",
        id="address-range",
    ),
    pytest.param(
        [("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21, 0x22, 0x22]")],
        "expanders[0].addresses[3]",
        "0x22 is already used by expanders[0].addresses[2] on the same bus segment",
        id="address-twice-in-one-list",
    ),
    pytest.param(
        [
            ("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21]"),
            (
                "interrupt = 17\n",
                'interrupt = 17\n\n[[expanders]]\nbus = "i2c1"\naddresses = [0x22, 0x21]\n'
                "interrupt = 27\n",
            ),
        ],
        "expanders[1].addresses[1]",
        "0x21 is already used by expanders[0].addresses[1]",
        id="address-twice-on-one-bus",
    ),
    pytest.param(
        [
            (
                "[[expanders]]\n",
                '[[muxes]]\nname = "m"\nbus = "i2c1"\naddress = 0x70\n\n[[expanders]]\n',
            ),
            ("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21, 0x22]"),
            (
                "interrupt = 17\n",
                'interrupt = 17\n\n[[expanders]]\nbus = "i2c1"\nmux = "m"\nmux_channel = 3\n'
                "addresses = [0x24, 0x22]\ninterrupt = 27\n",
            ),
        ],
        "expanders[1].addresses[1]",
        "0x22 is already used by expanders[0].addresses[2]: a chip on i2c1 itself also answers "
        "behind every mux channel of i2c1",
        id="address-on-bus-and-behind-mux",
    ),
    pytest.param(
        [
            (
                "[[expanders]]\n",
                '[[muxes]]\nname = "m"\nbus = "i2c1"\naddress = 0x70\n\n[[expanders]]\n'
                'bus = "i2c1"\nmux = "m"\nmux_channel = 0\naddresses = [0x21]\ninterrupt = 27\n'
                "\n[[expanders]]\n",
            ),
            ("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21, 0x22]"),
        ],
        "expanders[1].addresses[1]",
        "0x21 is already used by expanders[0].addresses[0]: a chip on i2c1 itself",
        id="address-behind-mux-then-on-bus",
    ),
    pytest.param(
        [("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21, 0x22]")],
        "expanders",
        "53 sensors need 4 MCP23017s (14 inputs each: GPA7/GPB7 are output-only), only 3 listed",
        id="too-few-expanders",
    ),
    pytest.param(
        [("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = []")],
        "expanders[0].addresses",
        "needs at least one address",
        id="no-addresses",
    ),
    pytest.param(
        [
            (
                "[[expanders]]\n",
                '[[i2c]]\nname = "i2c0"\nfrequency = 100000\n\n'
                '[[muxes]]\nname = "m"\nbus = "i2c0"\naddress = 0x70\n\n[[expanders]]\n',
            ),
            ("addresses = [0x20", 'mux = "m"\nmux_channel = 0\naddresses = [0x20'),
        ],
        "expanders[0].mux",
        "mux 'm' is on bus i2c0, not on i2c1",
        id="mux-on-wrong-bus",
    ),
    pytest.param(
        [("addresses = [0x20", 'mux = "m"\nmux_channel = 0\naddresses = [0x20')],
        "expanders[0].mux",
        "no mux named 'm'",
        id="no-such-mux",
    ),
    pytest.param(
        [("addresses = [0x20", "mux_channel = 2\naddresses = [0x20")],
        "expanders[0].mux_channel",
        "needs a mux",
        id="channel-without-mux",
    ),
    pytest.param(
        [
            (
                "[[expanders]]\n",
                '[[muxes]]\nname = "m"\nbus = "i2c1"\naddress = 0x70\n\n'
                '[[muxes]]\nname = "m2"\nbus = "i2c1"\naddress = 0x70\n\n[[expanders]]\n',
            )
        ],
        "muxes[1].address",
        "0x70 is also the address of muxes[0] on i2c1",
        id="two-muxes-one-address",
    ),
    pytest.param(
        [
            (
                "[[expanders]]\n",
                '[[muxes]]\nname = "m"\nbus = "i2c1"\naddress = 0x20\n\n[[expanders]]\n',
            )
        ],
        "muxes[0].address",
        "not a TCA9548A address (0x70 to 0x77)",
        id="mux-address-range",
    ),
    pytest.param(
        [("frequency = 400000", "frequency = 1000000")],
        "i2c[0].frequency",
        "outside 10 kHz to 400 kHz",
        id="bus-too-fast",
    ),
    pytest.param(
        [('bus = "i2c1"', 'bus = "i2c9"')],
        "expanders[0].bus",
        "no i2c bus named 'i2c9'",
        id="no-such-bus",
    ),
    pytest.param(
        [("interrupt = 17", "interrupt = 3")],
        "expanders[0].interrupt",
        "GPIO3 is I2C1 SCL",
        id="interrupt-on-i2c",
    ),
    pytest.param(
        [("interrupt = 17", "interrupt = 28")],
        "expanders[0].interrupt",
        "not a Pi header GPIO",
        id="interrupt-off-header",
    ),
    pytest.param(
        [("interrupt = 17", "interrupt = 10")],
        "expanders[0].interrupt",
        "GPIO10 is already the LED data line (leds.pin)",
        id="interrupt-on-led-pin",
    ),
    pytest.param(
        [("gpio = 13", "gpio = 17")],
        "buttons[2].gpio",
        "GPIO17 is already an INT line (expanders[0].interrupt)",
        id="button-on-interrupt",
    ),
    pytest.param(
        [("gpio = 6", "gpio = 5")],
        "buttons[1].gpio",
        "GPIO5 is already buttons[0] (seat-1)",
        id="two-buttons-one-gpio",
    ),
    pytest.param(
        [("gpio = 13", "gpio = 2")],
        "buttons[2].gpio",
        "GPIO2 is already I2C1 SDA",
        id="button-on-i2c",
    ),
    pytest.param(
        [("gpio = 13", "gpio = 10")],
        "buttons[2].gpio",
        "GPIO10 is already the LED data line",
        id="button-on-led-pin",
    ),
    pytest.param(
        [("gpio = 13", "gpio = 40")],
        "buttons[2].gpio",
        "GPIO40 is not a Pi header GPIO (2 to 27)",
        id="button-off-header",
    ),
    pytest.param(
        [('pin = "D10"', 'pin = "D1O"')],
        "leds.pin",
        "'D1O' is not a free Pi GPIO",
        id="led-pin-typo",
    ),
    pytest.param(
        [('order = "GRB"', 'order = "GRBG"')],
        "leds.order",
        "not a pixel order",
        id="led-order",
    ),
    pytest.param(
        [("count = 37", "count = 36")],
        "leds.segments[3].start",
        "puts seat-2 on LED 36, beyond the chain of 36 (leds.count)",
        id="led-beyond-chain",
    ),
    pytest.param(
        [("start = 22", "start = 21")],
        "leds.segments[2].start",
        "puts B1 on LED 21, already under A13",
        id="two-places-on-one-led",
    ),
    pytest.param(
        [
            ("count = 37", "count = 50"),
            (
                'places = "status"',
                'places = "tray:A"\nstart = 37\n\n[[leds.segments]]\nplaces = "status"',
            ),
        ],
        "leds.segments[3].places",
        "A1 has two LEDs (9 and 37)",
        id="two-leds-under-one-place",
    ),
    pytest.param(
        [
            (
                'places = "cells"\nstart = 0\nlayout = "serpentine"',
                'places = "status"\nstart = 0\nnames = ["x"]',
            )
        ],
        "leds.segments",
        "no LED under a1, b1, c1, a2, b2 ...",
        id="cell-without-led",
    ),
    pytest.param(
        [('places = "tray:B"', 'places = "tray:C"')],
        "leds.segments[2].places",
        "'tray:C' is not 'cells', 'status' or 'tray:NAME'",
        id="led-segment-unknown-tray",
    ),
    pytest.param(
        [('layout = "serpentine"', 'layout = "spiral"')],
        "leds.segments[0].layout",
        "must be one of rows, serpentine, not 'spiral'",
        id="led-layout",
    ),
    pytest.param(
        [('layout = "serpentine"', 'layot = "serpentine"')],
        "leds.segments[0].layot",
        "unknown key (known here: places, start, layout, names)",
        id="typo-in-segment-key",
    ),
    pytest.param(
        [("[power]", "[powr]")],
        "powr",
        "unknown key",
        id="typo-in-table-name",
    ),
    pytest.param(
        [('names = ["seat-1", "seat-2"]', 'names = ["seat-1", 2]')],
        "leds.segments[3].names[1]",
        "2 is not a name",
        id="status-name-not-a-string",
    ),
    pytest.param(
        [("start = 9", 'start = 9\nnames = ["x"]')],
        "leds.segments[1].names",
        "only a 'status' segment has names",
        id="names-on-a-tray-segment",
    ),
    pytest.param(
        [('fill = ["cells", "trays"]', 'fill = ["cells", 3]')],
        "wiring.fill",
        "must order exactly ['cells', 'trays']",
        id="fill-not-strings",
    ),
    pytest.param(
        [('fill = ["cells", "trays"]', 'fill = ["cells"]')],
        "wiring.fill",
        "must order exactly",
        id="fill-incomplete",
    ),
    pytest.param(
        [("reserve_amps = 0.9", "reserve_amps = 3")],
        "power.reserve_amps",
        "below supply_amps, not 3",
        id="reserve-over-supply",
    ),
    pytest.param(
        [("supply_amps = 2.5", "supply_amps = 0")],
        "power.supply_amps",
        "must be above 0, not 0",
        id="no-supply",
    ),
    pytest.param(
        [("led_channel_ma = 20", "led_channel_ma = -1")],
        "power.led_channel_ma",
        "must be above 0",
        id="negative-led-current",
    ),
    pytest.param(
        [("max_brightness = 0.5", "max_brightness = 1.5")],
        "power.max_brightness",
        "above 0 and at most 1, not 1.5",
        id="brightness-over-1",
    ),
    pytest.param(
        [('name = "mini"', 'name = "mini board"')],
        "name",
        "is not a name",
        id="board-name",
    ),
]


@pytest.mark.parametrize(("edits", "field", "problem"), CASES)
def test_a_broken_file_gets_one_line_naming_file_and_field(
    tmp_path: Path, edits: list[tuple[str, str]], field: str, problem: str
) -> None:
    message = refusal(variant(tmp_path, *edits))
    assert message.startswith("mini.toml: ") or "not valid TOML" in message
    assert field in message
    assert problem in message


def test_field_path_sits_right_after_the_file_name(tmp_path: Path) -> None:
    message = refusal(
        variant(
            tmp_path,
            ("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21, 0x28, 0x23]"),
        )
    )
    assert message == (
        "mini.toml: expanders[0].addresses[2]: 0x28 is not an MCP23017 address (0x20 to 0x27)"
    )


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('name = "mini"\n', "", "name"),
        ("columns = 3\n", "", "lattice.columns"),
        (
            'senses = "any"\n\n[[channels]]\nname = "m"',
            '\n[[channels]]\nname = "m"',
            "channels[0].senses",
        ),
        ('side = "left"\n', "", "trays[0].side"),
        ("gpio = 5\n", "", "buttons[0].gpio"),
        ("frequency = 400000\n", "", "i2c[0].frequency"),
        ("count = 37\n", "", "leds.count"),
        ('pin = "D10"\n', "", "leds.pin"),
        ("start = 9\n", "", "leds.segments[1].start"),
        ("reserve_amps = 0.9\n", "", "power.reserve_amps"),
    ],
)
def test_every_required_key_is_reported_missing(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    assert refusal(variant(tmp_path, (old, new))) == f"mini.toml: {field}: missing"


def test_an_expander_group_without_an_interrupt_line_is_polled(tmp_path: Path) -> None:
    spec = load_board(variant(tmp_path, ("interrupt = 17\n", "")))
    assert all(e.interrupt is None for e in spec.expanders)
    assert "no INT line, polled: U1-U4 (4 chips)" in describe(spec)


def test_a_missing_table_is_reported(tmp_path: Path) -> None:
    start = MINI.index("[power]")
    path = tmp_path / "mini.toml"
    path.write_text(MINI[:start], encoding="utf-8")
    assert refusal(path) == "mini.toml: power: missing"
    path.write_text(MINI.replace("[[i2c]]", "[[ic2]]"), encoding="utf-8")
    assert "ic2: unknown key" in refusal(path)


def test_unknown_board_name_lists_the_known_boards() -> None:
    with pytest.raises(BoardSpecError) as caught:
        load_board("r9")
    message = str(caught.value)
    assert message == "no board called 'r9' (boards: mini, r1)"
    for name in board_names():
        assert name in message


def test_unreadable_files_get_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    assert "cannot read" in refusal(missing)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b'name = "\xff"\n')
    assert "not UTF-8" in refusal(binary)


def test_the_documented_example_and_mini_table_hold(tmp_path: Path) -> None:
    doc = (BOARDS_DIR.parent.parent / "docs" / "boards.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n")[1].split("```")[0]
    path = tmp_path / "tiny.toml"
    path.write_text(example, encoding="utf-8")
    tiny = load_board(path)
    assert [s.label for s in tiny.sensors] == [
        f"{cell_label(c)}.p" for c in [(x, y) for y in range(3) for x in range(3)]
    ]
    assert [s.pin_name for s in tiny.sensors][-2:] == ["GPB0", "GPB1"]
    assert tiny.frame_bits - len(tiny.sensors) == 5
    assert [tiny.led_index[(c, 1)] for c in range(3)] == [5, 4, 3]
    mini = {s.bit: (s.label, s.expander + 1, s.pin_name) for s in load_board("mini").sensors}
    for bit, label, chip, pin in [
        (0, "a1.s", 1, "GPA0"),
        (6, "c1.s", 1, "GPA6"),
        (7, "c1.m", 1, "GPB0"),
        (26, "c3.l", 2, "GPB5"),
        (27, "A1", 2, "GPB6"),
        (52, "B13", 4, "GPB3"),
    ]:
        assert mini[bit] == (label, chip, pin)
        assert f"| {bit} | {label} | U{chip} {pin}" in doc
    assert 53 not in mini


def test_refusals_are_value_errors() -> None:
    assert issubclass(BoardSpecError, ValueError)


# Any lattice, any holes, any channels: the sensor map stays dense and complete.


@st.composite
def boards(draw: st.DrawFn) -> tuple[str, dict]:
    columns = draw(st.integers(1, 16))
    rows = draw(st.integers(1, 16))
    lattice = [(c, r) for r in range(rows) for c in range(columns)]
    holes = draw(st.sets(st.sampled_from(lattice), max_size=len(lattice) - 1))
    cells = [cell for cell in lattice if cell not in holes]
    channels = draw(st.integers(1, 4))
    tray_rows = draw(st.lists(st.lists(st.integers(1, 6), min_size=1, max_size=3), max_size=3))
    fill = draw(st.permutations(["cells", "trays"]))
    layout = draw(st.sampled_from(["rows", "serpentine"]))
    slots = sum(sum(r) for r in tray_rows)
    sensors = len(cells) * channels + slots
    chips = -(-sensors // 14) + draw(st.integers(0, 2))
    lines = [
        'name = "gen"',
        'title = "generated"',
        "[lattice]",
        f"columns = {columns}",
        f"rows = {rows}",
        "pitch_mm = 25",
        f"holes = {[cell_label(h) for h in sorted(holes)]!r}".replace("'", '"'),
    ]
    for k in range(channels):
        lines += ["[[channels]]", f'name = "c{k}"', 'where = "x"', 'senses = "any"']
    for t, r in enumerate(tray_rows):
        lines += ["[[trays]]", f'name = "T{t}"', 'side = "left"', f"rows = {r}"]
    lines += ["[[i2c]]", 'name = "bus"', "frequency = 400000"]
    muxes = -(-chips // 64)
    for m in range(muxes):
        lines += ["[[muxes]]", f'name = "m{m}"', 'bus = "bus"', f"address = {0x70 + m}"]
    for group in range(-(-chips // 8)):
        count = min(8, chips - group * 8)
        lines += [
            "[[expanders]]",
            'bus = "bus"',
            f'mux = "m{group // 8}"',
            f"mux_channel = {group % 8}",
            f"addresses = {[0x20 + a for a in range(count)]}",
            f"interrupt = {4 + group % 4}",
        ]
    lines += ["[wiring]", f"fill = {list(fill)!r}".replace("'", '"')]
    total = len(cells) + slots
    lines += ["[leds]", 'pin = "D18"', f"count = {total}"]
    lines += ["[[leds.segments]]", 'places = "cells"', "start = 0", f'layout = "{layout}"']
    start = len(cells)
    for t, r in enumerate(tray_rows):
        lines += ["[[leds.segments]]", f'places = "tray:T{t}"', f"start = {start}"]
        start += sum(r)
    lines += [
        "[power]",
        "supply_amps = 4",
        "reserve_amps = 1",
        "led_channel_ma = 20",
        "max_brightness = 0.5",
    ]
    facts = {
        "cells": cells,
        "holes": holes,
        "channels": channels,
        "slots": slots,
        "chips": chips,
        "fill": fill,
        "layout": layout,
        "columns": columns,
    }
    return "\n".join(lines) + "\n", facts


@settings(max_examples=60, deadline=None)
@given(boards())
def test_generated_boards_have_dense_complete_sensor_and_led_maps(
    tmp_path_factory: pytest.TempPathFactory, board: tuple[str, dict]
) -> None:
    text, facts = board
    path = tmp_path_factory.mktemp("gen") / "gen.toml"
    path.write_text(text, encoding="utf-8")
    spec = load_board(path)

    wanted = [(cell, f"c{k}") for cell in facts["cells"] for k in range(facts["channels"])]
    wanted += [(slot, "") for slot in spec.slots]
    keys = [(s.place, s.channel) for s in spec.sensors]
    assert len(keys) == len(set(keys)) == len(wanted)
    assert set(keys) == set(wanted)
    assert keys == wiring_order(spec)
    assert [s.bit for s in spec.sensors] == list(range(len(wanted)))
    assert all(s.pin not in (7, 15) for s in spec.sensors)
    assert all(s.expander == s.bit // 14 < facts["chips"] for s in spec.sensors)
    assert len(spec.expanders) == facts["chips"]
    assert len({(e.segment, e.address) for e in spec.expanders}) == facts["chips"]

    # Every place has its own LED, and the chain has no gaps.
    places = [*facts["cells"], *spec.slots]
    assert sorted(spec.led_index[p] for p in places) == list(range(len(places)))
    # Along the cell segment, consecutive LEDs sit in the same row or turn into the next one.
    chain = sorted(facts["cells"], key=lambda cell: spec.led_index[cell])
    for (c0, r0), (c1, r1) in itertools.pairwise(chain):
        assert r1 >= r0
        if r1 == r0:
            forward = facts["layout"] == "rows" or r0 % 2 == 0
            assert (c1 > c0) if forward else (c1 < c0)
    if facts["layout"] == "serpentine" and not facts["holes"]:
        for (c0, r0), (c1, r1) in itertools.pairwise(chain):
            assert abs(c1 - c0) + abs(r1 - r0) == 1  # the strip never jumps back across a row
