"""One wiring: the Pi's `magboard run`, the simulator's session and both benchmarks set their
tables up through `firmware.app.wiring.wire`, and nothing else builds a referee or a loop."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import magboard.firmware
import magboard.hardware
import magboard.host
import magboard.sim
from magboard.firmware.app import run as run_command
from magboard.firmware.app import wiring
from magboard.firmware.app.loop import BoardLoop
from magboard.firmware.games import get_game
from magboard.firmware.journal import Journal
from magboard.hardware.spec import load_board
from magboard.host import cli
from magboard.sim import pipeline_bench, scan_bench
from magboard.sim.board import SimBoard
from magboard.sim.session import SimSession

PRODUCT = [
    Path(package.__file__).resolve().parent
    for package in (magboard.firmware, magboard.hardware, magboard.host, magboard.sim)
]


@pytest.fixture
def wired(monkeypatch) -> list[wiring.Table]:
    """Every table wired from now on, in order; the wiring itself is the real one."""
    tables: list[wiring.Table] = []
    real = wiring.wire

    def spy(*args, **kwargs) -> wiring.Table:
        table = real(*args, **kwargs)
        tables.append(table)
        return table

    monkeypatch.setattr(wiring, "wire", spy)
    return tables


def test_the_table_is_wired_as_asked():
    board = SimBoard(load_board("mini"))
    heard = []
    table = wiring.wire(
        board,
        get_game("tic-tac-cap"),
        {"variant": "five-small"},
        takeback=False,
        sinks=[heard.append],
    )
    assert table.board is board and table.loop.board is board
    assert table.referee is table.loop.referee and table.profile is table.referee.profile
    assert table.referee.takeback is False
    table.loop.start()
    started = heard[0]
    assert (started.TYPE, started.board, started.options["variant"]) == (
        "game-started",
        "mini",
        "five-small",
    )


def test_the_journal_hears_first(tmp_path):
    journal = Journal(tmp_path / "magboard.db")
    on_disk = []
    table = wiring.wire(
        SimBoard(load_board("mini")),
        get_game("tic-tac-toe"),
        journal=journal,
        sinks=[lambda event: on_disk.append(Journal(journal.path).load() is not None)],
    )
    table.loop.start()
    assert on_disk[0] is True


def test_magboard_run_wires_the_pi_board(wired, monkeypatch, capsys, tmp_path):
    opened: list[SimBoard] = []

    def pi_board(spec):
        opened.append(SimBoard(spec))
        return opened[-1]

    monkeypatch.setattr(run_command, "open_pi_board", pi_board)
    steps = []
    step = BoardLoop.step

    def a_few_steps(self, until=None):
        if len(steps) == 3:
            raise KeyboardInterrupt  # Ctrl-C, as a person stops it
        steps.append(until)
        step(self, until)

    monkeypatch.setattr(BoardLoop, "step", a_few_steps)
    journal = tmp_path / "magboard.db"
    argv = ["run", "--board", "mini", "--journal", str(journal), "--no-takeback"]
    assert cli.main(argv) == 0
    assert len(steps) == 3
    [table] = wired
    assert table.board is opened[0]
    assert table.referee.takeback is False
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (first["type"], first["board"], first["game"]) == ("game-started", "mini", "tic-tac-toe")
    assert Journal(journal).load().board == "mini"


def test_the_simulated_session_is_wired_there(wired):
    session = SimSession("mini", "tic-tac-toe")
    [table] = wired
    assert (table.board, table.referee, table.loop) == (
        session.board,
        session.referee,
        session.loop,
    )
    session.lay_out()
    session.start()
    assert session.events[0].TYPE == "game-started"


@pytest.mark.slow
def test_the_pipeline_bench_is_wired_there(wired):
    pipeline_bench.measure(min_time=0.0001, frames=2)
    wired_games = [(t.referee.game.name, t.board.spec.name, t.referee.options) for t in wired]
    expected = [
        (game, board, get_game(game).resolve_options(options))
        for game, board, options in pipeline_bench.bench_variants()
    ]
    assert wired_games == expected


def test_the_scan_bench_is_wired_there(wired):
    scan_bench.measure(min_time=0.0001)
    assert [t.board.spec.name for t in wired] == list(scan_bench.BOARDS)
    assert all(t.board.charge_wire_time is False for t in wired)


def test_nothing_else_builds_a_referee_or_a_loop():
    built = {}
    for root in PRODUCT:
        for path in sorted(root.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in ("Referee", "BoardLoop")
                ):
                    built.setdefault(node.func.id, []).append(path.name)
    assert built == {"Referee": ["wiring.py"], "BoardLoop": ["wiring.py"]}
