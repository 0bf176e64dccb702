"""Meeple Maneuver's compact engine: whole turns as (tile, cell, kind, tile moves), positions as a
few bytes and tuples, captures judged the moment the turn ends.

A turn is a placement and two tile actions on the placement's tile. The pair only decides where
the tile ends and how far it turned (a shift and a quarter turn commute), so of its up to thirty
orders at most seventeen different ends are kept, each with one order that the rules allow
step by step. The captured meeples leave at once (the hands carry them off before the next turn
anyway).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from magboard.firmware.games.core import CARRY_OUT, Action, State
from magboard.firmware.games.meeplemaneuver.rules import (
    GAME,
    NEUTRAL,
    TO_WIN,
    MeepleState,
    Place,
    code,
    colour_of,
    kind_of,
    sandwiched,
)
from magboard.firmware.games.search import LOOK_AHEAD, BenchRow, SearchHooks, declare_search
from magboard.firmware.games.tiles import OPPOSITE, WAYS, QuarterTurn, Shift, block, lattice
from magboard.firmware.native import py_meeples
from magboard.firmware.native.selection import load, requested

try:
    from magboard.firmware.native import c_meeples
except ImportError:
    c_meeples = None

backend, kernel = load(requested(), "meeples")
"""Which implementation weighs next turns ("c" or "python"), and its module."""

Cell = tuple[int, int]
STEPS: tuple[tuple[str, tuple[int, int], int], ...] = (
    *((way, step, 0) for way, step in WAYS.items()),
    ("cw", (0, 0), 1),
    ("ccw", (0, 0), 3),
)
"""Each tile action: its way, the step of the tile's lower-left cell, its clockwise quarters."""


@dataclass(frozen=True)
class Position:
    board: bytes
    """A meeple code per lattice cell (the rules' board bytes)."""
    tiles: tuple[Cell, ...]
    supplies: tuple[tuple[int, int], tuple[int, int]]
    piles: tuple[int, int]
    to_move: int
    width: int
    height: int


@dataclass(frozen=True)
class Move:
    """A whole turn: `kind` placed on `cell`, then the tile there moved by `ways` (in order)."""

    kind: int
    cell: Cell
    ways: tuple[str, str]

    def actions(self, tiles: tuple[Cell, ...]) -> tuple[Action, ...]:
        """The turn in the rules' actions (the tiles as they lie before it)."""
        origin = next(t for t in tiles if self.cell in block(t))
        found: list[Action] = [Place(self.kind, self.cell)]
        for way in self.ways:
            if way in WAYS:
                found.append(Shift(origin, way))
                dx, dy = WAYS[way]
                origin = (origin[0] + dx, origin[1] + dy)
            else:
                found.append(QuarterTurn(origin, way == "cw"))
        return tuple(found)


def encode(state: MeepleState) -> Position:
    """The rules' state between turns as a compact position, the last turn's captures carried
    off by the rules' own bookkeeping."""
    while state.pending:
        state = state.advance(CARRY_OUT)
    return Position(
        state.board,
        state.tiles,
        state.supplies,
        state.piles,
        state.to_move,
        state.width,
        state.height,
    )


@lru_cache(maxsize=1 << 14)
def tile_moves(
    tiles: tuple[Cell, ...], moving: int, width: int, height: int
) -> tuple[tuple[Cell, int, tuple[str, str]], ...]:
    """Where tile number `moving` may end after two actions, with its quarter turns and one
    order of the two that the rules allow step by step (each step inside the area, over no
    tile, all tiles touching; the second not undoing the first)."""
    may_lie = lattice(width, height).may_lie
    found: dict[tuple[Cell, int], tuple[str, str]] = {}
    origin = tiles[moving]
    for first, (dx, dy), q1 in STEPS:
        middle = (origin[0] + dx, origin[1] + dy)
        if (dx or dy) and not may_lie(tiles, moving, middle):
            continue
        placed = (*tiles[:moving], middle, *tiles[moving + 1 :])
        for second, (ex, ey), q2 in STEPS:
            if second == OPPOSITE[first]:
                continue
            end = (middle[0] + ex, middle[1] + ey)
            if (ex or ey) and not may_lie(placed, moving, end):
                continue
            found.setdefault((end, (q1 + q2) % 4), (first, second))
    return tuple((end, quarters, ways) for (end, quarters), ways in found.items())


def _cells(origin: Cell, width: int) -> tuple[int, int, int, int]:
    return tuple(x + y * width for x, y in block(origin))  # type: ignore[return-value]


def turns(position: Position) -> list[tuple[Move, Position]]:
    """Every whole turn of the player to move, with the position after it (captures taken)."""
    board, tiles, width = position.board, position.tiles, position.width
    mover = position.to_move
    kinds = [k for k in (0, 1) if position.supplies[mover][k]]
    found = []
    for t, origin in enumerate(tiles):
        cells = _cells(origin, width)
        ends = tile_moves(tiles, t, width, position.height)
        for corner, i in enumerate(cells):
            if board[i]:
                continue
            cell = block(origin)[corner]
            for kind in kinds:
                pieces = [board[j] for j in cells]
                pieces[corner] = code(mover, kind)
                cleared = bytearray(board)
                for j in cells:
                    cleared[j] = 0
                for end, quarters, ways in ends:
                    after = bytearray(cleared)
                    targets = _cells(end, width)
                    for k, piece in enumerate(pieces):
                        after[targets[(k + quarters) % 4]] = piece
                    moved = (*tiles[:t], end, *tiles[t + 1 :])
                    found.append((Move(kind, cell, ways), _judged(position, after, moved, kind)))
    return found


