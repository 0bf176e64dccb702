"""Meeple Maneuver's look-ahead kernel in plain Python: the twin of the C kernel (meeples.c).

`best_turn` answers the question a capture planner asks of every position it weighs: how many
neutral meeples could the player capture with one whole turn from here, and by how many turns.
A turn is a meeple placed on an empty cell of a tile, then two tile actions on that tile; only
where the tile ends and how far it turned matter, so each different end is counted once (with
the rules' step-by-step checks: inside the area, over no tile, all tiles touching, the second
action not undoing the first).

Boards are the rules' bytes (a code per lattice cell, row-major from a1: 0 empty, else
1 + colour * 2 + type, colour 2 neutral, type 0 kitten 1 puppy); tiles are lower-left cells.
"""

from __future__ import annotations

NEUTRAL = 2
STEPS = ((0, 1, 0), (0, -1, 0), (-1, 0, 0), (1, 0, 0), (0, 0, 1), (0, 0, 3))
"""Each tile action as (column step, row step, clockwise quarters): ^ v < > cw ccw."""
UNDOES = (1, 0, 3, 2, 5, 4)
"""The action undoing each one, by index into STEPS."""

Cell = tuple[int, int]


def _may_lie(tiles: list[Cell], moving: int, x: int, y: int, width: int, height: int) -> bool:
    if not (0 <= x <= width - 2 and 0 <= y <= height - 2):
        return False
    for i, (ox, oy) in enumerate(tiles):
        if i != moving and abs(ox - x) < 2 and abs(oy - y) < 2:
            return False
    placed = list(tiles)
    placed[moving] = (x, y)
    reached, pending = {0}, [0]
    while pending:
        px, py = placed[pending.pop()]
        for j, (ox, oy) in enumerate(placed):
            if j not in reached and abs(ox - px) <= 2 and abs(oy - py) <= 2:
                reached.add(j)
                pending.append(j)
    return len(reached) == len(placed)


def tile_ends(tiles: list[Cell], moving: int, width: int, height: int) -> list[tuple[Cell, int]]:
    """The different (lower-left cell, clockwise quarters) tile `moving` may end at after two
    actions, in the order first found."""
    found: list[tuple[Cell, int]] = []
    x, y = tiles[moving]
    for first, (dx, dy, q1) in enumerate(STEPS):
        mx, my = x + dx, y + dy
        if (dx or dy) and not _may_lie(tiles, moving, mx, my, width, height):
            continue
        placed = list(tiles)
        placed[moving] = (mx, my)
        for second, (ex, ey, q2) in enumerate(STEPS):
            if second == UNDOES[first]:
                continue
            if (ex or ey) and not _may_lie(placed, moving, mx + ex, my + ey, width, height):
                continue
            end = ((mx + ex, my + ey), (q1 + q2) % 4)
            if end not in found:
                found.append(end)
    return found


def _block(x: int, y: int, width: int) -> tuple[int, int, int, int]:
    """A tile's cells in the order a clockwise quarter turn carries each to the next."""
    i = y * width + x
    return i, i + width, i + width + 1, i + 1


def neutral_captures(board: bytes | bytearray, width: int, mover: int) -> int:
    """Neutral meeples `mover` sandwiches on `board`: a row or column neighbour on each side,
    both the mover's and of the type opposite to the neutral meeple's."""
    count = 0
    for i, piece in enumerate(board):
        if piece < 5:  # neutral codes are 5 (kitten) and 6 (puppy)
            continue
        taker = 1 + mover * 2 + (1 - (piece - 1) % 2)
        x = i % width
        across = 0 < x < width - 1 and board[i - 1] == board[i + 1] == taker
        down = width <= i < len(board) - width and board[i - width] == board[i + width] == taker
        count += across or down
    return count


def best_turn(
    board: bytes, width: int, height: int, tiles: list[Cell], mover: int, kinds: int
) -> tuple[int, int]:
    """The most neutral meeples one turn of `mover` captures (`kinds`: bit 0 a kitten to place,
    bit 1 a puppy) and how many turns capture that many; (0, 0) when there is no turn."""
    best, count = 0, 0
    scratch = bytearray(board)
    for t, (x, y) in enumerate(tiles):
        cells = _block(x, y, width)
        ends = tile_ends(tiles, t, width, height)
        for corner in range(4):
            if board[cells[corner]]:
                continue
            for kind in (0, 1):
                if not kinds >> kind & 1:
                    continue
                pieces = [board[i] for i in cells]
                pieces[corner] = 1 + mover * 2 + kind
                for (ex, ey), quarters in ends:
                    for i in cells:
                        scratch[i] = 0
                    targets = _block(ex, ey, width)
                    for k in range(4):
                        scratch[targets[(k + quarters) % 4]] = pieces[k]
                    taken = neutral_captures(scratch, width, mover)
                    if taken > best:
                        best, count = taken, 1
                    elif taken == best:
                        count += 1
                    for i in targets:
                        scratch[i] = 0
                    for i in cells:
                        scratch[i] = board[i]
    return best, count
