"""Meep Tac Toe against rules/meep-tac-toe.md: what players would notice at the table. The counts
are checked against an independent model in test_tile_perft.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.firmware.games import IllegalActionError, NotationError, get_game
from magboard.firmware.games.grid import parse_cell
from magboard.firmware.games.meeptactoe import MeepState, Move
from magboard.firmware.games.tiles import QuarterTurn, Shift, block

GAME = get_game("meep-tac-toe")


def position(a: str, b: str, tiles: str, maneuver: str = "none", to_move: int = 0) -> MeepState:
    """A position from cell names: A's meeples, B's meeples, the tiles' lower-left cells."""
    pieces = {parse_cell(c): 1 for c in a.split()} | {parse_cell(c): 2 for c in b.split()}
    origins = tuple(parse_cell(c) for c in tiles.split())
    return MeepState.laid_out(8, 8, origins, pieces, maneuver=maneuver, to_move=to_move)


def play(state, *moves: str):
    for text in moves:
        state = state.apply(state.parse_action(text))
    return state


def test_the_start_is_four_tiles_in_a_block_with_the_meeples_on_the_edges():
    state = GAME.new_state()
    assert state.area == {(c, r) for c in range(2, 6) for r in range(2, 6)}
    assert str(state).splitlines()[2].split()[1:] == ["A", "B", "A", "B"]  # row 6: c6 d6 e6 f6
    assert [str(a) for a in state.legal_actions()] == ["d3-d4", "f3-f4", "c6-c5", "e6-e5"]


def test_a_meeple_moves_one_cell_orthogonally_onto_an_empty_cell_of_a_tile():
    state = GAME.new_state()
    for text, reason in [
        ("c6-c7", "not on a tile"),
        ("c6-d5", "one cell up, down, left or right"),
        ("c6-d6", "not empty"),
        ("d6-d5", "no meeple of A"),
    ]:
        with pytest.raises(IllegalActionError, match=reason):
            state.parse_action(text)


def test_with_rotate_the_moved_meeples_tile_turns_and_carries_it():
    state = play(GAME.new_state({"maneuver": "rotate"}), "c6-c5")
    assert state.to_move == 0 and state.moving == 2
    assert {str(a) for a in state.legal_actions()} == {"Tc5cw", "Tc5ccw"}
    turned = play(state, "Tc5cw")  # c5 (lower-left) goes to c6, d6 (upper-right) to d5
    assert turned.to_move == 1 and turned.turn == 1
    assert turned.at((2, 5)) == 1 and turned.at((3, 4)) == 2 and turned.at((2, 4)) == 0


def test_rotate_turns_only_the_moved_meeples_tile_and_never_shifts_it():
    state = play(GAME.new_state({"maneuver": "rotate"}), "c6-c5")
    for text, reason in [("Te5cw", "the piece's tile"), ("Tc5^", "turns its tiles")]:
        with pytest.raises(IllegalActionError, match=reason):
            state.parse_action(text)
    with pytest.raises(IllegalActionError, match="now the tile at c5"):
        state.parse_action("e6-e5")


def test_advanced_takes_two_tile_actions_and_the_second_may_not_undo_the_first():
    state = play(GAME.new_state({"maneuver": "advanced"}), "c6-c5", "Tc5^")
    assert state.to_move == 0
    assert state.tiles[state.moving] == (2, 5)
    with pytest.raises(IllegalActionError, match="may not undo the first"):
        state.parse_action("Tc6v")
    turned = play(GAME.new_state({"maneuver": "advanced"}), "c6-c5", "Tc5cw")
    with pytest.raises(IllegalActionError, match="may not undo the first"):
        turned.parse_action("Tc5ccw")
    done = play(turned, "Tc5cw")  # the same way twice is a half turn, not an undo
    assert done.to_move == 1


def test_a_tile_may_not_cover_another_leave_the_area_or_the_group():
    state = play(GAME.new_state({"maneuver": "advanced"}), "c6-c5")
    for text, reason in [("Tc5>", "cover another"), ("Tc5v", "cover another")]:
        with pytest.raises(IllegalActionError, match=reason):
            state.parse_action(text)
    edge = play(position("a2", "h8", "a1 c1 e1 g1", "advanced"), "a2-b2")
    with pytest.raises(IllegalActionError, match="leave the area"):
        edge.parse_action("Ta1<")
    apart = play(position("c2", "h8", "c1 e1", "advanced"), "c2-d2")
    with pytest.raises(IllegalActionError, match="keep touching"):
        apart.parse_action("Tc1<")  # at b1 it would touch no other tile


