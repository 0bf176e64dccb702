"""The line detector benchmark: its result is JSON data and its report a readable table."""

from __future__ import annotations

import json

import pytest

from magboard.firmware.native import bench


def test_measure_and_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "BATCH", 300)
    monkeypatch.setattr(bench, "SINGLE", 30)
    result = bench.measure(min_time=0.005)
    assert json.loads(json.dumps(result)) == result
    assert [entry["shape"] for entry in result["shapes"]] == [
        "3x3 run 3",
        "6x6 run 5",
        "12x12 run 3 holes",
    ]
    for entry in result["shapes"]:
        assert entry["python_ns"] > 0
        if result["backend_c"]:
            assert entry["c_single_ns"] > 0 and entry["c_batch_ns"] > 0
            assert entry["ratio_single"] == pytest.approx(entry["python_ns"] / entry["c_single_ns"])
            assert entry["ratio_batch"] == pytest.approx(entry["python_ns"] / entry["c_batch_ns"])
    report = bench.format_report(result)
    assert "6x6 run 5" in report and "12x12 run 3 holes" in report
    lines = report.splitlines()
    assert len({len(line) for line in lines[1:5]}) == 1  # header and rows align


def test_report_without_the_c_extension() -> None:
    result = {
        "backend_c": False,
        "python": "3.11.7",
        "machine": "aarch64",
        "batch_boards": 10_000,
        "shapes": [
            {
                "shape": "6x6 run 5",
                "boards_with_line": 0.125,
                "c_single_ns": None,
                "c_batch_ns": None,
                "python_ns": 4012.5,
                "ratio_single": None,
                "ratio_batch": None,
            }
        ],
    }
    report = bench.format_report(result)
    assert "NOT BUILT" in report
    assert "4,012.5" in report
    assert "12%" in report
