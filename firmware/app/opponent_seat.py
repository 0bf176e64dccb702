"""Asking for the board as an opponent: `--ai SEAT[:LEVEL]` and `--ai-budget SECONDS` on `run`,
`play` and `sim`, and `ai` / `ai_budget` in the configuration file.

Read once here so every command refuses the same mistakes in the same one line, before anything
opens: a seat the game does not have or a level nobody knows must not start a game in which the
board silently plays no one. Cheap to import (the commands' parsers use it): the engine is
loaded only when a seat is read.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import CommandError

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat
    from magboard.firmware.games import Game


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument(
        "--ai",
        metavar="SEAT[:LEVEL]",
        help="the board plays this seat (by name or number: O, 2, B:strong); levels easy, "
        "normal (the default), strong",
    )
    parser.add_argument(
        "--ai-budget",
        type=float,
        metavar="SECONDS",
        help="with --ai: the board's thinking time per turn (default 1)",
    )
    return parser


def budget_of(value: object, name: str = "--ai-budget") -> float:
    """A thinking time: a number of seconds, more than 0 (CommandError in one line)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CommandError(f"{name} is a number of seconds, not {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise CommandError(f"{name} is a number of seconds, more than 0, not {value!r}")
    return float(value)


def seat_of(
    text: str | None, game: Game, name: str = "--ai", options: Mapping[str, Any] | None = None
) -> AiSeat | None:
    """The seat `text` names in `game` played with `options` (None: the board plays no one):
    one of the seats that game has with those options (Magnetmen's `players`)."""
    if text is None:
        return None
    from magboard.firmware.engine.opponent import AiSpecError, parse_ai

    try:
        seat = parse_ai(text, game)
    except AiSpecError as error:
        raise CommandError(f"{name} {text!r}: {error}") from None
    players = game.new_state(game.resolve_options(options)).players
    if seat.seat >= players:
        seats = ", ".join(game.seats[:players])
        raise CommandError(f"{name} {text!r}: this {game.title} is played by {seats}")
    return seat


def needs_seat(seat: AiSeat | None, budget: float | None) -> None:
    """A thinking time with no seat to think for is a mistake, not a no-op."""
    if budget is not None and seat is None:
        raise CommandError("--ai-budget is the thinking time of --ai: give --ai SEAT too")


def from_args(
    args: argparse.Namespace, game: Game, options: Mapping[str, Any] | None = None
) -> tuple[AiSeat | None, float | None]:
    """`--ai` and `--ai-budget` as given (None where not given)."""
    text, budget = getattr(args, "ai", None), getattr(args, "ai_budget", None)
    return seat_of(text, game, options=options), None if budget is None else budget_of(budget)
