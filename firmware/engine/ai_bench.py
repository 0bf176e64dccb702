"""Random playouts per second for every game: what the opponent's search can afford per move.

Each row times one way of playing a game out from its start, with the C kernels and with their
pure-Python twins, side by side in one run: the rows a game declares (`SearchHooks.bench`): its
compact engine or its planner, C kernel against Python twin, and the rules' own States
(`playout.state_playout`, or how far the game's search plays), where the only kernel is the line
detector the rules call (`c_lines` against `py_lines`; games that call none run the same code in
both columns: their ratio is the noise of the measure). Both columns of a row play the same
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
from dataclasses import dataclass, field
from typing import Any

from magboard.firmware import native
from magboard.firmware.games import State, all_games, get_game
from magboard.firmware.games.search import COMPACT, LOOK_AHEAD, STATES, search_hooks
from magboard.firmware.native import py_lines
from magboard.firmware.table import aligned, ratio

from .playout import state_playout

try:
    from magboard.firmware.native import c_lines
except ImportError:
    c_lines = None

REPEATS = 7
SEED = 2026

__all__ = ["COMPACT", "LOOK_AHEAD", "STATES", "Case", "format_report", "measure"]


@dataclass(frozen=True)
class Case:
    """One row: a game with its options, played out one way."""

    game: str
    options: tuple[tuple[str, Any], ...]
    path: str
    runs: Callable[[State, int], dict[str, Run]] | None = field(
        default=None, compare=False, repr=False
    )
    """The game's own timed loops (a path other than States)."""
    play: Callable[[State, random.Random], object] | None = field(
        default=None, compare=False, repr=False
    )
    """How a States playout runs, when not to the game's end."""
    unit: str = "playouts"

    @property
    def label(self) -> str:
        return ", ".join(f"{name}={value}" for name, value in self.options) or "defaults"


Run = Callable[[int], object]
"""Plays that many playouts, the same ones at every call."""

CASES = tuple(
    Case(game.name, row.options, row.path, row.runs, row.play, row.unit)
    for game in all_games()
    for row in search_hooks(game).bench
)
"""Every game's rows, as its search hooks declare them."""


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


def _runs(case: Case) -> dict[str, Run]:
    """The row's timed loops by column: "c" (missing where the C is not built) and "python"."""
    start = get_game(case.game).new_state(dict(case.options))
    if case.runs is not None:
        return case.runs(start, SEED)
    play = case.play or state_playout

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
        "unit": case.unit,
        "c_per_s": c,
        "python_per_s": python,
        "ratio": None if c is None else c / python,
    }


def measure(min_time: float = 0.6) -> dict:
    """Times every row; `min_time` is the least time spent timing each column of a row, in
    REPEATS runs. The result is plain JSON-ready data."""
    return {
        "lines_c": c_lines is not None,
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

    built = "built" if result["lines_c"] else "NOT BUILT (run `make setup`)"
    header = (
        f"random playouts per second from the start, best of {REPEATS} runs; C line detector"
        f" {built} (a game's own C kernel shows - where it is not);"
        f" Python {result['python']} on {result['machine']}"
    )
    notes = (
        "(compact: a game's compact engine, C or its Python twin, a playout to where its search"
        " stops; States: the rules' own states, with the C or the Python line detector;"
        " look-ahead: whole turns planned from the start, every turn weighed)"
    )
    lines = [header, *aligned(columns, rows, left=3), notes]
    return "\n".join([*lines, *summaries(result)])


def summaries(result: dict) -> list[str]:
    """The verdict on each game's own path, in the rows' order."""
    found = []
    for row in result["rows"]:
        if row["path"] == COMPACT:
            states = next(
                r for r in result["rows"] if r["game"] == row["game"] and r["path"] == STATES
            )
            found.append(compact_summary(row, states))
        elif row["path"] == LOOK_AHEAD:
            found.append(look_ahead_summary(row))
    return found


def compact_summary(compact: dict, states: dict) -> str:
    """A game's compact C engine against its Python twin and against the rules' States, the
    playout the search would otherwise run."""
    title, unit = get_game(compact["game"]).title, compact["unit"]
    if compact["c_per_s"] is None:
        return (
            f"{title}: {_rate(compact['python_per_s'])} {unit}/s on the Python compact"
            " engine (the C extension is not built)"
        )
    fastest_states = max(filter(None, (states["c_per_s"], states["python_per_s"])))
    return (
        f"{title}: the C compact engine plays {_rate(compact['c_per_s'])} {unit}/s,"
        f" {ratio(compact['ratio'])} its Python twin and"
        f" {ratio(compact['c_per_s'] / fastest_states)} the rules' States"
    )


def look_ahead_summary(row: dict) -> str:
    """A game's planner: turns planned a second with the C kernel and its twin."""
    title, python = get_game(row["game"]).title, _rate(row["python_per_s"])
    if row["c_per_s"] is None:
        return f"{title}: {python} turns/s planned in Python (the C extension is not built)"
    return (
        f"{title}: the planner plans {_rate(row['c_per_s'])} turns/s with the C"
        f" look-ahead, {python} in Python: {ratio(row['ratio'])}"
    )


if __name__ == "__main__":
    outcome = measure()
    print(json.dumps(outcome, indent=2) if "--json" in sys.argv[1:] else format_report(outcome))
