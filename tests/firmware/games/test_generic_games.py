"""Tests every registered game gets for free: playouts, notation replay, keys, legality, perft."""

from __future__ import annotations

import contextlib
import random
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from known_counts import KNOWN_PERFT

from magboard.firmware.games import (
    END_TURN,
    GameError,
    IllegalActionError,
    NotationError,
    State,
    all_games,
    get_game,
)
from magboard.firmware.games.perft import perft_series

GAMES = all_games()
SLOW_GAMES = {"lance-assembly", "magnetmen", "tic-tac-cap", "tic-tac-doh"}
"""Games whose generic checks take seconds each: `make test` runs them, `make test-fast` not."""
BY_GAME = [
    pytest.param(game, id=game.name, marks=[pytest.mark.slow] if game.name in SLOW_GAMES else [])
    for game in GAMES
]
MAX_ACTIONS = 5000

TESTED_DEPTH = {"lance-assembly": 1, "meeple-maneuver": 2}
"""Perft depths walked here where the engine is too slow for a test (half a minute a backend
and more): Lance Assembly's depth 2 is proven position by position against its independent
model in test_lance.py, and `magboard perft lance-assembly 2` prints it; Meeple Maneuver's depth
3 is compared with its model in test_tile_perft.py."""


def option_variants(game):
    """The default options, then each option's every choice on its own."""
    yield {}
    for option in game.options:
        if isinstance(option.default, bool):
            yield {option.name: not option.default}
        for choice in option.choices:
            if choice != option.default:
                yield {option.name: choice}


def playout(state: State, rng: random.Random) -> tuple[State, list[str]]:
    notation = []
    for _ in range(MAX_ACTIONS):
        if state.outcome() is not None:
            return state, notation
        actions = state.legal_actions()
        assert actions, f"no legal action but no outcome:\n{state}"
        action = rng.choice(actions)
        notation.append(str(action))
        before = state.turn
        state = state.apply(action)
        assert state.turn in (before, before + 1)
    raise AssertionError(f"game did not end within {MAX_ACTIONS} actions")


@pytest.mark.parametrize("game", BY_GAME)
def test_random_playouts_end_and_replay_from_notation(game):
    rng = random.Random(f"playouts:{game.name}")
    for options in option_variants(game):
        for _ in range(40):
            start = game.new_state(options)
            end, notation = playout(start, rng)
            assert end.legal_actions() == ()
            assert 0 <= end.to_move < end.players
            replayed = start
            for text in notation:
                replayed = replayed.apply(replayed.parse_action(text))
            assert replayed == end
            assert replayed.key() == end.key()
            assert replayed.outcome() == end.outcome()


@pytest.mark.parametrize("game", BY_GAME)
def test_notation_round_trips_for_every_legal_action(game):
    rng = random.Random(f"notation:{game.name}")
    for _ in range(30):
        state = game.new_state()
        while state.outcome() is None:
            for action in state.legal_actions():
                assert game.parse_action(str(action)) == action
                assert state.parse_action(str(action)) == action
            state = state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("game", BY_GAME)
def test_equal_keys_mean_the_same_future(game):
    """Breadth-first over the first actions (mid-turn states too): positions with one key agree
    on everything that matters next, so the key can stand for the position in perft and
    repetition counts."""
    seen: dict[object, State] = {}
    frontier = deque([(game.new_state(), 0)])
    while frontier and len(seen) < 3000:
        state, depth = frontier.popleft()
        key = state.key()
        hash(key)
        other = seen.setdefault(key, state)
        assert other.to_move == state.to_move
        assert other.outcome() == state.outcome()
        assert sorted(map(str, other.legal_actions())) == sorted(map(str, state.legal_actions()))
        if depth < 6:
            frontier.extend((state.apply(a), depth + 1) for a in state.legal_actions())


@pytest.mark.parametrize("game", BY_GAME)
def test_illegal_input_raises_typed_errors_only(game):
    rng = random.Random(f"illegal:{game.name}")
    garbage = ["", "zz", "a0", "q1", "a17", "!!", "end end", "pass x", "999", "a1-", "S", "\x00"]
    state = game.new_state()
    for _ in range(200):
        if state.outcome() is not None:
            state = game.new_state()
        for text in garbage:
            with pytest.raises(GameError):
                state.parse_action(text)
        # A legal action from another position is either legal here too or refused cleanly.
        other = game.new_state()
        for action in other.legal_actions():
            if not state.is_legal(action):
                with pytest.raises(IllegalActionError):
                    state.apply(action)
        if not state.can_end_turn:
            with pytest.raises(IllegalActionError):
                state.apply(END_TURN)
        state = state.apply(rng.choice(state.legal_actions()))


@given(text=st.text(max_size=12))
@settings(max_examples=300, deadline=None)
def test_parsers_never_fail_untyped(text):
    """Any text either parses or raises NotationError: never an untyped crash."""
    for game in GAMES:
        with contextlib.suppress(NotationError):
            game.parse_action(text)


@pytest.mark.parametrize(
    ("name", "options", "counts"),
    [
        pytest.param(
            name,
            options,
            counts,
            id=f"{name}{options or ''}",
            marks=[pytest.mark.slow] if name in SLOW_GAMES or options else [],
        )
        for name, options, counts in KNOWN_PERFT
    ],
)
def test_perft_matches_the_rules_file(name, options, counts):
    """Every known count, but where `TESTED_DEPTH` says a deeper one is proven otherwise."""
    game = get_game(name)
    depth = TESTED_DEPTH.get(name, len(counts))
    assert perft_series(game.new_state(options), depth) == counts[:depth]


def test_every_game_has_known_perft_counts():
    assert {game.name for game in GAMES} <= {name for name, _, _ in KNOWN_PERFT}
