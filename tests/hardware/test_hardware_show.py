"""`describe`: the pin map, LED map and budgets printed from a board file agree with the spec."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from magboard.hardware.show import describe
from magboard.hardware.spec import BOARDS_DIR, BoardSpec, cell_label, load_board

MINI = (BOARDS_DIR / "mini.toml").read_text(encoding="utf-8")


def section(text: str, title: str) -> list[str]:
    """The lines of the block that starts with `title`, up to the next blank line."""
    blocks = [block.splitlines() for block in text.split("\n\n")]
    found = [block for block in blocks if block and block[0].startswith(title)]
    assert len(found) == 1, f"{title!r}: {len(found)} blocks"
    return found[0]


def pin_map_line(spec: BoardSpec, text: str, index: int) -> str:
    expander = spec.expanders[index]
    lines = [
        line for line in section(text, "Pin map")[1:] if line.startswith(f"  {expander.label}  ")
    ]
    assert len(lines) == 1
    return lines[0]


def variant(tmp_path: Path, *edits: tuple[str, str]) -> BoardSpec:
    text = MINI
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "variant.toml"
    path.write_text(text, encoding="utf-8")
    return load_board(path)


@pytest.fixture(scope="module", params=["r1", "mini"])
def board(request: pytest.FixtureRequest) -> tuple[BoardSpec, str]:
    spec = load_board(request.param)
    return spec, describe(spec)


def test_summary_names_the_board_and_its_parts(board: tuple[BoardSpec, str]) -> None:
    spec, text = board
    summary = section(text, f"{spec.name}: {spec.title}")
    lattice = f"  lattice {spec.columns}x{spec.rows} at {spec.pitch_mm:g} mm"
    assert f"{lattice}, {len(spec.cells)} cells" in summary
    for channel in spec.channels:
        assert any(line.split()[:2] == [channel.name, channel.senses] for line in summary), channel
    for tray in spec.trays:
        assert any(
            line.startswith(f"  tray {tray.name} ({tray.side}): {len(tray.slots)} slots")
            for line in summary
        )
    for button in spec.buttons:
        assert any(
            line.split()[:3] == ["button", button.name, f"GPIO{button.gpio}"] for line in summary
        )


def test_first_and_last_expanders_in_the_pin_map(board: tuple[BoardSpec, str]) -> None:
    spec, text = board
    for index in (0, len(spec.expanders) - 1):
        expander = spec.expanders[index]
        line = pin_map_line(spec, text, index)
        first, last = index * 14, index * 14 + 13
        assert f"bits {first}-{last}:" in line
        wired = [s for s in spec.sensors if s.expander == index]
        assert re.findall(r"(GP[AB]\d)=(\S+)", line) == [(s.pin_name, s.label) for s in wired]
        spare = 14 - len(wired)
        assert line.endswith(f"({spare} spare)") == (spare > 0)
        mux = f" via {expander.mux} ch{expander.mux_channel}" if expander.mux else ""
        assert line.startswith(f"  U{index + 1} {expander.bus}{mux} 0x{expander.address:02x}  ")


def test_every_sensor_label_appears_once_in_the_pin_map(board: tuple[BoardSpec, str]) -> None:
    spec, text = board
    pins = section(text, "Pin map")[1:]
    assert len(pins) == len(spec.expanders)
    labels = Counter(label for line in pins for _, label in re.findall(r"(GP[AB]\d)=(\S+)", line))
    assert labels == Counter({s.label: 1 for s in spec.sensors})
    assert not any("GPA7=" in line or "GPB7=" in line for line in pins)


def test_int_lines_are_listed_in_expander_order(board: tuple[BoardSpec, str]) -> None:
    spec, text = board
    listed = [
        int(m[1])
        for line in section(text, "Buses")
        if (m := re.match(r"  INT line GPIO(\d+)", line))
    ]
    first_seen = list(dict.fromkeys(e.interrupt for e in spec.expanders))
    assert listed == first_seen


def test_r1_int_lines_and_mux() -> None:
    text = describe(load_board("r1"))
    buses = section(text, "Buses")
    assert "  mux: TCA9548A at 0x70 on i2c1" in buses
    assert "  i2c1: 400 kHz on SDA/SCL" in buses
    ints = [line for line in buses if "INT line" in line]
    assert [line.split(": ")[-1] for line in ints] == [
        "U1-U8 (8 chips)",
        "U9-U16 (8 chips)",
        "U17-U24 (8 chips)",
        "U25-U32 (8 chips)",
        "U33-U40 (8 chips)",
        "U41-U44 (4 chips)",
    ]


def test_the_led_grid_matches_the_led_index(board: tuple[BoardSpec, str]) -> None:
    spec, text = board
    leds = section(text, "LED map")
    assert leds[0] == f"LED map ({spec.leds.count} x {spec.leds.order} on {spec.leds.pin}):"
    grid = leds[1 : 1 + spec.rows]
    for line, row in zip(grid, reversed(range(spec.rows)), strict=True):
        label, *numbers = line.split()
        assert int(label) == row + 1
        assert [int(n) for n in numbers] == [spec.led_index[(c, row)] for c in range(spec.columns)]
    letters = leds[1 + spec.rows].split()
    assert letters == [cell_label((c, 0))[0] for c in range(spec.columns)]
    for tray in spec.trays:
        first = spec.led_index[tray.slots[0]]
        last = spec.led_index[tray.slots[-1]]
        assert f"  tray {tray.name}: slots 1-{len(tray.slots)} -> LEDs {first}-{last}" in leds
    status = {k: v for k, v in spec.led_index.items() if isinstance(k, str)}
    assert leds[-1] == "  status: " + ", ".join(
        f"{name}={led}" for name, led in sorted(status.items(), key=lambda kv: kv[1])
    )


def test_budgets_carry_the_computed_numbers(board: tuple[BoardSpec, str]) -> None:
    spec, text = board
    budgets = "\n".join(section(text, "Budgets:"))
    power = spec.power
    full = spec.leds.count * spec.leds.colours * power.led_channel_ma
    assert (
        f"{spec.leds.count} LEDs x {spec.leds.colours} colours x {power.led_channel_ma:g} mA = "
        f"{full / 1000:.2f} A at full white; {full * power.max_brightness / 1000:.2f} A at the "
        f"{power.max_brightness:.0%} brightness cap"
    ) in budgets
    budget = power.supply_amps - power.reserve_amps
    assert f"{power.supply_amps:g} A - {power.reserve_amps:g} A reserve = {budget:.2f} A" in budgets
    assert "the brightness cap keeps every frame within it" in budgets
    inputs = 14 * len(spec.expanders)
    assert (
        f"sensors: {len(spec.sensors)} on {len(spec.expanders)} expanders "
        f"({inputs} inputs, {inputs - len(spec.sensors)} spare)"
    ) in budgets
    mux_writes = spec.mux_selects + spec.mux_releases
    bits = 29 * len(spec.expanders) + 20 * mux_writes
    assert f"scan: {len(spec.expanders) + mux_writes} transactions" in budgets
    assert f"{bits} bit times" in budgets
    for khz in (100, 400):
        ms = bits / (khz * 1000) * 1000
        assert f"scan at {khz} kHz: {ms:.2f} ms on the wire per full frame" in budgets
        assert f"({khz * 1000 / bits:.0f} frames/s at most" in budgets
    led_ms = (spec.leds.count * 24 * 1.25 + 280) / 1000
    assert f"LED frame: {led_ms:.2f} ms on the wire" in budgets


def test_r1_budget_figures() -> None:
    budgets = section(describe(load_board("r1")), "Budgets:")
    assert budgets[1].endswith("= 11.10 A at full white; 5.55 A at the 50% brightness cap")
    assert "= 8.50 A for LEDs" in budgets[2]
    assert budgets[4] == (
        "  scan: 51 transactions (44 two-port reads + 6 mux selects + 1 mux release), "
        "1416 bit times"
    )


def test_mini_has_no_mux_and_one_int_line() -> None:
    text = describe(load_board("mini"))
    buses = section(text, "Buses")
    assert not any("TCA9548A" in line for line in buses)
    assert buses[-1].endswith(": U1-U4 (4 chips)")
    assert "scan: 4 transactions (4 two-port reads), 116 bit times" in text
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_shared_int_lines_out_of_order_are_listed_exactly(tmp_path: Path) -> None:
    spec = variant(
        tmp_path,
        ("addresses = [0x20, 0x21, 0x22, 0x23]", "addresses = [0x20, 0x21]"),
        (
            "interrupt = 17\n",
            'interrupt = 27\n\n[[expanders]]\nbus = "i2c1"\naddresses = [0x22]\ninterrupt = 17\n'
            '\n[[expanders]]\nbus = "i2c1"\naddresses = [0x23]\ninterrupt = 27\n',
        ),
    )
    ints = [line for line in section(describe(spec), "Buses") if "INT line" in line]
    assert ints == [
        "  INT line GPIO27 (open drain, mirrored, pulled up): U1-U2, U4 (3 chips)",
        "  INT line GPIO17 (open drain, mirrored, pulled up): U3 (1 chip)",
    ]


def test_holes_show_in_the_summary_and_as_gaps_in_the_grid(tmp_path: Path) -> None:
    spec = variant(
        tmp_path,
        ("holes = []", 'holes = ["b2", "c3"]'),
        ("count = 37", "count = 35"),
        ("start = 9", "start = 7"),
        ("start = 22", "start = 20"),
        ("start = 35", "start = 33"),
    )
    text = describe(spec)
    assert "  lattice 3x3 at 40 mm, 7 cells, holes b2, c3" in text
    grid = section(text, "LED map")[1:4]
    assert grid == ["   3  5  6  -", "   2  4  -  3", "   1  0  1  2"]


def test_a_budget_the_cap_cannot_keep_is_called_out(tmp_path: Path) -> None:
    spec = variant(
        tmp_path,
        ("max_brightness = 0.5", "max_brightness = 1"),
        ('order = "GRB"', 'order = "GRBW"'),
    )
    budgets = section(describe(spec), "Budgets:")
    assert "37 LEDs x 4 colours x 20 mA = 2.96 A at full white" in budgets[1]
    assert budgets[2].endswith("1.60 A for LEDs: frames above it are scaled down by the lights")
    assert "32 bits per LED" in budgets[-1]


def test_the_hardware_readme_quotes_the_computed_figures() -> None:
    readme = (BOARDS_DIR.parent / "README.md").read_text(encoding="utf-8")
    assert "magboard board show r1" in readme
    r1, mini = load_board("r1"), load_board("mini")
    for spec in (r1, mini):
        for hz in (100_000, 400_000):
            assert f"{spec.scan_seconds(hz) * 1000:.2f} ms" in readme
        power = spec.power
        full = spec.led_full_white_ma() / 1000
        assert f"{spec.leds.count} x 3 x 20 mA = {full:.2f} A" in readme
        assert f"{full * power.max_brightness:.2f} A" in readme
        assert f"{power.led_budget_ma / 1000:.2f} A" in readme
        assert f"{spec.leds.frame_seconds() * 1000:.2f} ms" in readme
    assert f"| MCP23017-E/SP I/O expander | {len(r1.expanders)} | {len(mini.expanders)} |" in readme
    assert f"44 x 29 + 7 x 20 = {r1.scan_bits()} | 4 x 29 = {mini.scan_bits()} |" in readme
    assert f"{r1.scan_transactions}: 44 reads, 6 selects, 1 release" in readme
    by_senses = Counter(
        next(c.senses for c in r1.channels if c.name == s.channel) if s.channel else "slot"
        for s in r1.sensors
    )
    assert (by_senses["north"], by_senses["south"]) == (144, 144)
    omnipolar = by_senses["any"] + by_senses["slot"]
    assert f"144 `i` + 144 `o` + 36 slots = {omnipolar}" in readme
    assert f"27 cells + 26 slots = {len(mini.sensors)}" in readme
    assert f"| WS2812B LED | {r1.leds.count} | {mini.leds.count} |" in readme
    assert f"| Push button, momentary | {len(r1.buttons)} | {len(mini.buttons)} |" in readme
