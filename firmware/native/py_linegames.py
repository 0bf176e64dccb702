"""The line games' engine kernel in plain Python: the reference module's own functions, behind
the same calls as the C kernel (c_linegames)."""

from __future__ import annotations

from magboard.firmware.engine.linegames import LineGame, ValueTable, perft


def moves(game: LineGame, position: bytes) -> list[int]:
    return game.moves(position)


def play(game: LineGame, position: bytes, move: int) -> bytes:
    return game.play(position, move)


def result(game: LineGame, position: bytes) -> int | None:
    return game.result(position)


def new_solver(game: LineGame) -> ValueTable:
    return ValueTable(game)


__all__ = ["moves", "new_solver", "perft", "play", "result"]
