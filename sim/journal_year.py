"""A year of a busy board's journal in a few minutes: `magboard bench journal`.

Games of every kind are played into the real journal (firmware/journal/) on a virtual
calendar, a day at a time, as a cafe's board plays them: turns of a random legal playout, some
taken back, the power cut now and then in the middle of a game, and now and then a record worn
bad on the card before the board comes back. After each cut the board resumes from the journal,
and the game must come back with every move accepted before it. At the end the figures an
operator cares about: how large the database grew against its cap, how long `magboard stats`
and a resume take on a year's history.

The playouts are made once per game (a handful each, picked at random), so the time goes into
the journal, not the rules.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from magboard.firmware.events import GameOver, GameStarted, Moved, TakenBack
from magboard.firmware.games import all_games, get_game
from magboard.firmware.journal import Journal, Limits
from magboard.firmware.stats import read_usage
from magboard.firmware.table import aligned

DAY = 86400.0
EPOCH = 1_767_225_600.0
"""2026-01-01 00:00 UTC: the year's first morning."""
PLAYOUTS = 6
"""Random playouts made per game, the year's games drawn from them."""


@dataclass
class Year:
    """What a year of play did to the journal."""

    days: int
    games: int = 0
    records: int = 0
    power_cuts: int = 0
    worn_records: int = 0
    lost_moves: int = 0
    """Moves accepted before a cut that the resumed game did not have: must be 0."""
    largest_bytes: int = 0
    """The database file at its largest, looked at after each game."""
    largest_log: int = 0
    """Its write-ahead log at its largest (checkpointed every 1,000 pages, then reused)."""
    final_bytes: int = 0
    stats_ms: float = 0.0
    resume_ms: float = 0.0
    """A game in progress at start, the longest playout's first half."""
    by_game: dict[str, int] = field(default_factory=dict)


def playouts(names: list[str], seed: int) -> dict[str, list[list[tuple[str, ...]]]]:
    """A few random legal games of each, as their turns' actions."""
    rng = random.Random(seed)
    found: dict[str, list[list[tuple[str, ...]]]] = {}
    for name in names:
        rules = get_game(name)
        found[name] = []
        for _ in range(PLAYOUTS):
            state = rules.new_state({})
            turns: list[tuple[str, ...]] = []
            turn: list[str] = []
            while state.outcome() is None:
                before = state.turn
                action = rng.choice(list(state.legal_actions()))
                turn.append(str(action))
                state = state.apply(action)
                if state.turn != before or state.outcome() is not None:
                    turns.append(tuple(turn))
                    turn = []
            found[name].append(turns)
    return found


