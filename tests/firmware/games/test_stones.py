"""The test game's rules against a model of its own, written from the rules in
tests/support/stones.py with plain tuples (no shared move generator)."""

from __future__ import annotations

from functools import cache

import pytest
from stones import StonesState, stones

from magboard.firmware.games import CARRY_OUT, END_TURN, IllegalActionError
from magboard.firmware.games.perft import perft_series

N = 3


def _captures(board: tuple[int, ...], mover: int) -> tuple[int, ...]:
    other = 3 - mover
    out = []
    for i, v in enumerate(board):
        x, y = i % N, i // N
        if v == other and any(
            x - dx >= 0
            and x + dx < N
            and y - dy >= 0
            and y + dy < N
            and board[(y - dy) * N + x - dx] == mover == board[(y + dy) * N + x + dx]
            for dx, dy in ((1, 0), (0, 1))
        ):
            out.append(i)
    return tuple(out)


def _finish(board, mover, turn, supplies, turns):
    board = list(board)
    supplies = list(supplies)
    for i in _captures(tuple(board), mover):
        supplies[board[i] - 1] += 1
        board[i] = 0
    return tuple(board), 3 - mover, turn + 1, tuple(supplies), turns


def _over(pos) -> bool:
    board, mover, turn, supplies, turns = pos
    return turn >= turns or not supplies[mover - 1] or all(board)


@cache
def children(pos) -> frozenset:
    board, mover, turn, supplies, turns = pos
    if _over(pos):
        return frozenset()
    out = set()
    for i in range(N * N):
        if board[i]:
            continue
        placed = list(board)
        placed[i] = mover
        left = list(supplies)
        left[mover - 1] -= 1
        out.add(_finish(placed, mover, turn, left, turns))
        row = [placed[(i // N) * N + x] for x in range(N)]
        col = i % N
        # every run of side-by-side stones holding the placed one, moved one cell either way
        for a in range(col + 1):
            for b in range(col, N):
                if not all(row[a : b + 1]):
                    continue
                for step in (1, -1):
                    dest = b + 1 if step == 1 else a - 1
                    if not 0 <= dest < N or row[dest]:
                        continue
                    moved = row[:]
                    group = row[a : b + 1]
                    for x in range(a, b + 1):
                        moved[x] = 0
                    for k, v in enumerate(group):
                        moved[a + k + step] = v
                    pushed = list(placed)
                    pushed[(i // N) * N : (i // N) * N + N] = moved
                    out.add(_finish(pushed, mover, turn, left, turns))
    return frozenset(out)


def model_perft(pos, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(model_perft(child, depth - 1) for child in children(pos))


@pytest.mark.parametrize("turns", [6, 3])
def test_perft_agrees_with_the_independent_model(turns):
    start = ((0,) * 9, 1, 0, (4, 4), turns)
    engine = perft_series(StonesState(turns=turns), 4)
    assert engine == [model_perft(start, d) for d in range(1, 5)]


def test_a_push_moves_the_whole_row_and_ends_the_turn():
    state = stones("b1", "end", "a2", "end", "a1")
    assert "a1>2" in map(str, state.legal_actions())
    after = state.apply(state.parse_action("a1>2"))
    assert after.board[:3] == (0, 1, 1) and after.to_move == 1 and after.turn == 3


def test_a_capture_is_an_obligation_that_holds_the_next_turn():
    state = stones("a1", "end", "b1", "end", "c1", "end")
    assert state.legal_actions() == (CARRY_OUT,)
    assert state.obligations[0].sources == {(1, 0)} and state.obligations[0].targets == {"B"}
    with pytest.raises(IllegalActionError):
        state.apply(state.parse_action("b2"))
    done = state.apply(CARRY_OUT)
    assert done.board[:3] == (1, 0, 1) and done.supplies == (2, 4) and done.to_move == 1


def test_the_game_is_scored_with_every_seat_s_stones():
    state = stones("a1", "end", "b2", "end", "c3", "end", turns=3)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,) and outcome.scores == (2, 1)


def test_end_is_legal_only_after_placing():
    with pytest.raises(IllegalActionError):
        StonesState().apply(END_TURN)
