"""Independent models of meep-tac-toe and meeple-maneuver, for counting perft in tests.

Written from ../shared/rules/meep-tac-toe.md and meeple-maneuver.md alone, and built unlike an
engine so that a shared misreading cannot hide behind shared code:

- a board is a frozenset of tiles, each tile its lower-left cell and what stands on its four
  cells (bottom-left, bottom-right, top-left, top-right). A position is then hashable as it
  stands, two positions are equal exactly when the rules call them the same (tiles are unmarked,
  so no orientation is stored), and a tile action replaces one element of the set;
- a turn's tile actions are every sequence the rules allow, tried one action at a time with the
  area, overlap and touching checks after each; since they depend only on where the tiles lie,
  the places a tile can end up (and its quarter turns) are memoised by the tiles' footprints;
- lines and sandwiches are found by looking at every occupied cell's neighbours in a dict built
  from the tiles; the sandwich search is skipped where the mover has no two meeples of one kind
  two cells apart, which a sandwich needs;
- perft follows the rules' definition literally: the children of a position are the set of
  positions one complete turn reaches, memoised by (position, depth). On the last ply of
  meeple-maneuver only their number is needed, and it is taken as the number of distinct
  boards (see meeple_child_count for why that is the same).

The third repetition of a position and option max_turns (200) are left out: a position can only
recur with the same player to move, so its third occurrence needs at least four turns, and the
depths counted here are three turns at most.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from functools import cache
from typing import Any, NamedTuple

Cell = tuple[int, int]
Contents = tuple[str | None, ...]
"""What stands on a tile's four cells, in the order of OFFSETS; None for an empty cell."""
Tile = tuple[Cell, Contents]
Board = frozenset[Tile]

OFFSETS = ((0, 0), (1, 0), (0, 1), (1, 1))
"""A tile's cells relative to its lower-left cell."""
STEPS = ((0, 1), (0, -1), (-1, 0), (1, 0))
"""Up, down, left, right: a meeple's moves and a tile's shifts."""
APART = ((2, 0), (-2, 0), (0, 2), (0, -2))
"""The cells two away along a row or a column, where a sandwich's other side stands."""
LINE_STEPS = ((1, 0), (0, 1), (1, 1), (1, -1))
"""Row, column and both diagonals, each walked one way, which finds every line once."""

SHIFTS = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
QUARTER_TURNS = {"cw": 1, "ccw": 3}
"""A turn as a number of clockwise quarter turns, so that turns add up modulo 4."""
UNDOES = {"up": "down", "down": "up", "left": "right", "right": "left", "cw": "ccw", "ccw": "cw"}
TWO_ACTIONS = tuple(
    (first, second) for first in UNDOES for second in UNDOES if second != UNDOES[first]
)
"""Every ordered pair of tile actions whose second does not undo the first."""
MANEUVERS = {"none": ((),), "rotate": (("cw",), ("ccw",)), "advanced": TWO_ACTIONS}
"""The tile-action sequences each meep-tac-toe option allows after the move."""

OTHER = {"A": "B", "B": "A"}
KINDS = ("K", "P")
"""Kitten and puppy; a meeple-maneuver piece is its colour (A, B or N) then its kind."""
OPPOSITE = {"K": "P", "P": "K"}


def block(corner: Cell, width: int, height: int) -> list[Cell]:
    """The lower-left cells of the 2x2 tiles covering a block of cells, as the setups lay them."""
    x, y = corner
    return [(x + dx, y + dy) for dx in range(0, width, 2) for dy in range(0, height, 2)]


def cell(name: str) -> Cell:
    """Chess-like notation (a1 is the bottom-left cell) to zero-based (column, row)."""
    return ord(name[0]) - ord("a"), int(name[1:]) - 1


def lay_out(corners: Iterable[Cell], pieces: dict[str, str]) -> Board:
    """A board from its tiles' lower-left cells and the pieces by cell name."""
    where = {cell(name): piece for name, piece in pieces.items()}
    return frozenset(
        (corner, tuple(where.get((corner[0] + dx, corner[1] + dy)) for dx, dy in OFFSETS))
        for corner in corners
    )


