"""Every (game, board) profile: no two legal continuations of a turn look alike to the sensors
while leading to different positions. Where they would, the board must sense more."""

from __future__ import annotations

import random

import pytest

from magboard.firmware.games import PASS, get_game
from magboard.firmware.profiles import profile_for, profiled_pairs
from magboard.firmware.referee import TurnCandidates
from magboard.hardware.spec import load_board

PAIRS = profiled_pairs()
GAMES_PER_PROFILE = 60


@pytest.mark.parametrize(("game_name", "board_name"), PAIRS, ids=[f"{g}@{b}" for g, b in PAIRS])
def test_no_two_continuations_share_a_frame(game_name, board_name):
    game = get_game(game_name)
    profile = profile_for(game, load_board(board_name))
    rng = random.Random(f"{game_name}@{board_name}")
    turns = 0
    for _ in range(GAMES_PER_PROFILE):
        state = game.new_state()
        while state.outcome() is None:
            candidates = TurnCandidates(profile, state)
            assert not candidates.ambiguous, {
                hex(frame): [" ".join(map(str, c.actions)) for c in found]
                for frame, found in candidates.ambiguous.items()
            }
            turns += 1
            complete = [c for c in candidates.by_frame.values() if c.complete]
            # No physical way to finish the turn: a forced pass, which the referee makes itself.
            state = rng.choice(complete).state if complete else state.apply(PASS)
    assert turns > GAMES_PER_PROFILE


@pytest.mark.parametrize(("game_name", "board_name"), PAIRS, ids=[f"{g}@{b}" for g, b in PAIRS])
def test_every_position_renders_to_a_canonical_frame_inside_the_board(game_name, board_name):
    game = get_game(game_name)
    spec = load_board(board_name)
    profile = profile_for(game, spec)
    rng = random.Random(1)
    for _ in range(20):
        state = game.new_state()
        while state.outcome() is None:
            frame = profile.render(state)
            assert profile.canonical(frame) == frame
            assert frame < 1 << spec.frame_bits
            state = state.apply(rng.choice(state.legal_actions()))
