"""The last line of each `magboard bench` report is the worst row's verdict, named, worked out
from hand-made results (nothing is measured here)."""

from __future__ import annotations

from magboard.firmware.native import bench as lines_bench
from magboard.sim import pipeline_bench, scan_bench


def _profile(game, board, p99, stress=False):
    case = {
        "p99_us": p99,
        "max_us": p99,
        "median_us": p99,
        "judge_p99_us": p99,
        "ahead_p99_us": p99,
    }
    return {
        "game": game,
        "board": board,
        "options": {},
        "stress": stress,
        "cases": {name: dict(case) for name in pipeline_bench.CASES},
        "largest_turn": {"continuations": 1},
    }


def _pipeline(*profiles):
    return {
        "rounds": 5,
        "frames": 2,
        "native": "c",
        "python": "3.11",
        "machine": "x86_64",
        "target_us": 1000.0,
        "stress_turn": 20_000,
        "profiles": list(profiles),
    }


def test_pipeline_verdict_is_the_worst_row():
    result = _pipeline(
        _profile("tic-tac-toe", "r1", 150.0),
        _profile("lance-assembly", "r1", 700.0, stress=True),
        _profile("meeple-maneuver", "r1", 950.0),  # 95% of the 1 ms: the worst row
    )
    verdict = pipeline_bench.format_report(result).splitlines()[-1]
    assert verdict.endswith("; worst row meeple-maneuver on r1, 0.950 ms of its 1 ms")
    assert "met by every row" in verdict


def test_pipeline_report_marks_the_stress_row():
    result = _pipeline(
        _profile("lance-assembly", "r1", 700.0),
        _profile("lance-assembly", "r1", 1200.0, stress=True),
    )
    report = pipeline_bench.format_report(result).splitlines()
    rows = [line for line in report if line.startswith("lance-assembly")]
    assert [row.split()[1:3] == ["[stress", "turn]"] for row in rows] == [False, True]
    assert "NOT met by lance-assembly [stress turn] on r1" in report[-1]


def test_pipeline_verdict_names_a_row_that_misses():
    result = _pipeline(_profile("tic-tac-toe", "r1", 150.0), _profile("tic-tac-cap", "r1", 2500.0))
    verdict = pipeline_bench.format_report(result).splitlines()[-1]
    assert "NOT met by tic-tac-cap on r1" in verdict
    assert verdict.endswith("worst row tic-tac-cap on r1, 2.500 ms of its 1 ms (NOT met)")


def _scanned(board, p99, wire):
    return {
        "board": board,
        "expanders": 1,
        "transactions": 1,
        "bytes": 1,
        "bits": 1,
        "bus_hz": [400_000],
        "scans": 10,
        "median_ms": p99,
        "p99_ms": p99,
        "wire_ms": wire,
        "wire_400khz_ms": wire,
        "wire_100khz_ms": wire * 4,
    }


def test_scan_verdict_names_the_slowest_board():
    result = {
        "python": "3.11",
        "implementation": "cpython",
        "machine": "x86_64",
        "boards": [_scanned("mini", 0.5, 0.3), _scanned("r1", 4.0, 3.5)],
    }
    verdict = scan_bench.format_report(result).splitlines()[-1]
    assert verdict == (
        "worst row: r1, p99 4.000 ms per scan; longest on the wire: r1, 3.500 ms at its bus"
        " frequency"
    )


def _shape(name, c_ns, python_ns):
    return {
        "shape": name,
        "boards_with_line": 0.5,
        "c_single_ns": c_ns,
        "c_batch_ns": c_ns,
        "python_ns": python_ns,
        "ratio_single": python_ns / c_ns,
        "ratio_batch": python_ns / c_ns,
    }


def test_lines_verdict_names_the_shape_c_helps_least():
    result = {
        "backend_c": True,
        "python": "3.11",
        "machine": "x86_64",
        "batch_boards": 10,
        "shapes": [_shape("3x3 run 3", 10.0, 1000.0), _shape("6x6 run 5", 100.0, 2000.0)],
    }
    verdict = lines_bench.format_report(result).splitlines()[-1]
    assert (
        verdict == "worst row: 6x6 run 5, C per call 20.0x faster than Python (100.0 ns per board)"
    )


def test_lines_verdict_without_c_names_the_slowest_shape():
    result = {
        "backend_c": False,
        "python": "3.11",
        "machine": "x86_64",
        "batch_boards": 10,
        "shapes": [
            {**_shape("3x3 run 3", 1.0, 500.0), "c_single_ns": None, "ratio_single": None},
            {**_shape("6x6 run 5", 1.0, 4012.5), "c_single_ns": None, "ratio_single": None},
        ],
    }
    verdict = lines_bench.format_report(result).splitlines()[-1]
    assert verdict.startswith("worst row: 6x6 run 5, 4,012.5 ns per board (Python only")
