"""The board as a player: whole legal turns, in the budget, at the level asked for."""

from __future__ import annotations

import random

import pytest

from magboard.firmware.app.board_player import stepped_clock
from magboard.firmware.engine.ends import ended
from magboard.firmware.engine.opponent import (
    AiSeat,
    AiSpecError,
    Level,
    Opponent,
    parse_ai,
)
from magboard.firmware.games import CARRY_OUT, get_game
from magboard.firmware.referee.remote_log import follow

GAMES = [
    ("tic-tac-toe", {}),
    ("tic-tac-cap", {}),
    ("tic-tac-doh", {}),
    ("lance-assembly", {"clock": "none"}),
    ("meep-tac-toe", {"maneuver": "advanced"}),
    ("meeple-maneuver", {}),
    ("magnetmen", {"players": 3}),
]


def random_position(name: str, options: dict, seed: int, turns: int):
    rng = random.Random(seed)
    state = get_game(name).new_state(options)
    while ended(state) is None and state.turn < turns:
        state = state.advance(rng.choice(state.legal_actions()))
        while state.obligations and state.outcome() is None:
            state = state.advance(CARRY_OUT)
    return state


def test_a_seat_is_named_as_the_game_names_it_or_numbered_from_one():
    ttt = get_game("tic-tac-toe")
    assert parse_ai("O", ttt) == AiSeat(1, Level.NORMAL)
    assert parse_ai(" x:Strong ", ttt) == AiSeat(0, Level.STRONG)
    assert parse_ai("2:easy", ttt) == AiSeat(1, Level.EASY)
    assert parse_ai("4", get_game("magnetmen")).seat == 3


@pytest.mark.parametrize(
    ("text", "says"),
    [("Z", "no seat 'z'"), ("3", "no seat '3'"), ("O:hard", "no level 'hard'"), ("", "no seat")],
)
def test_a_bad_seat_or_level_is_one_line_naming_what_there_is(text, says):
    with pytest.raises(AiSpecError) as error:
        parse_ai(text, get_game("tic-tac-toe"))
    assert says in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(("name", "options"), GAMES, ids=[g for g, _ in GAMES])
def test_every_turn_it_chooses_is_one_whole_legal_turn_a_remote_board_would_send(name, options):
    for seed in range(4):
        state = random_position(name, options, seed, turns=3 * seed)
        if ended(state) is not None:
            continue
        opponent = Opponent(Level.STRONG, clock=stepped_clock(), budget=0.05, seed=seed)
        turn = opponent.choose(state)
        followed = follow(state, [str(action) for action in turn], seq=1)
        assert followed.player == state.to_move
        assert not followed.after.obligations


@pytest.mark.parametrize("level", list(Level))
def test_it_stops_thinking_within_its_budget(level):
    clock = stepped_clock(0.003)
    state = random_position("meep-tac-toe", {"maneuver": "advanced"}, seed=5, turns=4)
    opponent = Opponent(level, clock=clock, budget=0.5, seed=1)
    start = clock()
    opponent.choose(state)
    assert clock() - start <= 0.5 * 1.1


def test_strong_takes_a_win_and_blocks_one():
    ttt = get_game("tic-tac-toe")
    # X on a1 b1, O on a2 b2, X to move: c1 wins.
    win = ttt.new_state()
    for text in ("a1", "a2", "b1", "b2"):
        win = win.apply(win.parse_action(text))
    # X on a1 b1, O on c3, O to move: c1 blocks.
    block = ttt.new_state()
    for text in ("a1", "c3", "b1"):
        block = block.apply(block.parse_action(text))
    for seed in range(5):
        strong = Opponent(Level.STRONG, clock=stepped_clock(), budget=0.3, seed=seed)
        assert [str(a) for a in strong.choose(win)] == ["c1"]
        assert [str(a) for a in strong.choose(block)] == ["c1"]


def test_easy_sometimes_misses_a_win_that_strong_never_misses():
    ttt = get_game("tic-tac-toe")
    state = ttt.new_state()
    for text in ("a1", "a2", "b1", "b2"):
        state = state.apply(state.parse_action(text))
    chosen = [
        str(Opponent(Level.EASY, clock=stepped_clock(), seed=seed).choose(state)[0])
        for seed in range(40)
    ]
    assert 0 < chosen.count("c1") < len(chosen)


def test_a_finished_game_has_no_turn_to_choose():
    state = random_position("tic-tac-toe", {}, seed=0, turns=99)
    with pytest.raises(ValueError, match="the game is over"):
        Opponent(Level.EASY, clock=stepped_clock()).choose(state)


def test_the_same_seed_and_clock_choose_the_same_turn():
    state = random_position("meeple-maneuver", {}, seed=2, turns=4)
    turns = {
        Opponent(Level.NORMAL, clock=stepped_clock(), budget=0.2, seed=9).choose(state)
        for _ in range(2)
    }
    assert len(turns) == 1


def _meeple_game_with_captures(seed: int):
    """The states of a Meeple Maneuver game `strong` plays as A against random actions."""
    state = get_game("meeple-maneuver").new_state()
    opponent = Opponent(Level.STRONG, clock=stepped_clock(), seed=seed)
    rng = random.Random(seed)
    states = [state]
    while state.outcome() is None:
        turn = opponent.choose(state) if state.to_move == 0 else [rng.choice(state.legal_actions())]
        for action in turn:
            state = state.advance(action)
            states.append(state)
    return states


def test_meeple_maneuver_captures_are_carried_off_and_a_third_neutral_one_wins():
    states = _meeple_game_with_captures(seed=4)
    captured = [s for s in states if s.pending and s.outcome() is None]
    assert captured, "strong captured nothing in a whole game"
    last = states[-1]
    assert last.outcome().winners and "third neutral meeple" in last.outcome().reason
    # Asked to move while the last turn's captures still stand, the board carries them off first.
    turn = Opponent(Level.NORMAL, clock=stepped_clock(), seed=1).choose(captured[0])
    assert turn[0] == CARRY_OUT and str(turn[1])[0] in "KP"
