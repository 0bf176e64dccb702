"""Every game as an OpenSpiel game (host/openspiel.py), where open_spiel installs: OpenSpiel's own
tic-tac-toe and ours agree on perft, OpenSpiel's checks and algorithms run on every game, and
what OpenSpiel may play is exactly what the rules allow."""

from __future__ import annotations

import random

import pytest

from magboard.firmware.games import CARRY_OUT, PASS, all_games, get_game
from magboard.firmware.games.perft import perft as rules_perft

pyspiel = pytest.importorskip(
    "pyspiel",
    reason="open_spiel does not install here (the `openspiel` extra; make test installs it"
    " where a wheel exists for this machine)",
)
openspiel = pytest.importorskip("magboard.host.openspiel")
pytestmark = pytest.mark.backend_free  # the rules through OpenSpiel: no kernel of their own

LOADED = {
    "tic-tac-toe": "magboard_tic_tac_toe",
    "tic-tac-cap": "magboard_tic_tac_cap",
    "tic-tac-doh": "magboard_tic_tac_doh",
    "lance-assembly": "magboard_lance_assembly",
    "meep-tac-toe": "magboard_meep_tac_toe(maneuver=advanced)",
    "meeple-maneuver": "magboard_meeple_maneuver",
    "magnetmen": "magboard_magnetmen(players=3)",
}


def spiel_perft(state, depth: int) -> int:
    """Leaves `depth` actions deep, walked with OpenSpiel's own calls."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += spiel_perft(child, depth - 1)
    return total


def test_every_game_is_registered_under_its_name():
    shipped = {game.name for game in all_games() if game.rules_file}  # not the tests' own
    offered = {game.name for game in all_games() if game.universe is not None}
    assert set(LOADED) == shipped <= offered
    names = set(pyspiel.registered_names())
    assert {openspiel.short_name(get_game(name)) for name in LOADED} <= names


def test_openspiels_tic_tac_toe_and_ours_agree_on_perft():
    theirs = pyspiel.load_game("tic_tac_toe").new_initial_state()
    ours = pyspiel.load_game("magboard_tic_tac_toe").new_initial_state()
    rules = get_game("tic-tac-toe").new_state()
    for depth in range(1, 10):
        expected = spiel_perft(theirs, depth)
        assert rules_perft(rules, depth) == expected  # one action a turn: turns are actions
        if depth <= 6:  # deeper, a walk through Python states takes seconds
            assert spiel_perft(ours, depth) == expected
    assert expected == 127_872


def _rules_perft(state, depth: int) -> int:
    """Leaves `depth` decisions deep on the rules' States, hands' work done at once."""
    if depth == 0:
        return 1
    total = 0
    for action in state.legal_actions():
        after = state.advance(action)
        while after.outcome() is None and (after.obligations or after.must_pass):
            after = after.advance(CARRY_OUT if after.obligations else PASS)
        total += _rules_perft(after, depth - 1)
    return total


@pytest.mark.parametrize("name", sorted(LOADED))
def test_openspiel_plays_exactly_the_rules_actions(name):
    game = pyspiel.load_game(LOADED[name])
    start = game.new_initial_state()
    depth = 2 if name in ("lance-assembly", "meep-tac-toe", "magnetmen") else 3
    assert spiel_perft(start, depth) == _rules_perft(start.state, depth)
    # Every action met on random games has its number, its name is its notation, and the
    # numbers stay below the game's count of distinct actions.
    rng = random.Random(7)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == sorted(legal) and max(legal) < game.num_distinct_actions()
            action = rng.choice(legal)
            seat = state.current_player()
            named = state.action_to_string(seat, action)
            assert named == f"{get_game(name).seats[seat]} {game.actions[action]}"
            state.apply_action(action)
        returns = state.returns()
        assert len(returns) == game.num_players() and sum(returns) == pytest.approx(
            0.0 if game.num_players() == 2 else 1.0
        )


@pytest.mark.parametrize("name", sorted(LOADED))
def test_openspiels_own_consistency_check_passes(name):
    pyspiel.random_sim_test(
        pyspiel.load_game(LOADED[name]), num_sims=2, serialize=False, verbose=False
    )


def test_openspiels_alpha_beta_finds_the_solved_values():
    from open_spiel.python.algorithms import minimax

    draw, _ = minimax.alpha_beta_search(pyspiel.load_game("magboard_tic_tac_toe"))
    win, _ = minimax.alpha_beta_search(pyspiel.load_game("magboard_tic_tac_cap(variant=heist)"))
    assert (draw, win) == (0.0, 1.0)  # tic-tac-toe a draw, heist a win for A


def test_openspiels_mcts_takes_a_win_in_meep_tac_toe():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("magboard_meep_tac_toe")
    state = game.new_initial_state()
    # Random play up to a position where the player to move has a line in one move.
    rng = random.Random(3)
    while True:
        wins = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            if child.is_terminal() and child.returns()[state.current_player()] == 1.0:
                wins.append(action)
        if wins:
            break
        state.apply_action(rng.choice(state.legal_actions()))
        assert not state.is_terminal()
    bot = mcts.MCTSBot(
        game, 1.4, 300, mcts.RandomRolloutEvaluator(1, random.Random(1)), random_state=None
    )
    assert bot.step(state) in wins


def test_options_are_parameters_and_a_bad_one_is_refused():
    game = pyspiel.load_game("magboard_meep_tac_toe(maneuver=advanced,max_turns=30)")
    assert game.options["maneuver"] == "advanced" and game.max_game_length() == 30 * 4
    assert "clock" not in pyspiel.load_game("magboard_lance_assembly").get_parameters()
    with pytest.raises(Exception, match="maneuver"):
        pyspiel.load_game("magboard_meep_tac_toe(maneuver=sideways)")
