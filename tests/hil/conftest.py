"""The emulated machine's tests (sim/machine/) run only when asked for, and only once it is built.

They boot a QEMU machine under emulation, tens of seconds each, so `make test` leaves them out:
they run when tests/hil (or a file in it) is named on the command line, as `make hil` does, and
say why they are skipped otherwise. Named but not built, they are skipped too: building takes
minutes and root, and is `make hil-machine`'s job, never a test's.

With `MAGBOARD_HIL_PI=user@host` the board-facing tests (test_game.py) run against a real Pi
with a board attached instead (docs/hil.md, "Against a real board"): no machine is booted or
installed, a person at the board is asked for each action (sim/machine/bench.py), commands run
over ssh (sim/machine/pi.py), events come from the Pi's broker. What the bench cannot do
(`NotSupported`) or the person could not (`NotDone`) skips the test, saying so; the modules
that need the emulated machine itself skip whole.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import paho.mqtt.client as mqtt
import pytest

from magboard.sim.machine import build, deploy
from magboard.sim.machine.bench import NotDone, PersonAtBoard
from magboard.sim.machine.hands import LedView, NotSupported, PhysicalBoard
from magboard.sim.machine.pi import PiOverSsh
from magboard.sim.machine.vm import Machine
from magboard.sim.machine.world_link import EmulatedBoard, install_board_unit

HIL = Path(__file__).resolve().parent
TIMINGS: list[str] = []
"""What the tests measured in the machine, shown after the run (`make hil` prints them)."""
PI = "MAGBOARD_HIL_PI"
"""`user@host` of a real Pi with a board attached, to run the board-facing tests against."""
CAMERA = "MAGBOARD_HIL_CAMERA"
"""`module:callable` returning a `hands.LedView` of the real board's LEDs, if a camera has one."""
EMULATED_ONLY = frozenset(
    {
        "test_board.py",
        "test_machine.py",
        "test_service_install.py",
        "test_differential.py",
        "test_read_only_root.py",
    }
)
"""The modules that test the emulated machine itself (its world channel, its disk, a fresh
install in it, the simulator beside it, its root remounted read-only): nothing of theirs is on a
real bench."""


def bench_target() -> str | None:
    """The real Pi the suite runs against, if one is named."""
    return os.environ.get(PI) or None


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
    elif bench_target():
        reason = f"needs the emulated machine itself; {PI} runs test_game.py on a real board"
        for item in ours:
            if item.path.name in EMULATED_ONLY:
                item.add_marker(pytest.mark.skip(reason=reason))
        return
    elif build.built() is None:
        reason = "the emulated machine is not built for the current inputs: `make hil-machine`"
    else:
        return
    for item in ours:
        item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with bench_limits():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with bench_limits():
        return (yield)


@contextlib.contextmanager
def bench_limits() -> Iterator[None]:
    """On a real bench, what its board cannot do (no camera, no way to make a given I2C error)
    or its person could not skips the test with the reason rather than failing it. In the
    emulated machine both are failures, as they always were."""
    try:
        yield
    except NotSupported as error:
        if not bench_target():
            raise
        pytest.skip(f"the board at this bench cannot: {error}")
    except NotDone as error:
        if not bench_target():
            raise
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def timings() -> list[str]:
    """Lines a test adds to say what it measured, printed at the end of the run."""
    return TIMINGS


