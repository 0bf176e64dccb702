"""How long the board thinks: `strong` at the board's budget (1 s) on the wall clock, as a board
runs it, for turns from the start and from positions further on in every game. A turn may take
at most a tenth more than the budget: one playout, and the bookkeeping after the last one.
"""

from __future__ import annotations

import random
import time

from magboard.firmware.article import with_article
from magboard.firmware.games import CARRY_OUT, get_game

from .ends import ended
from .opponent import DEFAULT_BUDGET, Level, Opponent
from .strength import GAMES

TURNS = (0, 4, 10)
"""Random turns played before each timed turn of the board's."""
ALLOWED = 1.10


def measure(min_time: float = 0.6) -> dict:
    """`min_time` is unused: each timed turn takes the budget it is given."""
    rows = []
    for name, options in GAMES:
        game = get_game(name)
        times = []
        for number, turns in enumerate(TURNS):
            rng = random.Random(number)
            state = game.new_state(options)
            while ended(state) is None and state.turn < turns:
                state = state.advance(rng.choice(state.legal_actions()))
                while state.obligations and state.outcome() is None:
                    state = state.advance(CARRY_OUT)
            if ended(state) is not None:
                continue
            opponent = Opponent(Level.STRONG, clock=time.perf_counter, seed=number)
            started = time.perf_counter()
            opponent.choose(state)
            times.append(time.perf_counter() - started)
        rows.append({"game": name, "turns": len(times), "longest_s": max(times)})
    longest = max(row["longest_s"] for row in rows)
    return {"budget_s": DEFAULT_BUDGET, "rows": rows, "passed": longest <= DEFAULT_BUDGET * ALLOWED}


def format_report(result: dict) -> str:
    budget = result["budget_s"]
    at = with_article(f"{budget:g}")
    rows = [f"strong's longest turn at {at} s budget (wall clock; at most {ALLOWED:.0%})"]
    for row in result["rows"]:
        share = row["longest_s"] / budget
        rows.append(f"{row['game']:16} {row['turns']} turns  {row['longest_s']:.3f} s  {share:.1%}")
    rows.append("within the budget" if result["passed"] else "OVER the budget")
    return "\n".join(rows)
