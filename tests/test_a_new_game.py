"""A new game needs nothing but its own module: Stones (tests/support/stones.py) registers its
rules and its profile there, and no other file names it; yet it is offered, played, ended and
scored by every part of the system that offers, plays, ends or scores games: the rules' generic
checks and perft, a scenario file, the soak, the page, OpenSpiel and the strength harness.

The steps to add one are the README's "Adding a game"; this is the proof they are enough."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import stones

from magboard.firmware.engine.strength import Pairing, play
from magboard.firmware.games import END_TURN, all_games, get_game
from magboard.firmware.games.perft import perft_series
from magboard.firmware.profiles import profile_for, profiled_pairs, profiled_variants
from magboard.hardware.spec import load_board
from magboard.sim.scenario import run_file
from magboard.sim.session import SimSession
from magboard.sim.soak import soak
from magboard.sim.web.snapshot import board_info, hosted_games, pieces, standings

SCENARIO = Path(__file__).resolve().parent / "support" / "stones-mini.toml"
GAME = stones.GAME


def test_its_own_module_registers_the_game_and_its_profile():
    assert get_game("stones") is GAME
    assert GAME in all_games()
    assert ("stones", "mini") in profiled_pairs()
    assert ("stones", "mini", {}) in profiled_variants()
    assert profile_for(GAME, load_board("mini")).game is GAME


def test_the_boards_that_lack_what_it_needs_do_not_offer_it():
    """Its B stones trip the middle ring, which r1 does not sense: r1 does not play it."""
    assert ("stones", "r1") not in profiled_pairs()
    assert GAME not in hosted_games(load_board("r1"))


def test_random_games_end_and_replay_from_their_notation():
    rng = random.Random("stones")
    for _ in range(20):
        state, notation = GAME.new_state(), []
        while state.outcome() is None:
            action = rng.choice(state.legal_actions())
            notation.append(str(action))
            state = state.apply(action)
        replayed = GAME.new_state()
        for text in notation:
            replayed = replayed.apply(replayed.parse_action(text))
        assert replayed == state and replayed.key() == state.key()
        assert len(state.outcome().scores) == 2


def test_perft_gives_the_counts_of_its_own_model():
    """The counts that tests/firmware/games/test_stones.py's independent model gives."""
    assert perft_series(GAME.new_state(), 4) == [9, 84, 696, 5306]


def test_a_scenario_file_plays_it_to_a_win_on_mini():
    result = run_file(SCENARIO)
    assert result.ok, "\n".join(result.failures)
    over = [event for event in result.events if event.TYPE == "game-over"]
    assert [(event.winners, event.scores) for event in over] == [((0,), (2, 1))]


def test_the_soak_referees_it_without_a_slip():
    tally = soak("stones", "mini", games=3, seed=1)
    assert tally.games == 3 and tally.accepted > 0
    assert tally.false_accepts == 0 and tally.missed == 0


def test_the_page_offers_it_and_draws_its_stones():
    session = SimSession("mini", "stones")
    session.lay_out()
    session.start()
    offered = board_info(session, hosted_games(session.spec)).games
    assert "stones" in [game["name"] for game in offered]
    session.perform(stones.Stone((1, 1)))
    session.world.press("seat-1")
    session.run_for(1.0)
    assert session.state.turn == 1
    assert [piece["kind"] for piece in pieces(session).places["b2"]] == ["A"]
    assert standings(session) is None  # it keeps no running score: the board shows it


def test_openspiel_offers_and_plays_it_to_its_returns():
    pytest.importorskip("pyspiel", reason="open_spiel does not install here")
    from magboard.host import openspiel

    openspiel.register()  # offered since it was registered, after the adapter loaded
    state = openspiel.pyspiel.load_game("magboard_stones").new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    assert openspiel.universe(GAME.new_state())[-1] == END_TURN


def test_the_strength_harness_plays_and_scores_it():
    standing = play(Pairing("stones", (), 0, "random", 4, 0.02, 7))
    assert standing.wins + standing.draws + standing.losses == 4
    assert standing.game == "stones" and standing.seat == "A"
