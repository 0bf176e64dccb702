"""`magboard bench scan`: well-formed figures, and wire times that agree with the budget in
hardware/README.md (no timing is asserted)."""

from __future__ import annotations

import json

import pytest

from magboard.hardware.spec import load_board
from magboard.host import cli
from magboard.sim import scan_bench
from magboard.sim.board import SimBoard
from magboard.sim.scan_bench import count_one_scan, format_report, measure

BUDGET_MS = {"r1": (3.54, 14.16), "mini": (0.29, 1.16)}
"""hardware/README.md, "Scan-time budget": wire time at 400 kHz and at 100 kHz."""
WIRE = {"r1": (44, 51, 1416), "mini": (4, 4, 116)}
"""Expanders, transactions and bit times of one scan, from the same table."""


@pytest.fixture(scope="module")
def result():
    return measure(min_time=0.001)


def test_the_figures_are_all_there(result):
    json.dumps(result)
    assert result["python"].count(".") == 2 and result["machine"]
    assert [entry["board"] for entry in result["boards"]] == list(scan_bench.BOARDS)
    for entry in result["boards"]:
        assert entry["scans"] >= scan_bench.MIN_SCANS
        assert 0 < entry["median_ms"] <= entry["p99_ms"]
        expanders, transactions, bits = WIRE[entry["board"]]
        assert (entry["expanders"], entry["transactions"], entry["bits"]) == (
            expanders,
            transactions,
            bits,
        )
        # Every byte is 9 bit times with its ACK; a START and a STOP one each per transaction.
        assert entry["bits"] == 9 * entry["bytes"] + 2 * entry["transactions"]


@pytest.mark.parametrize("board", list(BUDGET_MS))
def test_the_wire_times_agree_with_the_readme_budget(result, board):
    [entry] = [e for e in result["boards"] if e["board"] == board]
    fast, standard = BUDGET_MS[board]
    assert entry["wire_400khz_ms"] == pytest.approx(fast, abs=0.005)
    assert entry["wire_100khz_ms"] == pytest.approx(standard, abs=0.005)
    assert entry["bus_hz"] == [400_000]  # the board files' setting
    assert entry["wire_ms"] == pytest.approx(fast, abs=0.005)


def test_a_board_at_100_khz_counts_its_wire_time_at_100_khz():
    board = SimBoard(load_board("mini"), charge_wire_time=False)
    for bus in board.buses.values():
        bus.frequency = 100_000
    assert count_one_scan(board).seconds == pytest.approx(1.16e-3, abs=5e-6)
    assert board.clock.now() == 0.0, "the virtual clock is not charged"


def test_the_table_lines_up(result):
    lines = format_report(result).splitlines()
    header, rows = lines[1], lines[2:4]
    assert [row.split()[0] for row in rows] == ["r1", "mini"]
    assert len({len(header), *map(len, rows)}) == 1
    assert rows[0].split()[1:5] == ["44", "51", "146", "1416"]
    assert rows[0].split()[-2:] == ["3.540", "14.160"]
    assert rows[1].split()[-2:] == ["0.290", "1.160"]
    assert result["python"] in lines[0] and result["machine"] in lines[0]


def test_the_command_prints_json(capsys):
    assert cli.main(["bench", "scan", "--json", "--min-time", "0.0001"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [entry["board"] for entry in data["boards"]] == ["r1", "mini"]
    assert data["min_time"] == 0.0001
