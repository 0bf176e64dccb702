"""Where a game is solved, `strong` plays it perfectly: it wins every won game against every
defence, and never loses tic-tac-toe, whatever the other player does."""

from __future__ import annotations

import pytest

from magboard.firmware.engine.ends import ended
from magboard.firmware.engine.linegames import encode, game_of, solver_key
from magboard.firmware.engine.opponent import Level, Opponent
from magboard.firmware.games import State, get_game


def never_read():
    """The solved games need no thinking time: a clock that moves would change nothing."""
    return 0.0


def same_to_the_rules(state: State) -> tuple[int, int]:
    """Positions the rules treat alike (a symmetry of the board, markers covered for good) and
    with the same seat to move: the solver values them alike, so `strong` plays them alike and
    the walk need go through them once."""
    return state.to_move, solver_key(game_of(state).kind, encode(state))


def worst_result(state: State, seat: int, strong: Opponent, seen: dict) -> float:
    """`seat`'s least reward over every line where `strong` plays `seat` and the other player
    tries each legal action in turn."""
    key = same_to_the_rules(state)
    if key in seen:
        return seen[key]
    reward = ended(state)
    if reward is not None:
        worst = reward[seat]
    elif state.to_move == seat:
        for action in strong.choose(state):
            state = state.advance(action)
        worst = worst_result(state, seat, strong, seen)
    else:
        worst = min(
            worst_result(state.advance(reply), seat, strong, seen)
            for reply in state.legal_actions()
        )
    seen[key] = worst
    return worst


# The walks read the solver's values, which both kernels give alike (test_solve.py): with the
# Python kernel's slower solving they would only take longer, so they run once.
@pytest.mark.slow
@pytest.mark.backend_free
@pytest.mark.parametrize("variant", ["classic", "manager", "heist"])
def test_strong_as_first_player_wins_tic_tac_cap_against_every_defence(variant):
    start = get_game("tic-tac-cap").new_state({"variant": variant})
    strong = Opponent(Level.STRONG, clock=never_read, seed=1)
    assert worst_result(start, 0, strong, {}) == 1.0


@pytest.mark.parametrize("seat", [0, 1], ids=["X", "O"])
def test_strong_never_loses_tic_tac_toe(seat):
    start = get_game("tic-tac-toe").new_state()
    strong = Opponent(Level.STRONG, clock=never_read, seed=2)
    assert worst_result(start, seat, strong, {}) == 0.5


def test_strong_holds_five_small_to_a_draw_from_either_seat():
    start = get_game("tic-tac-cap").new_state({"variant": "five-small"})
    for seat in (0, 1):
        strong = Opponent(Level.STRONG, clock=never_read, seed=3)
        assert worst_result(start, seat, strong, {}) >= 0.5


def test_strong_sets_traps_a_careless_player_falls_into():
    """Every first move of tic-tac-toe draws; strong as X picks one after which many of O's
    replies lose (a corner: seven of O's eight replies lose), not the centre (four of eight)."""
    start = get_game("tic-tac-toe").new_state()
    firsts = {
        str(Opponent(Level.STRONG, clock=never_read, seed=seed).choose(start)[0])
        for seed in range(8)
    }
    assert firsts <= {"a1", "c1", "a3", "c3"}


@pytest.mark.slow
@pytest.mark.backend_free
@pytest.mark.parametrize("variant", ["manager", "heist"])
def test_normal_plays_any_winning_move_and_never_throws_a_won_game(variant):
    start = get_game("tic-tac-cap").new_state({"variant": variant})
    normal = Opponent(Level.NORMAL, clock=never_read, seed=4)
    assert worst_result(start, 0, normal, {}) == 1.0


def test_easy_can_be_beaten():
    """Easy as X against perfect play loses now and then; strong as X never does."""
    start = get_game("tic-tac-toe").new_state()
    results = []
    for seed in range(30):
        easy = Opponent(Level.EASY, clock=never_read, seed=seed)
        strong = Opponent(Level.STRONG, clock=never_read, seed=seed)
        state = start
        while ended(state) is None:
            player = easy if state.to_move == 0 else strong
            (action,) = player.choose(state)
            state = state.advance(action)
        results.append(ended(state)[0])
    assert 0.0 in results
