"""The solver's values: the known results, its C kernel against its Python twin, its shipped
opening tables against a fresh solve, and a brute-force negamax over the referee's States."""

from __future__ import annotations

import random

import pytest

from magboard.firmware.engine import solve
from magboard.firmware.engine.linegames import encode, game_of
from magboard.firmware.engine.solve import Solver, Value, solver_for
from magboard.firmware.games import State, get_game
from magboard.firmware.native import py_linegames

SOLVED = [
    ("tic-tac-toe", {}, Value(0, 9)),
    ("tic-tac-cap", {"variant": "classic"}, Value(1, 11)),
    ("tic-tac-cap", {"variant": "manager"}, Value(1, 11)),
    ("tic-tac-cap", {"variant": "heist"}, Value(1, 5)),
    ("tic-tac-cap", {"variant": "five-small"}, Value(0, 11)),
    ("tic-tac-cap", {"variant": "easy-rider"}, Value(1, 11)),
    ("tic-tac-cap", {"variant": "classic", "cover_own": False}, Value(1, 9)),
    ("tic-tac-cap", {"variant": "manager", "cover_own": False}, Value(1, 11)),
    ("tic-tac-cap", {"variant": "heist", "cover_own": False}, Value(1, 5)),
    ("tic-tac-cap", {"variant": "five-small", "cover_own": False}, Value(0, 11)),
    ("tic-tac-cap", {"variant": "easy-rider", "cover_own": False}, Value(1, 9)),
    ("tic-tac-doh", {}, Value(0, 15)),
]
GAMES = [(name, options) for name, options, _ in SOLVED]


def c_kernel():
    return pytest.importorskip("magboard.firmware.native.c_linegames")


def random_state(name: str, options: dict, rng: random.Random, turns: int) -> State:
    """A position `turns` turns into a random game (earlier if the game ends first)."""
    state = get_game(name).new_state(options)
    for _ in range(turns):
        if not state.legal_actions():
            break
        state = state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("name", "options", "value"), SOLVED, ids=str)
def test_the_start_has_its_known_value(name, options, value):
    state = get_game(name).new_state(options)
    assert solver_for(state).value(state) == value


def test_values_at_the_end_and_one_turn_before():
    state = get_game("tic-tac-toe").new_state()
    for cell in ("a1", "b2", "a2", "c3"):
        state = state.apply(state.parse_action(cell))
    solver = solver_for(state)
    assert solver.value(state) == Value(1, 1)  # X plays a3
    won = state.apply(state.parse_action("a3"))
    assert solver.value(won) == Value(-1, 0)


def test_one_solver_per_game_and_options():
    first = get_game("tic-tac-cap").new_state({"variant": "heist"})
    later = first.apply(first.legal_actions()[0])
    assert solver_for(first) is solver_for(later)
    assert solver_for(first) is not solver_for(get_game("tic-tac-cap").new_state())


def test_no_solver_for_other_games_and_no_value_for_another_game():
    assert solver_for(get_game("meep-tac-toe").new_state()) is None
    with pytest.raises(ValueError):
        solver_for(get_game("tic-tac-toe").new_state()).value(get_game("tic-tac-doh").new_state())


def test_every_tabled_game_has_its_table():
    for name, options in solve.TABLED:
        game = game_of(get_game(name).new_state(options))
        assert solve.read_table(solve.table_path(game))


def test_table_files_read_back_what_was_written(tmp_path):
    words = [5 << 8 | 0x81, 1 << 8 | 0x4B, 99 << 8 | 0x0A]
    path = tmp_path / "table.bin"
    path.write_bytes(solve.encode_table(words))
    assert solve.read_table(path) == sorted(words)


@pytest.mark.slow
def test_a_shipped_table_equals_a_fresh_solve():
    """Manager's table (the quickest of the tabled games to solve again), by the C kernel."""
    c = c_kernel()
    options = {"variant": "manager", "cover_own": True}
    game = game_of(get_game("tic-tac-cap").new_state(options))
    fresh = solve.opening_table("tic-tac-cap", options, backend=c)
    assert fresh == solve.read_table(solve.table_path(game))


@pytest.mark.deep
@pytest.mark.parametrize(("name", "options"), solve.TABLED, ids=str)
def test_every_shipped_table_equals_a_fresh_solve(name, options):
    c = c_kernel()
    game = game_of(get_game(name).new_state(options))
    assert solve.opening_table(name, options, backend=c) == solve.read_table(solve.table_path(game))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), GAMES, ids=str)
def test_c_solver_agrees_with_the_python_twin(name, options):
    """On random reachable positions from the sixth turn on (earlier ones are in the shared
    table or, for the small games, quick to solve in Python too)."""
    c = c_kernel()
    rng = random.Random(17)
    game = game_of(get_game(name).new_state(options))
    small = name == "tic-tac-toe" or options.get("variant") in ("heist", "five-small")
    in_c, in_python = Solver(game, backend=c), Solver(game, backend=py_linegames)
    for _ in range(25):
        state = random_state(name, options, rng, rng.randrange(0 if small else 6, 14))
        assert in_c.value(state) == in_python.value(state), state


def brute_force(state: State, seen: dict) -> Value:
    """The value by plain negamax over the referee's States: every action, no symmetry, no
    pruning, no engine."""
    key = state.key()
    if key in seen:
        return seen[key]
    outcome = state.outcome()
    if outcome is not None:
        value = Value(0 if outcome.draw else (1 if state.to_move in outcome.winners else -1), 0)
    else:
        options = []
        for action in state.legal_actions():
            child = brute_force(state.apply(action), seen)
            options.append((-child.result, child.plies + 1))
        best = max(result for result, _ in options)
        lengths = [plies for result, plies in options if result == best]
        value = Value(best, max(lengths) if best < 0 else min(lengths))
    seen[key] = value
    return value


BRUTE_FORCE_FROM = {  # the turn from which a brute force over States is quick, per game
    "tic-tac-toe": 0,
    "heist": 4,
    "five-small": 3,
    "tic-tac-doh": 10,
}


@pytest.mark.parametrize(("name", "options"), GAMES, ids=str)
def test_values_agree_with_a_brute_force_over_the_referees_states(name, options):
    rng = random.Random(29)
    state = get_game(name).new_state(options)
    solver = solver_for(state)
    earliest = BRUTE_FORCE_FROM.get(options.get("variant", name), 10)
    for _ in range(12):
        state = random_state(name, options, rng, rng.randrange(earliest, earliest + 5))
        assert solver.value(state) == brute_force(state, {}), state


def test_positions_from_encode_and_states_give_one_value():
    state = get_game("tic-tac-cap").new_state()
    solver = solver_for(state)
    assert solver.position_value(encode(state)) == solver.value(state)
