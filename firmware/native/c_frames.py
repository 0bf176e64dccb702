"""The grid-tile games' piece-bits kernel in C (frames.c) behind the same calls as py_frames.

Importing this module raises ImportError when the extension is missing or older than this code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

if sys.byteorder != "little":
    raise ImportError("the C piece-bits kernel reads its words as little-endian bytes")

try:
    from ._frames import ffi, lib
except ImportError as exc:
    raise ImportError(
        "the C piece-bits kernel (magboard.firmware.native._frames) is not built;"
        " run `make setup` to build it"
    ) from exc

try:
    _pieces = lib.fr_pieces
except AttributeError as exc:
    raise ImportError(
        f"the built C piece-bits kernel is older than its Python wrapper ({exc});"
        " run `make setup` to rebuild it"
    ) from exc

_new, _buffer = ffi.new, ffi.buffer
_MASK = (1 << 64) - 1


class PieceBits:
    """The table as C reads it: per cell, per code, the bits as little-endian 64-bit words."""

    def __init__(self, bits: Sequence[Sequence[int]]) -> None:
        self.cells = len(bits)
        self.codes = max((len(codes) for codes in bits), default=1)
        widest = max((b.bit_length() for codes in bits for b in codes), default=0)
        self.words = max(1, -(-widest // 64))
        flat = []
        for codes in bits:
            for code in range(self.codes):
                value = codes[code] if code < len(codes) else 0
                flat += [(value >> (64 * w)) & _MASK for w in range(self.words)]
        self.table = _new("uint64_t[]", flat)
        self.type = f"uint64_t[{self.words}]"


def table(bits: Sequence[Sequence[int]]) -> PieceBits:
    """The kernel's form of `bits` (per cell, per code, the frame bits as an int)."""
    return PieceBits(bits)


def pieces(board: bytes, made: PieceBits) -> int:
    """The frame bits of every piece on `board` (a code the table lacks adds none)."""
    if len(board) > made.cells:
        raise ValueError(f"a board of {len(board)} cells for a table of {made.cells}")
    out = _new(made.type)
    _pieces(board, len(board), made.table, made.codes, made.words, out)
    return int.from_bytes(_buffer(out), "little")