def test_tiles_touching_only_by_a_corner_are_one_group_and_may_not_part():
    state = play(position("c4", "a1", "a1 c3", "advanced"), "c4-c3")
    # Left and down slide along the tile at a1; right and up would part them.
    assert {str(a) for a in state.legal_actions()} == {"Tc3<", "Tc3v", "Tc3cw", "Tc3ccw"}


def test_a_line_may_run_across_tiles_and_wins_after_the_whole_turn():
    state = position("c4 d5 f6", "c6 f3", "c3 e3 c5 e5", to_move=0)
    won = play(state, "f6-e6")
    assert won.outcome() is not None and won.outcome().winners == (0,)
    assert won.outcome().cells == {(2, 3), (3, 4), (4, 5)}  # c4 d5 e6: three tiles
    assert won.legal_actions() == ()


def test_a_quarter_turn_that_hands_the_other_player_a_line_loses():
    # A moves e4-d4 and turns the tile c3-d4 clockwise: B's c4 rides to d4, lining up c5 d4 e3.
    state = position("e4 c3 f5 f6", "c4 c5 e3 f3", "c3 e3 c5 e5", "rotate")
    outcome = play(state, "e4-d4", "Tc3cw").outcome()
    assert outcome is not None and outcome.winners == (1,)
    assert outcome.reason == "B has three in a line, made by A's turn"
    assert outcome.cells == {(2, 4), (3, 3), (4, 2)}


def test_when_one_turn_gives_both_players_a_line_the_mover_wins():
    # The same turn also carries A's c3 to c4, lining up c4 d5 e6.
    state = position("e4 c3 d5 e6", "c4 c5 e3 f3", "c3 e3 c5 e5", "rotate")
    outcome = play(state, "e4-d4", "Tc3cw").outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert outcome.cells == {(2, 3), (3, 4), (4, 5)}


def test_a_player_with_no_move_loses():
    # B's only meeple is boxed in by A's on the one tile.
    state = position("b1 b2", "a2", "a1", to_move=0)
    after = play(state, "b1-a1")
    assert after.outcome().winners == (0,)
    assert "cannot make a turn" in after.outcome().reason


def test_the_third_repetition_draws():
    state = position("c3", "f6", "c3 e3 c5 e5")
    for _ in range(2):
        state = play(state, "c3-c4", "f6-f5", "c4-c3", "f5-f6")
    assert state.outcome() is not None and state.outcome().draw
    assert "third time" in state.outcome().reason


def test_max_turns_draws():
    rng, ended = random.Random(3), []
    for _ in range(20):
        state = GAME.new_state({"max_turns": 10})
        while state.outcome() is None:
            state = state.apply(rng.choice(state.legal_actions()))
        ended.append((state.turn, state.outcome()))
    drawn = [outcome for turns, outcome in ended if turns == 10 and outcome.draw]
    assert drawn and all(o.reason == "draw: 10 turns played" for o in drawn)
    assert all(turns <= 10 for turns, _ in ended)


def test_notation_is_read_back_and_garbage_is_refused():
    assert GAME.parse_action("c6-c5") == Move((2, 5), (2, 4))
    assert GAME.parse_action("Tc5^") == Shift((2, 4), "^")
    assert GAME.parse_action("Tc5ccw") == QuarterTurn((2, 4), False)
    for text in ("c6c5", "T c5", "Tz9^", "Tc5up"):
        with pytest.raises(NotationError):
            GAME.parse_action(text)


@pytest.mark.parametrize("text", ["9x9x", "3x3", "17x8", "eight"])
def test_a_bad_area_is_refused_with_the_option_named(text):
    with pytest.raises(ValueError, match="option area"):
        GAME.new_state({"area": text})


def test_a_larger_area_centres_the_start():
    state = GAME.new_state({"area": "10x6"})
    assert state.tiles == ((3, 1), (5, 1), (3, 3), (5, 3))


def _tiles_ok(state) -> bool:
    covered = [c for origin in state.tiles for c in block(origin)]
    inside = all(0 <= c < state.width and 0 <= r < state.height for c, r in covered)
    return inside and len(covered) == len(set(covered))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["none", "rotate", "advanced"]), st.integers(0, 10**6))
def test_any_game_keeps_its_meeples_on_tiles_that_never_overlap(maneuver, seed):
    rng = random.Random(seed)
    state = GAME.new_state({"maneuver": maneuver})
    for _ in range(120):
        if state.outcome() is not None:
            break
        state = state.apply(rng.choice(state.legal_actions()))
        assert _tiles_ok(state)
        pieces = [(cell, state.at(cell)) for cell in state.area if state.at(cell)]
        assert sorted(p for _, p in pieces) == [1] * 4 + [2] * 4
        assert len(state.board) - state.board.count(0) == 8  # no meeple off the tiles