def occupied(board: Board) -> dict[Cell, str]:
    """Every piece on the board by cell: lines and sandwiches ignore tile seams."""
    return {
        (x + dx, y + dy): piece
        for (x, y), contents in board
        for (dx, dy), piece in zip(OFFSETS, contents, strict=True)
        if piece is not None
    }


def tile_holding(board: Board, where: Cell) -> Tile | None:
    """The tile covering a cell, or None where there is no cell."""
    for tile in board:
        (x, y), _ = tile
        if 0 <= where[0] - x <= 1 and 0 <= where[1] - y <= 1:
            return tile
    return None


def slot(tile: Tile, where: Cell) -> int:
    """The index in a tile's contents of one of its cells."""
    (x, y), _ = tile
    return OFFSETS.index((where[0] - x, where[1] - y))


def put(tile: Tile, where: Cell, piece: str | None) -> Tile:
    """The tile with one of its cells' contents replaced."""
    corner, contents = tile
    return corner, replaced(contents, slot(tile, where), piece)


def replaced(contents: Contents, index: int, piece: str | None) -> Contents:
    """Tile contents with one cell's replaced."""
    return (*contents[:index], piece, *contents[index + 1 :])


def turned(contents: Contents, quarter_turns: int) -> Contents:
    """A tile's contents after clockwise quarter turns about its centre: on one turn the
    bottom-left piece goes top-left, top-left goes top-right, and so on round."""
    for _ in range(quarter_turns % 4):
        bottom_left, bottom_right, top_left, top_right = contents
        contents = (bottom_right, top_right, bottom_left, top_left)
    return contents


# ---------------------------------------------------------------------------------------------
# Tile actions: they depend only on where the tiles lie, so they are worked out on footprints.


def covered(corner: Cell) -> list[Cell]:
    """The four cells of the tile whose lower-left cell is `corner`."""
    return [(corner[0] + dx, corner[1] + dy) for dx, dy in OFFSETS]


def touching(one: Cell, other: Cell) -> bool:
    """Two tiles touch when a cell of one is a king's step from a cell of the other: they then
    share an edge or at least a corner."""
    return any(
        max(abs(x1 - x2), abs(y1 - y2)) == 1 for x1, y1 in covered(one) for x2, y2 in covered(other)
    )


@cache
def connected(corners: frozenset[Cell]) -> bool:
    """Whether the tiles form one group, walking from any tile to the tiles it touches."""
    start = next(iter(corners))
    reached, frontier = {start}, [start]
    while frontier:
        here = frontier.pop()
        for there in corners - reached:
            if touching(here, there):
                reached.add(there)
                frontier.append(there)
    return reached == corners


def overlapping(one: Cell, other: Cell) -> bool:
    """Whether two tiles would cover a common cell."""
    return abs(one[0] - other[0]) <= 1 and abs(one[1] - other[1]) <= 1


def may_lie(corner: Cell, others: frozenset[Cell], area: Cell) -> bool:
    """Whether a tile may lie here after a shift: inside the area, on no other tile, and with
    all the tiles still one touching group."""
    x, y = corner
    width, height = area
    return (
        0 <= x <= width - 2
        and 0 <= y <= height - 2
        and not any(overlapping(corner, other) for other in others)
        and connected(others | {corner})
    )


@cache
def landings(
    corners: frozenset[Cell], corner: Cell, sequences: tuple[tuple[str, ...], ...], area: Cell
) -> frozenset[tuple[Cell, int]]:
    """Where the tile at `corner` can end up, with how many clockwise quarter turns, after any
    one of the action sequences whose every action is legal. A quarter turn leaves the
    footprints as they were, so only shifts are checked."""
    others = corners - {corner}
    results = set()
    for sequence in sequences:
        here, quarter_turns = corner, 0
        for action in sequence:
            if action in QUARTER_TURNS:
                quarter_turns += QUARTER_TURNS[action]
                continue
            dx, dy = SHIFTS[action]
            here = (here[0] + dx, here[1] + dy)
            if not may_lie(here, others, area):
                break
        else:
            results.add((here, quarter_turns % 4))
    return frozenset(results)


