"""The self-test from the board alone: the `menu` button held while `magboard run` starts runs
it once the game is set up (a simulated person following the lights), its report goes out as
notes and into the state database, and then the game goes on."""

from __future__ import annotations

import json

from magboard.firmware.app import run as run_command
from magboard.firmware.app.loop import BoardLoop
from magboard.firmware.app.selftest import default_button
from magboard.firmware.stats import read_usage
from magboard.host import cli
from magboard.sim.board import SimBoard
from magboard.sim.selftest_person import SelfTestPerson


def test_holding_the_button_at_start_runs_the_self_test_then_the_game(
    monkeypatch, capsys, tmp_path
):
    boards: list[SimBoard] = []

    def pi_board(spec):
        board = SimBoard(spec, dead_expanders=[3])
        button = default_button(spec)
        board.press(button)  # held as the board powers up...
        board.clock.call_later(1.0, lambda: board.release(button))  # ...and let go
        SelfTestPerson(board, button)
        boards.append(board)
        return board

    monkeypatch.setattr(run_command, "open_pi_board", pi_board)
    steps = []
    step = BoardLoop.step

    def a_few_steps(self, until=None):
        if len(steps) == 3:
            raise KeyboardInterrupt
        steps.append(until)
        step(self, until)

    monkeypatch.setattr(BoardLoop, "step", a_few_steps)
    journal = tmp_path / "magboard.db"
    assert cli.main(["run", "--board", "r1", "--journal", str(journal)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    notes = [e["text"] for e in events if e["type"] == "note"]
    assert notes[0].startswith("Self-test:")
    verdict = [n for n in notes if n.startswith("self-test: verdict")]
    assert verdict and "1 missing expander" in verdict[0]
    kinds = [e["type"] for e in events]
    last_note = len(kinds) - 1 - kinds[::-1].index("note")
    assert kinds.index("game-started") < kinds.index("note")
    assert "leds" in kinds[last_note:]  # the game's lights again, after the test's
    kept = read_usage(journal).selftest
    assert kept is not None and len(kept["missing_expanders"]) == 1


def test_without_the_button_the_game_starts_at_once(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(run_command, "open_pi_board", SimBoard)
    monkeypatch.setattr(BoardLoop, "run_until", lambda self, end, look_every=None: None)
    assert cli.main(["run", "--board", "mini", "--journal", str(tmp_path / "m.db")]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["type"] == "game-started"
