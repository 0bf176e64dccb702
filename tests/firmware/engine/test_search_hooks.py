"""The searches' fast paths come from what each game declares, not from the engine naming games."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from magboard.firmware.engine import ai_bench, solve, strength
from magboard.firmware.engine.ends import ended
from magboard.firmware.engine.playout import playout, state_playout
from magboard.firmware.games import all_games, get_game
from magboard.firmware.games.search import BenchRow, SearchHooks, declare_search, search_hooks


def test_a_game_that_declares_nothing_is_searched_on_its_states_to_its_end():
    undeclared = replace(get_game("tic-tac-toe"), name="undeclared")
    hooks = search_hooks(undeclared)
    assert (hooks.horizon, hooks.playout, hooks.planner) == (None, None, None)
    assert hooks.bench == (BenchRow(),) and dict(hooks.strength) == {} and hooks.tabled == ()


def test_a_game_declares_its_hooks_once():
    with pytest.raises(ValueError, match="declared twice"):
        declare_search(get_game("lance-assembly"), SearchHooks())


def test_a_game_without_a_compact_engine_plays_out_on_its_states():
    start = get_game("magnetmen").new_state()
    assert playout(start, random.Random(4)) == state_playout(start, random.Random(4))
    assert ended(start) is None


def test_the_engine_lists_are_the_games_declarations():
    names = [game.name for game in all_games()]
    assert [name for name, _ in strength.GAMES] == names  # every game is played
    assert dict(strength.GAMES)["lance-assembly"] == {"clock": "none"}
    assert {name for name, _ in solve.TABLED} == {"tic-tac-cap", "tic-tac-doh"}
    assert {case.game for case in ai_bench.CASES} == set(names)
    own_paths = {(case.game, case.path) for case in ai_bench.CASES if case.runs is not None}
    assert own_paths == {
        ("lance-assembly", ai_bench.COMPACT),
        ("meeple-maneuver", ai_bench.LOOK_AHEAD),
    }
