"""Every (game, board) profile: from the frame a continuation of a turn shows, and the cells its
hands changed on the way, the referee's search by difference reads that continuation and no
other. Where two would remain, the board must sense more."""

from __future__ import annotations

import random

import pytest

from magboard.firmware.games import PASS, State, get_game
from magboard.firmware.profiles import Profile, profile_for, profiled_pairs
from magboard.firmware.referee import Matcher
from magboard.hardware.spec import load_board

PAIRS = profiled_pairs()
GAMES_PER_PROFILE = 60


def continuations(profile: Profile, start: State) -> list[tuple[State, frozenset]]:
    """Every position the turn can physically reach, with the board cells its path touched:
    written here with its own walk, not the referee's search."""
    found = []
    pending = [(start, frozenset())]
    seen = {start}
    while pending:
        state, touched = pending.pop()
        for action in state.legal_actions():
            if not action.seen:
                continue
            after = state.apply(action)
            before, now = profile.layout(state).cells, profile.layout(after).cells
            path = touched | {c for c in before.keys() | now.keys() if before.get(c) != now.get(c)}
            if after in seen:
                continue
            seen.add(after)
            found.append((after, path))
            if after.turn == start.turn and after.outcome() is None:
                pending.append((after, path))
    return found


@pytest.mark.parametrize(("game_name", "board_name"), PAIRS, ids=[f"{g}@{b}" for g, b in PAIRS])
def test_no_two_continuations_share_a_frame_and_each_is_found(game_name, board_name):
    game = get_game(game_name)
    profile = profile_for(game, load_board(board_name))
    matcher = Matcher(profile, max_seconds=10.0)
    rng = random.Random(f"{game_name}@{board_name}")
    turns = 0
    for _ in range(GAMES_PER_PROFILE):
        state = game.new_state()
        while state.outcome() is None:
            by_frame: dict[int, set] = {}
            complete = []
            for after, path in continuations(profile, state):
                frame = profile.render(after)
                by_frame.setdefault(frame, set()).add(after.key())
                found = matcher.search(state, frame, matcher.game_cells(path), across=False)
                assert after.key() in {r.state.key() for r in found.exact}, after
                if after.turn != state.turn or after.outcome() is not None:
                    complete.append(after)
            turns += 1
            # No physical way to finish the turn: a forced pass, which the referee makes itself.
            state = rng.choice(complete) if complete else state.apply(PASS)
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
