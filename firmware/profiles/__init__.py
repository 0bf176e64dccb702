"""Physical models of the games on the boards: what a position looks like to the sensors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from magboard.firmware.games import Game, get_game
from magboard.hardware.spec import BoardSpec

from .base import Profile, ProfileError
from .lance import lance_profile
from .magnetmen import magnetmen_profile
from .parts import (
    Asked,
    Difference,
    Layout,
    Movement,
    PieceKind,
    Spot,
    Step,
    Supply,
    TileKind,
    TileSpot,
    TileStep,
)
from .sized import tictaccap_profile, tictacdoh_profile
from .tictactoe import tictactoe_profile
from .tiles import meeplemaneuver_profile, meeptactoe_profile

ProfileMaker = Callable[[BoardSpec, Mapping[str, Any] | None], Profile]

_PROFILES: dict[tuple[str, str], ProfileMaker] = {
    ("tic-tac-toe", "mini"): tictactoe_profile,
    ("tic-tac-toe", "r1"): tictactoe_profile,
    ("tic-tac-cap", "mini"): tictaccap_profile,
    ("tic-tac-cap", "r1"): tictaccap_profile,
    ("tic-tac-doh", "r1"): tictacdoh_profile,
    ("lance-assembly", "r1"): lance_profile,
    ("magnetmen", "r1"): magnetmen_profile,
    ("meep-tac-toe", "r1"): meeptactoe_profile,
    ("meeple-maneuver", "r1"): meeplemaneuver_profile,
}


def profile_for(game: Game, spec: BoardSpec, options: Mapping[str, Any] | None = None) -> Profile:
    """The physical model of `game` (with its `options`: they may change the supplies) on a
    board; ProfileError if the board has none, or its trays cannot hold the pieces."""
    make = _PROFILES.get((game.name, spec.name))
    if make is None:
        boards = sorted(board for name, board in _PROFILES if name == game.name)
        where = f"boards {', '.join(boards)}" if boards else "no board yet"
        raise ProfileError(f"{game.name} has no profile for board {spec.name} (it has {where})")
    return make(spec, options)


def profiled_pairs() -> list[tuple[str, str]]:
    return sorted(_PROFILES)


TURN_OPTIONS = {"meep-tac-toe": "maneuver", "magnetmen": "set"}
"""Per game, the option that changes what a turn is made of (Meep Tac Toe's tile actions, the
Magnetmen whose powers add to a turn): each of its choices is a profile of its own to prove
unambiguous, soak and benchmark."""


def profiled_variants() -> list[tuple[str, str, dict[str, Any]]]:
    """Every (game, board) profile with each set of options that changes what a turn is made
    of (`TURN_OPTIONS`), the defaults first."""
    found = []
    for game_name, board_name in profiled_pairs():
        option = TURN_OPTIONS.get(game_name)
        choices = get_game(game_name).option(option).choices if option else ()
        found.append((game_name, board_name, {}))
        default = get_game(game_name).option(option).default if option else None
        found += [(game_name, board_name, {option: c}) for c in choices if c != default]
    return found


def register_profile(game: str, board: str, make: ProfileMaker) -> None:
    """Adds a game's model on a board (a game outside the registry, such as a test's, too)."""
    _PROFILES[(game, board)] = make


__all__ = [
    "Asked",
    "Difference",
    "Layout",
    "Movement",
    "PieceKind",
    "Profile",
    "ProfileError",
    "Spot",
    "Step",
    "Supply",
    "TileKind",
    "TileSpot",
    "TileStep",
    "profile_for",
    "profiled_pairs",
    "profiled_variants",
    "register_profile",
]
