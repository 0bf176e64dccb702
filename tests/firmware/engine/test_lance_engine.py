"""Lance Assembly's compact engine against the rules (LanceState), and its C kernel against the
pure-Python twin."""

from __future__ import annotations

import random
from types import ModuleType

import pytest

from magboard.firmware.games import CARRY_OUT, get_game
from magboard.firmware.games.lance import LanceState
from magboard.firmware.games.lance import engine as lance
from magboard.firmware.games.lance.engine import action_of, code_of, encode
from magboard.firmware.native import py_lance
from magboard.firmware.native.py_lance import ONGOING, STALEMATE


def _new(**options: object) -> LanceState:
    state = get_game("lance-assembly").new_state({"clock": "none", **options})
    assert isinstance(state, LanceState)
    return state


def _reachable(seed: int, count: int) -> list[LanceState]:
    """Bout positions met on random matches: every turn phase, both starters, stalemates by
    repetition and by `max_turns`, later bouts."""
    rng = random.Random(seed)
    found: list[LanceState] = []
    while len(found) < count:
        state = _new(max_turns=rng.choice((10, 30, 300)), starter=rng.choice("AB"))
        while state.outcome() is None and len(found) < count:
            if state.over:
                state = state.advance(CARRY_OUT)
                continue
            if rng.random() < 0.1:
                found.append(state)
            state = state.advance(rng.choice(state.legal_actions()))
    return found


POSITIONS = _reachable(2026, 150)


def test_codes_name_the_rules_actions() -> None:
    for state in POSITIONS[:40]:
        for action in state.legal_actions():
            assert action_of(code_of(action)) == action


def test_the_legal_codes_are_the_rules_legal_actions_in_order() -> None:
    for state in POSITIONS:
        assert py_lance.legal(encode(state)) == [code_of(a) for a in state.legal_actions()]


def test_stepping_both_gives_the_same_positions_and_bout_result() -> None:
    rng = random.Random(7)
    steps = 0
    starts = [_new(), _new(starter="B"), _new(max_turns=30), *POSITIONS]
    for start in starts:
        state, position = start, encode(start)
        while not state.over:
            code = rng.choice(py_lance.legal(position))
            state = state.advance(action_of(code))
            position = py_lance.play(position, code)
            assert position == encode(state)
            steps += 1
        assert position.result != ONGOING
        assert py_lance.legal(position) == []
    assert steps > 1000


def test_a_playout_replayed_on_the_rules_ends_the_same() -> None:
    for seed, start in enumerate(POSITIONS[:40]):
        trace: list[int] = []
        result, steps = py_lance.playout(encode(start), seed, trace)
        assert steps == len(trace)
        state = start
        for code in trace:
            assert not state.over
            state = state.apply(action_of(code))
        assert state.over
        winner = state.bouts[-1].winner
        assert result == (STALEMATE if winner is None else winner)


def test_a_third_repetition_is_a_stalemate() -> None:
    state = _new()
    cycle = ["b1>1:1", "f6<1:1", "end", "c1<1:1", "e6>1:1", "end"]
    for text in ["b1", "f6", "end", *cycle]:
        state = state.apply(state.parse_action(text))
    position = encode(state)
    assert dict(position.seen) and max(times for _, times in position.seen) == 2
    for text in cycle:
        assert position.result == ONGOING
        code = code_of(state.parse_action(text))
        state = state.apply(action_of(code))
        position = py_lance.play(position, code)
    assert state.over and state.bouts[-1].winner is None
    assert position.result == STALEMATE


def test_between_bouts_the_position_holds_the_last_result() -> None:
    over = next(s for s in _reachable(5, 400) if s.bout_turn > 0)
    while not over.over:
        over = over.advance(over.legal_actions()[0])
    winner = over.bouts[-1].winner
    assert encode(over).result == (STALEMATE if winner is None else winner)
    assert lance.playout_bout(over, random.Random(0)) == winner


def test_the_selected_kernel_is_reported() -> None:
    assert lance.backend in ("c", "python")
    expected = {"c": "c_lance", "python": "py_lance"}[lance.backend]
    assert lance.kernel.__name__.rsplit(".", 1)[1] == expected


@pytest.fixture(scope="module")
def c_lance() -> ModuleType:
    """The C kernel; its tests are skipped where the extension is not built."""
    return pytest.importorskip("magboard.firmware.native.c_lance")


class TestCAgainstPython:
    def test_same_legal_codes(self, c_lance: ModuleType) -> None:
        for state in POSITIONS:
            position = encode(state)
            assert c_lance.legal(position) == py_lance.legal(position)

    def test_same_playouts_move_for_move(self, c_lance: ModuleType) -> None:
        rng = random.Random(99)
        for start in (_new(), _new(starter="B"), _new(max_turns=10), *POSITIONS[::3]):
            position = encode(start)
            for _ in range(3):
                seed = rng.getrandbits(64)
                c_trace: list[int] = []
                py_trace: list[int] = []
                c_result = c_lance.playout(position, seed, c_trace)
                assert c_result == py_lance.playout(position, seed, py_trace)
                assert c_trace == py_trace

    def test_same_results_for_many_seeds(self, c_lance: ModuleType) -> None:
        position = encode(_new())
        results = [c_lance.playout(position, seed) for seed in range(60)]
        assert results == [py_lance.playout(position, seed) for seed in range(60)]
        assert {result for result, _ in results} >= {0, 1}

    def test_a_finished_bout_plays_nothing(self, c_lance: ModuleType) -> None:
        ended = encode(_new())._replace(result=1)
        assert c_lance.playout(ended, 3) == py_lance.playout(ended, 3) == (1, 0)
        assert c_lance.legal(ended) == py_lance.legal(ended) == []
