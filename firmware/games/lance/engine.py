"""Lance Assembly's fast path: a LanceState as the compact engine's `Position`, its action codes
as the rules' actions, and a bout played out by the kernel MAGBOARD_NATIVE selects (the C one in
lance.c, or its pure-Python twin).

The compact engine knows only a bout in progress; a state between bouts (the last one over, its
tiles still to clear) has nothing left to play: its value is the bout just finished.
"""

from __future__ import annotations

import random

from magboard.firmware.games.core import END_TURN, Action
from magboard.firmware.games.lance.rules import (
    DIRECTIONS,
    NEUTRAL,
    LanceState,
    Place,
    PlaceNeutral,
    Slide,
)
from magboard.firmware.games.lance.rules import Position as Seen
from magboard.firmware.native import py_lance
from magboard.firmware.native.py_lance import (
    END,
    ONGOING,
    SIDE,
    STALEMATE,
    Position,
    repetition_key,
)
from magboard.firmware.native.selection import load, requested

backend, kernel = load(requested(), "lance")
"""Which implementation plays bouts out ("c" or "python"), and its module."""

WAYS = tuple(DIRECTIONS)
"""The slide ways in code order (> < ^ v)."""


def _masks(board: bytes) -> tuple[int, int, int]:
    """Seat A's, seat B's and the neutral tile's cells of a LanceState board, as bit masks."""
    a = b = neutral = 0
    for i, label in enumerate(board):
        if label == 1:
            a |= 1 << i
        elif label == 2:
            b |= 1 << i
        elif label == NEUTRAL:
            neutral |= 1 << i
    return a, b, neutral


def _key(seen: Seen) -> int:
    board, to_move, in_hand = seen
    return repetition_key(*_masks(board), to_move, in_hand)


def encode(state: LanceState) -> Position:
    """The bout in progress in `state` as the compact engine's position (`result` says how it
    ended, if it has: the last bout's)."""
    a, b, neutral = _masks(state.board)
    seen = [(_key(p), 1) for p in state.seen_once] + [(_key(p), 2) for p in state.seen_twice]
    if state.over:
        winner = state.bouts[-1].winner
        result = STALEMATE if winner is None else winner
    else:
        result = ONGOING
    return Position(
        a,
        b,
        neutral,
        state.to_move,
        state.starter,
        state.supplies[0],
        state.supplies[1],
        state.neutral_in_hand,
        state.placed,
        state.slid,
        state.bout_turn,
        state.max_turns,
        tuple(sorted(seen)),
        result,
    )


def _cell(i: int) -> tuple[int, int]:
    return i % SIDE, i // SIDE


def action_of(code: int) -> Action:
    """The rules' action for a compact action code."""
    if code < py_lance.NEUTRAL:
        return Place(_cell(code))
    if code < END:
        return PlaceNeutral(_cell(code - py_lance.NEUTRAL))
    if code == END:
        return END_TURN
    rest, distance = divmod(code - py_lance.SLIDE, 6)
    rest, length = divmod(rest, 6)
    rear, way = divmod(rest, 4)
    return Slide(_cell(rear), length, WAYS[way], distance)


def code_of(action: Action) -> int:
    """The compact action code of one of the rules' actions in a bout (not CARRY_OUT or a flag)."""
    if action == END_TURN:
        return END
    if isinstance(action, Place):
        col, row = action.cell
        return py_lance.PLACE + row * SIDE + col
    if isinstance(action, PlaceNeutral):
        col, row = action.cell
        return py_lance.NEUTRAL + row * SIDE + col
    if isinstance(action, Slide):
        col, row = action.cell
        rear = row * SIDE + col
        way = WAYS.index(action.way)
        return py_lance.SLIDE + ((rear * 4 + way) * 6 + action.length) * 6 + action.distance
    raise ValueError(f"{action} is not an action of a bout in progress: it has no compact code")


def playout_bout(state: LanceState, rng: random.Random) -> int | None:
    """Random legal actions from `state` to the end of its bout: the winning seat, or None for a
    stalemate. A state between bouts gives the bout just finished."""
    position = encode(state)
    result = position.result
    if result == ONGOING:
        result = kernel.playout(position, rng.getrandbits(64))[0]
    return None if result == STALEMATE else result
