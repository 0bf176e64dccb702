"""Meeple Maneuver against rules/meeple-maneuver.md: what players would notice at the table. The
counts are checked against an independent model in test_tile_perft.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.firmware.games import CARRY_OUT, IllegalActionError, get_game
from magboard.firmware.games.grid import parse_cell
from magboard.firmware.games.meeplemaneuver import NEUTRAL, MeepleState, Place, code

GAME = get_game("meeple-maneuver")
LETTER = {"A": 0, "B": 1, "N": NEUTRAL}
KIND = {"k": 0, "p": 1}


def position(pieces: str, tiles: str = "e5 e7 e3 c5 g5", **fields) -> MeepleState:
    """A position from words like `Ak:e5 Np:d5` (colour A, B or N; k kitten, p puppy)."""
    board = {}
    for word in pieces.split():
        what, cell = word.split(":")
        board[parse_cell(cell)] = code(LETTER[what[0]], KIND[what[1]])
    origins = tuple(parse_cell(c) for c in tiles.split())
    return MeepleState.laid_out(10, 10, origins, board, **fields)


def play(state, *moves: str):
    for text in moves:
        state = state.apply(state.parse_action(text))
    return state


def test_the_start_is_a_plus_of_five_tiles_with_six_neutral_meeples():
    state = GAME.new_state()
    assert sorted(state.tiles) == [(2, 4), (4, 2), (4, 4), (4, 6), (6, 4)]
    assert state.supplies == ((3, 3), (3, 3)) and state.piles == (0, 0)
    assert len(state.board) - state.board.count(0) == 6
    assert len(state.legal_actions()) == 2 * 14  # a kitten or a puppy on any of 14 empty cells


def test_a_turn_is_a_placement_then_two_actions_of_that_tile():
    state = play(GAME.new_state(), "Kf7")
    assert state.to_move == 0 and state.supplies[0] == (2, 3)
    assert {str(a)[:3] for a in state.legal_actions()} == {"Te7"}
    with pytest.raises(IllegalActionError, match="the meeple is placed"):
        state.parse_action("Kc5")
    state = play(state, "Te7cw", "Te7<")
    assert state.to_move == 1 and state.turn == 1


def quiet_turn(state: MeepleState) -> MeepleState:
    """A kitten on f8, on the north tile, and a half turn of that tile: a turn that makes no
    sandwich of its own, so what it captures was waiting on the board."""
    return play(state, "Kf8", "Te7cw", "Te7cw")


def test_kittens_capture_a_puppy_between_them_along_a_row():
    after = quiet_turn(position("Ak:c5 Np:d5 Ak:e5"))
    assert after.pending == {(3, 4)} and after.to_move == 1


def test_puppies_capture_a_kitten_between_them_along_a_column():
    after = quiet_turn(position("Ap:f4 Bk:f5 Ap:f6"))
    assert after.pending == {(5, 4)}


@pytest.mark.parametrize(
    "pieces",
    [
        "Ak:c5 Np:d6 Ak:e7",  # a diagonal
        "Ak:c6 Np:d6 Ap:e6",  # a kitten and a puppy
        "Ap:c5 Np:d5 Ap:e5",  # puppies around a puppy
        "Bp:c5 Ak:d5 Bp:e5",  # the mover's own meeple, between the other's
    ],
    ids=["diagonal", "mixed-pair", "same-type", "own-meeple"],
)
def test_what_never_captures(pieces):
    assert quiet_turn(position(pieces)).pending == frozenset()


def test_captured_meeples_are_an_obligation_then_go_to_pile_and_supply():
    state = position("Ak:c5 Np:d5 Ak:e5 Ap:f4 Bk:f5 Ap:f6", supplies=((3, 3), (2, 3)))
    after = quiet_turn(state)
    assert after.to_move == 1 and after.pending == {(3, 4), (5, 4)}
    assert after.legal_actions() == (CARRY_OUT,)
    duties = {d.detail: (d.sources, d.targets) for d in after.obligations}
    assert duties == {
        "captured: the neutral puppy on d5 goes to A's captured pile": ({(3, 4)}, {"A-captured"}),
        "captured: B's kitten on f5 goes to B's supply": ({(5, 4)}, {"B-kitten"}),
    }
    with pytest.raises(IllegalActionError, match="take the captured meeples off"):
        after.parse_action("Kd6")
    done = after.apply(CARRY_OUT)
    assert done.piles == (1, 0) and done.supplies == ((2, 3), (3, 3))
    assert done.at((3, 4)) == done.at((5, 4)) == 0 and done.obligations == ()
    assert done.to_move == 1 and Place(0, (3, 4)) in done.legal_actions()  # d5 is free again


def test_a_meeple_that_walked_into_a_sandwich_is_taken_on_the_sandwichers_next_turn():
    # B places a kitten on c5 and half-turns the tile c5-d6: its puppy rides from c6 to d5,
    # between A's kittens (c5, carried from d6, and e5). B's own turn captures nothing of B's.
    state = position("Bp:c6 Ak:d6 Ak:e5", to_move=1)
    walked = play(state, "Kc5", "Tc5cw", "Tc5cw")
    assert walked.at((3, 4)) == code(1, 1) and walked.pending == frozenset()
    assert quiet_turn(walked).pending == {(3, 4)}


def test_the_third_neutral_capture_wins_at_once_with_nothing_left_to_carry_out():
    after = quiet_turn(position("Ak:c5 Np:d5 Ak:e5", piles=(2, 0)))
    outcome = after.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert outcome.reason == "A captured a third neutral meeple"
    assert after.obligations == () and after.legal_actions() == ()


def test_a_player_with_nothing_to_place_loses():
    after = quiet_turn(position("Ak:e5", supplies=((3, 3), (0, 0))))
    assert after.outcome().winners == (0,)
    assert after.outcome().reason == "B cannot make a turn and loses"


def test_placing_needs_a_meeple_of_that_type_and_an_empty_cell_on_a_tile():
    state = position("Nk:e5", supplies=((0, 3), (3, 3)))
    for text, reason in [
        ("Kf5", "A has no kitten left"),
        ("Pa1", "not on a tile"),
        ("Pe5", "not empty"),
    ]:
        with pytest.raises(IllegalActionError, match=reason):
            state.parse_action(text)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_meeples_are_never_lost_or_made(seed):
    rng = random.Random(seed)
    state = GAME.new_state()
    for _ in range(200):
        if state.outcome() is not None:
            break
        state = state.apply(rng.choice(state.legal_actions()))
        on_board = len(state.board) - state.board.count(0)
        in_supplies = sum(map(sum, state.supplies))
        assert on_board + in_supplies + sum(state.piles) == 6 + 12
        assert all(isinstance(a, Place) or str(a)[0] in "Td" for a in state.legal_actions())