def maneuvered(
    board: Board, tile: Tile, sequences: tuple[tuple[str, ...], ...], area: Cell
) -> Iterator[Board]:
    """The boards the allowed tile-action sequences on one tile reach, pieces riding along."""
    others = board - {tile}
    corner, contents = tile
    for landing, quarter_turns in landings(corners_of(board), corner, sequences, area):
        yield others | {(landing, turned(contents, quarter_turns))}


def corners_of(board: Board) -> frozenset[Cell]:
    """The tiles' footprints, by lower-left cell."""
    return frozenset(corner for corner, _ in board)


# ---------------------------------------------------------------------------------------------
# Meep-tac-toe.


class MeepPosition(NamedTuple):
    """A meep-tac-toe position: nothing is off the board, so the board and the player to move."""

    board: Board
    mover: str


MEEP_AREA = (8, 8)
MEEP_START = MeepPosition(
    lay_out(
        block(cell("c3"), 4, 4),
        {"c6": "A", "e6": "A", "d3": "A", "f3": "A", "d6": "B", "f6": "B", "c3": "B", "e3": "B"},
    ),
    "A",
)


def has_line(pieces: dict[Cell, str], owner: str) -> bool:
    """Whether a player has three pieces in consecutive cells of a row, column or diagonal."""
    for (x, y), piece in pieces.items():
        if piece != owner:
            continue
        for dx, dy in LINE_STEPS:
            if (
                pieces.get((x + dx, y + dy)) == owner
                and pieces.get((x + 2 * dx, y + 2 * dy)) == owner
            ):
                return True
    return False


def meep_finished(board: Board) -> bool:
    """A turn that leaves a line for either player ends the game (who wins does not matter
    to perft)."""
    pieces = occupied(board)
    return has_line(pieces, "A") or has_line(pieces, "B")


def moved(board: Board, source: Cell, target: Cell) -> tuple[Board, Tile] | None:
    """The board after a meeple steps to an empty cell, and the tile it then stands on; None
    where the target cell is missing or taken."""
    landing_tile = tile_holding(board, target)
    if landing_tile is None or landing_tile[1][slot(landing_tile, target)] is not None:
        return None
    leaving_tile = tile_holding(board, source)
    piece = leaving_tile[1][slot(leaving_tile, source)]
    if leaving_tile == landing_tile:
        landing_tile = put(put(leaving_tile, source, None), target, piece)
        return (board - {leaving_tile}) | {landing_tile}, landing_tile
    landing_tile = put(landing_tile, target, piece)
    rest = board - {leaving_tile, tile_holding(board, target)}
    return rest | {put(leaving_tile, source, None), landing_tile}, landing_tile


def meep_children(position: MeepPosition, maneuver: str) -> set[MeepPosition]:
    """The distinct positions one complete turn reaches: a step, then the maneuver's actions
    on the tile the meeple stepped onto."""
    board, mover = position
    if meep_finished(board):
        return set()
    children = set()
    for (x, y), owner in occupied(board).items():
        if owner != mover:
            continue
        for dx, dy in STEPS:
            step = moved(board, (x, y), (x + dx, y + dy))
            if step is None:
                continue
            after, tile = step
            for result in maneuvered(after, tile, MANEUVERS[maneuver], MEEP_AREA):
                children.add(MeepPosition(result, OTHER[mover]))
    return children


def perft_meep(maneuver: str, depth: int) -> list[int]:
    """perft(1..depth) of meep-tac-toe from the default setup and area."""
    return perft_series(MEEP_START, depth, lambda position: meep_children(position, maneuver))


# ---------------------------------------------------------------------------------------------
# Meeple-maneuver.


class MeeplePosition(NamedTuple):
    """A meeple-maneuver position: the board, the player to move, supplies and piles."""

    board: Board
    mover: str
    supply: frozenset[tuple[str, int]]
    """Meeples off the board by piece ("AK" is A's kittens)."""
    piles: frozenset[tuple[str, int]]
    """Neutral meeples each player has captured. Both are frozensets, whose hash is kept, as
    every one of a node's children shares them."""


