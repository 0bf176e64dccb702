"""The piece-bits kernel: C and its Python twin draw the same bits as the pieces' own masks."""

from __future__ import annotations

import random

import pytest

from magboard.firmware.native import py_frames

try:
    from magboard.firmware.native import c_frames
except ImportError:  # a machine without the C extension tests the twin alone
    c_frames = None

KERNELS = [py_frames] + ([c_frames] if c_frames is not None else [])


def _bits(rng: random.Random, cells: int, codes: int, width: int) -> list[list[int]]:
    return [[0] + [rng.getrandbits(width) for _ in range(codes - 1)] for _ in range(cells)]


def _expected(board: bytes, bits: list[list[int]]) -> int:
    frame = 0
    for i, code in enumerate(board):
        if 0 < code < len(bits[i]):
            frame |= bits[i][code]
    return frame


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__.rsplit(".", 1)[-1])
@pytest.mark.parametrize("width", [1, 64, 65, 704, 1000])
def test_the_bits_of_a_board_are_its_pieces_bits(kernel, width):
    rng = random.Random(width)
    for _ in range(50):
        cells, codes = rng.randint(1, 121), rng.randint(1, 8)
        bits = _bits(rng, cells, codes, width)
        table = kernel.table(bits)
        board = bytes(rng.choice([0, 0, 0, *range(codes + 2)]) for _ in range(cells))
        assert kernel.pieces(board, table) == _expected(board, bits)


@pytest.mark.skipif(c_frames is None, reason="the C extension is not built")
def test_c_and_python_agree_on_an_empty_board_and_a_full_one():
    bits = _bits(random.Random(7), 100, 7, 704)
    for board in (bytes(100), bytes(range(1, 7)) * 16 + bytes(4)):
        assert c_frames.pieces(board, c_frames.table(bits)) == py_frames.pieces(
            board, py_frames.table(bits)
        )


@pytest.mark.skipif(c_frames is None, reason="the C extension is not built")
def test_c_refuses_a_board_longer_than_its_table():
    table = c_frames.table(_bits(random.Random(1), 4, 3, 64))
    with pytest.raises(ValueError):
        c_frames.pieces(bytes(5), table)
