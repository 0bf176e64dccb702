"""`magboard bench pipeline`: well-formed figures for every profile and case (no timing is
asserted: speed is the benchmark's business, not a test's)."""

from __future__ import annotations

import json

import pytest

from magboard.firmware.profiles import profiled_variants
from magboard.host import cli
from magboard.sim import pipeline_bench
from magboard.sim.pipeline_bench import CASES, STRESS_TURN, bench_variants, format_report, measure

# The figures' shape is the bench's, whichever line detector runs under it: the second pass
# of `make test` leaves these out (the games they play are judged there by other tests).
pytestmark = [pytest.mark.backend_free, pytest.mark.slow]


def test_every_profile_gets_sane_numbers_for_every_case():
    result = measure(min_time=0.0001, frames=6)
    json.dumps(result)
    assert result["rounds"] >= pipeline_bench.MIN_ROUNDS
    profiles = [(p["game"], p["board"], p["options"]) for p in result["profiles"]]
    stress = [p for p in result["profiles"] if p["stress"]]
    assert profiles[: len(profiles) - len(stress)] == bench_variants()
    assert len(stress) <= 1 and all(p is result["profiles"][-1] for p in stress)
    for entry in stress:
        assert entry["largest_turn"]["continuations"] >= STRESS_TURN
    for entry in result["profiles"]:
        assert entry["frames"] == 6
        assert set(entry["cases"]) == set(CASES)
        for case in entry["cases"].values():
            assert 0 < case["median_us"] <= case["p99_us"] <= case["max_us"]
            assert 0 < case["judge_p99_us"] <= case["p99_us"]
            assert case["ahead_p99_us"] > 0
        assert entry["largest_turn"]["continuations"] >= 1
    report = format_report(result)
    for entry in result["profiles"]:
        marked = ["[stress", "turn]"] if entry["stress"] else []
        options = [f"{k}={v}" for k, v in entry["options"].items()]
        named = [entry["game"], *options, *marked, entry["board"]]
        assert any(line.split()[: len(named)] == named for line in report.splitlines())
    assert "target p99 < 1 ms, every row" in report and "worst row" in report


def test_every_game_is_benched_with_each_option_family():
    rows = bench_variants()
    for game, board, options in profiled_variants():
        assert (game, board, options) in rows
    magnetmen = {
        (o.get("set", "base"), o.get("players", 2)) for g, _, o in rows if g == "magnetmen"
    }
    assert magnetmen == {(s, n) for s in ("base", "advanced", "expert") for n in (2, 3, 4)}
    clocks = {o.get("clock", "lance") for g, _, o in rows if g == "lance-assembly"}
    assert clocks == {"lance", "classic", "none"}
    variants = {o.get("variant", "classic") for g, b, o in rows if g == "tic-tac-cap"}
    assert variants == {"classic", "easy-rider", "manager", "heist", "five-small"}
    maneuvers = {o.get("maneuver", "none") for g, _, o in rows if g == "meep-tac-toe"}
    assert maneuvers == {"none", "rotate", "advanced"}


def test_the_command_prints_json(capsys, monkeypatch):
    monkeypatch.setattr(pipeline_bench, "FRAMES", 4)
    few = [("tic-tac-toe", "mini", {}), ("tic-tac-toe", "r1", {})]  # every row: the test above
    monkeypatch.setattr(pipeline_bench, "bench_variants", lambda: few)
    assert cli.main(["bench", "pipeline", "--json", "--min-time", "0.0001"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {p["board"] for p in data["profiles"]} >= {"mini", "r1"}
    assert data["frames"] == 4
