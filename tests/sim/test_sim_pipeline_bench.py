"""`magboard bench pipeline`: well-formed figures for every profile (no timing is asserted)."""

from __future__ import annotations

import json

from magboard.firmware.profiles import profiled_pairs
from magboard.host import cli
from magboard.sim import pipeline_bench
from magboard.sim.pipeline_bench import format_report, measure


def test_every_profile_gets_sane_numbers():
    result = measure(min_time=0.0001, frames=8)
    json.dumps(result)
    assert result["rounds"] >= pipeline_bench.MIN_ROUNDS
    pairs = [(p["game"], p["board"]) for p in result["profiles"]]
    assert pairs == profiled_pairs()
    for entry in result["profiles"]:
        assert entry["frames"] == 8
        assert 0 < entry["median_us"] <= entry["p99_us"] <= entry["max_us"]
        assert 0 < entry["judge_median_us"] <= entry["judge_p99_us"]
        assert 0 < entry["lights_median_us"] <= entry["lights_p99_us"]
        largest = entry["largest_turn"]
        assert largest["continuations"] >= 1
        assert largest["build_us"] > 0 and largest["lookup_us"] > 0
    report = format_report(result)
    for game, board in pairs:
        assert any(line.split()[:2] == [game, board] for line in report.splitlines())
    assert "target p99 < 2 ms" in report


def test_the_command_prints_json(capsys, monkeypatch):
    monkeypatch.setattr(pipeline_bench, "FRAMES", 4)
    assert cli.main(["bench", "pipeline", "--json", "--min-time", "0.0001"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {p["board"] for p in data["profiles"]} >= {"mini", "r1"}
    assert data["frames"] == 4
