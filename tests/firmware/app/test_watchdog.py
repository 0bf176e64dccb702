"""`magboard run` under systemd's watchdog: READY=1 once the game is set up, WATCHDOG=1 from the
board loop while it scans and judges (at least every half interval, even on a board nobody
touches), none once the loop stops stepping, STOPPING=1 on the way out. Against a listening
socket, as systemd's own; in the simulator's virtual time."""

from __future__ import annotations

import os
import socket

import pytest

from magboard.firmware.app import run as run_command
from magboard.firmware.app.loop import BoardLoop
from magboard.firmware.app.notify import Notifier
from magboard.host import cli
from magboard.sim.board import SimBoard
from magboard.sim.session import SimSession

pytestmark = pytest.mark.backend_free

INTERVAL = 4.0
"""WatchdogSec, in seconds."""


@pytest.fixture
def systemd(tmp_path, monkeypatch):
    """A socket where systemd would listen, named in the environment as it names it."""
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify"
    listening.bind(str(path))
    listening.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.setenv("WATCHDOG_USEC", str(int(INTERVAL * 1e6)))
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    yield listening
    listening.close()


def heard(listening: socket.socket) -> list[str]:
    messages = []
    while True:
        try:
            messages.append(listening.recv(4096).decode())
        except BlockingIOError:
            return messages


def test_the_board_loop_keeps_the_watchdog_fed_only_while_it_steps(systemd, monkeypatch, tmp_path):
    monkeypatch.setattr(run_command, "open_pi_board", SimBoard)
    timeline: list[tuple[float, list[str]]] = []
    step = BoardLoop.step

    def stepping(self, until=None):
        if self.board.clock.now() > 60.0:
            raise KeyboardInterrupt  # the loop stops: the service is being stopped
        step(self, until)
        timeline.append((self.board.clock.now(), heard(systemd)))

    monkeypatch.setattr(BoardLoop, "step", stepping)
    journal = tmp_path / "magboard.db"
    assert cli.main(["run", "--board", "mini", "--journal", str(journal)]) == 0
    messages = [m for _, heard_then in timeline for m in heard_then]
    assert messages[:2] == ["STATUS=refereeing Tic-tac-toe on mini", "READY=1"]
    pings = [at for at, messages in timeline for m in messages if m == "WATCHDOG=1"]
    assert pings and pings[-1] > 55.0  # fed to the end, on a board nobody touched
    gaps = [b - a for a, b in zip([0.0, *pings], pings, strict=False)]
    assert max(gaps) <= INTERVAL * 3 / 4 + 0.05  # half an interval, and a wake-up at most
    assert len(pings) <= 60.0 / (INTERVAL / 2) + 2  # rate limited, not a ping per step
    assert heard(systemd) == ["STOPPING=1"]


def test_a_loop_that_stops_stepping_stops_feeding_the_watchdog(systemd):
    """Pings come from the end of a step alone: a loop stuck anywhere (a hung bus, a judgement
    that never returns) sends nothing, however long it hangs, so systemd restarts the service."""
    session = SimSession("mini", "tic-tac-toe")
    session.lay_out()
    session.start()
    session.loop.watchdog = Notifier.from_environ(os.environ)
    session.run_for(10.0)
    assert heard(systemd).count("WATCHDOG=1") >= 10.0 / (INTERVAL / 2) - 1
    session.clock.advance_to(session.clock.now() + 60.0)  # a minute without a step
    assert heard(systemd) == []
    session.loop.step()
    assert heard(systemd) == ["WATCHDOG=1"]
