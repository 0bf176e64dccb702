"""The emulated machine's tests (sim/machine/) run only when asked for, and only once it is built.

They boot a QEMU machine under emulation, tens of seconds each, so `make test` leaves them out:
they run when tests/hil (or a file in it) is named on the command line, as `make hil` does, and
say why they are skipped otherwise. Named but not built, they are skipped too: building takes
minutes and root, and is `make hil-machine`'s job, never a test's.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from magboard.sim.machine import build, deploy
from magboard.sim.machine.vm import Machine
from magboard.sim.machine.world_link import EmulatedBoard, install_board_unit

HIL = Path(__file__).resolve().parent
TIMINGS: list[str] = []
"""What the tests measured in the machine, shown after the run (`make hil` prints them)."""


def _named(config: pytest.Config) -> bool:
    """Whether tests/hil, or something in it, is on the command line (pytest or xdist's worker)."""
    for arg in config.args:
        path = Path(arg.split("::")[0])
        for base in (config.invocation_params.dir, config.rootpath):
            candidate = (base / path).resolve()
            if candidate == HIL or HIL in candidate.parents:
                return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ours = [item for item in items if HIL in item.path.parents]
    if not ours:
        return
    if not _named(config):
        reason = "the emulated machine's tests run only when asked for: `make hil`"
    elif build.built() is None:
        reason = "the emulated machine is not built for the current inputs: `make hil-machine`"
    else:
        return
    for item in ours:
        item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def timings() -> list[str]:
    """Lines a test adds to say what it measured, printed at the end of the run."""
    return TIMINGS


def pytest_terminal_summary(terminalreporter) -> None:
    if TIMINGS:
        terminalreporter.write_sep("-", "timings in the emulated machine")
        for line in TIMINGS:
            terminalreporter.write_line(line)


# The board in play: one machine with the real install, the simulated board and the service.

MQTT = 1883
BOARD_ID = "hil"
JOURNAL = "/var/lib/magboard/magboard.db"
TRAYS = {"X": "A", "O": "B"}
"""Tic-tac-toe on mini: X's pieces in tray A, O's in tray B, five each; a small magnet under
each (channel `s`), as sim/session.py lays them out."""


class Events:
    """The board's events as the host reads them: `magboard/<id>/events` on the machine's
    broker, through the forwarded port."""

    def __init__(self, port: int, board_id: str = BOARD_ID) -> None:
        self.topic = f"magboard/{board_id}/events"
        self.seen: list[dict] = []
        self.arrived = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hil-events")
        self.connected = threading.Event()
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *_: self.connected.clear()
        self.client.on_message = self._on_message
        # A broker that went away with its machine is back within seconds of the boot.
        self.client.reconnect_delay_set(1, 2)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client, *_args) -> None:
        client.subscribe(self.topic, qos=1)
        self.connected.set()

    def wait_connected(self, timeout: float = 60) -> None:
        """Waits until the host is subscribed again (after the machine's reboot, say)."""
        assert self.connected.wait(timeout), f"not connected to the broker in {timeout:.0f} s"

    def _on_message(self, _client, _userdata, message) -> None:
        with self.arrived:
            self.seen.append(json.loads(message.payload))
            self.arrived.notify_all()

    def mark(self) -> int:
        """Where the events from now on begin, for `wait(..., since=)`."""
        with self.arrived:
            return len(self.seen)

    def wait(self, since: int = 0, timeout: float = 60, **fields: object) -> dict:
        """The first event since `since` with all of `fields` (say `type="move"`, `turn=1`)."""

        def found() -> dict | None:
            return next(
                (
                    event
                    for event in self.seen[since:]
                    if all(event.get(key) == value for key, value in fields.items())
                ),
                None,
            )

        with self.arrived:
            if not self.arrived.wait_for(found, timeout):
                raise AssertionError(
                    f"no event with {fields} in {timeout:.0f} s; since then: {self.seen[since:]}"
                )
            return found()  # type: ignore[return-value]

    def since(self, mark: int) -> list[dict]:
        with self.arrived:
            return list(self.seen[mark:])

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@dataclass
class Referee:
    """The machine with magboard.service refereeing tic-tac-toe on the simulated mini board."""

    machine: Machine
    board: EmulatedBoard
    events: Events
    timings: list[str]

    def show(self, *names: str) -> dict[str, str]:
        argv = ["systemctl", "show", "magboard", *(f"--property={name}" for name in names)]
        lines = self.machine.run(argv, check=True).stdout.splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)

    def restarts(self) -> int:
        return int(self.show("NRestarts")["NRestarts"])

    def journal(self, *options: str) -> str:
        argv = ["journalctl", "-u", "magboard", "--no-pager", *options]
        return self.machine.run(argv).stdout

    def start(self, timeout: float = 300) -> float:
        """Starts the service; returns once it said READY=1, the seconds that took."""
        start = time.monotonic()
        self.machine.run(["systemctl", "start", "magboard"], timeout=timeout).check()
        return time.monotonic() - start

    def wait_active(self, timeout: float = 300) -> None:
        """Waits until systemd counts the service started (READY=1 said) again."""
        deadline = time.monotonic() + timeout
        while self.show("ActiveState", "SubState") != {
            "ActiveState": "active",
            "SubState": "running",
        }:
            assert time.monotonic() < deadline, self.journal("-n", "60")
            time.sleep(1)

    def lay_out(self) -> None:
        """Every piece off the board, then each player's five in its tray."""
        self.board.clear()
        for kind, tray in TRAYS.items():
            for slot in range(1, 6):
                self.board.put(f"{tray}{slot}", kind, magnets=["s"])

    def new_game(self) -> dict:
        """The service stopped, its journal thrown away, the pieces laid out, started again:
        returns its `game-started` event (no moves)."""
        self.machine.run(["systemctl", "stop", "magboard"], timeout=120, check=True)
        self.machine.run(["sh", "-c", f"rm -f {JOURNAL}*"], check=True)
        self.machine.run(["systemctl", "reset-failed", "magboard"])
        self.lay_out()
        mark = self.events.mark()
        self.start()
        return self.events.wait(mark, 120, type="game-started", actions=[])

    def play(self, src: str, dst: str, turn: int, timeout: float = 60) -> dict:
        """A hand moves a piece from `src` to `dst`; returns the board's `move` event for it."""
        mark = self.events.mark()
        self.board.move(src, dst)
        return self.events.wait(mark, timeout, type="move", actions=[dst], turn=turn)


@pytest.fixture(scope="module")
def referee(timings: list[str]) -> Iterator[Referee]:
    """One machine a module: booted, the board's software installed as on a Pi (deploy.py), the
    simulated mini board's daemon enabled and started, the service started and READY, the host
    reading its events over MQTT."""
    with Machine(forward=[MQTT]) as machine:
        machine.run(["systemctl", "is-system-running", "--wait"], timeout=300)
        timings.append(f"boot: the agent's hello {machine.boot_seconds:.1f} s after QEMU started")
        installed = deploy.install(machine)
        timings.append(f"install: {installed.timings()}")
        deploy.write_drop_in(machine)
        deploy.write_config(machine, "mini", mqtt="mqtt://localhost", board_id=BOARD_ID)
        install_board_unit(machine, "mini")
        board = EmulatedBoard(machine.world_socket)
        board.wait_ready()
        events = Events(machine.ports[MQTT])
        referee = Referee(machine, board, events, timings)
        try:
            referee.lay_out()
            ready = referee.start()
            timings.append(f"service on mini, INT lines wired: READY=1 {ready:.1f} s after start")
            yield referee
        finally:
            events.close()
            board.close()
