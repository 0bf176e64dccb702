"""Perfect play for tic-tac-toe, Tic-Tac-Cap and Tic Tac Doh!: the value of any reachable position.

The solver is a memoised negamax over the line-games engine (positions folded by the board's
symmetries, and in Tic-Tac-Cap by seeing the board from the mover's side) that keeps every value it
works out, so later positions of a game are lookups. A line made at once ends a search, and a win
in three stops the look at the other moves: that keeps a whole game of classic Tic-Tac-Cap to
about a million positions.

That is still seconds, where a board's player waits for its first value. So the games that need
it ship an opening table (tables/*.bin): the value of every position of the first OPENING_TURNS
turns, which `python -m magboard.firmware.engine.solve` writes. Past the table a position's
subtree is small (under 0.1 s in C here, about 0.5 s on a Raspberry Pi 4), and what it works out
is kept for the rest of the game. Both kernels read the same table.
"""

from __future__ import annotations

import sys
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from magboard.firmware.games import all_games, get_game
from magboard.firmware.games.core import State
from magboard.firmware.games.search import search_hooks

from .linegames import STATUS, LineGame, encode, game_of, kernel, solver_key, unpack_value

TABLES = Path(__file__).resolve().parent / "tables"
OPENING_TURNS = 5
"""Turns from the start whose positions the opening tables hold."""
TABLED = tuple(
    (game.name, dict(options)) for game in all_games() for options in search_hooks(game).tabled
)
"""The games and options whose whole solve takes more than a moment, as their search hooks
declare them: the others solve from the start in milliseconds."""


@dataclass(frozen=True, order=True)
class Value:
    """A position's worth for the player to move under perfect play."""

    result: int
    """+1 win, 0 draw, -1 loss."""
    plies: int
    """Turns to the end: the winner takes the fewest, the loser the most; in a draw the mover
    takes the fewest (the game ends as soon as it can)."""


def table_path(game: LineGame) -> Path:
    supplies = "".join(map(str, game.supplies))
    cover = "cover" if game.cover_own else "nocover"
    return TABLES / f"{game.kind.name.lower().replace('_', '-')}-{supplies}-{cover}.bin"


def read_table(path: Path) -> list[int]:
    """The `key << 8 | value` words of a table file: sorted, stored as zlib'd deltas."""
    deltas = array("Q")
    deltas.frombytes(zlib.decompress(path.read_bytes()))
    if sys.byteorder != "little":
        deltas.byteswap()
    words, total = [], 0
    for delta in deltas:
        total += delta
        words.append(total)
    return words


def encode_table(words: list[int]) -> bytes:
    ordered = sorted(words)
    deltas = array("Q", (b - a for a, b in zip([0, *ordered], ordered, strict=False)))
    if sys.byteorder != "little":
        deltas.byteswap()
    return zlib.compress(deltas.tobytes(), 9)


class Solver:
    """Values of the positions of one game with its options; keeps what it has worked out."""

    def __init__(
        self, game: LineGame, opening: list[int] | None = None, backend: ModuleType | None = None
    ) -> None:
        """`opening`: values to start from (the game's shipped table when None); `backend`: the
        kernel module (the one MAGBOARD_NATIVE picks when None)."""
        self.game = game
        self._table = (backend or kernel()).new_solver(game)
        if opening is None:
            path = table_path(game)
            opening = read_table(path) if path.exists() else []
        self._table.load(opening)

    @property
    def known(self) -> int:
        """Positions whose value is kept (up to symmetry)."""
        return len(self._table)

    def value(self, state: State) -> Value:
        if game_of(state) != self.game:
            raise ValueError(f"this solver plays {self.game}, not the game of {state!r}")
        return Value(*unpack_value(self._table.solve(encode(state))))

    def position_value(self, position: bytes) -> Value:
        """The value of an engine position of this solver's game."""
        return Value(*unpack_value(self._table.solve(position)))


_solvers: dict[LineGame, Solver] = {}


def solver_for(state: State) -> Solver | None:
    """The solver of the game and options of `state`, or None for a game it cannot solve. One
    solver per game and options is kept for the process, so what a game's first value worked out
    serves every later position of that game."""
    game = game_of(state)
    if game is None:
        return None
    solver = _solvers.get(game)
    if solver is None:
        solver = _solvers[game] = Solver(game)
    return solver


def opening(game: LineGame, start: bytes, turns: int) -> dict[int, bytes]:
    """One position for each key met in the first `turns` turns from `start`, games that are
    over left out (their values take no search)."""
    found = {solver_key(game.kind, start): start}
    level = [start]
    for _ in range(turns):
        following = []
        for position in level:
            for move in game.moves(position):
                child = game.play(position, move)
                key = solver_key(game.kind, child)
                if not child[STATUS] and key not in found:
                    found[key] = child
                    following.append(child)
        level = following
    return found


def opening_table(
    name: str, options: dict, turns: int = OPENING_TURNS, backend: ModuleType | None = None
) -> list[int]:
    """The words of a game's opening table, from a fresh solve."""
    state = get_game(name).new_state(options)
    game = game_of(state)
    assert game is not None
    solver = Solver(game, opening=[], backend=backend)
    table = solver._table
    words = []
    for key, position in opening(game, encode(state), turns).items():
        packed = table.solve(position)
        if packed != 0x81:  # a line made at once: found again at once
            words.append(key << 8 | packed)
    return sorted(words)


def write_tables() -> None:
    TABLES.mkdir(exist_ok=True)
    for name, options in TABLED:
        game = game_of(get_game(name).new_state(options))
        assert game is not None
        words = opening_table(name, options)
        path = table_path(game)
        path.write_bytes(encode_table(words))
        print(f"{path.name}: {len(words):,} positions, {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    write_tables()
