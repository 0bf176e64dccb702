"""`magboard bench pipeline`: well-formed figures for every profile and case (no timing is
asserted: speed is the benchmark's business, not a test's)."""

from __future__ import annotations

import json

from magboard.firmware.profiles import profiled_pairs
from magboard.host import cli
from magboard.sim import pipeline_bench
from magboard.sim.pipeline_bench import CASES, format_report, measure


def test_every_profile_gets_sane_numbers_for_every_case():
    result = measure(min_time=0.0001, frames=6)
    json.dumps(result)
    assert result["rounds"] >= pipeline_bench.MIN_ROUNDS
    pairs = [(p["game"], p["board"]) for p in result["profiles"]]
    assert pairs == profiled_pairs()
    for entry in result["profiles"]:
        assert entry["frames"] == 6
        assert set(entry["cases"]) == set(CASES)
        for case in entry["cases"].values():
            assert 0 < case["median_us"] <= case["p99_us"] <= case["max_us"]
            assert 0 < case["judge_p99_us"] <= case["p99_us"]
        assert entry["largest_turn"]["continuations"] >= 1
    report = format_report(result)
    for game, board in pairs:
        assert any(line.split()[:2] == [game, board] for line in report.splitlines())
    assert "target p99 < 2 ms" in report and "worst row" in report


def test_the_command_prints_json(capsys, monkeypatch):
    monkeypatch.setattr(pipeline_bench, "FRAMES", 4)
    assert cli.main(["bench", "pipeline", "--json", "--min-time", "0.0001"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {p["board"] for p in data["profiles"]} >= {"mini", "r1"}
    assert data["frames"] == 4
