"""Meeple Maneuver's compact engine against the rules (MeepleState), its look-ahead kernel in C
against the pure-Python twin and against the engine's own turns, and the capture planner."""

from __future__ import annotations

import random
from types import ModuleType

import pytest

from magboard.firmware.games import CARRY_OUT, get_game
from magboard.firmware.games.meeplemaneuver import MeepleState, Place
from magboard.firmware.games.meeplemaneuver import engine as meeples
from magboard.firmware.games.meeplemaneuver.engine import (
    Position,
    best_turn,
    encode,
    plan,
    turns,
    winner,
)
from magboard.firmware.native import py_meeples

TO_WIN = 3


def _new() -> MeepleState:
    state = get_game("meeple-maneuver").new_state()
    assert isinstance(state, MeepleState)
    return state


def _reachable(seed: int, count: int) -> list[MeepleState]:
    """Positions between turns met on random games (captures carried off): early and late,
    both players to move, piles and supplies of every size random play reaches."""
    rng = random.Random(seed)
    found: list[MeepleState] = []
    while len(found) < count:
        state = _new()
        while state.outcome() is None and len(found) < count:
            if state.pending:
                state = state.advance(CARRY_OUT)
                continue
            if state.moving < 0 and rng.random() < 0.3:
                found.append(state)
            state = state.advance(rng.choice(state.legal_actions()))
    return found


POSITIONS = _reachable(2026, 40)


def _seen(state: MeepleState) -> tuple:
    """What the rules and the engine must agree on after a turn (tiles' turns are not rules)."""
    position = encode(state)
    return position.board, position.tiles, position.supplies, position.piles, position.to_move


def _rules_turns(state: MeepleState) -> set[tuple]:
    """Every position one whole turn reaches on the rules' own States, action by action."""
    found = set()
    pending = [state.advance(place) for place in state.legal_actions()]
    while pending:
        now = pending.pop()
        if now.moving >= 0:
            pending.extend(now.advance(action) for action in now.legal_actions())
        else:
            found.add(_seen(now))
    return found


def test_the_engine_reaches_exactly_the_rules_turns() -> None:
    for state in POSITIONS[::2]:
        position = encode(state)
        engine = {(a.board, a.tiles, a.supplies, a.piles, a.to_move) for _, a in turns(position)}
        assert engine == _rules_turns(state)


def test_each_turn_replayed_on_the_rules_gives_the_engine_position() -> None:
    for state in POSITIONS[::4]:
        position = encode(state)
        for move, after in turns(position):
            replayed = state
            for action in move.actions(position.tiles):
                replayed = replayed.advance(action)
            assert _seen(replayed)[:4] == (after.board, after.tiles, after.supplies, after.piles)


def test_a_third_neutral_capture_or_an_empty_supply_decides_the_game() -> None:
    start = encode(_new())
    assert winner(start) is None
    assert winner(Position(**{**start.__dict__, "piles": (TO_WIN, 0)})) == 0
    emptied = Position(**{**start.__dict__, "supplies": ((3, 3), (0, 0)), "to_move": 1})
    assert winner(emptied) == 0


def test_the_kernel_counts_the_engine_turns_that_capture_most() -> None:
    for state in POSITIONS:
        position = encode(state)
        seat = position.to_move
        gained = [after.piles[seat] - position.piles[seat] for _, after in turns(position)]
        most = max(gained)
        assert best_turn(position, seat) == (most, gained.count(most))


def test_the_selected_kernel_is_reported() -> None:
    assert meeples.backend in ("c", "python")
    expected = {"c": "c_meeples", "python": "py_meeples"}[meeples.backend]
    assert meeples.kernel.__name__.rsplit(".", 1)[1] == expected


@pytest.fixture(scope="module")
def c_meeples() -> ModuleType:
    """The C kernel; its tests are skipped where the extension is not built."""
    return pytest.importorskip("magboard.firmware.native.c_meeples")


class TestCAgainstPython:
    def test_same_best_turns_for_both_players_and_every_supply(self, c_meeples: ModuleType) -> None:
        for state in POSITIONS:
            p = encode(state)
            for seat in (0, 1):
                for kinds in (0, 1, 2, 3):
                    args = (p.board, p.width, p.height, list(p.tiles), seat, kinds)
                    assert c_meeples.best_turn(*args) == py_meeples.best_turn(*args)

    def test_a_board_out_of_bounds_is_refused(self, c_meeples: ModuleType) -> None:
        with pytest.raises(ValueError, match="out of bounds"):
            c_meeples.best_turn(bytes(17 * 17), 17, 17, [(0, 0)], 0, 3)


def _never(*_: object) -> float:
    return 0.0


def _planned(position: Position, seed: int = 1) -> Position:
    move = plan(position, random.Random(seed), _never, float("inf"))
    return next(after for m, after in turns(position) if m == move)


def _contested(seed: int, games: int) -> list[Position]:
    """Positions of games the planner plays against random turns, from both seats: captures
    and wins within reach, which random play alone seldom builds."""
    rng = random.Random(seed)
    found = []
    for number in range(games):
        position, planner = encode(_new()), number % 2
        while winner(position) is None:
            found.append(position)
            if position.to_move == planner:
                position = _planned(position, rng.getrandbits(32))
            else:
                position = rng.choice(turns(position))[1]
    return found


CONTESTED = _contested(7, 6)


def test_a_win_on_the_board_is_taken() -> None:
    wins = 0
    for position in CONTESTED:
        seat = position.to_move
        most, _ = best_turn(position, seat)
        if position.piles[seat] + most >= TO_WIN:
            wins += 1
            assert winner(_planned(position)) == seat
    assert wins  # the positions hold some


def test_the_most_neutral_meeples_are_captured_when_nothing_is_lost_by_it() -> None:
    for position in CONTESTED[::3]:
        seat, other = position.to_move, 1 - position.to_move
        after = _planned(position)
        gained = after.piles[seat] - position.piles[seat]
        threat, _ = best_turn(after, other)
        assert after.piles[other] + threat < TO_WIN or all(
            a.piles[other] + best_turn(a, other)[0] >= TO_WIN for _, a in turns(position)
        ), "a turn handing the other player a win was chosen though a safe one existed"
        safe = [
            a.piles[seat] - position.piles[seat]
            for _, a in turns(position)
            if a.piles[other] + best_turn(a, other)[0] < TO_WIN
        ]
        if safe and winner(after) is None:
            assert gained == max(safe)


def test_the_deadline_stops_the_weighing_with_a_turn_to_play() -> None:
    ticks = iter(range(1_000_000))
    position = encode(_new())
    move = plan(position, random.Random(3), lambda: float(next(ticks)), 0.5)
    assert isinstance(move.actions(position.tiles)[0], Place)
    assert next(ticks) <= 3  # read once before the first weighing and once after it
