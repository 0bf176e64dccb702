"""Every (game, board) profile: from the frame a continuation of a turn shows, and the cells its
hands changed on the way, the referee's search by difference reads that continuation and no
other. Where two would remain, the board must sense more."""

from __future__ import annotations

import random

import pytest

from magboard.firmware.games import PASS, State, get_game
from magboard.firmware.games.perft import settled
from magboard.firmware.profiles import Profile, profile_for, profiled_pairs, profiled_variants
from magboard.firmware.referee import Matcher
from magboard.firmware.referee.evidence import best_explained
from magboard.hardware.spec import load_board

pytestmark = pytest.mark.slow  # random games through every profile: seconds each

PAIRS = profiled_pairs()
CASES = profiled_variants()
CASE_IDS = ["@".join((g, b, *(f"{k}={v}" for k, v in o.items()))) for g, b, o in CASES]
TURNS_PER_PROFILE = 400
WALKS_PER_TURN = 12


def walk(profile: Profile, start: State, rng: random.Random) -> tuple[State, int, list[int]]:
    """A random way through the turn by seen actions, stopping at its end or anywhere before,
    with the sensor bits it changed on the way and the frames it showed, one an action (a hand
    makes one at a time): written here, not the referee's."""
    state, anchor, bits = start, profile.render(start), 0
    frames = [anchor]
    while True:
        seen = [a for a in state.legal_actions() if a.seen]
        if not seen:  # only the button is left: the turn ends unseen
            return state, bits, frames
        state = state.apply(rng.choice(seen))
        frames.append(profile.render(state))
        bits |= frames[-1] ^ anchor
        if state.turn != start.turn or state.outcome() is not None or rng.random() < 0.3:
            return state, bits, frames


@pytest.mark.parametrize(("game_name", "board_name", "options"), CASES, ids=CASE_IDS)
def test_every_continuation_is_read_from_its_frame_alone(game_name, board_name, options):
    game = get_game(game_name)
    profile = profile_for(game, load_board(board_name), options)
    matcher = Matcher(profile, max_seconds=10.0)
    rng = random.Random(f"{game_name}@{board_name}{options}")
    turns = 0
    while turns < TURNS_PER_PROFILE:
        state = game.new_state(options)
        while state.outcome() is None and turns < TURNS_PER_PROFILE:
            turns += 1
            if not any(a.seen for a in state.legal_actions()):
                state = state.apply(PASS)  # a forced pass, which the referee makes itself
                continue
            for _ in range(WALKS_PER_TURN):
                after, bits, frames = walk(profile, state, rng)
                changed = matcher.game_cells(profile.sensors.spots(bits))
                found = matcher.search(state, profile.render(after), changed)
                read = best_explained(profile, found.exact, bits, frames)
                assert [r.state.key() for r in read] == [after.key()], after
            begun = state.turn
            while state.turn == begun and state.outcome() is None:
                state = state.apply(rng.choice(state.legal_actions()))
            state = settled(state)
    assert turns == TURNS_PER_PROFILE


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
