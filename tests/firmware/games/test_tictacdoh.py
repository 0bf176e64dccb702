"""Tic Tac Doh! against rules/tic-tac-doh.md: what players would notice, and an independent count.

The brute-force model below is written from the rules file alone and shares nothing with the
engine but the notation: stacks are strings of size letters, every (size, cell) of the 5x5 area
is tried against a direct legality predicate, what a stack counts as is a set of letters, and
lines are found by walking every cell in every direction.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from known_counts import KNOWN_PERFT

from magboard.firmware.games import IllegalActionError, NotationError, Outcome, get_game
from magboard.firmware.games.perft import perft_series
from magboard.firmware.games.sized import LARGE, MEDIUM, SMALL, Place
from magboard.firmware.games.tictacdoh import TicTacDohState

GAME = get_game("tic-tac-doh")

# ---------------------------------------------------------------------------------------------
# The independent model: a position is (stacks by cell name, stash by letter, mover).

AREA = [(c, r) for r in range(5) for c in range(5)]
LEGAL_STACKS = {"S", "M", "L", "LM", "MS", "LMS", "SM", "ML", "SML"}
TREES = {"LM", "MS", "LMS"}


NAMES = {(c, r): "abcde"[c] + str(r + 1) for c, r in AREA}
name = NAMES.__getitem__


MODEL_START = (tuple((name(c), "") for c in AREA), (("L", 5), ("M", 5), ("S", 5)), 0)


def model_may_place(board, stash, size, cell):
    """Whether a piece of `size` may go on `cell`, `board` mapping cell names to stacks."""
    if stash[size] == 0:
        return False
    if board[name(cell)]:
        return board[name(cell)] + size in LEGAL_STACKS
    occupied = [c for c in AREA if board[name(c)]]
    if not occupied:
        return cell == (2, 2)
    if not any(abs(c - cell[0]) <= 1 and abs(r - cell[1]) <= 1 for c, r in occupied):
        return False
    cols = [c for c, _ in occupied] + [cell[0]]
    rows = [r for _, r in occupied] + [cell[1]]
    return max(cols) - min(cols) < 3 and max(rows) - min(rows) < 3


def counts_as(stack):
    if len(stack) <= 1 or stack in TREES:
        return set(stack)
    return {"L"} if "L" in stack else {"M"}  # a nest: its largest piece only


def model_lines(position):
    """Every three cells in a row that count as one size, as (size, cells)."""
    board = dict(position[0])
    found = []
    for c, r in AREA:
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            cells = [(c + k * dc, r + k * dr) for k in range(3)]
            if not all(0 <= x < 5 and 0 <= y < 5 for x, y in cells):
                continue
            common = set.intersection(*(counts_as(board[name(x)]) for x in cells))
            found.extend((size, frozenset(cells)) for size in common)
    return found


@cache
def model_moves(position):
    """Every (size, cell) of the 5x5 area tried against the predicate."""
    board, stash = dict(position[0]), dict(position[1])
    return tuple(
        size + name(cell)
        for size in "SML"
        for cell in AREA
        if model_may_place(board, stash, size, cell)
    )


def model_play(position, move):
    stacks, stash, mover = position
    size, cell = move[0], move[1:]
    stacks = tuple((n, s + size if n == cell else s) for n, s in stacks)
    stash = tuple((k, n - (k == size)) for k, n in stash)
    return stacks, stash, 1 - mover


@cache
def model_result(position):
    """None while play goes on, else ('win', player) or ('draw', None)."""
    if model_lines(position):
        return "win", 1 - position[2]
    if not any(n for _, n in position[1]):
        return "draw", None
    if not model_moves(position):
        return "win", 1 - position[2]
    return None


def model_perft(depth):
    """Per ply, the leaves of the tree of distinct positions, counted layer by layer: each
    distinct position carries how many paths reach it."""
    layer = Counter({MODEL_START: 1})
    counts = []
    for _ in range(depth):
        following: Counter = Counter()
        for position, paths in layer.items():
            if model_result(position) is not None:
                continue
            for child in {model_play(position, m) for m in model_moves(position)}:
                following[child] += paths
        layer = following
        counts.append(sum(layer.values()))
    return counts


# ---------------------------------------------------------------------------------------------
# Helpers on the engine.


def play(*moves: str) -> TicTacDohState:
    state = GAME.new_state()
    for move in moves:
        state = state.apply(state.parse_action(move))
    return state


def refused(state, move, match):
    with pytest.raises(IllegalActionError, match=match):
        state.parse_action(move)


def legal(state):
    return {str(a) for a in state.legal_actions()}


# ---------------------------------------------------------------------------------------------
# Counting.

KNOWN = next(counts for game, _, counts in KNOWN_PERFT if game == "tic-tac-doh")


@pytest.mark.slow
def test_known_counts_are_reproduced_by_the_independent_model():
    assert model_perft(len(KNOWN)) == KNOWN


def test_engine_perft_matches_the_known_counts():
    assert perft_series(GAME.new_state(), len(KNOWN)) == KNOWN


# ---------------------------------------------------------------------------------------------
# Rules players notice.


def test_the_first_piece_goes_on_the_centre():
    state = GAME.new_state()
    assert legal(state) == {"Sc3", "Mc3", "Lc3"}
    refused(state, "Sb2", "the first piece goes on the centre, c3")


def test_a_new_cell_must_touch_a_piece_diagonals_included():
    state = play("Mc3")
    refused(state, "Sa1", "a1 touches no piece")
    refused(state, "Se3", "e3 touches no piece")
    around = {"b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"}
    empties = {m[1:] for m in legal(state) if m[1:] != "c3"}
    assert empties == around


def test_every_piece_stays_inside_one_3x3_box():
    state = play("Mc3", "Sb3", "Sd2")  # columns b to d are taken: a and e are out
    refused(state, "Se3", "a piece on e3 would not fit in one 3x3 box with the others")
    refused(state, "La2", "would not fit in one 3x3 box")
    assert not {m for m in legal(state) if m[1] in "ae"}
    assert {"Sc1", "Sc4"} <= legal(state)  # rows 1 to 3 or 2 to 4: still open
    state = state.apply(state.parse_action("Sc4"))  # now rows 2 to 4
    refused(state, "Sc1", "would not fit in one 3x3 box")
    assert not {m for m in legal(state) if m[2] in "15"}


def test_trees_and_nests_grow_one_size_at_a_time_and_never_mix():
    assert play("Lc3", "Mc3", "Sc3").stack_at((2, 2)) == (LARGE, MEDIUM, SMALL)
    assert play("Sc3", "Mc3", "Lc3").stack_at((2, 2)) == (SMALL, MEDIUM, LARGE)
    refused(play("Lc3"), "Sc3", "a Small cannot go on a Large: stacks grow one size at a time")
    refused(play("Sc3"), "Lc3", "a Large cannot go on a Small")
    refused(play("Mc3"), "Mc3", "a Medium cannot go on a Medium")
    refused(play("Sc3", "Mc3"), "Sc3", "c3 holds the nest SM: a Small on it would mix")
    refused(play("Lc3", "Mc3"), "Lc3", "c3 holds the tree LM: a Large on it would mix")
    refused(play("Mc3", "Lc3"), "Mc3", "c3 holds the nest ML: a Medium on it would mix")
    refused(play("Mc3", "Sc3"), "Mc3", "c3 holds the tree MS: a Medium on it would mix")
    refused(play("Lc3", "Mc3", "Sc3"), "Lc3", "c3 holds a full LMS: nothing more goes on it")
    refused(play("Sc3", "Mc3", "Lc3"), "Sc3", "c3 holds a full SML: nothing more goes on it")
    assert {m for m in legal(play("Mc3")) if m.endswith("c3")} == {"Sc3", "Lc3"}


def test_a_tree_counts_as_any_of_its_sizes():
    state = play("Lc3", "Mc3", "Mb3")  # a tree LM between a Medium and an empty d3
    assert state.outcome() is None
    state = state.apply(state.parse_action("Md3"))
    assert state.outcome() == Outcome(
        (1,), "three in a row that count as Medium", frozenset({(1, 2), (2, 2), (3, 2)})
    )
    state = play("Lc3", "Mc3", "Lb3")
    state = state.apply(state.parse_action("Ld3"))  # the same tree counts as Large too
    assert state.outcome().winners == (1,)
    assert state.outcome().reason == "three in a row that count as Large"


def test_a_full_tree_counts_as_every_size_at_once():
    state = play("Lc3", "Mc3", "Sc3", "Sb3", "Mb2")
    assert state.counts_as[12] == 0b111
    assert state.outcome() is None
    for move, size in (("Sd3", "Small"), ("Md4", "Medium")):
        after = state.apply(state.parse_action(move))
        assert after.outcome().winners == (1,)
        assert after.outcome().reason == f"three in a row that count as {size}"


def test_a_nest_counts_only_as_its_largest_piece():
    state = play("Sc3", "Mc3", "Sb3", "Sd3")  # S, SM, S: the nest is no Small
    assert state.outcome() is None
    state = state.apply(state.parse_action("Mb3"))  # b3 becomes the nest SM
    assert state.outcome() is None
    state = state.apply(state.parse_action("Md3"))  # SM, SM, SM: three Mediums
    assert state.outcome().winners == (1,)
    capped = play("Mc3", "Mb3", "Lc3", "Md3")  # M, ML, M: the nest ML counts only as Large
    assert capped.outcome() is None


def test_a_line_of_the_placers_own_pieces_is_not_needed():
    # Colour does not matter: whoever places the third piece of a line wins.
    state = play("Sc3", "Sb3", "Sd3")
    assert state.outcome().winners == (0,)
    assert play("Sc3", "Sb3", "Mb2", "Sd3").outcome().winners == (1,)


def test_the_stash_runs_out_of_a_size():
    state = play("Sc3", "Mc3", "Sb3", "Sd3", "Sb2", "Sd4")
    assert state.stash == (0, 4, 5)
    refused(state, "Sc2", "no Small is left in the stash")
    assert {m[0] for m in legal(state)} == {"M", "L"}


def test_all_fifteen_placed_without_a_line_is_a_draw():
    moves = "Mc3 Mb2 Ma2 La3 Lb3 Lc1 Sc3 Mb3 Sb2 Lc2 La1 Sa2 Sb1 Mc1 Sc1"
    state = play(*moves.split())
    assert state.stash == (0, 0, 0)
    assert state.outcome() == Outcome((), "all fifteen pieces are placed")
    assert state.legal_actions() == ()


def test_no_legal_placement_with_pieces_left_loses():
    # The box is full, and the last Small fits on no single Medium and no tree LM.
    moves = "Lc3 Md4 Mb2 Mc2 Sb2 Md3 Mb3 Sb4 Ld4 Lc4 Sc2 Ld2 Lb3 Sd3"
    state = play(*moves.split())
    assert state.stash == (1, 0, 0)
    assert state.to_move == 0
    assert state.outcome() == Outcome((1,), "A has pieces left but no legal placement")
    assert state.legal_actions() == ()


def test_notation():
    state = GAME.new_state()
    refused(state, "Sf6", "f6 is off the 5x5 area")
    for text in ("pass", "c3", "Xc3", "S", "end"):
        with pytest.raises(NotationError):
            state.parse_action(text)
    assert GAME.parse_action("mC3") == Place(MEDIUM, (2, 2))
    assert str(Place(SMALL, (0, 4))) == "Sa5"
    assert get_game("tictacdoh") is GAME


def test_keys_ignore_who_placed_what():
    assert play("Mc3", "Sb2", "Ld4").key() == play("Mc3", "Ld4", "Sb2").key()
    assert play("Mc3", "Sb2", "Ld4").key() != play("Mc3", "Lb2", "Sd4").key()


def test_the_area_is_drawn_for_players():
    assert str(play("Lc3", "Mc3", "Sb2")) == "\n".join(
        [
            " 5 .  .  .  .  . ",
            " 4 .  .  .  .  . ",
            " 3 .  .  LM .  . ",
            " 2 .  S  .  .  . ",
            " 1 .  .  .  .  . ",
            "   a  b  c  d  e ",
            "stash: S4 M4 L4",
        ]
    )


# ---------------------------------------------------------------------------------------------
# Random play against the model.


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=15))
@settings(max_examples=200, deadline=None)
def test_random_play_matches_the_independent_model(choices):
    state = GAME.new_state()
    model = MODEL_START
    for choice in choices:
        if state.outcome() is not None:
            break
        moves = model_moves(model)
        assert sorted(map(str, state.legal_actions())) == sorted(moves)
        move = moves[choice % len(moves)]
        state = state.apply(state.parse_action(move))
        model = model_play(model, move)
        board = dict(model[0])
        for cell in AREA:
            stack = "".join("SML"[s] for s in state.stack_at(cell))
            assert stack == board[name(cell)]
            assert not stack or stack in LEGAL_STACKS
        assert all(n >= 0 for n in state.stash)
        assert sum(len(s) for s in board.values()) + sum(state.stash) == 15
        occupied = [c for c in AREA if board[name(c)]]
        assert max(c for c, _ in occupied) - min(c for c, _ in occupied) < 3
        assert max(r for _, r in occupied) - min(r for _, r in occupied) < 3
    outcome = state.outcome()
    result = model_result(model)
    if result is None:
        assert outcome is None
    elif result[0] == "draw":
        assert outcome.draw
    else:
        assert outcome.winners == (result[1],)
        lines = model_lines(model)
        if lines:
            assert outcome.cells == frozenset().union(*(cells for _, cells in lines))
        else:
            assert model_moves(model) == () and "no legal placement" in outcome.reason
