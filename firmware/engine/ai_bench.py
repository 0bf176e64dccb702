"""Random playouts per second for every game: what the opponent's search can afford per move.

Each row times one way of playing a game out from its start, with the C kernels and with their
pure-Python twins, side by side in one run: Lance Assembly's compact engine (a bout per playout,
`c_lance` against `py_lance`), and every game's rules' own States (`playout.state_playout`, a
Lance bout for Lance Assembly), where the only kernel is the line detector the rules call
(`c_lines` against `py_lines`; Meeple Maneuver and Magnetmen call none, so both columns run the
same code there: their ratio is the noise of the measure). Both columns of a row play the same
playouts from the same seeds, so a ratio compares equal work.
"""

from __future__ import annotations

import json
import platform
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from magboard.firmware import native
from magboard.firmware.games import get_game
from magboard.firmware.games.lance import LanceState
from magboard.firmware.games.lance.engine import encode
from magboard.firmware.games.meeplemaneuver import engine as meeples
from magboard.firmware.native import py_lance, py_lines, py_meeples
from magboard.firmware.table import aligned, ratio

from .playout import state_playout

try:
    from magboard.firmware.native import c_lance
except ImportError:
    c_lance = None
try:
    from magboard.firmware.native import c_lines
except ImportError:
    c_lines = None
try:
    from magboard.firmware.native import c_meeples
except ImportError:
    c_meeples = None

REPEATS = 7
SEED = 2026

COMPACT = "compact"
STATES = "States"
LOOK_AHEAD = "look-ahead"


@dataclass(frozen=True)
class Case:
    """One row: a game with its options, played out one way."""

    game: str
    options: tuple[tuple[str, Any], ...]
    path: str

    @property
    def label(self) -> str:
        return ", ".join(f"{name}={value}" for name, value in self.options) or "defaults"


LANCE_OPTIONS = (("clock", "none"),)
CASES = (
    Case("tic-tac-toe", (), STATES),
    Case("tic-tac-cap", (), STATES),
    Case("tic-tac-doh", (), STATES),
    Case("lance-assembly", LANCE_OPTIONS, COMPACT),
    Case("lance-assembly", LANCE_OPTIONS, STATES),
    Case("meep-tac-toe", (("maneuver", "advanced"),), STATES),
    Case("meeple-maneuver", (), LOOK_AHEAD),
    Case("meeple-maneuver", (), STATES),
    Case("magnetmen", (), STATES),
)
"""Meep Tac Toe with the advanced maneuver stands for its variants: the most actions a turn."""


@contextmanager
def _look_ahead(kernel: Any) -> Iterator[None]:
    """The planner's kernel swapped for `kernel` (c_meeples or py_meeples) while timing."""
    saved, meeples.kernel = meeples.kernel, kernel
    try:
        yield
    finally:
        meeples.kernel = saved


@contextmanager
def _line_detector(kernel: Any) -> Iterator[None]:
    """The rules' line detector swapped for `kernel`'s (c_lines or py_lines) while timing a
    column: the rules call it through the `native` package, which bound one at import."""
    saved = native.winners, native.find_lines
    native.winners, native.find_lines = kernel.winners, kernel.find_lines
    try:
        yield
    finally:
        native.winners, native.find_lines = saved


def _state_bout(state: LanceState, rng: random.Random) -> None:
    """A Lance Assembly bout played out on the rules' States, as the compact engine plays it."""
    choice = rng.choice
    while not state.over:
        state = state._play(choice(state._legal()))


Run = Callable[[int], object]
"""Plays that many playouts, the same ones at every call."""


def _runs(case: Case) -> dict[str, Run]:
    """The row's timed loops by column: "c" (missing where the C is not built) and "python"."""
    start = get_game(case.game).new_state(dict(case.options))
    if case.path == COMPACT:
        position = encode(start)

        def kernel_run(kernel: Any) -> Run:
            def run(number: int) -> None:
                for seed in range(SEED, SEED + number):
                    kernel.playout(position, seed)

            return run

        runs = {"python": kernel_run(py_lance)}
        if c_lance is not None:
            runs["c"] = kernel_run(c_lance)
        return runs
    if case.path == LOOK_AHEAD:
        start_position = meeples.encode(start)

        def plan_run(kernel: Any) -> Run:
            def run(number: int) -> None:
                rng = random.Random(SEED)
                with _look_ahead(kernel):
                    for _ in range(number):
                        meeples.plan(start_position, rng, time.perf_counter, float("inf"))

            return run

        runs = {"python": plan_run(py_meeples)}
        if c_meeples is not None:
            runs["c"] = plan_run(c_meeples)
        return runs

    play = _state_bout if case.game == "lance-assembly" else state_playout

    def lines_run(kernel: Any) -> Run:
        def run(number: int) -> None:
            rng = random.Random(SEED)
            with _line_detector(kernel):
                for _ in range(number):
                    play(start, rng)

        return run

    runs = {"python": lines_run(py_lines)}
    if c_lines is not None:
        runs["c"] = lines_run(c_lines)
    return runs


