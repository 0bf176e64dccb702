"""Lance Assembly against rules/lance-assembly.md: what players notice, and an independent model.

The model below is written from the rules file alone and shares nothing with the engine but the
notation: a board is a string of 36 characters stored column by column, slides are found by
walking every row and column both ways, a turn is enumerated as its parts in the order the rules
allow (neutral tile, placement, neutral tile, slide, neutral tile) with positions deduplicated
after each part, and lances are found by testing every five-cell window of the board.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from known_counts import KNOWN_PERFT

from magboard.firmware.games import (
    CARRY_OUT,
    END_TURN,
    IllegalActionError,
    NotationError,
    get_game,
)
from magboard.firmware.games.lance import FlagFell, LanceState, Place, PlaceNeutral, Slide
from magboard.firmware.games.perft import turn_results

GAME = get_game("lance-assembly")

# ---------------------------------------------------------------------------------------------
# The independent model of one bout.

SIDE = 6
TILES = 18
COLUMNS = "abcdef"
EMPTY, NEUTRAL = ".", "N"
"""Board characters: empty, the neutral tile; a player's tile is its seat letter, A or B."""
START = EMPTY * SIDE * SIDE


def at(col: int, row: int) -> int:
    """The board index of a cell: column by column, so a1 is 0, a2 is 1 and b1 is 6."""
    return col * SIDE + row