MEEPLE_AREA = (10, 10)
NEUTRALS = {"e8": "NK", "g6": "NP", "f3": "NK", "d5": "NP", "e6": "NP", "f5": "NK"}
MEEPLE_START = MeeplePosition(
    lay_out([cell(name) for name in ("e5", "e7", "e3", "c5", "g5")], NEUTRALS),
    "A",
    frozenset({("AK", 3), ("AP", 3), ("BK", 3), ("BP", 3)}),
    frozenset({("A", 0), ("B", 0)}),
)
WINNING_PILE = 3


def sandwiched(pieces: dict[Cell, str], mover: str) -> set[Cell]:
    """The cells whose meeple the mover captures: another colour's meeple with, along a row or
    a column, the mover's meeples of the opposite kind on both sides."""
    caught = set()
    for (x, y), piece in pieces.items():
        if piece[0] != mover:
            continue
        for dx, dy in ((1, 0), (0, 1)):
            if pieces.get((x + 2 * dx, y + 2 * dy)) != piece:
                continue
            middle = pieces.get((x + dx, y + dy))
            if middle is not None and middle[0] != mover and middle[1] == OPPOSITE[piece[1]]:
                caught.add((x + dx, y + dy))
    return caught


def pair_apart(mine: dict[Cell, str]) -> bool:
    """Whether two of the mover's meeples of one kind stand two cells apart along a row or a
    column, which every sandwich needs; most turns have none, and then the whole board need
    not be looked at."""
    for (x, y), piece in mine.items():
        if mine.get((x + 2, y)) == piece or mine.get((x, y + 2)) == piece:
            return True
    return False


def tile_pieces(tile: Tile) -> dict[Cell, str]:
    """The pieces on one tile by cell."""
    (x, y), contents = tile
    return {
        (x + dx, y + dy): piece
        for (dx, dy), piece in zip(OFFSETS, contents, strict=True)
        if piece is not None
    }


def partner_apart(tile: Tile, mine: dict[Cell, str], mover: str) -> bool:
    """Whether a meeple of the mover's on this tile has one of the same kind two cells away
    along a row or a column among `mine`, the mover's meeples off the tile. Two cells of one
    tile are never two apart, so when `mine` holds no such pair itself, every sandwich needs
    one of these."""
    (x, y), contents = tile
    for (dx, dy), piece in zip(OFFSETS, contents, strict=True):
        if piece is None or piece[0] != mover:
            continue
        for ex, ey in APART:
            if mine.get((x + dx + ex, y + dy + ey)) == piece:
                return True
    return False


def captured(tile: Tile, elsewhere: dict[Cell, str], mover: str) -> dict[Cell, str]:
    """The meeples the mover captures at the end of the turn, by cell, given the tile the turn
    acted on and the pieces off it."""
    pieces = {**elsewhere, **tile_pieces(tile)}
    return {where: pieces[where] for where in sandwiched(pieces, mover)}


def may_capture(supply: dict[str, int], mover: str) -> bool:
    """Whether the mover has two meeples of one kind on the board, which a sandwich needs: a
    player's meeple is either on the board or in their supply, three of each kind."""
    return any(supply[mover + kind] <= 1 for kind in KINDS)


def removed(board: Board, caught: dict[Cell, str]) -> Board:
    """The board with the captured meeples taken off."""
    for where in caught:
        tile = tile_holding(board, where)
        board = (board - {tile}) | {put(tile, where, None)}
    return board


def after_captures(
    board: Board, caught: dict[Cell, str], mover: str, supply: dict[str, int], piles: dict[str, int]
) -> MeeplePosition:
    """The position at the end of the mover's turn: sandwiched meeples leave the board, neutral
    ones to the mover's pile and the other player's back to their supply."""
    supply, piles = dict(supply), dict(piles)
    for piece in caught.values():
        if piece[0] == "N":
            piles[mover] += 1
        else:
            supply[piece] += 1
    return MeeplePosition(
        removed(board, caught), OTHER[mover], frozenset(supply.items()), frozenset(piles.items())
    )


