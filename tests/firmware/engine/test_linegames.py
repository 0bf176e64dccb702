"""The line-games engine counts what the referee counts, plays what the referee plays, and its C
kernel agrees with its pure-Python twin."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from magboard.firmware.engine import linegames
from magboard.firmware.engine.linegames import encode, game_of
from magboard.firmware.games import get_game
from magboard.firmware.games.perft import perft as state_perft
from magboard.firmware.native import py_linegames
from magboard.firmware.native.selection import load


def _known_perft() -> list:
    """The counts tests/firmware/games/known_counts.py lists, read from beside the game tests."""
    path = Path(__file__).resolve().parents[1] / "games" / "known_counts.py"
    spec = importlib.util.spec_from_file_location("line_games_known_counts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.KNOWN_PERFT


KNOWN_PERFT = _known_perft()
LINE_GAMES = ("tic-tac-toe", "tic-tac-cap", "tic-tac-doh")
CAP_OPTIONS = [
    {"variant": variant, "cover_own": cover_own}
    for variant in ("classic", "easy-rider", "manager", "heist", "five-small")
    for cover_own in (True, False)
]
ALL_OPTIONS = [("tic-tac-toe", {}), ("tic-tac-doh", {})] + [
    ("tic-tac-cap", options) for options in CAP_OPTIONS
]


def c_kernel():
    return pytest.importorskip("magboard.firmware.native.c_linegames")


def start(name: str, options: dict):
    state = get_game(name).new_state(options)
    return state, game_of(state), encode(state)


def random_states(name: str, options: dict, seed: int, games: int):
    """Every position of `games` random games, start to end."""
    rng = random.Random(seed)
    for _ in range(games):
        state = get_game(name).new_state(options)
        yield state
        while state.legal_actions():
            state = state.apply(rng.choice(state.legal_actions()))
            yield state


@pytest.mark.parametrize(
    ("name", "options", "counts"),
    [entry for entry in KNOWN_PERFT if entry[0] in LINE_GAMES],
    ids=lambda value: str(value)[:40],
)
def test_engine_reproduces_the_known_counts(name, options, counts):
    _, game, position = start(name, options)
    perft = linegames.kernel().perft
    assert [perft(game, position, depth) for depth in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize(("name", "options"), ALL_OPTIONS, ids=str)
def test_engine_perft_equals_the_referees_at_every_quick_depth(name, options):
    state, game, position = start(name, options)
    depths = 3 if name == "tic-tac-doh" else 4
    for depth in range(depths + 1):
        expected = state_perft(state, depth)
        assert linegames.perft(game, position, depth) == expected
        assert linegames.kernel().perft(game, position, depth) == expected


def test_engine_perft_from_mid_game_positions_equals_the_referees():
    rng = random.Random(11)
    for name, options in ALL_OPTIONS:
        states = list(random_states(name, options, seed=rng.randrange(10**6), games=1))
        state = states[len(states) // 3]
        game, position = game_of(state), encode(state)
        assert linegames.perft(game, position, 3) == state_perft(state, 3), (name, options)


@pytest.mark.parametrize(("name", "options"), ALL_OPTIONS, ids=str)
def test_encoded_positions_move_and_play_as_the_referee(name, options):
    """From any reachable State: the engine's moves are the legal actions, in order, and each
    move reaches the encoding of the State that action reaches."""
    rng = random.Random(5)
    for state in random_states(name, options, seed=rng.randrange(10**6), games=6):
        game, position = game_of(state), encode(state)
        moves = game.moves(position)
        assert [game.action(move) for move in moves] == list(state.legal_actions())
        assert game.count_moves(position) == len(moves)
        expected_result = None
        outcome = state.outcome()
        if outcome is not None:
            expected_result = 0 if outcome.draw else -1
        assert game.result(position) == expected_result
        for move in moves:
            assert game.play(position, move) == encode(state.apply(game.action(move)))


def test_game_of_recovers_the_starting_supplies_mid_game():
    for options in CAP_OPTIONS:
        states = list(random_states("tic-tac-cap", options, seed=3, games=1))
        first = game_of(states[0])
        assert all(game_of(state) == first for state in states)
        assert first.cover_own == options["cover_own"]


def test_encode_refuses_other_games():
    assert game_of(get_game("meep-tac-toe").new_state()) is None
    with pytest.raises(TypeError):
        encode(get_game("meep-tac-toe").new_state())


@pytest.mark.parametrize(("name", "options"), ALL_OPTIONS, ids=str)
def test_c_kernel_moves_and_plays_as_the_python_twin(name, options):
    c = c_kernel()
    rng = random.Random(8)
    for state in random_states(name, options, seed=rng.randrange(10**6), games=10):
        game, position = game_of(state), encode(state)
        moves = py_linegames.moves(game, position)
        assert c.moves(game, position) == moves
        assert c.result(game, position) == py_linegames.result(game, position)
        for move in moves:
            assert c.play(game, position, move) == py_linegames.play(game, position, move)


@pytest.mark.parametrize(("name", "options"), ALL_OPTIONS, ids=str)
def test_c_perft_equals_the_python_twin(name, options):
    c = c_kernel()
    _, game, position = start(name, options)
    depth = 4 if name == "tic-tac-doh" else 5
    for d in range(depth + 1):
        assert c.perft(game, position, d) == py_linegames.perft(game, position, d)


@pytest.mark.slow
def test_c_perft_from_random_positions_equals_the_python_twin():
    c = c_kernel()
    rng = random.Random(21)
    for name, options in ALL_OPTIONS:
        states = list(random_states(name, options, seed=rng.randrange(10**6), games=3))
        for state in rng.sample(states, 6):
            game, position = game_of(state), encode(state)
            assert c.perft(game, position, 4) == py_linegames.perft(game, position, 4)


def test_the_kernel_follows_magboard_native():
    assert load("python", "linegames")[1] is py_linegames
    assert linegames.kernel() in (py_linegames, load("auto", "linegames")[1])


def test_perft_refuses_a_negative_depth():
    _, game, position = start("tic-tac-toe", {})
    with pytest.raises(ValueError):
        linegames.perft(game, position, -1)
