"""Meeple Maneuver's look-ahead kernel in C (meeples.c) behind the same call as py_meeples.

Importing this module raises ImportError when the extension is missing or older than this code.
"""

from __future__ import annotations

from magboard.firmware.article import with_article

from .py_meeples import Cell

try:
    from ._meeples import ffi, lib
except ImportError as exc:
    raise ImportError(
        "the C Meeple Maneuver kernel (magboard.firmware.native._meeples) is not built;"
        " run `make setup` to build it"
    ) from exc

try:
    _best_turn = lib.mm_best_turn
    ERR_POSITION = lib.MM_ERR_POSITION
except AttributeError as exc:
    raise ImportError(
        f"the built C Meeple Maneuver kernel is older than its Python wrapper ({exc});"
        " run `make setup` to rebuild it"
    ) from exc

_new = ffi.new


def best_turn(
    board: bytes, width: int, height: int, tiles: list[Cell], mover: int, kinds: int
) -> tuple[int, int]:
    count = _new("int *")
    flat = [v for tile in tiles for v in tile]
    best = _best_turn(board, width, height, _new("int[]", flat), len(tiles), mover, kinds, count)
    if best == ERR_POSITION:
        raise ValueError(
            f"{with_article(f'{width}x{height}')} board with {len(tiles)} tiles is out of bounds"
        )
    return best, count[0]
