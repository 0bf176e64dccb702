"""Random playouts: rewards, ends reached, and the same playout for the same seed."""

from __future__ import annotations

import json
import random

import pytest

from magboard.firmware.engine.playout import play_to_end, playout, rewards, state_playout
from magboard.firmware.games import CARRY_OUT, Outcome, State, get_game
from magboard.firmware.games.lance import LanceState

STATE_GAMES = (
    ("tic-tac-toe", {}),
    ("tic-tac-cap", {}),
    ("tic-tac-cap", {"variant": "easy-rider", "cover_own": False}),
    ("tic-tac-doh", {}),
    ("meep-tac-toe", {"maneuver": "advanced"}),
    ("meep-tac-toe", {}),
    ("meeple-maneuver", {}),
    ("magnetmen", {}),
    ("magnetmen", {"players": 3, "size": "small"}),
    ("magnetmen", {"players": 4, "set": "expert", "powers": "random", "advanced_rules": True}),
)


def test_a_lone_winner_takes_all() -> None:
    assert rewards(Outcome((1,), "line"), 2) == (0.0, 1.0)
    assert rewards(Outcome((2,), "score"), 4) == (0.0, 0.0, 1.0, 0.0)


def test_shared_winners_share_evenly() -> None:
    assert rewards(Outcome((0, 2), "tie on top"), 3) == (0.5, 0.0, 0.5)
    assert rewards(Outcome((0, 1, 3), "tie on top"), 4) == pytest.approx((1 / 3, 1 / 3, 0, 1 / 3))


def test_a_draw_splits_among_every_seat() -> None:
    assert rewards(Outcome((), "draw"), 2) == (0.5, 0.5)
    assert rewards(Outcome((), "draw"), 4) == (0.25,) * 4


def _start(name: str, options: dict) -> State:
    return get_game(name).new_state(options)


@pytest.mark.parametrize(("name", "options"), STATE_GAMES)
def test_state_playouts_finish_the_game(name: str, options: dict) -> None:
    start = _start(name, options)
    for seed in range(12):
        end = play_to_end(start, random.Random(seed))
        outcome = end.outcome()
        assert outcome is not None
        assert not end.legal_actions()
        result = playout(start, random.Random(seed))
        assert result == rewards(outcome, start.players)
        assert len(result) == start.players and sum(result) == pytest.approx(1)
    assert state_playout(start, random.Random(3)) == playout(start, random.Random(3))


@pytest.mark.parametrize(("name", "options"), STATE_GAMES)
def test_a_seed_gives_the_same_playout(name: str, options: dict) -> None:
    start = _start(name, options)
    first, again = (play_to_end(start, random.Random(5)) for _ in range(2))
    assert first.key() == again.key() and first.outcome() == again.outcome()


def test_playouts_start_from_any_position() -> None:
    rng = random.Random(11)
    state = _start("meep-tac-toe", {"maneuver": "advanced"})
    for _ in range(15):
        state = state.advance(rng.choice(state.legal_actions()))
        if state.outcome() is not None:
            break
        assert play_to_end(state, random.Random(1)).outcome() is not None


def test_obligations_are_carried_out_on_the_way() -> None:
    """Meeple Maneuver leaves obligations after captures: a playout carries them out itself."""
    start = _start("meeple-maneuver", {})
    met = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = start
        while state.outcome() is None and not state.obligations:
            state = state.advance(rng.choice(state.legal_actions()))
        if state.obligations:
            met += 1
            assert state.legal_actions() == (CARRY_OUT,)
            assert play_to_end(state, rng).outcome() is not None
    assert met


def _lance(**options: object) -> LanceState:
    state = _start("lance-assembly", {"clock": "none", **options})
    assert isinstance(state, LanceState)
    return state


def test_a_lance_playout_is_a_bout() -> None:
    start = _lance()
    results = [playout(start, random.Random(seed)) for seed in range(30)]
    assert set(results) <= {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)}
    assert len(set(results)) > 1
    assert results == [playout(start, random.Random(seed)) for seed in range(30)]


def test_a_short_lance_bout_can_end_in_stalemate() -> None:
    start = _lance(max_turns=10)
    results = {playout(start, random.Random(seed)) for seed in range(40)}
    assert (0.5, 0.5) in results


def test_between_bouts_a_lance_playout_is_the_bout_just_played() -> None:
    rng = random.Random(4)
    state = _lance(max_turns=10)
    finished = []
    while state.outcome() is None and len(finished) < 3:
        if state.over:
            finished.append(state)
            state = state.advance(CARRY_OUT)
        else:
            state = state.advance(rng.choice(state.legal_actions()))
    assert finished
    for over in finished:
        winner = over.bouts[-1].winner
        expected = (0.5, 0.5) if winner is None else tuple(float(s == winner) for s in (0, 1))
        assert playout(over, random.Random(0)) == expected


@pytest.mark.slow
def test_the_ai_bench_measures_and_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    from magboard.firmware.engine import ai_bench

    cases = tuple(
        c
        for c in ai_bench.CASES
        if c.game in ("tic-tac-toe", "lance-assembly") or c.path == ai_bench.LOOK_AHEAD
    )
    monkeypatch.setattr(ai_bench, "CASES", cases)
    monkeypatch.setattr(ai_bench, "REPEATS", 2)
    result = ai_bench.measure(min_time=0.01)
    assert json.loads(json.dumps(result)) == result
    assert [(row["game"], row["path"]) for row in result["rows"]] == [
        ("tic-tac-toe", "States"),
        ("lance-assembly", "compact"),
        ("lance-assembly", "States"),
        ("meeple-maneuver", "look-ahead"),
    ]
    for row in result["rows"]:
        assert row["python_per_s"] > 0
        if row["c_per_s"] is not None:
            assert row["ratio"] == pytest.approx(row["c_per_s"] / row["python_per_s"])
    report = ai_bench.format_report(result)
    lines = report.splitlines()
    assert "maneuver=" not in report and "clock=none" in report
    assert len({len(line) for line in lines[1:6]}) == 1  # header and rows align
    assert lines[-2].startswith("Lance Assembly:")
    assert lines[-1].startswith("Meeple Maneuver:") and "turns/s" in lines[-1]