def meeple_finished(position: MeeplePosition) -> bool:
    """The game ends when a player's pile reaches three neutral meeples."""
    return any(count >= WINNING_PILE for _, count in position.piles)


def placements(board: Board, piece: str) -> Iterator[tuple[Tile, Contents]]:
    """Each empty cell a meeple may be placed on, as its tile and the tile's contents after."""
    for tile in board:
        _, contents = tile
        for index, there in enumerate(contents):
            if there is None:
                yield tile, replaced(contents, index, piece)


def meeple_turns(
    position: MeeplePosition,
) -> Iterator[tuple[Board, dict[Cell, str], dict[str, int]]]:
    """Every complete turn, as the board after the tile actions, the meeples it captures and
    the mover's supply after the placement: a meeple from the supply on an empty cell, then two
    tile actions on its tile. What does not depend on the cell and the actions (where each tile
    can go, the pieces off it) is worked out once."""
    if meeple_finished(position):
        return
    board, mover = position.board, position.mover
    supply = dict(position.supply)
    corners = corners_of(board)
    elsewhere = {tile: occupied(board - {tile}) for tile in board}
    mine = {
        tile: {where: piece for where, piece in pieces.items() if piece[0] == mover}
        for tile, pieces in elsewhere.items()
    }
    paired = {tile: pair_apart(pieces) for tile, pieces in mine.items()}
    reach = {tile: landings(corners, tile[0], TWO_ACTIONS, MEEPLE_AREA) for tile in board}
    for kind in KINDS:
        piece = mover + kind
        if supply[piece] == 0:
            continue
        left = {**supply, piece: supply[piece] - 1}
        sandwiches = may_capture(left, mover)
        for tile, placed in placements(board, piece):
            others, partners = board - {tile}, sandwiches and mine[tile]
            turns = [turned(placed, quarter_turns) for quarter_turns in range(4)]
            for landing, quarter_turns in reach[tile]:
                moved_tile = (landing, turns[quarter_turns])
                caught = {}
                if partners and (paired[tile] or partner_apart(moved_tile, partners, mover)):
                    caught = captured(moved_tile, elsewhere[tile], mover)
                yield others | {moved_tile}, caught, left


def meeple_children(position: MeeplePosition) -> set[MeeplePosition]:
    """The distinct positions one complete turn reaches."""
    piles = dict(position.piles)
    return {
        after_captures(board, caught, position.mover, left, piles)
        for board, caught, left in meeple_turns(position)
    }


def meeple_child_count(position: MeeplePosition) -> int:
    """How many distinct positions one complete turn reaches, counted by their boards alone:
    among one position's children the board fixes the rest. The player to move is the same
    for all, a player's meeple is either on the board or in their supply, and a neutral meeple
    either on the board or in a pile, of which only the mover's can have grown."""
    return len(
        {removed(board, caught) if caught else board for board, caught, _ in meeple_turns(position)}
    )


def perft_meeple(depth: int) -> list[int]:
    """perft(1..depth) of meeple-maneuver from the default setup and area."""
    return perft_series(MEEPLE_START, depth, meeple_children, meeple_child_count)


# ---------------------------------------------------------------------------------------------
# Perft.


def perft_series(
    start: Hashable,
    depth: int,
    children: Callable[[Any], set],
    child_count: Callable[[Any], int] | None = None,
) -> list[int]:
    """The leaf counts of the turn tree at depths 1..depth. The tree, not the set of positions,
    is counted, so a position reached along two paths counts twice; memoising the count below
    each (position, depth) only saves recomputing it. `child_count`, where given, counts a
    position's children without building them, for the last ply, which holds nearly all the
    work."""
    memo: dict[tuple[Hashable, int], int] = {}
    how_many = child_count or (lambda position: len(children(position)))

    def count(position: Hashable, remaining: int) -> int:
        key = (position, remaining)
        if key not in memo:
            if remaining == 1:
                memo[key] = how_many(position)
            else:
                memo[key] = sum(count(child, remaining - 1) for child in children(position))
        return memo[key]

    return [count(start, plies) for plies in range(1, depth + 1)]
