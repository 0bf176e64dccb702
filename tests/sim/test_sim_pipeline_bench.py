"""`magboard bench pipeline`: well-formed figures for every profile and case (no timing is
asserted: speed is the benchmark's business, not a test's)."""

from __future__ import annotations

import json

from magboard.firmware.profiles import profiled_variants
from magboard.host import cli
from magboard.sim import pipeline_bench
from magboard.sim.pipeline_bench import CASES, format_report, measure


def test_every_profile_gets_sane_numbers_for_every_case():
    result = measure(min_time=0.0001, frames=6)
    json.dumps(result)
    assert result["rounds"] >= pipeline_bench.MIN_ROUNDS
    profiles = [(p["game"], p["board"], p["options"]) for p in result["profiles"]]
    assert profiles == profiled_variants()
    for entry in result["profiles"]:
        assert entry["frames"] == 6
        assert set(entry["cases"]) == set(CASES)
        for case in entry["cases"].values():
            assert 0 < case["median_us"] <= case["p99_us"] <= case["max_us"]
            assert 0 < case["judge_p99_us"] <= case["p99_us"]
        assert entry["largest_turn"]["continuations"] >= 1
    report = format_report(result)
    for game, board, options in profiles:
        named = [game, *(f"{k}={v}" for k, v in options.items()), board]
        assert any(line.split()[: len(named)] == named for line in report.splitlines())
    assert "target p99 < 2 ms" in report and "worst row" in report


def test_the_command_prints_json(capsys, monkeypatch):
    monkeypatch.setattr(pipeline_bench, "FRAMES", 4)
    assert cli.main(["bench", "pipeline", "--json", "--min-time", "0.0001"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {p["board"] for p in data["profiles"]} >= {"mini", "r1"}
    assert data["frames"] == 4