def live_year(
    path: Path,
    *,
    days: int = 365,
    games_per_day: int = 200,
    names: list[str] | None = None,
    limits: Limits | None = None,
    seed: int = 1,
    cut_every: int = 40,
    wear_every: int = 5,
) -> Year:
    """Plays the year into the journal at `path`: a power cut in one game of `cut_every`, a
    worn record at one cut of `wear_every`."""
    names = names or [game.name for game in all_games()]
    board = _Board(path, limits or Limits(), random.Random(seed), Year(days), wear_every)
    games = playouts(names, seed)
    year = board.year
    for day in range(days):
        for n in range(games_per_day):
            board.now = EPOCH + day * DAY + 9 * 3600 + n * (12 * 3600 / games_per_day)
            name = board.rng.choice(names)
            turns = board.rng.choice(games[name])
            cut = board.rng.randrange(len(turns)) if board.rng.randrange(cut_every) == 0 else None
            board.play(name, turns, cut)
            year.games += 1
            year.by_game[name] = year.by_game.get(name, 0) + 1
            year.largest_bytes = max(year.largest_bytes, _size(path))
            year.largest_log = max(year.largest_log, _size(Path(f"{path}-wal")))
    board.journal.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        year.records = db.execute("SELECT max(seq) FROM records").fetchone()[0] or 0
    year.final_bytes = _size(path)
    start = time.perf_counter()
    read_usage(path, now=board.now)
    year.stats_ms = (time.perf_counter() - start) * 1000
    # The board switched off in the middle of the longest game at the year's end, and on again.
    name, turns = max(((n, t) for n in names for t in games[n]), key=lambda game: len(game[1]))
    board.journal = board.started()
    board.play(name, turns, stop_at=len(turns) // 2 + 1)
    board.journal.close()
    start = time.perf_counter()
    board.started().load()
    year.resume_ms = (time.perf_counter() - start) * 1000
    return year


class _Board:
    """The board whose journal lives the year: its clock, its luck, its figures."""

    def __init__(
        self, path: Path, limits: Limits, rng: random.Random, year: Year, wear_every: int
    ) -> None:
        self.path, self.limits, self.rng, self.year = path, limits, rng, year
        self.wear_every = wear_every
        self.now = EPOCH
        self.journal = self.started()

    def started(self) -> Journal:
        """The journal as the board opens it at start."""
        return Journal(self.path, wall=lambda: self.now, limits=self.limits)

    def play(
        self, name: str, turns: list[tuple[str, ...]], cut: int | None = None, stop_at: int = 0
    ) -> None:
        """One game into the journal, to its end or to turn `stop_at`; at turn `cut` the power
        goes and the board comes back from the journal, which must hold every move accepted."""
        seats = tuple(get_game(name).seats)
        self.journal.record(GameStarted(0.0, name, {}, "r1", seats))
        done: list[str] = []
        for n, turn in enumerate(turns, start=1):
            if n == stop_at:
                return
            self.now += 20.0
            if n == cut:
                self.power_cut(done)
                self.journal.record(GameStarted(0.0, name, {}, "r1", seats, tuple(done)))
            seat = (n - 1) % len(seats)
            self.journal.record(Moved(float(n), seat, turn, n))
            done += turn
            if self.rng.random() < 0.03:  # taken back, and made again
                self.journal.record(TakenBack(float(n), seat, turn))
                self.journal.record(Moved(float(n), seat, turn, n))
        self.journal.record(GameOver(float(len(turns)), (0,), (seats[0],), "over"))

    def power_cut(self, done: list[str]) -> None:
        """The power goes (the journal is left as it is, never closed: what was committed is
        on the card, what waited in memory is gone), a record may be worn bad, and the board
        starts again from the journal."""
        self.year.power_cuts += 1
        if self.wear_every and self.rng.randrange(self.wear_every) == 0:
            with sqlite3.connect(self.path) as db:
                game, last = db.execute("SELECT game_id, max(seq) FROM records").fetchone()
                first = db.execute(
                    "SELECT min(seq) FROM records WHERE game_id = ?", (game,)
                ).fetchone()[0]
                if last > first:  # not the last: the one being written when the power went
                    worn = self.rng.randrange(first, last)
                    db.execute("UPDATE records SET snapshot = X'FF' WHERE seq = ?", (worn,))
                    self.year.worn_records += 1
        self.journal = self.started()
        back = self.journal.load()
        actions = back.actions if back else ()
        self.year.lost_moves += sum(1 for a, b in zip(done, actions, strict=False) if a != b)
        self.year.lost_moves += max(0, len(done) - len(actions))


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def measure(min_time: float = 0.0, days: int = 365, games_per_day: int = 200) -> dict[str, Any]:
    """The year for `magboard bench journal` (`min_time` is the other benches'; a year is one
    run)."""
    limits = Limits()
    with tempfile.TemporaryDirectory(prefix="magboard-year-") as folder:
        started = time.perf_counter()
        year = live_year(Path(folder) / "magboard.db", days=days, games_per_day=games_per_day)
        wall = time.perf_counter() - started
    return {**asdict(year), "cap_bytes": limits.max_bytes, "wall_seconds": round(wall, 1)}


def format_report(result: dict[str, Any]) -> str:
    mb = 2**20
    kinds = ", ".join(f"{name} {count:,}" for name, count in result["by_game"].items())
    sizes = (
        f"largest {result['largest_bytes'] / mb:.1f} MB, cap {result['cap_bytes'] / mb:.0f} MB, "
        f"its log at most {result['largest_log'] / mb:.1f} MB"
    )
    rows = [
        ("games", f"{result['games']:,}", kinds),
        ("records", f"{result['records']:,}", "written in the year"),
        ("power cuts", f"{result['power_cuts']:,}", f"worn records {result['worn_records']}"),
        ("moves lost", f"{result['lost_moves']}", "accepted before a cut, missing after it"),
        ("database", f"{result['final_bytes'] / mb:.1f} MB", sizes),
        ("stats", f"{result['stats_ms']:.0f} ms", "magboard stats on the year"),
        ("resume", f"{result['resume_ms']:.0f} ms", "the longest game, half played, at start"),
        ("wall time", f"{result['wall_seconds']:.0f} s", ""),
    ]
    lines = aligned(("", "", ""), rows)[1:]
    return "\n".join([f"a year of a busy board, {result['days']} days", *lines])
