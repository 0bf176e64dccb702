"""The grid-tile games' piece-bits kernel in plain Python: the twin of the C kernel (frames.c).

A profile draws every position the referee's search weighs; the pieces on the board are most of
that drawing. A board is the rules' bytes (a piece code per lattice cell, 0 for empty); a table,
made once per profile by `table`, holds the frame bits each code trips on each cell.
"""

from __future__ import annotations

from collections.abc import Sequence


class PieceBits:
    """Per lattice cell, the frame bits of each piece code standing there (code 0: none)."""

    def __init__(self, bits: Sequence[Sequence[int]]) -> None:
        self.bits = [list(codes) for codes in bits]


def table(bits: Sequence[Sequence[int]]) -> PieceBits:
    """The kernel's form of `bits` (per cell, per code, the frame bits as an int)."""
    return PieceBits(bits)


def pieces(board: bytes, made: PieceBits) -> int:
    """The frame bits of every piece on `board` (a code the table lacks adds none)."""
    bits, frame = made.bits, 0
    for i, code in enumerate(board):
        if code:
            codes = bits[i]
            if code < len(codes):
                frame |= codes[code]
    return frame
