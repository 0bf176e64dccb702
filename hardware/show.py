"""`magboard board show`: the pin map, LED map and budgets, printed from the board file itself."""

from __future__ import annotations

from collections import defaultdict

from .spec import INPUT_PINS, BoardSpec, cell_label, place_label_any

FREQUENCIES = (100_000, 400_000)


def describe(spec: BoardSpec) -> str:
    parts = [
        _summary(spec),
        _buses(spec),
        _pin_map(spec),
        _led_map(spec),
        _budgets(spec),
    ]
    return "\n\n".join(parts) + "\n"


def _summary(spec: BoardSpec) -> str:
    lines = [
        f"{spec.name}: {spec.title}",
        f"  lattice {spec.columns}x{spec.rows} at {spec.pitch_mm:g} mm, "
        f"{len(spec.cells)} cells" + (f", holes {_cells(spec.holes)}" if spec.holes else ""),
        "  channels under every cell:",
    ]
    lines += [f"    {c.name}  {c.senses:<5}  {c.where}" for c in spec.channels]
    for tray in spec.trays:
        lines.append(
            f"  tray {tray.name} ({tray.side}): {sum(tray.rows)} slots in rows of "
            f"{'/'.join(map(str, tray.rows))}"
        )
    for button in spec.buttons:
        lines.append(f"  button {button.name:<7} GPIO{button.gpio:<3} {button.label}")
    return "\n".join(lines)


def _buses(spec: BoardSpec) -> str:
    lines = ["Buses and expanders (MCP23017: GPA0-6 and GPB0-6 in, GPA7/GPB7 never inputs):"]
    for bus in spec.buses:
        lines.append(f"  {bus.name}: {bus.frequency // 1000} kHz on {bus.sda}/{bus.scl}")
    for mux in spec.muxes:
        lines.append(f"  {mux.name}: TCA9548A at 0x{mux.address:02x} on {mux.bus}")
    # In expander order: a dict keeps the order in which each line is first met.
    by_line: dict[int | None, list[int]] = defaultdict(list)
    for expander in spec.expanders:
        by_line[expander.interrupt].append(expander.index + 1)
    for gpio, chips in by_line.items():
        count = f"{len(chips)} chip{'s' if len(chips) > 1 else ''}"
        line = (
            "no INT line, polled"
            if gpio is None
            else f"INT line GPIO{gpio} (open drain, mirrored, pulled up)"
        )
        lines.append(f"  {line}: {_ranges(chips, 'U')} ({count})")
    return "\n".join(lines)


def _pin_map(spec: BoardSpec) -> str:
    per_chip = len(INPUT_PINS)
    lines = ["Pin map (in frame-bit order: PIN=CELL.CHANNEL, or PIN=TRAY+SLOT for a tray):"]
    by_chip: dict[int, list[str]] = defaultdict(list)
    for sensor in spec.sensors:
        by_chip[sensor.expander].append(f"{sensor.pin_name}={sensor.label}")
    for expander in spec.expanders:
        wired = by_chip.get(expander.index, [])
        spare = per_chip - len(wired)
        tail = f"  ({spare} spare)" if spare else ""
        first = expander.index * per_chip
        lines.append(
            f"  {expander.label}  bits {first}-{first + per_chip - 1}: {' '.join(wired)}{tail}"
        )
    return "\n".join(lines)


def _led_map(spec: BoardSpec) -> str:
    leds = spec.leds
    lines = [f"LED map ({leds.count} x {leds.order} on {leds.pin}):"]
    index = spec.led_index
    grid = []
    width = len(str(leds.count - 1))
    for row in reversed(range(spec.rows)):
        cells = [
            str(index[(c, row)]).rjust(width) if (c, row) in index else "-".rjust(width)
            for c in range(spec.columns)
        ]
        grid.append(f"  {row + 1:>2} " + " ".join(cells))
    letters = " ".join(chr(ord("a") + c).rjust(width) for c in range(spec.columns))
    grid.append(f"     {letters}")
    lines += grid
    for tray in spec.trays:
        leds_of = [index[slot] for slot in tray.slots]
        lines.append(f"  tray {tray.name}: slots 1-{len(leds_of)} -> LEDs {_ranges(leds_of)}")
    status = sorted((led, place) for place, led in index.items() if isinstance(place, str))
    if status:
        lines.append("  status: " + ", ".join(f"{place_label_any(p)}={led}" for led, p in status))
    return "\n".join(lines)


def _ranges(numbers: list[int], prefix: str = "") -> str:
    """Consecutive runs joined: [1, 2, 3, 5] -> '1-3, 5' (with a prefix: 'U1-U3, U5')."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(
        f"{prefix}{r[0]}-{prefix}{r[-1]}" if len(r) > 1 else f"{prefix}{r[0]}" for r in runs
    )


def _budgets(spec: BoardSpec) -> str:
    power = spec.power
    full = spec.led_full_white_ma()
    capped = full * power.max_brightness
    budget = power.led_budget_ma
    verdict = (
        "frames above it are scaled down by the lights"
        if capped > budget
        else "the brightness cap keeps every frame within it"
    )
    selects = (
        f" + {spec.mux_selects} mux selects + {spec.mux_releases} mux release"
        f"{'s' if spec.mux_releases > 1 else ''}"
        if spec.muxes
        else ""
    )
    lines = [
        "Budgets:",
        f"  LED current: {spec.leds.count} LEDs x {spec.leds.colours} colours x "
        f"{power.led_channel_ma:g} mA = {full / 1000:.2f} A at full white; "
        f"{capped / 1000:.2f} A at the {power.max_brightness:.0%} brightness cap",
        f"  LED supply: {power.supply_amps:g} A - {power.reserve_amps:g} A reserve = "
        f"{budget / 1000:.2f} A for LEDs: {verdict}",
        f"  sensors: {len(spec.sensors)} on {len(spec.expanders)} expanders "
        f"({spec.frame_bits} inputs, {spec.frame_bits - len(spec.sensors)} spare)",
        f"  scan: {spec.scan_transactions} transactions ({len(spec.expanders)} two-port reads"
        f"{selects}), {spec.scan_bits()} bit times",
    ]
    for frequency in FREQUENCIES:
        seconds = spec.scan_seconds(frequency)
        lines.append(
            f"  scan at {frequency // 1000} kHz: {seconds * 1000:.2f} ms on the wire per full "
            f"frame ({1 / seconds:.0f} frames/s at most, before software overhead)"
        )
    lines.append(
        f"  LED frame: {spec.leds.frame_seconds() * 1000:.2f} ms on the wire "
        f"({spec.leds.colours * 8} bits per LED at 800 kbit/s, then the latch)"
    )
    return "\n".join(lines)


def _cells(cells: frozenset) -> str:
    return ", ".join(cell_label(c) for c in sorted(cells, key=lambda c: (c[1], c[0])))


__all__ = ["describe"]
