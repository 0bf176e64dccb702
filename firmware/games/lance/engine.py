"""Lance Assembly's fast path: a LanceState as the compact engine's `Position`, its action codes
as the rules' actions, and a bout played out by the kernel MAGBOARD_NATIVE selects (the C one in
lance.c, or its pure-Python twin).

The compact engine knows only a bout in progress; a state between bouts (the last one over, its
tiles still to clear) has nothing left to play: its value is the bout just finished.

Lance Assembly is searched a bout at a time (the hooks declared at the bottom): a match is won
bout by bout, each bout starts from an empty board, so what a turn is worth is what it does for
the bout in progress, and a search that looked past the bout would spend its time on a next bout
that no move now changes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from magboard.firmware.games.core import END_TURN, Action, State
from magboard.firmware.games.lance.actions import (
    DIRECTIONS,
    NEUTRAL,
    Place,
    PlaceNeutral,
    Seen,
    Slide,
)
from magboard.firmware.games.lance.rules import GAME, LanceState
from magboard.firmware.games.search import COMPACT, BenchRow, SearchHooks, declare_search
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

try:
    from magboard.firmware.native import c_lance
except ImportError:
    c_lance = None

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


def bout_rewards(winner: int | None) -> tuple[float, float]:
    """A Lance Assembly bout's end as rewards: the winner's 1, or a half each for a stalemate."""
    if winner is None:
        return 0.5, 0.5
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


def bout_end(state: LanceState) -> tuple[float, float] | None:
    """Where a search stops: the rewards of the bout just over, else None."""
    return bout_rewards(state.bouts[-1].winner) if state.over else None


def bout_playout(state: LanceState, rng: random.Random) -> tuple[float, float]:
    """The bout in progress played out by the compact engine, as rewards."""
    return bout_rewards(playout_bout(state, rng))


def _state_bout(state: LanceState, rng: random.Random) -> None:
    """A Lance Assembly bout played out on the rules' States, as the compact engine plays it."""
    choice = rng.choice
    while not state.over:
        state = state._play(choice(state._legal()))


def _compact_runs(start: State, seed: int) -> dict:
    """The AI bench's timed loops of the compact engine: bouts from `start`, seeds from `seed`,
    by kernel."""
    position = encode(start)

    def kernel_run(kernel: Any) -> Callable[[int], None]:
        def run(number: int) -> None:
            for bout_seed in range(seed, seed + number):
                kernel.playout(position, bout_seed)

        return run

    runs = {"python": kernel_run(py_lance)}
    if c_lance is not None:
        runs["c"] = kernel_run(c_lance)
    return runs


SEARCH_OPTIONS = tuple(GAME.searched_with.items())
"""Without clocks: a search has no hands."""

declare_search(
    GAME,
    SearchHooks(
        horizon=bout_end,
        playout=bout_playout,
        bench=(
            BenchRow(SEARCH_OPTIONS, COMPACT, runs=_compact_runs, unit="bouts"),
            BenchRow(SEARCH_OPTIONS, play=_state_bout),
        ),
        strength=MappingProxyType(dict(SEARCH_OPTIONS)),
    ),
)
