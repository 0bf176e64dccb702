"""Which profile models each game, and so which boards can play it.

Each profile module registers its maker at its bottom (`register_profile`); a maker raises
`NotProvided` where a board lacks what its game needs (the lattice for its area, the channels
its pieces trip). A game is played on every board that provides
what its profile needs, and on no other: no table lists games by board."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from magboard.firmware.games import Game, get_game
from magboard.hardware.spec import BoardSpec, board_names, load_board

from .base import NotProvided, Profile, ProfileError

ProfileMaker = Callable[[BoardSpec, Mapping[str, Any] | None], Profile]

_MAKERS: dict[str, ProfileMaker] = {}


def register_profile(game: Game, make: ProfileMaker) -> None:
    """Adds `game`'s model, to be matched to any board (a game outside the registry of the
    board's own, such as a test's, too)."""
    _MAKERS[game.name] = make


def profile_for(game: Game, spec: BoardSpec, options: Mapping[str, Any] | None = None) -> Profile:
    """The physical model of `game` (with its `options`: they may change the supplies) on a
    board; ProfileError if it has none, the board lacks what it needs (`NotProvided`), or its
    trays cannot hold the pieces."""
    make = _MAKERS.get(game.name)
    if make is None:
        raise ProfileError(f"{game.name} has no profile for any board")
    return make(spec, options)


def profiled_pairs() -> list[tuple[str, str]]:
    """Every (game, reference board) where the board provides what the game's profile needs."""
    boards = [load_board(name) for name in board_names()]
    return sorted(
        (name, spec.name) for name, make in _MAKERS.items() for spec in boards if _fits(make, spec)
    )


def profiled_variants() -> list[tuple[str, str, dict[str, Any]]]:
    """Every (game, board) profile with each set of options that changes what a turn is made
    of (`Game.turn_option`), the defaults first."""
    found = []
    for game_name, board_name in profiled_pairs():
        game = get_game(game_name)
        option = game.option(game.turn_option) if game.turn_option else None
        found.append((game_name, board_name, {}))
        if option is not None:
            found += [
                (game_name, board_name, {option.name: choice})
                for choice in option.choices
                if choice != option.default
            ]
    return found


def _fits(make: ProfileMaker, spec: BoardSpec) -> bool:
    try:
        make(spec, None)
    except NotProvided:
        return False
    return True