def _judged(position: Position, board: bytearray, tiles: tuple[Cell, ...], kind: int) -> Position:
    mover = position.to_move
    supplies = [list(s) for s in position.supplies]
    supplies[mover][kind] -= 1
    piles = list(position.piles)
    for i in sandwiched(bytes(board), position.width, mover):
        piece, board[i] = board[i], 0
        if colour_of(piece) == NEUTRAL:
            piles[mover] += 1
        else:
            supplies[colour_of(piece)][kind_of(piece)] += 1
    return Position(
        bytes(board),
        tiles,
        ((supplies[0][0], supplies[0][1]), (supplies[1][0], supplies[1][1])),
        (piles[0], piles[1]),
        1 - mover,
        position.width,
        position.height,
    )


def winner(position: Position) -> int | None:
    """The seat that has won at `position`: a third neutral capture, or the player to move
    having no meeple to place (every turn has some tile move: a tile can always turn)."""
    for seat in (0, 1):
        if position.piles[seat] >= TO_WIN:
            return seat
    if not any(position.supplies[position.to_move]) or 0 not in _on_tiles(position):
        return 1 - position.to_move
    return None


def _on_tiles(position: Position) -> bytes:
    width = position.width
    return bytes(position.board[i] for t in position.tiles for i in _cells(t, width))


def kinds_mask(position: Position, seat: int) -> int:
    """The types `seat` has left to place, as the kernel's bits (1 kitten, 2 puppy)."""
    kittens, puppies = position.supplies[seat]
    return (1 if kittens else 0) | (2 if puppies else 0)


def best_turn(position: Position, seat: int) -> tuple[int, int]:
    """The most neutral meeples one turn of `seat` would capture from `position` (whoever is
    to move), and by how many turns."""
    kinds = kinds_mask(position, seat)
    if not kinds:
        return 0, 0
    tiles = list(position.tiles)
    return kernel.best_turn(position.board, position.width, position.height, tiles, seat, kinds)


@dataclass(frozen=True, order=True)
class Weighed:
    """What a turn is worth to its mover, best last: whether it leaves the other player no win
    at once, the neutral meeples captured so far, the most the mover's next turn would add (the
    other player standing still) and by how many turns, the more the better (a plan with many
    ways to finish survives the other player's moving a tile)."""

    safe: bool
    pile: int
    ahead: int
    ways: int


def weigh(after: Position, seat: int) -> Weighed:
    other = 1 - seat
    threat, _ = best_turn(after, other)
    ahead, ways = best_turn(after, seat)
    return Weighed(after.piles[other] + threat < TO_WIN, after.piles[seat], ahead, ways)


def plan(
    position: Position,
    rng: random.Random,
    clock: Callable[[], float],
    deadline: float,
    *,
    careful: bool = True,
) -> Move:
    """The turn for the player to move: a win at once if there is one, else the best weighed of
    the turns weighed by `deadline` (those capturing most now first, so a short budget still
    sees them). Not `careful`, it does not count the ways to finish a plan, only the best."""
    seat = position.to_move
    found: dict[tuple[bytes, tuple[Cell, ...]], tuple[Move, Position]] = {}
    for move, after in turns(position):
        found.setdefault((after.board, after.tiles), (move, after))
    options = list(found.values())
    rng.shuffle(options)
    wins = [move for move, after in options if winner(after) == seat]
    if wins:
        return wins[0]
    options.sort(key=lambda option: option[1].piles[seat], reverse=True)
    best: list[Move] = []
    top: Weighed | None = None
    for move, after in options:
        if best and clock() >= deadline:
            break
        weight = weigh(after, seat)
        if not careful:
            weight = replace(weight, ways=0)
        if top is None or weight > top:
            best, top = [move], weight
        elif weight == top:
            best.append(move)
    return best[0]


def planned_turn(
    state: MeepleState,
    rng: random.Random,
    clock: Callable[[], float],
    deadline: float,
    *,
    careful: bool,
) -> tuple[Action, ...]:
    """A Meeple Maneuver turn from the capture planner: random playouts almost never find the
    three captures the first player needs within its six meeples, a look-ahead over whole turns
    does."""
    actions: list[Action] = []
    while state.pending:  # what the last turn captured, carried off before this one
        actions.append(CARRY_OUT)
        state = state.advance(CARRY_OUT)
    if state.outcome() is not None:
        return tuple(actions)
    position = encode(state)
    move = plan(position, rng, clock, deadline, careful=careful)
    actions.extend(move.actions(position.tiles))
    return tuple(actions)


@contextmanager
def _look_ahead(chosen: Any) -> Iterator[None]:
    """The planner's kernel swapped for `chosen` (c_meeples or py_meeples) while timing."""
    global kernel
    saved, kernel = kernel, chosen
    try:
        yield
    finally:
        kernel = saved


def _unhurried() -> float:
    """The clock of a plan with no deadline: the bench times it from outside."""
    return 0.0


def _planner_runs(start: State, seed: int) -> dict:
    """The AI bench's timed loops of the planner: turns planned from `start`, by kernel."""
    start_position = encode(start)

    def plan_run(chosen: Any) -> Callable[[int], None]:
        def run(number: int) -> None:
            rng = random.Random(seed)
            with _look_ahead(chosen):
                for _ in range(number):
                    plan(start_position, rng, _unhurried, float("inf"))

        return run

    runs = {"python": plan_run(py_meeples)}
    if c_meeples is not None:
        runs["c"] = plan_run(c_meeples)
    return runs


declare_search(
    GAME,
    SearchHooks(
        planner=planned_turn,
        bench=(BenchRow(path=LOOK_AHEAD, runs=_planner_runs, unit="turns"), BenchRow()),
    ),
)
