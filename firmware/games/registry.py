"""Names and aliases of the games the board referees."""

from __future__ import annotations

from .core import Game, UnknownGameError

_GAMES: dict[str, Game] = {}
_ALIASES: dict[str, str] = {}


def register(game: Game) -> Game:
    for name in (game.name, *game.aliases):
        if name in _GAMES or name in _ALIASES:
            raise ValueError(f"game name {name!r} is registered twice")
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
