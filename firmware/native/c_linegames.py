"""The line games' engine kernel (linegames.c) behind the same calls as the pure-Python twin
(py_linegames). Importing this module raises ImportError when the extension is missing or older
than this code."""

from __future__ import annotations

from magboard.firmware.engine.linegames import PASS_MOVE, LineGame

try:
    from ._linegames import ffi, lib
except ImportError as exc:
    raise ImportError(
        "the C line-games kernel (magboard.firmware.native._linegames) is not built;"
        " run `make setup` to build it"
    ) from exc

try:
    _moves = lib.lg_moves
    _play = lib.lg_play
    _result = lib.lg_result
    _perft = lib.lg_perft
    _solve = lib.lg_solve
    _solver_new = lib.lg_solver_new
    _solver_free = lib.lg_solver_free
    _solver_size = lib.lg_solver_size
except AttributeError as exc:
    raise ImportError(
        f"the built C line-games kernel is older than its Python wrapper ({exc});"
        " run `make setup` to rebuild it"
    ) from exc

_new = ffi.new
_buffer = ffi.buffer
_MOVES = lib.LG_MAX_MOVES


def moves(game: LineGame, position: bytes) -> list[int]:
    out = _new("int[]", _MOVES)
    count = _moves(game.kind, game.cover_own, position, out)
    return list(out[0:count])


def play(game: LineGame, position: bytes, move: int) -> bytes:
    after = _new("uint8_t[]", lib.LG_POSITION)
    _play(game.kind, position, move, after)
    return _buffer(after)[:]


def result(game: LineGame, position: bytes) -> int | None:
    found = _result(game.kind, game.cover_own, position)
    return None if found == 1 else found


def perft(game: LineGame, position: bytes, depth: int) -> int:
    """As the Python twin counts; a count past 64 bits is handed to the twin, which has no limit."""
    if depth < 0:
        raise ValueError("perft depth is 0 or more")
    count = _new("uint64_t *")
    status = _perft(game.kind, game.cover_own, position, depth, count)
    if status == lib.LG_ERR_OVERFLOW:
        from magboard.firmware.engine.linegames import perft as python_perft

        return python_perft(game, position, depth)
    if status:
        raise MemoryError("the C line-games perft ran out of memory")
    return int(count[0])


class CValueTable:
    """The C solver's table of values for one game and options (see linegames.ValueTable)."""

    def __init__(self, game: LineGame) -> None:
        self.game = game
        solver = _solver_new(game.kind, game.cover_own)
        if solver == ffi.NULL:
            raise MemoryError("the C line-games solver could not be made")
        self._solver = ffi.gc(solver, _solver_free)

    def __len__(self) -> int:
        return int(_solver_size(self._solver))

    def load(self, words: list[int]) -> None:
        """Takes values worked out before: `key << 8 | packed value` words."""
        if lib.lg_solver_load(self._solver, _new("uint64_t[]", words), len(words)):
            raise MemoryError("the C line-games solver ran out of memory")

    def dump(self) -> list[int]:
        """Every value kept, as `key << 8 | packed value` words, sorted."""
        out = _new("uint64_t[]", len(self))
        lib.lg_solver_dump(self._solver, out)
        return sorted(out)

    def solve(self, position: bytes) -> int:
        packed = _solve(self._solver, position)
        if packed < 0:
            raise MemoryError("the C line-games solver ran out of memory")
        return packed


def new_solver(game: LineGame) -> CValueTable:
    return CValueTable(game)


__all__ = ["PASS_MOVE", "moves", "new_solver", "perft", "play", "result"]