def pytest_terminal_summary(terminalreporter) -> None:
    if TIMINGS:
        where = f"on the bench at {bench_target()}" if bench_target() else "in the emulated machine"
        terminalreporter.write_sep("-", f"timings {where}")
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

    def __init__(self, port: int, board_id: str = BOARD_ID, host: str = "127.0.0.1") -> None:
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
        self.client.connect(host, port)
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
    """magboard.service refereeing tic-tac-toe on a mini board: in the emulated machine on the
    simulated board, or on a real Pi (`PiOverSsh`) with a person at its board."""

    machine: Machine | PiOverSsh
    board: PhysicalBoard
    events: Events
    timings: list[str]

    @property
    def emulated(self) -> bool:
        return isinstance(self.machine, Machine)

    def only_emulated(self, why: str) -> None:
        """Skips the test on a real bench, saying why it needs the emulated machine."""
        if not self.emulated:
            pytest.skip(f"only in the emulated machine: {why}")

    def power_cut(self) -> float:
        """A cold power cut and the power back on; returns the boot's seconds. In the emulated
        machine the world channel goes with it and is waited for again; on a bench the person
        pulls the plug and puts it back, and the boot ends when ssh answers."""
        self.machine.kill()
        if isinstance(self.board, EmulatedBoard):
            self.board.close()
        boot = self.machine.boot()
        if isinstance(self.board, EmulatedBoard):
            self.board.wait_ready(120)
        return boot

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
        """Every piece off the board, then each player's five in its tray (a person is asked
        for the ten at once)."""
        self.board.clear()
        if isinstance(self.board, PersonAtBoard):
            slots = {f"{tray}{slot}": kind for kind, tray in TRAYS.items() for slot in range(1, 6)}
            self.board.put_all(slots)
            return
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
    reading its events over MQTT. With `MAGBOARD_HIL_PI` set, the real Pi named there instead
    (`bench_referee`)."""
    target = bench_target()
    if target:
        yield from bench_referee(target, timings)
        return
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


# A real bench: the Pi as installed and configured by its operator, a person at its board.

EXPECTED = {"board": "mini", "game": "tic-tac-toe", "journal": JOURNAL}


def bench_config_problems(text: str) -> list[str]:
    """How the Pi's /etc/magboard/magboard.toml differs from what the tests expect of it."""
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return [f"not TOML: {error}"]
    problems = [
        f"{key} = {config.get(key)!r}, not {value!r}"
        for key, value in EXPECTED.items()
        if config.get(key) != value
    ]
    mqtt_config = config.get("mqtt", {})
    if mqtt_config.get("board_id") != BOARD_ID or not mqtt_config.get("url"):
        problems.append(f"[mqtt] needs a url and board_id = {BOARD_ID!r}")
    return problems


def terminal() -> tuple[TextIO, TextIO]:
    """Where the person is asked and answers: the terminal pytest runs in (its output and input
    are captured otherwise), or the standard streams where there is none (`pytest -s`)."""
    try:
        return open("/dev/tty", "w"), open("/dev/tty")
    except OSError:
        return sys.stdout, sys.stdin


def camera() -> Callable[[], LedView] | None:
    """The camera named by `MAGBOARD_HIL_CAMERA` (`module:callable`), if any."""
    named = os.environ.get(CAMERA)
    if not named:
        return None
    module, _, name = named.partition(":")
    return getattr(importlib.import_module(module), name)


def bench_referee(target: str, timings: list[str]) -> Iterator[Referee]:
    """The referee on a real Pi: nothing booted or installed, the service as it runs there."""
    ask, answer = terminal()
    person = PersonAtBoard(ask, answer, camera())
    pi = PiOverSsh(target, person)
    reached = pi.run(["true"], timeout=30)
    if not reached.ok:
        pytest.fail(
            f"{target} ({PI}): ssh with a key and passwordless sudo did not answer: "
            f"rc {reached.rc}, {reached.stderr.strip() or reached.error or 'no message'}"
        )
    problems = bench_config_problems(pi.run(["cat", deploy.CONFIG]).stdout)
    if problems:
        pytest.fail(f"{target}:{deploy.CONFIG} is not the suite's: " + "; ".join(problems))
    try:
        events = Events(pi.ports[MQTT], host=pi.host)
    except OSError as error:
        pytest.fail(f"{pi.host}:{MQTT}: the Pi's broker is not reachable from here: {error}")
    try:
        events.wait_connected()
        timings.append(f"bench: {target}, a person at its board")
        yield Referee(pi, person, events, timings)
    finally:
        events.close()
        for stream in (ask, answer):
            if stream not in (sys.stdout, sys.stdin):
                stream.close()