def name(index: int) -> str:
    return COLUMNS[index // SIDE] + str(index % SIDE + 1)


INDEX = {name(i): i for i in range(SIDE * SIDE)}


def other(seat: str) -> str:
    return "B" if seat == "A" else "A"


def _walk(col: int, row: int, dc: int, dr: int) -> list[int]:
    cells = []
    while 0 <= col < SIDE and 0 <= row < SIDE:
        cells.append(at(col, row))
        col, row = col + dc, row + dr
    return cells


_ROWS = [_walk(0, row, 1, 0) for row in range(SIDE)]
_COLS = [_walk(col, 0, 0, 1) for col in range(SIDE)]
TRACKS = (
    [(">", row) for row in _ROWS]
    + [("<", row[::-1]) for row in _ROWS]
    + [("^", col) for col in _COLS]
    + [("v", col[::-1]) for col in _COLS]
)
"""Every row and column, walked in each direction a group can slide along it."""
_DIAGONALS = (
    [_walk(col, 0, 1, 1) for col in range(SIDE)]
    + [_walk(0, row, 1, 1) for row in range(1, SIDE)]
    + [_walk(col, 0, -1, 1) for col in range(SIDE)]
    + [_walk(SIDE - 1, row, -1, 1) for row in range(1, SIDE)]
)
WINDOWS = [line[k : k + 5] for line in _ROWS + _COLS + _DIAGONALS for k in range(len(line) - 4)]
"""Every five consecutive cells of a row, column or diagonal."""


def put(board: str, index: int, tile: str) -> str:
    return board[:index] + tile + board[index + 1 :]


def slides(board: str) -> Iterator[tuple[str, str]]:
    """(notation, board after) of every slide: a group of adjacent tiles of one track (any
    owners, need not be a whole run) moved the same distance into the empty cells beyond its
    leading tile, never off the board. The notation names the group's rear cell."""
    for way, track in TRACKS:
        tiles = [board[i] for i in track]
        for lead in range(SIDE - 1):
            if tiles[lead] == EMPTY or tiles[lead + 1] != EMPTY:
                continue
            reach = 1  # empty cells beyond the leading tile, up to the edge
            while lead + reach + 1 < SIDE and tiles[lead + reach + 1] == EMPTY:
                reach += 1
            rear = lead
            while rear >= 0 and tiles[rear] != EMPTY:
                for distance in range(1, reach + 1):
                    cells = list(board)
                    for k in range(rear, lead + 1):
                        cells[track[k]] = EMPTY
                    for k in range(rear, lead + 1):
                        cells[track[k + distance]] = tiles[k]
                    text = f"{name(track[rear])}{way}{lead - rear + 1}:{distance}"
                    yield text, "".join(cells)
                rear -= 1


def room(board: str) -> list[int]:
    """Where a tile may be put: every empty cell while more than four are empty, else nowhere."""
    if board.count(EMPTY) <= 4:
        return []
    return [i for i, tile in enumerate(board) if tile == EMPTY]


def turn_ends(board: str, mover: str, second: bool, first: bool) -> set[str]:
    """Every board one complete turn of `mover` can leave (`second`: the mover is the bout's
    second player, who holds the neutral tile until it is on the board). The neutral tile may
    come before the placement, between placement and slide, or after the slide; a turn must
    place or slide; the bout's first turn is one placement."""

    def with_neutral(boards):
        return {put(b, i, NEUTRAL) for b in boards if NEUTRAL not in b for i in room(b)}

    ready = {board} | (with_neutral({board}) if second else set())
    unplaced = ready
    placed = set()
    if board.count(mover) < TILES:
        placed = {put(b, i, mover) for b in ready for i in room(b)}
    if first:
        return placed
    if second:
        unplaced = unplaced | with_neutral(unplaced)
        placed = placed | with_neutral(placed)
    done = placed | {after for b in unplaced | placed for _, after in slides(b)}
    if second:
        done |= with_neutral(done)
    return done


def lance_cells(board: str, seat: str) -> frozenset[int]:
    """The cells of every five-in-a-row of `seat`'s own tiles."""
    return frozenset(i for w in WINDOWS if all(board[i] == seat for i in w) for i in w)


def bout_winner(board: str, mover: str) -> str | None:
    """Lances at the end of `mover`'s turn: the mover's first, then the other player's."""
    for seat in (mover, other(mover)):
        if lance_cells(board, seat):
            return seat
    return None


def model_perft(depth: int, starter: str = "A") -> list[int]:
    """perft(1..depth) of a bout, layer by layer: each distinct (board, mover, turns) carries
    how many paths reach it, and a won bout has no children. Whether the neutral tile is in hand
    is on the board; the repetition rule needs a position three times, which takes at least six
    turns, so it plays no part in the depths counted here."""
    assert depth < 6
    layer = Counter({(START, starter, 0): 1})
    counts = []
    for level in range(depth):
        following: Counter = Counter()
        total = 0
        for (board, mover, turns), paths in layer.items():
            ends = turn_ends(board, mover, mover != starter, turns == 0)
            total += len(ends) * paths
            if level + 1 < depth:
                for end in ends:
                    if bout_winner(end, mover) is None:
                        following[(end, other(mover), turns + 1)] += paths
        counts.append(total)
        layer = following
    return counts


class Turn(NamedTuple):
    """A turn in progress, for the action-by-action model."""

    board: str
    mover: str
    second: bool
    """The mover is the bout's second player (the neutral tile's holder)."""
    first: bool
    """The bout's first turn."""
    placed: bool = False
    slid: bool = False


def model_moves(turn: Turn) -> dict[str, Turn | None]:
    """Every legal action of the turn in progress, in notation, with the turn it leaves (None
    for ending the turn)."""
    board = turn.board
    moves: dict[str, Turn | None] = {}
    if not turn.placed and not turn.slid and board.count(turn.mover) < TILES:
        for i in room(board):
            moves[name(i)] = turn._replace(board=put(board, i, turn.mover), placed=True)
    if not turn.first and not turn.slid:
        for text, after in slides(board):
            moves[text] = turn._replace(board=after, slid=True)
    if turn.second and NEUTRAL not in board:
        for i in room(board):
            moves["N" + name(i)] = turn._replace(board=put(board, i, NEUTRAL))
    if turn.placed or turn.slid:
        moves["end"] = None
    return moves


class ModelBout:
    """One bout, action by action. A turn ends when its player ends it, or by itself once ending
    it is all that is left (which is how the first turn's single placement ends)."""

    def __init__(self, starter: str, max_turns: int = 300):
        self.starter = starter
        self.max_turns = max_turns
        self.turn = Turn(START, starter, False, True)
        self.turns = 0
        self.seen: Counter = Counter()
        self.result: tuple[str | None, str] | None = None
        """(winner seat or None, why) once the bout is over."""

    def act(self, text: str) -> None:
        after = model_moves(self.turn)[text]
        if after is not None and set(model_moves(after)) != {"end"}:
            self.turn = after
            return
        board = (after or self.turn).board
        mover = self.turn.mover
        self.turns += 1
        self.turn = Turn(board, other(mover), other(mover) != self.starter, False)
        winner = bout_winner(board, mover)
        position = (board, other(mover), NEUTRAL not in board)
        self.seen[position] += 1
        if winner is not None:
            self.result = winner, "lance"
        elif self.seen[position] >= 3:
            self.result = None, "repetition"
        elif self.turns >= self.max_turns:
            self.result = None, "max_turns"


# ---------------------------------------------------------------------------------------------
# Helpers on the engine.

SEATS = "AB"
MARKS = {0: EMPTY, 1: "A", 2: "B", 4: NEUTRAL}


def play(moves: str = "", state: LanceState | None = None, **options) -> LanceState:
    state = state or GAME.new_state(options)
    for text in moves.split():
        state = state.apply(state.parse_action(text))
    return state


def refused(state, move, match):
    with pytest.raises(IllegalActionError, match=match):
        state.apply(GAME.parse_action(move))


def legal(state) -> set[str]:
    return {str(a) for a in state.legal_actions()}


_MARK_BYTES = bytes.maketrans(bytes(MARKS), "".join(MARKS.values()).encode())
_ROW_MAJOR = [row * SIDE + col for col in range(SIDE) for row in range(SIDE)]
"""For each of the model's cells, the engine's index of it (the engine stores rows from a1)."""


def board_of(state) -> str:
    """The engine's board as the model writes it."""
    marks = state.board.translate(_MARK_BYTES).decode()
    return "".join([marks[i] for i in _ROW_MAJOR])


def cells_named(cells) -> frozenset[str]:
    return frozenset(COLUMNS[c] + str(r + 1) for c, r in cells)


def engine_turn(state) -> set[tuple]:
    """The engine's distinct results of one complete turn (perft's children): a bout that goes
    on as (board, player to move, neutral in hand), an ended bout as its winner and lance."""
    results = set()
    found = turn_results(state)
    for after in found.values():
        if len(after.bouts) > len(state.bouts):
            bout = after.bouts[len(state.bouts)]
            winner = None if bout.winner is None else SEATS[bout.winner]
            results.add(("over", winner, cells_named(bout.cells)))
        else:
            results.add(("on", board_of(after), SEATS[after.to_move], after.neutral_in_hand))
    assert len(results) == len(found)
    return results


def model_turn(state) -> set[tuple]:
    """The model's results of one complete turn from the engine's position, in the same form."""
    board, mover = board_of(state), SEATS[state.to_move]
    starter = SEATS[state.starter]
    results = set()
    for end in turn_ends(board, mover, mover != starter, state.bout_turn == 0):
        winner = bout_winner(end, mover)
        if winner is None:
            results.add(("on", end, other(mover), NEUTRAL not in end))
        else:
            results.add(("over", winner, frozenset(map(name, lance_cells(end, winner)))))
    return results


def _filling_order() -> list[str]:
    """Placements that fill all but a6, c6, d6 and e6 without a lance, A and B in turn: the
    board's two-column stripes, shifted each row, have no five in a line of either colour."""
    mine = {"A": [], "B": []}
    for row in range(SIDE):
        for col in range(SIDE):
            cell = COLUMNS[col] + str(row + 1)
            if cell not in ("a6", "c6", "d6", "e6"):
                mine["AB"[(col // 2 + row) % 2]].append(cell)
    order = []
    for a, b in zip(mine["A"], mine["B"], strict=True):
        order += [a, b]
    return order


FILLING = _filling_order()


def fill(count: int, **options) -> LanceState:
    """The state after the first `count` placements of FILLING, each its own turn."""
    moves = [FILLING[0]] + [f"{cell} end" for cell in FILLING[1:count]]
    return play(" ".join(moves), **options)


def random_turn(state, rng: random.Random, neutral: float) -> LanceState:
    """One turn of a player who mostly places, sometimes slides, and puts the neutral tile down
    with probability `neutral` whenever it may."""
    start = state.turn
    while state.turn == start:
        actions = state.legal_actions()
        places = [a for a in actions if isinstance(a, Place)]
        neutrals = [a for a in actions if isinstance(a, PlaceNeutral)]
        sliding = [a for a in actions if isinstance(a, Slide)]
        if neutrals and rng.random() < neutral:
            action = rng.choice(neutrals)
        elif places and rng.random() < 0.9:
            action = rng.choice(places)
        elif END_TURN in actions and rng.random() < 0.6:
            action = END_TURN
        else:
            action = rng.choice(sliding or actions)
        state = state.apply(action)
    return state


def position_where(condition, neutral: float = 0.05, **options) -> LanceState:
    """The first position of the seeded random games that meets `condition`."""
    for seed in range(500):
        rng = random.Random(seed)
        state = GAME.new_state(options)
        while not state.over:
            if condition(state):
                return state
            state = random_turn(state, rng, neutral)
    raise AssertionError("no seeded game reached the position")


def empties(state) -> int:
    return state.board.count(0)


def holder_to_move(state) -> bool:
    return state.to_move != state.starter and state.neutral_in_hand


# ---------------------------------------------------------------------------------------------
# Counting.

KNOWN = next(counts for game, _, counts in KNOWN_PERFT if game == "lance-assembly")


@pytest.mark.slow
def test_known_counts_are_reproduced_by_the_independent_model():
    """The engine's own perft_series is held to the same figures in test_generic_games."""
    assert KNOWN == [36, 478392]
    assert model_perft(len(KNOWN)) == KNOWN
    assert model_perft(1, starter="B") == [36]


@pytest.mark.slow
@pytest.mark.parametrize("first", ["a1", "b1", "c1", "b2", "c2", "c3"])
def test_the_second_turn_reaches_the_models_positions(first):
    """Every first placement is one of these six up to the board's symmetries: the engine's
    children of each (the positions perft(2) counts) are exactly the model's."""
    state = play(first)
    assert state.to_move == 1 and state.bout_turn == 1
    assert engine_turn(state) == model_turn(state)


MID_GAME = {
    "second player, neutral in hand": (lambda s: holder_to_move(s) and 12 <= empties(s) <= 16),
    "second player, neutral down": (
        lambda s: s.to_move != s.starter and not s.neutral_in_hand and empties(s) <= 16
    ),
    "starter": (lambda s: s.to_move == s.starter and empties(s) <= 18),
    "six empty, neutral in hand": (lambda s: holder_to_move(s) and empties(s) == 6),
    "five empty, neutral in hand": (lambda s: holder_to_move(s) and empties(s) == 5),
    "five empty, starter": (lambda s: s.to_move == s.starter and empties(s) == 5),
    "four empty, neutral in hand": (lambda s: holder_to_move(s) and empties(s) == 4),
    "four empty, starter": (lambda s: s.to_move == s.starter and empties(s) == 4),
}


@pytest.mark.slow
@pytest.mark.parametrize("starter", ["A", "B"])
@pytest.mark.parametrize("which", list(MID_GAME))
def test_one_turn_from_mid_game_positions_matches_the_model(which, starter):
    neutral = 0.0 if "neutral in hand" in which else 0.1
    state = position_where(MID_GAME[which], neutral, starter=starter)
    assert engine_turn(state) == model_turn(state)


def test_mid_game_turns_include_won_bouts():
    """The comparison above also covers turns that end the bout, the mover's lance first."""
    state = position_where(lambda s: s.to_move == s.starter and empties(s) == 5)
    results = engine_turn(state)
    assert any(kind == "over" for kind, *_ in results)
    assert results == model_turn(state)


# ---------------------------------------------------------------------------------------------
# The shape of a turn.


def test_the_first_turn_of_a_bout_is_one_placement():
    state = GAME.new_state()
    assert legal(state) == {name(i) for i in range(36)}
    assert not state.can_end_turn
    state = play("c3")  # the turn is over: no slide, no second tile
    assert (state.turn, state.to_move) == (1, 1)
    assert board_of(state) == put(START, INDEX["c3"], "A")
    # When B starts, B's first turn is one placement too, and the neutral tile is A's.
    state = GAME.new_state({"starter": "B"})
    assert legal(state) == {name(i) for i in range(36)}
    state = play("c3", state)
    assert (state.turn, state.to_move) == (1, 0)
    assert board_of(state)[INDEX["c3"]] == "B"
    assert "Nd4" in legal(state)


def test_one_placement_a_turn_and_never_after_a_slide():
    state = play("c3 d4")
    refused(state, "e5", "one placement a turn")
    state = play("d4>1:1", state)  # B slid and still holds the neutral tile: no placing now
    refused(state, "a1", "one placement a turn, and never after a slide")
    empty = [name(i) for i in range(36) if board_of(state)[i] == EMPTY]
    assert legal(state) == {"N" + cell for cell in empty} | {"end"}
    state = play("c3 c3>1:1")  # a slide alone is a turn too, and the neutral tile may follow
    refused(state, "b2", "one placement a turn, and never after a slide")
    assert legal(state) == {"N" + name(i) for i in range(36) if i != INDEX["d3"]} | {"end"}


def test_a_turn_never_passes():
    state = play("c3")
    assert not state.can_end_turn
    refused(state, "end", "not a legal action")
    state = play("d4", state)
    assert state.can_end_turn
    assert play("end", state).to_move == 0


def test_placing_stops_once_four_cells_are_empty():
    state = fill(32)
    assert empties(state) == 4 and state.to_move == 0
    assert state.legal_actions() and all(isinstance(a, Slide) for a in state.legal_actions())
    refused(state, "a6", "only four cells are empty: no more placing, only slides")
    # The second player at four empty cells keeps the neutral tile in hand: it cannot go down.
    state = play("b6<1:1", state)
    assert state.to_move == 1 and state.neutral_in_hand and empties(state) == 4
    assert state.legal_actions() and all(isinstance(a, Slide) for a in state.legal_actions())
    refused(state, "Nb6", "only four cells are empty: no more placing, only slides")
    # The second player at five empty cells: its own tile or the neutral tile, not both.
    state = fill(31)
    assert empties(state) == 5 and state.to_move == 1 and state.neutral_in_hand
    after_own = play("a6", state)
    assert not any(isinstance(a, PlaceNeutral) for a in after_own.legal_actions())
    refused(after_own, "Nc6", "only four cells are empty")
    after_neutral = play("Na6", state)
    assert not any(isinstance(a, Place) for a in after_neutral.legal_actions())
    refused(after_neutral, "c6", "only four cells are empty")
    assert not after_neutral.can_end_turn  # the neutral tile alone is not a turn
    assert any(isinstance(a, Slide) for a in after_neutral.legal_actions())


def test_placing_stops_when_the_supply_is_empty():
    """A places all eighteen tiles while B spends five turns shuttling one tile: A then has no
    tile left though five cells are empty, and may only slide."""
    a_cells = [c for c in FILLING if c in _stripe("A")] + ["c6", "d6"]
    b_places = [c for c in FILLING if c in _stripe("B")][:12]
    shuttle = ["a6>1:1", "b6<1:1", "a6>1:1", "b6<1:1", "a6>1:1"]
    b_turns = [f"{move} end" for move in ["a6", *shuttle, *b_places]]
    assert len(a_cells) == len(b_turns) == TILES
    moves = [a_cells[0]]
    for b, a in zip(b_turns[:-1], a_cells[1:], strict=True):
        moves += [b, f"{a} end"]
    state = play(" ".join(moves))
    assert state.to_move == 1 and state.supplies == (0, 6)
    state = play(b_turns[-1], state)
    board = board_of(state)
    assert board.count("A") == TILES and board.count("B") == 13 and empties(state) == 5
    assert state.to_move == 0 and not state.over and state.supplies == (0, 5)
    assert state.legal_actions() and all(isinstance(a, Slide) for a in state.legal_actions())
    refused(state, "c5", "not a legal action")


def _stripe(seat: str) -> set[str]:
    return {
        COLUMNS[col] + str(row + 1)
        for row in range(SIDE)
        for col in range(SIDE)
        if "AB"[(col // 2 + row) % 2] == seat
    }


# ---------------------------------------------------------------------------------------------
# The neutral tile.


def test_the_neutral_tile_is_the_second_players_once_a_bout():
    state = play("c3")
    assert {t for t in legal(state) if t.startswith("N")} == {
        "N" + name(i) for i in range(36) if i != INDEX["c3"]
    }
    state = play("Nb2 d4 end", state)
    assert not state.neutral_in_hand and board_of(state)[INDEX["b2"]] == NEUTRAL
    assert not {t for t in legal(state) if t.startswith("N")}
    refused(state, "Nb3", "the neutral tile is the second player's")
    state = play("a1 end", state)
    assert state.to_move == 1
    assert not {t for t in legal(state) if t.startswith("N")}  # used up for this bout
    refused(state, "Nb3", "not a legal action")


@pytest.mark.parametrize(
    ("turn", "tiles"),
    [
        ("Nb2 d4 end", {"b2": NEUTRAL, "c3": "A", "d4": "B"}),  # before placing
        ("d4 Nb2 end", {"b2": NEUTRAL, "c3": "A", "d4": "B"}),  # after placing, no slide
        ("d4 Nb2 d4>1:1", {"b2": NEUTRAL, "c3": "A", "e4": "B"}),  # between placing and sliding
        ("d4 d4>1:2 Nb2", {"b2": NEUTRAL, "c3": "A", "f4": "B"}),  # after sliding
        ("Nb2 c3v1:1", {"b2": NEUTRAL, "c2": "A"}),  # before a slide-only turn
        ("c3v1:2 Nc3", {"c3": NEUTRAL, "c1": "A"}),  # after a slide-only turn
        ("Nc4 c3^2:1", {"c5": NEUTRAL, "c4": "A"}),  # then slid along with a tile
    ],
)
def test_the_neutral_tile_goes_down_at_any_moment_of_the_turn(turn, tiles):
    state = play("c3")
    *before, last = turn.split()
    state = play(" ".join(before), state)
    assert state.turn == 1 and state.to_move == 1  # the turn is still going on
    state = play(last, state)  # the last action ends the turn, or nothing is left after it
    assert state.turn == 2 and state.to_move == 0 and not state.neutral_in_hand
    expected = dict.fromkeys(range(36), EMPTY) | {INDEX[c]: tile for c, tile in tiles.items()}
    assert board_of(state) == "".join(expected[i] for i in range(36))


def test_a_turn_of_only_the_neutral_tile_is_not_a_turn():
    state = play("c3 Nb2")
    assert (state.turn, state.to_move) == (1, 1)
    assert not state.can_end_turn
    refused(state, "end", "not a legal action")
    assert {t for t in legal(state) if t.startswith("N")} == set()
    assert "d4" in legal(state) and "c3>1:1" in legal(state)
    assert play("d4 end", state).to_move == 0


def test_the_neutral_tile_breaks_lines_for_both_players():
    moves = "a1 a2 end b1 end b2 end c1 end c2 end d1 end Ne1 d2 end f1 end"
    state = play(moves)  # row 1: A A A A N A; row 2: B B B B
    assert not state.over and state.to_move == 1
    state = play("e1^1:1", state)  # B moves the neutral tile: row 2 is B B B B N
    assert board_of(state)[INDEX["e2"]] == NEUTRAL
    assert not state.over and state.to_move == 0
    state = play("f1<1:1", state)  # now A's five are side by side
    assert state.over
    assert state.bouts[-1].winner == 0
    assert cells_named(state.bouts[-1].cells) == {"a1", "b1", "c1", "d1", "e1"}


# ---------------------------------------------------------------------------------------------
# Slides.


def test_a_group_is_any_run_of_adjacent_tiles_and_never_pushes_or_wraps():
    state = play("b3 Nc3 d3 end")  # row 3: . A N B . .
    row_slides = {
        str(a)
        for a in state.legal_actions()
        if isinstance(a, Slide) and a.way in "<>" and a.cell[1] == 2
    }
    assert row_slides == {
        "d3>1:1",
        "d3>1:2",
        "c3>2:1",  # the neutral tile and B's tile, without A's behind them
        "c3>2:2",
        "b3>3:1",
        "b3>3:2",
        "b3<1:1",
        "c3<2:1",
        "d3<3:1",
    }
    refused(state, "b3>2:1", "not a legal action")  # would push d3
    refused(state, "d3>1:3", "not a legal action")  # would leave the board or wrap
    refused(state, "b3<1:2", "not a legal action")
    refused(state, "a3>1:1", "not a legal action")  # no tile there
    after = play("c3>2:2", state)  # A stays behind
    assert board_of(after)[2::SIDE] == ".A..NB"  # row 3, a to f
    after = play("b3>3:1", state)
    assert board_of(after)[2::SIDE] == "..ANB."


@given(seed=st.integers(0, 2**32), turns=st.integers(2, 40))
@settings(max_examples=100, deadline=None)
def test_every_slide_moves_one_group_along_its_line_into_empty_cells(seed, turns):
    rng = random.Random(seed)
    state = play("c3") if turns % 2 else GAME.new_state({"starter": "B"})
    for _ in range(turns):
        if state.over:
            break
        state = random_turn(state, rng, 0.1)
    if state.over or state.bout_turn == 0:
        return
    before = board_of(state)
    found = {}
    for action in state.legal_actions():
        if not isinstance(action, Slide):
            continue
        dc, dr = {">": (1, 0), "<": (-1, 0), "^": (0, 1), "v": (0, -1)}[action.way]
        col, row = action.cell
        group = [(col + k * dc, row + k * dr) for k in range(action.length)]
        moved = [(c + action.distance * dc, r + action.distance * dr) for c, r in group]
        assert all(0 <= c < SIDE and 0 <= r < SIDE for c, r in moved)  # no wrapping
        assert all(before[at(c, r)] != EMPTY for c, r in group)
        assert all(before[at(c, r)] == EMPTY for c, r in set(moved) - set(group))  # no pushing
        after = board_of(state.apply(action))
        expected = list(before)
        for c, r in group:
            expected[at(c, r)] = EMPTY
        for (c, r), (mc, mr) in zip(group, moved, strict=True):
            expected[at(mc, mr)] = before[at(c, r)]
        assert after == "".join(expected)
        found[str(action)] = after
    assert found == dict(slides(before))


# ---------------------------------------------------------------------------------------------
# Lances.

COLUMN_A_AND_F = "a1 f1 end a2 end f2 end a3 end f3 end a4 end f4 end"


def test_a_lance_is_judged_when_the_whole_turn_is_over():
    base = play(COLUMN_A_AND_F)
    assert base.to_move == 0 and not base.over
    state = play("a5", base)  # five in column a, but the turn can go on
    assert not state.over and state.outcome() is None and state.can_end_turn
    won = play("end", state)
    assert won.over and won.bouts[-1].winner == 0
    assert won.bouts[-1].reason == "A made a lance of five"
    assert cells_named(won.bouts[-1].cells) == {"a1", "a2", "a3", "a4", "a5"}
    broken = play("a5>1:1", state)  # made and broken in one turn: no lance at its end
    assert not broken.over and broken.to_move == 1
    late = play("b5 b5<1:1", base)  # placed elsewhere, then slid into line
    assert late.over and late.bouts[-1].winner == 0


def test_six_in_a_row_and_diagonals_are_lances():
    six = play("a1 a2 end b1 end b2 end c1 end c2 end e1 end e2 end f1 end f2 end d1 end")
    assert six.over and six.bouts[-1].winner == 0
    assert cells_named(six.bouts[-1].cells) == {"a1", "b1", "c1", "d1", "e1", "f1"}
    rising = play("a1 a6 end b2 end b6 end c3 end c6 end d4 end d6 end e5 end")
    assert rising.over and rising.bouts[-1].winner == 0
    assert cells_named(rising.bouts[-1].cells) == {"a1", "b2", "c3", "d4", "e5"}
    falling = play("a1 f1 end a3 end e2 end a5 end d3 end c1 end c4 end e6 end b5 end")
    assert falling.over and falling.bouts[-1].winner == 1
    assert cells_named(falling.bouts[-1].cells) == {"f1", "e2", "d3", "c4", "b5"}


BOTH_ALMOST = "a1 b1 end a2 end b2 end a3 end b3 end c5 end d5 end a4 end"
"""A's column a four high, B's column b three high, and A's c5 beside B's d5 in row 5; B is to
move. Once B has b4, sliding the pair c5-d5 two to the left completes both columns at once."""


def test_the_mover_wins_when_both_players_have_a_lance():
    by_b = play(BOTH_ALMOST + " b4 d5<2:2")
    assert not by_b.over  # B may still put the neutral tile down
    by_b = play("end", by_b)
    assert lance_cells(board_of(by_b), "A") and lance_cells(board_of(by_b), "B")
    assert by_b.over and by_b.bouts[-1].winner == 1
    assert cells_named(by_b.bouts[-1].cells) == {"b1", "b2", "b3", "b4", "b5"}
    by_a = play(BOTH_ALMOST + " b4 end d5<2:2")
    assert lance_cells(board_of(by_a), "A") and lance_cells(board_of(by_a), "B")
    assert by_a.over and by_a.bouts[-1].winner == 0
    assert cells_named(by_a.bouts[-1].cells) == {"a1", "a2", "a3", "a4", "a5"}


def test_a_lance_made_for_the_other_player_wins_it_the_bout():
    state = play("a1 f1 end a2 end f3 end a3 end f5 end c5 end e2 end a4 end c5<1:2")
    assert not state.over and state.to_move == 1
    state = play("end", state)
    assert state.over and state.bouts[-1].winner == 0
    assert state.bouts[-1].reason == "A made a lance of five"


# ---------------------------------------------------------------------------------------------
# Stalemates.

SHUTTLE = "a1>1:1 b1<1:1 end"
"""A slides its tile a1 to b1, B slides it back: the position two turns earlier again."""


@pytest.mark.parametrize("starter", ["A", "B"])
def test_the_third_repetition_is_a_stalemate_and_the_bout_is_replayed(starter):
    state = play("a1 f6 end " + SHUTTLE, starter=starter)  # the position a second time
    assert not state.over
    state = play("a1>1:1", state)
    assert not state.over
    state = play("b1<1:1 end", state)  # the third time
    assert state.over and state.outcome() is None
    assert state.bouts[-1].winner is None
    assert state.bouts[-1].reason == "stalemate: the position came up a third time"
    assert state.score == (0, 0)
    assert state.legal_actions() == (CARRY_OUT,)
    refused(state, "c3", "the bout is over")
    replay = play("done", state)
    seat = SEATS.index(starter)
    assert (replay.to_move, replay.starter, replay.bout) == (seat, seat, 2)
    assert board_of(replay) == START and replay.neutral_in_hand
    assert replay.supplies == (TILES, TILES)


def test_the_player_to_move_is_part_of_the_repeated_position():
    """A three-turn cycle brings the board back with either player to move: the same board
    comes up four times before the same position comes up a third time."""
    cycle = ["a1>1:1", "b1>1:1 end", "c1<1:2", "a1>1:1 end", "b1>1:1", "c1<1:2 end"]
    state = play("a1 f6 end")
    start = board_of(state)
    boards = [start]
    for turn in cycle + cycle[:5]:
        state = play(turn, state)
        assert not state.over
        boards.append(board_of(state))
    assert state.bout_turn == 13 and boards.count(start) == 4
    state = play(cycle[5], state)  # the start board, A to move, a third time
    assert state.over and state.bouts[-1].winner is None
    assert state.bout_turn == 14


def test_max_turns_without_a_lance_is_a_stalemate():
    assert not fill(9, max_turns=10).over
    state = fill(10, max_turns=10)
    assert state.over and state.bouts[-1].winner is None
    assert state.bouts[-1].reason == "stalemate: 10 turns without a lance"
    assert play("done", state).starter == 0
    assert not fill(30).over  # the default is 300


# ---------------------------------------------------------------------------------------------
# The match.

A_WINS_STARTING = COLUMN_A_AND_F + " a5 end"
B_WINS_STARTING = "b1 a1 end b2 end a2 end b3 end a3 end b4 end a4 end b5 end"
A_WINS_SECOND = "f6 a1 end d6 end a2 end f4 end a3 end d4 end a4 end f2 end a5 end"


def test_first_to_two_bouts_wins_the_match_and_the_starter_alternates():
    state = play(A_WINS_STARTING)
    assert state.over and state.outcome() is None and state.score == (1, 0)
    (obligation,) = state.obligations
    assert obligation.detail.endswith("clear the board for bout 2, B starts")
    assert state.legal_actions() == (CARRY_OUT,)
    state = play("done", state)
    assert (state.to_move, state.starter, state.bout) == (1, 1, 2)
    assert board_of(state) == START and state.supplies == (TILES, TILES)
    assert not {t for t in legal(state) if t.startswith("N")}
    assert {t for t in legal(play("c3", state)) if t.startswith("N")}  # A holds it now
    state = play(B_WINS_STARTING, state)
    assert state.over and state.outcome() is None and state.score == (1, 1)
    state = play("done", state)
    assert (state.to_move, state.starter, state.bout) == (0, 0, 3)
    state = play(A_WINS_STARTING, state)
    outcome = state.outcome()
    assert outcome.winners == (0,)
    assert outcome.scores == (2, 1) and state.score == (2, 1)
    assert outcome.reason == "A made a lance of five: A wins the match 2-1"
    assert cells_named(outcome.cells) == {"a1", "a2", "a3", "a4", "a5"}
    assert state.legal_actions() == () and state.obligations == ()
    refused(state, "done", "the game is over")


def test_a_match_can_end_two_nil_won_as_starter_and_as_second_player():
    state = play(A_WINS_STARTING + " done " + A_WINS_SECOND)
    assert state.outcome().winners == (0,)
    assert state.outcome().scores == (2, 0)
    assert state.outcome().reason == "A made a lance of five: A wins the match 2-0"


def test_a_stalemated_bout_keeps_its_starter_and_counts_for_no_one():
    state = play("a1 f6 end " + SHUTTLE + " " + SHUTTLE, starter="B")
    assert state.over and state.score == (0, 0)
    state = play("done", state)
    assert (state.starter, state.bout) == (1, 2)
    state = play(B_WINS_STARTING + " done", state)
    assert state.score == (0, 1)
    assert (state.to_move, state.starter, state.bout) == (0, 0, 3)
    state = play(A_WINS_STARTING + " done", state)
    assert state.score == (1, 1) and state.starter == 1
    state = play(B_WINS_STARTING, state)
    assert state.outcome().winners == (1,) and state.outcome().scores == (1, 2)
    assert [b.winner for b in state.bouts] == [None, 1, 0, 1]


def test_a_flag_is_legal_only_for_the_player_to_move_while_the_bout_runs():
    state = GAME.new_state()
    assert not any(isinstance(a, FlagFell) for a in state.legal_actions())
    assert state.is_legal(FlagFell(0)) and not state.is_legal(FlagFell(1))
    assert state.parse_action("flag A") == FlagFell(0)
    refused(state, "flag B", "not a legal action")
    state = play("c3 d4", state)  # in the middle of B's turn
    assert state.is_legal(FlagFell(1)) and not state.is_legal(FlagFell(0))
    over = play(A_WINS_STARTING)
    assert not over.is_legal(FlagFell(0)) and not over.is_legal(FlagFell(1))


def test_a_fallen_flag_loses_the_bout():
    state = play("c3 d4")  # B's flag falls in the middle of its turn
    state = state.apply(FlagFell(1))
    assert state.over and state.outcome() is None
    assert state.bouts[-1].winner == 0 and "B's time ran out" in state.bouts[-1].reason
    assert state.score == (1, 0)
    assert board_of(state)[INDEX["d4"]] == "B"  # the tiles stay until the board is cleared
    assert play("done", state).starter == 1


def test_a_fallen_flag_can_end_the_match():
    state = play(A_WINS_STARTING + " done f6")
    state = state.apply(state.parse_action("flag A"))
    assert state.over and state.score == (1, 1) and state.outcome() is None
    state = play("done", state)
    assert state.starter == 0
    state = state.apply(state.parse_action("flag A"))
    assert state.outcome().winners == (1,)
    assert state.outcome().scores == (1, 2)


# ---------------------------------------------------------------------------------------------
# Notation and keys.


def test_notation_examples():
    examples = {
        "c3": Place((2, 2)),
        "Nc3": PlaceNeutral((2, 2)),
        "b2>3:1": Slide((1, 1), 3, ">", 1),
        "f6v2:4": Slide((5, 5), 2, "v", 4),
        "a1^1:5": Slide((0, 0), 1, "^", 5),
        "e4<4:1": Slide((4, 3), 4, "<", 1),
        "flag A": FlagFell(0),
        "flag B": FlagFell(1),
        "end": END_TURN,
        "done": CARRY_OUT,
    }
    for text, action in examples.items():
        assert GAME.parse_action(text) == action
        assert str(action) == text
    for text in ("g1", "c7", "Nc", "N c3", "b2>3", "b2>0:1", "b2>3:0", "b2x3:1", "flag C", "C3"):
        with pytest.raises(NotationError):
            GAME.parse_action(text)


@pytest.mark.slow
@given(seed=st.integers(0, 2**32))
@settings(max_examples=25, deadline=None)
def test_notation_round_trips_for_every_legal_action_of_a_match(seed):
    rng = random.Random(seed)
    state = GAME.new_state({"starter": rng.choice(SEATS), "max_turns": 40})
    while state.outcome() is None:
        if state.over:
            assert state.legal_actions() == (CARRY_OUT,)
            assert GAME.parse_action(str(CARRY_OUT)) == CARRY_OUT
            state = state.apply(state.parse_action("done"))
            continue
        flag = FlagFell(state.to_move)
        assert state.parse_action(str(flag)) == flag
        for action in state.legal_actions():
            assert state.parse_action(str(action)) == action
        state = random_turn(state, rng, 0.2)


def test_keys_ignore_the_order_of_a_turns_parts():
    assert play("c3 Nb2 d4 end").key() == play("c3 d4 Nb2 end").key()
    assert play("c3 Nb2 d4 end").key() != play("c3 Nd4 b2 end").key()
    assert play("c3 d4").key() != play("c3 d4 end").key()  # mid-turn is not the turn's end


AGAIN = "a1 f6 end " + SHUTTLE
"""After four turns: A's a1 and B's f6, A to move, for the second time."""
FIRST = "c1 f6 end c1<1:1 b1<1:1 end"
"""After four turns: the same board, A to move, for the first time."""


def test_repetition_counts_the_bouts_history():
    assert board_of(play(AGAIN)) == board_of(play(FIRST))
    assert play(SHUTTLE, play(AGAIN)).over
    assert not play(SHUTTLE, play(FIRST)).over


def test_positions_with_different_repetition_futures_have_different_keys():
    again, first = play(AGAIN), play(FIRST)
    assert again.key() != first.key()
    assert again != first  # perft memoises by state


def position(state) -> tuple:
    return state.board, state.to_move, state.neutral_in_hand


def test_a_placement_forgets_the_positions_that_cannot_come_again():
    """Tiles never leave the board in a bout, so after a placement no earlier position can
    recur: the histories of AGAIN and FIRST no longer matter, and their states are equal."""
    again, first = play(AGAIN + " c3 end"), play(FIRST + " c3 end")
    assert again == first and again.key() == first.key()
    assert again.seen_once == {position(again)} and not again.seen_twice
    mid = play("c3", play(AGAIN))  # forgotten as soon as the tile is down
    assert not mid.seen_once and not mid.seen_twice


def test_the_neutral_tile_placed_forgets_the_positions_too():
    state = play(AGAIN + " a1>1:1")  # B to move, in a position it has seen twice
    assert position(state) in state.seen_twice
    assert play("b1<1:1 end", state).over  # the third time
    state = play("Nc3 b1<1:1", state)  # nothing left: the turn ends by itself
    assert not state.over
    assert state.seen_once == {position(state)} and not state.seen_twice


def test_a_position_repeated_after_a_placement_is_counted_afresh():
    state = play(AGAIN + " c3 end")  # B to move, once
    cycle = "a1>1:1 end b1<1:1"  # B slides A's tile on, A slides it back
    state = play(cycle, state)
    assert not state.over and position(state) in state.seen_twice
    assert len(state.seen_once) == 1  # the position in between
    state = play(cycle, state)
    assert state.over and state.bouts[-1].reason == "stalemate: the position came up a third time"


# ---------------------------------------------------------------------------------------------
# Random play against the model.


@pytest.mark.slow
@given(
    starter=st.sampled_from(SEATS),
    max_turns=st.sampled_from([10, 300]),
    seed=st.integers(0, 2**32),
    length=st.integers(1, 150),
)
@settings(max_examples=150, deadline=None)
def test_random_play_matches_the_model_action_by_action(starter, max_turns, seed, length):
    state = GAME.new_state({"starter": starter, "max_turns": max_turns})
    bout = ModelBout(starter, max_turns)
    rng = random.Random(seed)
    for _ in range(length):
        if bout.result is not None:
            break
        choice = rng.randrange(10**6)
        moves = sorted(model_moves(bout.turn))
        assert sorted(legal(state)) == moves
        # Mostly placements, so that boards fill up; else any action.
        places = [m for m in moves if len(m) == 2]
        text = places[choice % len(places)] if places and choice % 3 else moves[choice % len(moves)]
        state = state.apply(state.parse_action(text))
        bout.act(text)
        assert board_of(state) == bout.turn.board
        assert state.bout_turn == bout.turns
        assert state.over == (bout.result is not None)
        if not state.over:
            # The history holds only positions that can still come up: as many tiles as now.
            for seen in (state.seen_once, state.seen_twice):
                assert all(board.count(0) == empties(state) for board, _, _ in seen)
            assert not state.seen_once & state.seen_twice
            assert SEATS[state.to_move] == bout.turn.mover
            assert state.neutral_in_hand == (NEUTRAL not in bout.turn.board)
            assert state.supplies == (
                TILES - bout.turn.board.count("A"),
                TILES - bout.turn.board.count("B"),
            )
    if bout.result is not None:
        winner, why = bout.result
        result = state.bouts[-1]
        assert result.winner == (None if winner is None else SEATS.index(winner))
        words = {"lance": "lance", "repetition": "third time", "max_turns": "turns without"}
        assert words[why] in result.reason
        if winner is not None:
            assert cells_named(result.cells) == set(map(name, lance_cells(bout.turn.board, winner)))


@pytest.mark.slow
@given(seed=st.integers(0, 2**32), turns=st.integers(0, 40))
@settings(max_examples=60, deadline=None)
def test_a_placement_or_slide_checked_alone_is_legal_exactly_when_listed(seed, turns):
    """Checking one action looks only at the cells it touches (replaying a journal checks every
    action); it must agree with the list of every legal action, on and off the board."""
    rng = random.Random(seed)
    state = GAME.new_state({"starter": "AB"[seed % 2]})
    for _ in range(turns):
        if state.outcome() is not None:
            break
        state = random_turn(state, rng, 0.1)
        if state.over and state.outcome() is None:
            state = state.apply(CARRY_OUT)
    listed = set(state.legal_actions())
    cells = [(c, r) for c in range(-1, SIDE + 1) for r in range(-1, SIDE + 1)]
    tried = [Place(c) for c in cells] + [PlaceNeutral(c) for c in cells]
    tried += [
        Slide(c, length, way, distance)
        for c in cells
        for way in ("<", ">", "^", "v")
        for length in range(1, SIDE + 1)
        for distance in range(1, SIDE)
    ]
    for action in tried:
        fresh = state._evolve()  # no list of legal actions worked out yet
        assert fresh.is_legal(action) == (action in listed), action
