"""How long one full scan of a board's expanders takes in Python, beside its time on the wire.

The scan is the driver stack the Pi runs (hardware/expanders.py's `ExpanderArray`: one bare 2-byte
read per chip, each mux channel selected once) on the simulated bus, on a board wired as
`magboard run` wires one. The simulated board does not charge the wire time to its virtual clock
here, so what `time.perf_counter` sees is Python alone: the driver's work, and the emulated chips'
and bus's, which on a Pi give way to the kernel's I2C driver and the wire itself. So the figure
tells how much of the wire's time the Python side adds, not how long a Pi's scan takes.

The wire time comes from the bits the simulated buses counted during one scan, at the board
file's bus frequency and at 400 and 100 kHz; hardware/README.md ("Scan-time budget") computes
the same figures from the board file, so the two must agree.

Rounds take one scan of each board in turn, so a slow spell on the machine hits them alike, until
each board has spent `min_time` in timed scans (and done at least MIN_SCANS); the median and p99
are over single scans.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from magboard.firmware.app import wiring
from magboard.firmware.games import DEFAULT_GAME, get_game
from magboard.firmware.table import aligned
from magboard.hardware.spec import load_board

from .board import SimBoard

BOARDS = ("r1", "mini")
GAME = DEFAULT_GAME
"""Any game with a profile on every board will do: a scan reads every expander whatever is
played."""
MIN_SCANS = 20
FAST, STANDARD = 400_000, 100_000
"""I2C fast mode (the board files' setting) and standard mode, in Hz."""


@dataclass(frozen=True)
class WireCount:
    """What one scan put on the simulated buses."""

    transactions: int
    bytes: int
    """Every byte clocked, address bytes included."""
    bits: int
    seconds: float
    """At each bus's own frequency."""


def count_one_scan(board: SimBoard) -> WireCount:
    """Scans once, recording the buses' traffic, and says what went over the wire."""
    buses = list(board.buses.values())
    before = [(bus.transactions, bus.bits) for bus in buses]
    for bus in buses:
        bus.record, bus.transfers = True, []
    try:
        board.scan()
        phases = [transfer for bus in buses for transfer in bus.transfers]
    finally:
        for bus in buses:
            bus.record, bus.transfers = False, []
    counts = list(zip(buses, before, strict=True))
    bits = [bus.bits - was for bus, (_, was) in counts]
    return WireCount(
        transactions=sum(bus.transactions - was for bus, (was, _) in counts),
        bytes=sum(1 + len(phase.data) for phase in phases),  # each phase has its address byte
        bits=sum(bits),
        seconds=sum(b / bus.frequency for b, bus in zip(bits, buses, strict=True)),
    )


class _ScannedBoard:
    """One reference board, wired, its scans timed one at a time."""

    def __init__(self, name: str) -> None:
        spec = load_board(name)
        self.spec = spec
        table = wiring.wire(SimBoard(spec, charge_wire_time=False), get_game(GAME))
        self.board = table.board
        self.wire = count_one_scan(self.board)  # also the warm-up
        self.times: list[float] = []
        self.spent = 0.0

    def wants_more(self, min_time: float) -> bool:
        return len(self.times) < MIN_SCANS or self.spent < min_time

    def time_one(self) -> None:
        scan, clock = self.board.scan, time.perf_counter
        start = clock()
        scan()
        elapsed = clock() - start
        self.times.append(elapsed)
        self.spent += elapsed

    def result(self) -> dict[str, Any]:
        wire, spec = self.wire, self.spec
        return {
            "board": spec.name,
            "game": GAME,
            "expanders": len(spec.expanders),
            "muxes": len(spec.muxes),
            "transactions": wire.transactions,
            "bytes": wire.bytes,
            "bits": wire.bits,
            "bus_hz": sorted({bus.frequency for bus in spec.buses}),
            "scans": len(self.times),
            "median_ms": _ms(statistics.median(self.times)),
            "p99_ms": _ms(statistics.quantiles(self.times, n=100, method="inclusive")[98]),
            "wire_ms": _ms(wire.seconds),
            "wire_400khz_ms": _ms(wire.bits / FAST),
            "wire_100khz_ms": _ms(wire.bits / STANDARD),
        }


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 4)


def measure(min_time: float = 0.6) -> dict[str, Any]:
    """Times full scans of every reference board until each has spent `min_time` seconds in
    them. The result is plain JSON-ready data."""
    boards = [_ScannedBoard(name) for name in BOARDS]
    while any(board.wants_more(min_time) for board in boards):
        for board in boards:
            if board.wants_more(min_time):
                board.time_one()
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "machine": platform.machine(),
        "min_time": min_time,
        "boards": [board.result() for board in boards],
    }


def format_report(result: dict[str, Any]) -> str:
    """A small aligned table, milliseconds per scan."""
    columns = (
        "board",
        "expanders",
        "transactions",
        "bytes",
        "bits",
        "scans",
        "median",
        "p99",
        "wire (file)",
        "wire 400 kHz",
        "wire 100 kHz",
    )
    rows = [
        (
            entry["board"],
            str(entry["expanders"]),
            str(entry["transactions"]),
            str(entry["bytes"]),
            str(entry["bits"]),
            f"{entry['scans']:,}",
            f"{entry['median_ms']:.3f}",
            f"{entry['p99_ms']:.3f}",
            f"{entry['wire_ms']:.3f}",
            f"{entry['wire_400khz_ms']:.3f}",
            f"{entry['wire_100khz_ms']:.3f}",
        )
        for entry in result["boards"]
    ]

    files = ", ".join(
        f"{entry['board']} at {' and '.join(f'{hz // 1000} kHz' for hz in entry['bus_hz'])}"
        for entry in result["boards"]
    )
    return "\n".join(
        [
            "one full scan through the real drivers on the simulated bus, milliseconds;"
            f" Python {result['python']} ({result['implementation']}) on {result['machine']}",
            *aligned(columns, rows),
            "(median, p99: Python time per scan, time.perf_counter, the emulated chips' share"
            " included; wire: the bits the scan clocked, over the bus frequency:"
            f" the board file's ({files}), 400 kHz and 100 kHz; bytes include address bytes)",
            summary(result),
        ]
    )


def summary(result: dict[str, Any]) -> str:
    """The verdict is the slowest board's: the one a scan-time budget is first missed on."""
    worst = max(result["boards"], key=lambda entry: entry["p99_ms"])
    wire = max(result["boards"], key=lambda entry: entry["wire_ms"])
    return (
        f"worst row: {worst['board']}, p99 {worst['p99_ms']:.3f} ms per scan;"
        f" longest on the wire: {wire['board']}, {wire['wire_ms']:.3f} ms at its bus frequency"
    )


if __name__ == "__main__":
    outcome = measure()
    print(json.dumps(outcome, indent=2) if "--json" in sys.argv[1:] else format_report(outcome))
