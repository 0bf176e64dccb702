"""Tic-Tac-Cap against rules/tic-tac-cap.md: what players would notice, and an independent count.

The brute-force model below is written from the rules file alone and shares nothing with the
engine but the notation: positions are plain tuples, legality is a direct predicate tried on
every (size, cell), lines are checked against an explicit list, and own turns are counted per
player rather than derived from the turn number.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from known_counts import KNOWN_PERFT

from magboard.firmware.games import (
    PASS,
    IllegalActionError,
    NotationError,
    OptionError,
    Outcome,
    get_game,
)
from magboard.firmware.games.perft import perft_series
from magboard.firmware.games.sized import LARGE, MEDIUM, SMALL, Place
from magboard.firmware.games.tictaccap import TicTacCapState

GAME = get_game("tic-tac-cap")

# ---------------------------------------------------------------------------------------------
# The independent model.

CELLS = [(c, r) for r in range(3) for c in range(3)]
LINES = (
    [[(0, r), (1, r), (2, r)] for r in range(3)]
    + [[(c, 0), (c, 1), (c, 2)] for c in range(3)]
    + [[(0, 0), (1, 1), (2, 2)], [(0, 2), (1, 1), (2, 0)]]
)
START = {
    "classic": {"S": 3, "M": 3, "L": 3},
    "easy-rider": {"S": 4, "M": 4, "L": 4},
    "manager": {"S": 3, "M": 2, "L": 1},
    "heist": {"S": 4, "M": 0, "L": 1},
    "five-small": {"S": 5, "M": 0, "L": 0},
}
RANK = {"S": 1, "M": 2, "L": 3}


def cell_text(cell):
    return "abc"[cell[0]] + str(cell[1] + 1)


def model_start(variant="classic"):
    """(stacks by cell name, supplies per player, own turns per player, passes, mover)."""
    supply = tuple(sorted(START[variant].items()))
    stacks = tuple((cell_text(c), ()) for c in CELLS)
    return stacks, (supply, supply), (0, 0), 0, 0


def model_may_place(position, size, cell, cover_own):
    stacks, supplies, own_turns, _, mover = position
    if dict(supplies[mover])[size] == 0:
        return False
    allowed = {0: "S", 1: "SM"}.get(own_turns[mover], "SML")
    if size not in allowed:
        return False
    stack = dict(stacks)[cell]
    if not stack:
        return True
    owner, top = stack[-1]
    if RANK[top] >= RANK[size]:
        return False
    return cover_own or owner != mover


def model_owner_line(position):
    """The player who owns the tops of a whole line, or None."""
    stacks = dict(position[0])
    for line in LINES:
        owners = {stacks[cell_text(c)][-1][0] if stacks[cell_text(c)] else None for c in line}
        if len(owners) == 1 and None not in owners:
            return owners.pop()
    return None


def model_over(position):
    return model_owner_line(position) is not None or position[3] >= 2


def model_moves(position, cover_own):
    """Notation of every legal action, trying each size on each cell."""
    moves = [
        size + cell_text(cell)
        for size in "SML"
        for cell in CELLS
        if model_may_place(position, size, cell_text(cell), cover_own)
    ]
    return moves or ["pass"]


def model_play(position, move):
    stacks, supplies, own_turns, passes, mover = position
    turns = list(own_turns)
    turns[mover] += 1
    if move == "pass":
        return stacks, supplies, tuple(turns), passes + 1, 1 - mover
    size, cell = move[0], move[1:]
    stacks = tuple((name, (*s, (mover, size)) if name == cell else s) for name, s in stacks)
    new_supplies = list(supplies)
    new_supplies[mover] = tuple((k, n - (k == size)) for k, n in supplies[mover])
    return stacks, tuple(new_supplies), tuple(turns), 0, 1 - mover


def model_perft(depth, variant="classic", cover_own=True):
    """Per ply, the leaves of the tree of distinct positions, counted layer by layer: each
    distinct position carries how many paths reach it."""
    layer = Counter({model_start(variant): 1})
    counts = []
    for _ in range(depth):
        following: Counter = Counter()
        for position, paths in layer.items():
            if model_over(position):
                continue
            children = {model_play(position, m) for m in model_moves(position, cover_own)}
            for child in children:
                following[child] += paths
        layer = following
        counts.append(sum(layer.values()))
    return counts


# ---------------------------------------------------------------------------------------------
# Helpers on the engine.


def play(*moves: str, **options) -> TicTacCapState:
    state = GAME.new_state(options)
    for move in moves:
        state = state.apply(state.parse_action(move))
    return state


def sizes_allowed(state):
    return {str(a)[0] for a in state.legal_actions()}


def refused(state, move, match):
    with pytest.raises(IllegalActionError, match=match):
        state.parse_action(move)


# ---------------------------------------------------------------------------------------------
# Counting.


@pytest.mark.parametrize(
    ("options", "counts"),
    [(opts, counts) for name, opts, counts in KNOWN_PERFT if name == "tic-tac-cap"],
    ids=str,
)
def test_known_counts_are_reproduced_by_the_independent_model(options, counts):
    assert model_perft(len(counts), options.get("variant", "classic"), **_cover(options)) == counts


def _cover(options):
    return {"cover_own": options.get("cover_own", True)}


@pytest.mark.parametrize("variant", ["easy-rider", "manager", "five-small"])
@pytest.mark.parametrize("cover_own", [True, False])
def test_engine_perft_agrees_with_the_independent_model(variant, cover_own):
    state = GAME.new_state({"variant": variant, "cover_own": cover_own})
    assert perft_series(state, 4) == model_perft(4, variant, cover_own)


def test_the_figures_of_the_brief():
    assert perft_series(GAME.new_state(), 4) == [9, 72, 1152, 16776]
    assert perft_series(GAME.new_state({"variant": "five-small"}), 4) == [9, 72, 504, 3024]


# ---------------------------------------------------------------------------------------------
# Rules players notice.


def test_size_limits_count_each_players_own_turns():
    state = GAME.new_state()
    assert sizes_allowed(state) == {"S"}
    refused(state, "Mb2", "on your first turn you may place only a Small")
    refused(state, "Lb2", "on your first turn you may place only a Small")
    state = play("Sa1")
    assert sizes_allowed(state) == {"S"}  # B's first turn, though it is the game's second
    state = play("Sa1", "Sb1")
    assert sizes_allowed(state) == {"S", "M"}
    refused(state, "Lb2", "on your second turn you may place only a Small or a Medium")
    state = play("Sa1", "Sb1", "Mb2")
    assert sizes_allowed(state) == {"S", "M"}
    state = play("Sa1", "Sb1", "Mb2", "Sc1")
    assert sizes_allowed(state) == {"S", "M", "L"}


def test_a_cap_must_be_strictly_larger_whoever_owns_the_top():
    state = play("Sa1", "Sb1")
    refused(state, "Sb1", "b1 is capped by B's Small: only a larger marker may cover it")
    refused(state, "Sa1", "a1 is capped by your own Small")
    state = state.apply(state.parse_action("Mb1"))  # A steals b1
    assert state.stack_at((1, 0)) == ((1, SMALL), (0, MEDIUM))
    assert state.top_at((1, 0)) == (0, MEDIUM)
    refused(state, "Mb1", "b1 is capped by A's Medium: only a larger marker may cover it")
    state = play("Sa1", "Sb1", "Mb1", "Sc3", "Lb1")  # A caps its own Medium with a Large
    assert state.stack_at((1, 0)) == ((1, SMALL), (0, MEDIUM), (0, LARGE))
    refused(state, "Lb1", "b1 is capped by A's Large")


def test_covering_your_own_marker_can_be_switched_off():
    state = play("Sa1", "Sb1", cover_own=False)
    refused(state, "Ma1", "a1 is capped by your own Small, and covering your own markers is off")
    assert Place(MEDIUM, (1, 0)) in state.legal_actions()  # the opponent's is fair game
    assert len(state.legal_actions()) == 7 + 8  # a Small or Medium on 7 empty, Medium on b1
    assert len(play("Sa1", "Sb1").legal_actions()) == 7 + 9


def test_markers_run_out():
    state = play("Sa1", "Sb1", variant="heist")
    assert sizes_allowed(state) == {"S"}
    refused(state, "Mb2", "you have no Medium marker left")
    state = play("Sa1", "Sb1", "Sa2", "Sb2", "Lb2", variant="heist")  # A steals b2: its one Large
    assert state.supplies == ((2, 0, 0), (2, 0, 1))
    state = state.apply(state.parse_action("Sc1"))
    refused(state, "Lc3", "you have no Large marker left")
    assert sizes_allowed(state) == {"S"}


def test_off_the_board_and_malformed_moves():
    state = GAME.new_state()
    refused(state, "Sd4", "d4 is off the 3x3 board")
    for text in ("b2", "Xb2", "S", "Sb", "pas", "pass b2", "S b"):
        with pytest.raises(NotationError):
            state.parse_action(text)
    assert GAME.parse_action(" lb2 ") == Place(LARGE, (1, 1))
    assert GAME.parse_action("PASS") == PASS
    assert str(Place(MEDIUM, (2, 0))) == "Mc1"


def test_a_steal_that_completes_a_line_wins_at_once():
    state = play("Sa1", "Sb2", "Sa2", "Sa3")  # B blocks a3 with a Small
    assert state.outcome() is None
    state = state.apply(state.parse_action("Ma3"))  # A caps it
    outcome = state.outcome()
    assert outcome.winners == (0,)
    assert outcome.cells == {(0, 0), (0, 1), (0, 2)}
    assert outcome.reason == "three in a row"
    assert state.legal_actions() == ()
    refused(state, "Sc3", "the game is over")


def test_a_steal_breaks_the_victims_line():
    state = play("Sb1", "Sa1", "Sc2", "Sb2")  # B's a1 and b2 threaten c3
    state = state.apply(state.parse_action("Mb2"))  # A steals b2
    assert state.top_at((1, 1)) == (0, MEDIUM)
    state = state.apply(state.parse_action("Sc3"))
    assert state.outcome() is None


def test_pass_only_when_nothing_can_be_placed():
    refused(GAME.new_state(), "pass", "you have a legal placement, so you must place a marker")


def test_a_full_board_of_smalls_ends_in_two_passes():
    # Five-small: a drawn tic-tac-toe; B still holds a Small but has nowhere to put it.
    state = play(
        "Sb2", "Sa1", "Sc3", "Sa3", "Sa2", "Sc2", "Sb1", "Sb3", "Sc1", variant="five-small"
    )
    assert state.outcome() is None
    assert state.supplies == ((0, 0, 0), (1, 0, 0))
    assert state.legal_actions() == (PASS,)
    state = state.apply(PASS)
    assert state.outcome() is None and state.passes == 1
    assert state.legal_actions() == (PASS,)  # A has nothing left at all
    state = state.apply(PASS)
    assert state.outcome().draw
    assert state.outcome().reason == "two passes in a row"


def test_a_forced_pass_then_play_goes_on():
    # A has used every marker; B still has two Smalls and room.
    stacks = ((), (), (), ((0, SMALL),), ((1, LARGE),), ((0, LARGE),), (), (), ())
    state = TicTacCapState(stacks=stacks, supplies=((0, 0, 0), (2, 0, 0)), turn=14)
    assert state.legal_actions() == (PASS,)
    state = state.apply(PASS)
    assert state.outcome() is None
    assert {str(a) for a in state.legal_actions()} == {"Sa1", "Sb1", "Sc1", "Sa3", "Sb3", "Sc3"}
    state = state.apply(state.parse_action("Sa1"))
    assert state.passes == 0
    state = state.apply(PASS)  # A again
    assert state.outcome() is None
    state = state.apply(state.parse_action("Sb1"))  # B's last marker
    state = state.apply(PASS)
    assert state.outcome() is None
    assert state.legal_actions() == (PASS,)  # B has nothing left: the second pass in a row
    state = state.apply(PASS)
    assert state.outcome().draw


def test_both_players_running_out_of_markers_is_a_draw_by_two_passes():
    """Classic: all eighteen markers placed without a line; a3 is empty, but neither player has
    anything to put there, so both pass and the game is drawn."""
    moves = "Sc2 Sb2 Sa2 Sb3 Mc2 Ma2 Mb3 Mb1 Mc3 Sc1 Lb1 Lb2 Lc3 Mc1 La2 Lc1 Sa1 Lb3"
    state = play(*moves.split())
    assert state.supplies == ((0, 0, 0), (0, 0, 0))
    assert state.stack_at((0, 2)) == ()
    assert state.outcome() is None
    assert state.legal_actions() == (PASS,)
    state = state.apply(PASS)
    assert state.outcome() is None
    assert state.legal_actions() == (PASS,)
    state = state.apply(PASS)
    assert state.outcome() == Outcome((), "two passes in a row")


def test_random_games_end_in_a_line_or_two_passes():
    rng = random.Random("endings")
    for _ in range(300):
        state = GAME.new_state()
        while state.outcome() is None:
            state = state.apply(rng.choice(state.legal_actions()))
        owner = model_owner_line(_as_model(state))
        if state.outcome().draw:
            assert state.passes == 2 and owner is None
        else:
            assert state.outcome().winners == (owner,)


def test_keys_hold_what_the_future_needs():
    assert play("Sa1", "Sb1", "Sc3").key() == play("Sc3", "Sb1", "Sa1").key()
    assert play("Sa1", "Sb1", "Mc3").key() != play("Sc3", "Sb1", "Ma1").key()
    stacks = (((0, SMALL),), ((1, SMALL),), ((0, SMALL),), ((1, SMALL),)) + ((),) * 5
    early = TicTacCapState(stacks=stacks, turn=2)
    later = TicTacCapState(stacks=stacks, turn=4)
    much_later = TicTacCapState(stacks=stacks, turn=6)
    assert early.key() != later.key()
    assert sizes_allowed(early) == {"S", "M"} and sizes_allowed(later) == {"S", "M", "L"}
    assert later.key() == much_later.key()
    assert TicTacCapState(passes=1).key() != TicTacCapState().key()


def test_options():
    assert GAME.new_state({"variant": "manager"}).supplies == ((3, 2, 1), (3, 2, 1))
    assert get_game("tictaccap") is GAME
    with pytest.raises(OptionError):
        GAME.new_state({"variant": "standard"})
    assert GAME.parse_options(["cover_own=no"]) == {"cover_own": False}


def test_the_board_is_drawn_for_players():
    assert str(play("Sa1", "Sb2", "Mb2")) == (
        " 3 .  .  . \n"
        " 2 .  AM . \n"
        " 1 AS .  . \n"
        "   a  b  c \n"
        "under: b2 BS\n"
        "A: S2 M2 L3   B: S2 M3 L3"
    )


# ---------------------------------------------------------------------------------------------
# Random play against the model.


def _as_model(state):
    """The engine's position in the model's terms (for the line check only)."""
    stacks = tuple(
        (cell_text(c), tuple((o, "SML"[s]) for o, s in state.stack_at(c))) for c in CELLS
    )
    return stacks, None, None, state.passes, state.to_move


@given(
    variant=st.sampled_from(sorted(START)),
    cover_own=st.booleans(),
    choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40),
)
@settings(max_examples=150, deadline=None)
def test_random_play_matches_the_independent_model(variant, cover_own, choices):
    state = GAME.new_state({"variant": variant, "cover_own": cover_own})
    model = model_start(variant)
    start = sum(START[variant].values())
    for choice in choices:
        assert (state.outcome() is not None) == model_over(model)
        if state.outcome() is not None:
            break
        moves = model_moves(model, cover_own)
        assert sorted(map(str, state.legal_actions())) == sorted(moves)
        move = moves[choice % len(moves)]
        state = state.apply(state.parse_action(move))
        model = model_play(model, move)
        for player in (0, 1):
            assert all(n >= 0 for n in state.supplies[player])
            on_board = sum(o == player for stack in state.stacks for o, _ in stack)
            assert on_board + sum(state.supplies[player]) == start
        for stack in state.stacks:
            sizes = [size for _, size in stack]
            assert sizes == sorted(set(sizes))  # each cap strictly larger than what it covers
    outcome = state.outcome()
    owner = model_owner_line(model)
    if owner is not None:
        assert outcome.winners == (owner,)
        assert owner == 1 - state.to_move  # only the mover's placement makes a line
        line = {c for c in CELLS if state.top_at(c) and state.top_at(c)[0] == owner}
        assert outcome.cells <= line
    elif model[3] >= 2:
        assert outcome.draw
    else:
        assert outcome is None
