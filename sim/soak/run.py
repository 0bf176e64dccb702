"""Running a soak: the player for the game, the games one after another, and the command."""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from magboard.firmware.app import opponent_seat
from magboard.firmware.app.errors import CommandError
from magboard.firmware.games import DEFAULT_GAME, get_game
from magboard.firmware.profiles import Profile, profile_for
from magboard.hardware.spec import BoardSpec, load_board

from .against_board import BoardSoak, check_seat
from .careless import GameSoak
from .people import PeopleSoak
from .report import format_examples, format_report
from .tally import JournalCost, Tally, bytes_written

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat


def _player_for(profile: Profile) -> type[GameSoak]:
    """Who plays the games: one player for every game, doing what its contract declares."""
    return PeopleSoak


def soak(
    game: str = DEFAULT_GAME,
    board: str | BoardSpec = "r1",
    games: int = 100,
    seed: int = 1,
    options: dict[str, Any] | None = None,
    journal: Path | None = None,
    ai: AiSeat | None = None,
    budget: float | None = None,
) -> Tally:
    """Plays `games` games with trouble mixed in; the same seed gives the same figures. The
    games are journalled in `journal` (for `magboard stats`), else in a temporary database.
    With `ai`, the board plays that seat (thinking `budget` seconds a turn, by a stepped clock)
    and a person makes its moves from its lights (against_board.py)."""
    if games < 1:
        raise CommandError(f"a soak plays 1 game or more, not {games}")
    spec = board if isinstance(board, BoardSpec) else load_board(board)
    found = get_game(game)
    resolved = found.resolve_options(options)
    asked = {name: resolved[name] for name in options or {}}
    profile = profile_for(found, spec, resolved)
    tiles = profile.tile is not None
    tally = Tally(game=found.name, board=spec.name, seed=seed, options=asked, tiles=tiles)
    player: Callable[..., GameSoak] = _player_for(profile)
    if ai is not None:
        check_seat(ai, found)
        tally.ai = f"{found.seats[ai.seat]}:{ai.level.value}"
        player = partial(BoardSoak, ai=ai, budget=budget)
    seeds = random.Random(seed)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="magboard-soak-") as folder:
        path = journal or Path(folder) / "magboard.db"
        before = bytes_written()
        for _ in range(games):
            player(spec, found, resolved, seeds.randrange(2**32), tally, path).play()
            tally.games += 1
        after = bytes_written()
        written = None if before is None or after is None else after - before
        tally.journal = JournalCost.measure(path, written)
    tally.wall_seconds = time.perf_counter() - started
    return tally


def main(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    options = game.parse_options(args.option)
    journal = Path(args.journal).expanduser() if args.journal else None
    ai, budget = opponent_seat.from_args(args, game, options)
    opponent_seat.needs_seat(ai, budget)
    tally = soak(game.name, args.board, args.games, args.seed, options, journal, ai, budget)
    if args.json:
        print(json.dumps(tally.to_dict(), indent=2))
    else:
        print(format_report(tally))
        if getattr(args, "verbose", False) and tally.examples:
            print(format_examples(tally))
    return 0 if tally.ok else 1
