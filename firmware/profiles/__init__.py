"""Physical models of the games on the boards: what a position looks like to the sensors."""

from __future__ import annotations

from collections.abc import Callable

from magboard.firmware.games import Game
from magboard.hardware.spec import BoardSpec

from .base import (
    Difference,
    Layout,
    Movement,
    PieceKind,
    Profile,
    ProfileError,
    Step,
    Supply,
)
from .tictactoe import tictactoe_profile

_PROFILES: dict[tuple[str, str], Callable[[BoardSpec], Profile]] = {
    ("tic-tac-toe", "mini"): tictactoe_profile,
    ("tic-tac-toe", "r1"): tictactoe_profile,
}


def profile_for(game: Game, spec: BoardSpec) -> Profile:
    make = _PROFILES.get((game.name, spec.name))
    if make is None:
        boards = sorted(board for name, board in _PROFILES if name == game.name)
        where = f"boards {', '.join(boards)}" if boards else "no board yet"
        raise ProfileError(f"{game.name} has no profile for board {spec.name} (it has {where})")
    return make(spec)


def profiled_pairs() -> list[tuple[str, str]]:
    return sorted(_PROFILES)


__all__ = [
    "Difference",
    "Layout",
    "Movement",
    "PieceKind",
    "Profile",
    "ProfileError",
    "Step",
    "Supply",
    "profile_for",
    "profiled_pairs",
]
