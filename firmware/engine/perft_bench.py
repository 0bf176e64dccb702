"""How much the line-games engine buys over the referee's States, on the same perft counts.

Per case, three contenders count the same tree: the referee's perft (full States, legality checked
on every action), the engine with its C kernel, and the engine's pure-Python twin. They take turns
in ROUNDS rounds, so a slow spell on the machine hits all of them alike and the ratios hold; each
keeps its best round, because noise only ever adds time.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Callable

from magboard.firmware.games import all_games, get_game
from magboard.firmware.games.perft import perft as state_perft
from magboard.firmware.games.search import search_hooks
from magboard.firmware.table import aligned, ratio

from . import linegames

try:
    from magboard.firmware.native import c_linegames
except ImportError:
    c_linegames = None

CASES = tuple(
    (game.name, dict(options), depth)
    for game in all_games()
    for options, depth in search_hooks(game).perft
)
"""The trees counted, as the games' search hooks declare them."""
ROUNDS = 3


def _seconds(run: Callable[[], int], number: int) -> tuple[float, int]:
    """Time per run over `number` runs, and the count the last run gave."""
    start = time.perf_counter()
    for _ in range(number):
        count = run()
    return (time.perf_counter() - start) / number, count


def _repeats(run: Callable[[], int], per_round: float) -> int:
    """Runs that make one round last about `per_round` seconds (one at least)."""
    once, _ = _seconds(run, 1)
    return max(1, int(per_round / max(once, 1e-9)))


def _measure_case(name: str, options: dict, depth: int, min_time: float) -> dict:
    state = get_game(name).new_state(options)
    game, position = linegames.game_of(state), linegames.encode(state)
    assert game is not None
    runs: dict[str, Callable[[], int]] = {
        "state_s": lambda: state_perft(state, depth),
        "python_s": lambda: linegames.perft(game, position, depth),
    }
    if c_linegames is not None:
        runs["c_s"] = lambda: c_linegames.perft(game, position, depth)
    per_round = min_time / ROUNDS
    numbers = {key: _repeats(run, per_round) for key, run in runs.items()}
    best = dict.fromkeys(runs, float("inf"))
    counts: dict[str, int] = {}
    for _ in range(ROUNDS):
        for key, run in runs.items():
            seconds, counts[key] = _seconds(run, numbers[key])
            best[key] = min(best[key], seconds)
    if len(set(counts.values())) != 1:
        raise RuntimeError(f"{name} perft({depth}): the counts differ: {counts}")
    c_seconds = best.get("c_s")
    return {
        "game": name,
        "options": options,
        "depth": depth,
        "count": counts["state_s"],
        "state_s": best["state_s"],
        "python_s": best["python_s"],
        "c_s": c_seconds,
        "ratio_python": best["state_s"] / best["python_s"],
        "ratio_c": None if c_seconds is None else best["state_s"] / c_seconds,
    }


def measure(min_time: float = 0.6) -> dict:
    """Times every case; `min_time` is the least time each engine spends per case (the referee
    runs once per round whatever it is). The result is plain JSON-ready data."""
    return {
        "backend_c": c_linegames is not None,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "rounds": ROUNDS,
        "min_time": min_time,
        "cases": [_measure_case(name, opts, depth, min_time) for name, opts, depth in CASES],
    }


def _time(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:,.1f} ms"


def format_report(result: dict) -> str:
    """An aligned table of the best time per perft and how many times faster the engine is."""
    columns = ("case", "count", "States", "engine Py", "engine C", "States/Py", "States/C")
    rows = [
        (
            f"{entry['game']} {' '.join(f'{k}={v}' for k, v in entry['options'].items())}".strip()
            + f" perft({entry['depth']})",
            f"{entry['count']:,}",
            _time(entry["state_s"]),
            _time(entry["python_s"]),
            _time(entry["c_s"]),
            ratio(entry["ratio_python"]),
            ratio(entry["ratio_c"]),
        )
        for entry in result["cases"]
    ]

    c_state = "built" if result["backend_c"] else "NOT BUILT (run `make setup`)"
    header = (
        f"perft, best of {result['rounds']} rounds; C kernel {c_state};"
        f" Python {result['python']} on {result['machine']}"
    )
    return "\n".join(
        [
            header,
            *aligned(columns, rows),
            "(States: the referee's perft; engine: the line-games engine, same counts)",
        ]
    )


if __name__ == "__main__":
    outcome = measure()
    print(json.dumps(outcome, indent=2) if "--json" in sys.argv[1:] else format_report(outcome))
