"""How well the levels play: `strong` against a uniformly random player and against `easy`, every
game, from both seats, scoring a win 1 and a draw 1/2 (a shared win counts as a draw).

Games are played on the rules' States alone (no board): the opponents' turns are exactly what the
board would show. Thinking time is counted on the process's CPU clock, so games that run side by
side on a busy machine get the same search; a budget below the board's 1 s understates `strong`,
never flatters it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

from magboard.firmware.games import CARRY_OUT, all_games, get_game
from magboard.firmware.games.search import search_hooks

from .mcts import actor
from .opponent import Level, Opponent
from .playout import rewards

GAMES: tuple[tuple[str, dict], ...] = tuple(
    (game.name, dict(hooks.strength))
    for game in all_games()
    if (hooks := search_hooks(game)).strength is not None
)
"""Each game the harness plays, with the options its search hooks give it."""

TARGETS = {"random": 0.90, "easy": 0.70}
"""The least share of the points `strong` must take against each rival."""


@dataclass(frozen=True)
class Pairing:
    game: str
    options: tuple[tuple[str, object], ...]
    seat: int
    """The seat `strong` plays."""
    rival: str
    games: int
    budget: float
    seed: int


@dataclass(frozen=True)
class Standing:
    game: str
    seat: str
    rival: str
    games: int
    wins: int
    draws: int
    losses: int
    budget: float
    slowest: float
    """The longest a turn of `strong` took, in seconds of CPU time."""

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games

    @property
    def passed(self) -> bool:
        return self.score >= TARGETS[self.rival]


def play(pairing: Pairing) -> Standing:
    """Plays the pairing's games, seeds following on from its seed."""
    game = get_game(pairing.game)
    wins = draws = losses = 0
    slowest = 0.0
    for number in range(pairing.games):
        seed = pairing.seed + number
        rng = random.Random(seed)
        strong = Opponent(Level.STRONG, clock=time.process_time, budget=pairing.budget, seed=seed)
        easy = Opponent(Level.EASY, clock=time.process_time, budget=pairing.budget, seed=~seed)
        state = game.new_state(dict(pairing.options))
        while (outcome := state.outcome()) is None:
            if actor(state) == pairing.seat:
                started = time.process_time()
                turn = strong.choose(state)
                slowest = max(slowest, time.process_time() - started)
            elif pairing.rival == "easy":
                turn = easy.choose(state)
            else:
                turn = (rng.choice(state.legal_actions()),)
            for action in turn:
                state = state.advance(action)
            while state.obligations and state.outcome() is None:
                state = state.advance(CARRY_OUT)  # the hands follow the rules
        share = rewards(outcome, state.players)[pairing.seat]
        wins += share == 1.0
        losses += share == 0.0
        draws += 0.0 < share < 1.0
    return Standing(
        pairing.game,
        game.seats[pairing.seat],
        pairing.rival,
        pairing.games,
        wins,
        draws,
        losses,
        pairing.budget,
        slowest,
    )


def pairings(
    random_games: int, easy_games: int, budget: float, names: tuple[str, ...] = ()
) -> Iterator[Pairing]:
    for name, options in GAMES:
        if names and name not in names:
            continue
        for seat in (0, 1):
            for rival, count in (("random", random_games), ("easy", easy_games)):
                yield Pairing(name, tuple(options.items()), seat, rival, count, budget, 1000 * seat)


def measure(
    random_games: int = 200,
    easy_games: int = 100,
    budget: float = 0.1,
    names: tuple[str, ...] = (),
    jobs: int = 2,
) -> dict:
    """Every pairing, `jobs` at a time in processes of their own (each is single-threaded)."""
    work = list(pairings(random_games, easy_games, budget, names))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        standings = list(pool.map(play, work))
    return {
        "budget": budget,
        "standings": [
            {**asdict(s), "score": round(s.score, 3), "passed": s.passed} for s in standings
        ],
    }


def format_report(result: dict) -> str:
    rows = [
        f"strong at {result['budget']:g} s a turn (CPU), win 1, draw 1/2; at least "
        f"{TARGETS['random']:.0%} against random and {TARGETS['easy']:.0%} against easy",
        f"{'game':16} {'strong':>6} {'against':>8} {'games':>6} {'won':>5} {'drawn':>6} "
        f"{'lost':>5} {'score':>7} {'slowest':>8}",
    ]
    for s in result["standings"]:
        mark = "" if s["passed"] else "  BELOW"
        rows.append(
            f"{s['game']:16} {s['seat']:>6} {s['rival']:>8} {s['games']:>6} {s['wins']:>5} "
            f"{s['draws']:>6} {s['losses']:>5} {s['score']:>7.1%} {s['slowest']:>7.2f}s{mark}"
        )
    below = [s for s in result["standings"] if not s["passed"]]
    rows.append("all pass" if not below else f"{len(below)} below the mark")
    return "\n".join(rows)
