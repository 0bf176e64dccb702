"""What the service says about itself for `magboard update` (firmware/app/service_report.py):
its version, the game it resumed, what its start-up check found, and as it stops the game it
leaves; and a state directory it cannot write is a note, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from magboard.firmware.app.mqtt_discovery import software_version
from magboard.firmware.app.service_report import ServiceReport
from magboard.firmware.events import Note
from magboard.firmware.journal import Resume
from magboard.hardware import service_health
from magboard.hardware.service_health import GameInPlay, ServiceState
from magboard.sim.session import SimSession

pytestmark = pytest.mark.backend_free


def started(tmp_path: Path, *moves: str) -> tuple[SimSession, ServiceReport]:
    session = SimSession("mini", "tic-tac-toe", {}, journal=tmp_path / "magboard.db")
    report = ServiceReport(tmp_path / "state", session.loop)
    session.lay_out()
    session.start()
    for move in moves:
        session.perform(session.state.parse_action(move))
        session.settle()
    return session, report


def test_ready_says_the_version_the_game_resumed_and_a_clean_check(tmp_path: Path) -> None:
    _, report = started(tmp_path)
    report.ready(Resume("tic-tac-toe", {}, "mini", ("b2", "a1")))
    found = service_health.read(tmp_path / "state")
    assert found is not None
    assert (found.state, found.version, found.faults) == (
        ServiceState.READY,
        software_version(),
        (),
    )
    assert found.game == GameInPlay.of("tic-tac-toe", ["b2", "a1"])
    report.ready(None)
    assert service_health.read(tmp_path / "state").game is None, "a new game"


def test_an_expander_that_does_not_answer_is_found_at_start(tmp_path: Path) -> None:
    session, report = started(tmp_path)
    session.board.kill_expander(1)
    report.ready(None)
    found = service_health.read(tmp_path / "state")
    label = session.spec.expanders[1].label
    assert found is not None and found.faults[0] == f"expander {label} does not answer"


def test_stopped_says_the_game_left_in_the_journal(tmp_path: Path) -> None:
    session, report = started(tmp_path, "b2", "a1", "c3")
    report.ready(None)
    report.stopped(session.loop.journal)
    found = service_health.read(tmp_path / "state")
    assert found is not None and found.state is ServiceState.STOPPED
    assert found.game == GameInPlay.of("tic-tac-toe", ["b2", "a1", "c3"])
    assert found.game.describe() == "tic-tac-toe after 3 moves"


def test_a_state_directory_it_cannot_write_is_a_note(tmp_path: Path) -> None:
    session, _ = started(tmp_path)
    (tmp_path / "file").write_text("not a directory")
    report = ServiceReport(tmp_path / "file", session.loop)
    heard: list = []
    session.loop.sinks.append(heard.append)
    report.ready(None)
    notes = [event.text for event in heard if isinstance(event, Note)]
    assert len(notes) == 1 and notes[0].startswith(f"cannot write {tmp_path}/file/service.json")
