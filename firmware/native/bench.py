"""How much the C line detector buys over the pure-Python one, per board, on the reference shapes.

Three timings per shape on the same seeded random boards: the C kernel one board per call through
the public `winners` (what the referee pays per move), the C kernel on a whole batch in one call
(the kernel's own cost, wrapper amortised away), and the Python fallback one board per call.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Callable

from magboard.firmware.table import aligned, ratio

from . import py_lines
from .samples import SHAPES, random_boards

try:
    from . import c_lines
except ImportError:
    c_lines = None

BATCH = 10_000  # boards per batch call
SINGLE = 1_000  # boards per timed loop of single calls: the first of the batch's boards
REPEATS = 15
SEED = 2026


def _timed(run: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        run()
    return time.perf_counter() - start


def _calibrate(run: Callable[[], object], per_run: float) -> int:
    """How many calls make one timed run last at least `per_run` seconds, far above the clock's
    resolution."""
    number = 1
    while (elapsed := _timed(run, number)) < per_run:
        number = max(number * 2, int(number * per_run / max(elapsed, 1e-9) * 1.2))
    return number


def _ns_per_board(
    loops: dict[str, tuple[Callable[[], object], int]], min_time: float
) -> dict[str, float]:
    """Best time per board of each loop (a call and the boards it handles). The loops take turns,
    REPEATS rounds of one run each, so a slow spell on the machine hits all of them alike and the
    ratios hold; the best, not the mean, because noise only ever adds time."""
    per_run = min_time / REPEATS
    numbers = {name: _calibrate(run, per_run) for name, (run, _) in loops.items()}
    best = dict.fromkeys(loops, float("inf"))
    for _ in range(REPEATS):
        for name, (run, _) in loops.items():
            best[name] = min(best[name], _timed(run, numbers[name]))
    return {
        name: best[name] / (numbers[name] * boards) * 1e9 for name, (_, boards) in loops.items()
    }


def _measure_shape(name: str, min_time: float) -> dict:
    shape = SHAPES[name]
    boards = random_boards(shape, BATCH, SEED)
    batch = b"".join(boards)
    single = boards[:SINGLE]
    py_winners = py_lines.winners
    expected = bytes(py_winners(shape, board) for board in single)

    def python_loop() -> None:
        for board in single:
            py_winners(shape, board)

    loops: dict[str, tuple[Callable[[], object], int]] = {"python_ns": (python_loop, SINGLE)}
    if c_lines is not None:
        c_winners, c_batch = c_lines.winners, c_lines.winners_batch
        if c_batch(shape, batch)[:SINGLE] != expected:
            raise RuntimeError(f"{name}: the C and Python line detectors disagree")

        def c_single_loop() -> None:
            for board in single:
                c_winners(shape, board)

        loops["c_single_ns"] = (c_single_loop, SINGLE)
        loops["c_batch_ns"] = (lambda: c_batch(shape, batch), BATCH)

    times = _ns_per_board(loops, min_time)
    c_single, c_batch_ns, python = (
        times.get("c_single_ns"),
        times.get("c_batch_ns"),
        times["python_ns"],
    )
    return {
        "shape": name,
        "width": shape.width,
        "height": shape.height,
        "run": shape.run,
        "holes": len(shape.holes),
        "boards_with_line": sum(1 for mask in expected if mask) / len(expected),
        "c_single_ns": c_single,
        "c_batch_ns": c_batch_ns,
        "python_ns": python,
        "ratio_single": None if c_single is None else python / c_single,
        "ratio_batch": None if c_batch_ns is None else python / c_batch_ns,
    }


def measure(min_time: float = 0.6) -> dict:
    """Times every reference shape; `min_time` is the least time spent timing each of its loops
    (C single calls, C batch, Python), in REPEATS runs. The result is plain JSON-ready data."""
    return {
        "backend_c": c_lines is not None,
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "machine": platform.machine(),
        "min_time": min_time,
        "batch_boards": BATCH,
        "single_boards": SINGLE,
        "shapes": [_measure_shape(name, min_time) for name in SHAPES],
    }


def _ns(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def format_report(result: dict) -> str:
    """A small aligned table of nanoseconds per board and Python/C ratios."""
    columns = ("shape", "C call", "C batch", "Python", "Py/C call", "Py/C batch", "lines")
    rows = [
        (
            entry["shape"],
            _ns(entry["c_single_ns"]),
            _ns(entry["c_batch_ns"]),
            _ns(entry["python_ns"]),
            ratio(entry["ratio_single"]),
            ratio(entry["ratio_batch"]),
            f"{entry['boards_with_line']:.0%}",
        )
        for entry in result["shapes"]
    ]

    c_state = "built" if result["backend_c"] else "NOT BUILT (run `make setup`)"
    header = (
        f"line detector, ns per board, best of {REPEATS} runs;"
        f" C extension {c_state}; Python {result['python']} on {result['machine']}"
    )
    lines = [header, *aligned(columns, rows)]
    lines.append(
        f"(C call: public winners() per board; C batch: {result['batch_boards']:,} boards per"
        " call; lines: share of boards with a line)"
    )
    lines.append(summary(result))
    return "\n".join(lines)


def summary(result: dict) -> str:
    """The verdict is the worst row's: the shape C speeds up least, per call (what the referee
    does), named; the Python time per board where C is not built."""
    shapes = result["shapes"]
    if not result["backend_c"]:
        slowest = max(shapes, key=lambda entry: entry["python_ns"])
        return (
            f"worst row: {slowest['shape']}, {_ns(slowest['python_ns'])} ns per board"
            " (Python only: the C extension is not built)"
        )
    worst = min(shapes, key=lambda entry: entry["ratio_single"])
    return (
        f"worst row: {worst['shape']}, C per call {ratio(worst['ratio_single'])} faster than"
        f" Python ({_ns(worst['c_single_ns'])} ns per board)"
    )


if __name__ == "__main__":
    outcome = measure()
    print(json.dumps(outcome, indent=2) if "--json" in sys.argv[1:] else format_report(outcome))
