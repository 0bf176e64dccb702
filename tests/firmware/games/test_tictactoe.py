"""Tic-tac-toe against the figures of rules/tic-tac-toe.md and what players would notice."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.firmware.games import IllegalActionError, NotationError, get_game
from magboard.firmware.games.tictactoe import TicTacToeState

GAME = get_game("tic-tac-toe")
LINES = (
    [{(0, r), (1, r), (2, r)} for r in range(3)]
    + [{(c, 0), (c, 1), (c, 2)} for c in range(3)]
    + [
        {(0, 0), (1, 1), (2, 2)},
        {(0, 2), (1, 1), (2, 0)},
    ]
)


def play(*moves: str) -> TicTacToeState:
    state = GAME.new_state()
    for move in moves:
        state = state.apply(state.parse_action(move))
    return state


@cache
def results(state: TicTacToeState) -> Counter:
    """Complete games below `state`, by result: 'X', 'O' or 'draw'."""
    outcome = state.outcome()
    if outcome is not None:
        return Counter(["draw" if outcome.draw else "XO"[outcome.winners[0]]])
    total: Counter = Counter()
    for action in state.legal_actions():
        total += results(state.apply(action))
    return total


def test_complete_games_match_the_rules_file():
    games = results(GAME.new_state())
    assert sum(games.values()) == 255_168
    assert games == Counter({"X": 131_184, "O": 77_904, "draw": 46_080})


def test_reachable_positions_match_the_rules_file():
    seen = {GAME.new_state()}
    frontier = list(seen)
    while frontier:
        state = frontier.pop()
        for action in state.legal_actions():
            child = state.apply(action)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    assert len(seen) == 5_478


def test_a_win_names_the_winner_and_its_line():
    state = play("a1", "b1", "b2", "c1", "c3")
    outcome = state.outcome()
    assert outcome.winners == (0,)
    assert outcome.cells == {(0, 0), (1, 1), (2, 2)}
    assert state.legal_actions() == ()


def test_a_full_board_without_a_line_is_a_draw():
    state = play("b2", "a1", "c3", "a3", "a2", "c2", "b1", "b3", "c1")
    assert state.outcome().draw


def test_transposed_move_orders_reach_one_key():
    assert play("a1", "b2", "c3").key() == play("c3", "b2", "a1").key()
    assert play("a1", "b2", "c3").key() != play("b2", "a1", "c3").key()


def test_illegal_moves_say_why():
    state = play("b2")
    with pytest.raises(IllegalActionError, match="b2 is already taken by X"):
        state.parse_action("b2")
    with pytest.raises(IllegalActionError, match="not on the 3x3 board"):
        state.parse_action("d4")
    with pytest.raises(NotationError):
        state.parse_action("middle")
    with pytest.raises(IllegalActionError, match="game is over"):
        play("a1", "b1", "b2", "c1", "c3").parse_action("a3")


def test_the_board_is_drawn_for_players():
    assert str(play("a1", "b2")) == " 3 . . .\n 2 . O .\n 1 X . .\n   a b c"


@given(st.lists(st.integers(min_value=0, max_value=8), max_size=9))
@settings(max_examples=400, deadline=None)
def test_any_playout_obeys_the_rules(choices):
    state = GAME.new_state()
    for choice in choices:
        actions = state.legal_actions()
        if not actions:
            break
        state = state.apply(actions[choice % len(actions)])
    xs = {c for c in ((i % 3, i // 3) for i in range(9)) if state.mark_at(c) == "X"}
    os_ = {c for c in ((i % 3, i // 3) for i in range(9)) if state.mark_at(c) == "O"}
    assert len(xs) - len(os_) in (0, 1)
    x_line = any(line <= xs for line in LINES)
    o_line = any(line <= os_ for line in LINES)
    assert not (x_line and o_line)
    outcome = state.outcome()
    if x_line or o_line:
        winner = 0 if x_line else 1
        assert outcome.winners == (winner,)
        assert outcome.cells <= (xs if x_line else os_)
        assert any(line <= outcome.cells for line in LINES)
    elif len(xs) + len(os_) == 9:
        assert outcome.draw
    else:
        assert outcome is None
