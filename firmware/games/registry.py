"""Names and aliases of the games the board referees.

A game is registered by the package that holds it (`games/__init__` for the board's own, a
test's game by its own module); a consumer finds the games here, and what it needs of each in
the game's declaration, instead of keeping names of its own (tests/test_game_names.py lists
those that still do)."""

from __future__ import annotations

from .core import Game, UnknownGameError

_GAMES: dict[str, Game] = {}
_ALIASES: dict[str, str] = {}


def register(game: Game) -> Game:
    for name in (game.name, *game.aliases):
        if name in _GAMES or name in _ALIASES:
            raise ValueError(f"game name {name!r} is registered twice")
    for other in _GAMES.values():
        for value, rules in game.clocks.items():
            if other.clocks.get(value, rules) != rules:
                raise ValueError(f"clock {value!r} of {game.name} differs from {other.name}'s")
    _GAMES[game.name] = game
    _ALIASES.update({alias: game.name for alias in game.aliases})
    return game


def get_game(name: str) -> Game:
    key = name.strip().lower()
    game = _GAMES.get(key) or _GAMES.get(_ALIASES.get(key, ""))
    if game is None:
        known = ", ".join(sorted(_GAMES))
        raise UnknownGameError(f"no game called {name!r} (games: {known})")
    return game


def all_games() -> tuple[Game, ...]:
    return tuple(_GAMES.values())