def _timed(run: Run, number: int) -> float:
    begin = time.perf_counter()
    run(number)
    return time.perf_counter() - begin


def _calibrate(run: Run, per_run: float) -> int:
    """How many playouts make one timed run last at least `per_run` seconds."""
    number = 1
    while (elapsed := _timed(run, number)) < per_run:
        number = max(number * 2, int(number * per_run / max(elapsed, 1e-9) * 1.2))
    return number


def _per_second(runs: dict[str, Run], min_time: float) -> dict[str, float]:
    """Best playouts per second of each column. The columns take turns, REPEATS rounds of one
    run each, so a slow spell on the machine hits both alike and the ratio holds; the best, not
    the mean, because noise only ever adds time."""
    per_run = min_time / REPEATS
    numbers = {name: _calibrate(run, per_run) for name, run in runs.items()}
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEATS):
        for name, run in runs.items():
            best[name] = min(best[name], _timed(run, numbers[name]))
    return {name: numbers[name] / best[name] for name in runs}


def _measure_case(case: Case, min_time: float) -> dict:
    rates = _per_second(_runs(case), min_time)
    c, python = rates.get("c"), rates["python"]
    return {
        "game": case.game,
        "options": dict(case.options),
        "path": case.path,
        "c_per_s": c,
        "python_per_s": python,
        "ratio": None if c is None else c / python,
    }


def measure(min_time: float = 0.6) -> dict:
    """Times every row; `min_time` is the least time spent timing each column of a row, in
    REPEATS runs. The result is plain JSON-ready data."""
    return {
        "lance_c": c_lance is not None,
        "lines_c": c_lines is not None,
        "meeples_c": c_meeples is not None,
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "machine": platform.machine(),
        "min_time": min_time,
        "rows": [_measure_case(case, min_time) for case in CASES],
    }


def _rate(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def format_report(result: dict) -> str:
    """An aligned table of playouts per second, C kernels against their Python twins."""
    columns = ("game", "options", "path", "C /s", "Python /s", "C/Py")
    rows = [
        (
            row["game"],
            ", ".join(f"{k}={v}" for k, v in row["options"].items()) or "defaults",
            row["path"],
            _rate(row["c_per_s"]),
            _rate(row["python_per_s"]),
            ratio(row["ratio"]),
        )
        for row in result["rows"]
    ]

    def built(flag: bool) -> str:
        return "built" if flag else "NOT BUILT (run `make setup`)"

    header = (
        f"random playouts per second from the start, best of {REPEATS} runs; C Lance engine"
        f" {built(result['lance_c'])}, C line detector {built(result['lines_c'])},"
        f" C Meeple Maneuver look-ahead {built(result['meeples_c'])};"
        f" Python {result['python']} on {result['machine']}"
    )
    notes = (
        "(a Lance Assembly playout is one bout; compact: the compact engine, C or its Python"
        " twin; States: the rules' own states, with the C or the Python line detector;"
        " look-ahead: whole turns planned from the start, every turn weighed)"
    )
    lines = [header, *aligned(columns, rows, left=3), notes, summary(result)]
    return "\n".join([*lines, look_ahead_summary(result)])


def summary(result: dict) -> str:
    """The verdict: Lance Assembly's compact C engine against its Python twin and against the
    rules' States, the playout the search would otherwise run."""
    by_path = {row["path"]: row for row in result["rows"] if row["game"] == "lance-assembly"}
    compact, states = by_path[COMPACT], by_path[STATES]
    if compact["c_per_s"] is None:
        return (
            f"Lance Assembly: {_rate(compact['python_per_s'])} bouts/s on the Python compact"
            " engine (the C extension is not built)"
        )
    fastest_states = max(filter(None, (states["c_per_s"], states["python_per_s"])))
    return (
        f"Lance Assembly: the C compact engine plays {_rate(compact['c_per_s'])} bouts/s,"
        f" {ratio(compact['ratio'])} its Python twin and"
        f" {ratio(compact['c_per_s'] / fastest_states)} the rules' States"
    )


def look_ahead_summary(result: dict) -> str:
    """Meeple Maneuver's planner: turns planned a second with the C kernel and its twin."""
    row = next(row for row in result["rows"] if row["path"] == LOOK_AHEAD)
    python = _rate(row["python_per_s"])
    if row["c_per_s"] is None:
        return f"Meeple Maneuver: {python} turns/s planned in Python (the C extension is not built)"
    return (
        f"Meeple Maneuver: the planner plans {_rate(row['c_per_s'])} turns/s with the C"
        f" look-ahead, {python} in Python: {ratio(row['ratio'])}"
    )


if __name__ == "__main__":
    outcome = measure()
    print(json.dumps(outcome, indent=2) if "--json" in sys.argv[1:] else format_report(outcome))
