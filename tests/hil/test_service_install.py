"""The real install and the real unit in the emulated machine: hardware/install.sh run offline
from the wheelhouse in a fresh machine, twice; the unit installed, enabled, verified and hardened;
the board's Pi libraries (Blinka, rpi-lgpio) imported as on a Pi 4; without the board the service
fails with one clear line and systemd starts it again every few seconds; with the board served at
the kernel's character devices (`python -m magboard.sim.chardev`, where this tree has it) the
service says READY=1 and reports to the machine's broker, which the host reads.

At the end, `magboard update` under real systemd: a good version (a copy of this tree with a
version of its own) kept, a version whose `run` never becomes ready rolled back by itself, and
an update request left in the state directory carried out by magboard-update.path.

The tests share one machine and run in this file's order, each on what the one before left.
The setup between the two installs (sim/machine/deploy.py) is an operator's: the unit's drop-in
(environment only: the header's GPIO chip is the simulated board's) and the configuration file.

Skipped unless asked for and built (tests/hil/conftest.py): `make hil`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from magboard.hardware import install, versioning
from magboard.sim.machine import deploy
from magboard.sim.machine.vm import Machine
from magboard.sim.machine.world_link import BOARD_SERVICE, install_board_unit

REPO = Path(__file__).resolve().parents[2]
MQTT = 1883
BOARD_ID = "hil"
VERSION = versioning.source_version(REPO)
"""The checkout's version (hardware/versioning.py), as the installer in the machine finds it."""
UPDATE_PIP_ARGS = f"--pip-args={deploy.PIP_ARGS}"
NOT_A_BOARD = "magboard: cannot start board mini: No Hardware I2C on (scl,sda)=(3, 2)"
"""What the service says when nothing serves /dev/i2c-1 (Blinka finds no bus at the pins)."""
HARDENING = {
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "RestrictSUIDSGID": "yes",
    "ProtectKernelModules": "yes",
    "ProtectControlGroups": "yes",
    "RestrictRealtime": "yes",
    "RestrictNamespaces": "yes",
    "LockPersonality": "yes",
    "User": "magboard",
    "Group": "magboard",
    "SupplementaryGroups": "gpio i2c spi",
    "UMask": "0027",
    "WorkingDirectory": "/run/magboard",
    "Type": "notify",
    "NotifyAccess": "main",
    "WatchdogUSec": "30s",
    "Restart": "always",
    "RestartUSec": "2s",
}


@pytest.fixture(scope="module")
def machine(timings: list[str]) -> Iterator[Machine]:
    with Machine(forward=[MQTT]) as booted:
        booted.run(["systemctl", "is-system-running", "--wait"], timeout=300)
        yield booted


@pytest.fixture(scope="module")
def first(machine: Machine, timings: list[str]) -> deploy.Installed:
    installed = deploy.install(machine)
    timings.append(f"install, first run: {installed.timings()}")
    return installed


@pytest.fixture(scope="module")
def configured(machine: Machine, first: deploy.Installed) -> None:
    """After the install, as an operator would: the drop-in, the config; the simulated board's
    unit written (not started)."""
    deploy.write_drop_in(machine)
    deploy.write_config(machine, "mini", mqtt="mqtt://localhost", board_id=BOARD_ID)
    install_board_unit(machine, "mini", start=False)


@pytest.fixture(scope="module")
def second(machine: Machine, configured: None, timings: list[str]) -> deploy.Installed:
    installed = deploy.install(machine)
    timings.append(f"install, second run: {installed.timings()}")
    return installed


def test_the_first_install_creates_what_a_fresh_pi_lacks(first: deploy.Installed) -> None:
    venv = deploy.VENV
    assert list(first.lines) == [
        # The image has the groups, as Raspberry Pi OS has them.
        "unchanged group gpio",
        "unchanged group i2c",
        "unchanged group spi",
        "created user magboard in gpio, i2c, spi",
        f"created {venv} -> venv-a",
        f"created magboard {VERSION} in /opt/magboard/venv-a",
        "created /etc/magboard/magboard.toml",
        "created /var/lib/magboard (owner magboard, mode 0750)",
        "created /etc/systemd/system/magboard.service",
        "created /etc/systemd/system/magboard-update.service",
        "created /etc/systemd/system/magboard-update.path",
        "created /opt/magboard/bin/magboard-unchecked",
        "created /etc/systemd/system/magboard-unchecked.service",
        "created /etc/systemd/system/multi-user.target.wants/magboard.service",
        "created /etc/systemd/system/paths.target.wants/magboard-update.path",
        "created /etc/systemd/system/multi-user.target.wants/magboard-unchecked.service",
    ]
    assert {"pip", "build dependencies", "wheel", "install"} <= first.phases.keys()


def test_the_c_extension_was_built_in_the_machine(
    machine: Machine, first: deploy.Installed
) -> None:
    python = f"{deploy.VENV}/bin/python"
    script = "import magboard.firmware.native as n; print(n.backend)"
    assert machine.run([python, "-c", script], check=True).stdout.strip() == "c"
    assert "tic-tac-toe" in machine.run([f"{deploy.VENV}/bin/magboard", "games"], check=True).stdout


def test_the_second_install_changes_nothing(machine: Machine, second: deploy.Installed) -> None:
    assert second.lines and all(line.startswith("unchanged ") for line in second.lines)
    assert "unchanged /etc/magboard/magboard.toml (the operator's, kept as it is)" in second.lines
    assert 'board = "mini"' in machine.run(["cat", deploy.CONFIG], check=True).stdout


def test_the_unit_is_the_repositorys_enabled_and_verified(
    machine: Machine, second: deploy.Installed
) -> None:
    unit = machine.run(["cat", "/etc/systemd/system/magboard.service"], check=True).stdout
    assert unit == (REPO / "hardware/magboard.service").read_text()
    assert machine.run(["systemctl", "is-enabled", "magboard"]).stdout.strip() == "enabled"
    path_unit = machine.run(["systemctl", "is-enabled", "magboard-update.path"]).stdout.strip()
    assert path_unit == "enabled"
    assert show(machine, "ActiveState", unit="magboard-update.path")["ActiveState"] == "active"
    # With the drop-in: verify warns on stderr, still exiting 0, of anything it dislikes.
    units = [
        "magboard.service",
        "magboard-update.service",
        "magboard-update.path",
        "magboard-unchecked.service",
    ]
    verify = machine.run(["systemd-analyze", "verify", *units], timeout=120)
    assert (verify.rc, verify.stderr, verify.stdout) == (0, "", "")
    drop_in = machine.run(["cat", deploy.DROP_IN], check=True).stdout
    settings = [line for line in drop_in.splitlines() if line and not line.startswith("#")]
    assert settings[0] == "[Service]"
    assert all(line.startswith(("Environment=", "EnvironmentFile=")) for line in settings[1:])


def test_the_pi_libraries_import_as_on_a_pi_4(machine: Machine, configured: None) -> None:
    """Blinka takes the forced board, rpi-lgpio the forced revision; with nothing serving the
    buses, Blinka finds no I2C bus at the pins and no /dev/spidev0.0; with the simulated board,
    both open and a button's line on its chip reads released."""
    script = """
import board, busio, RPi.GPIO as GPIO
print(board.board_id, "|", GPIO.RPI_INFO["TYPE"], "|", GPIO.RPI_INFO["PROCESSOR"])
for name, make in (
    ("I2C", lambda: busio.I2C(board.SCL, board.SDA)),
    ("SPI", lambda: busio.SPI(board.SCK, MOSI=board.MOSI)),
):
    try:
        make()
        print(name, "opened")
    except Exception as error:
        print(name, type(error).__name__, str(error).splitlines()[0])
if "RPI_LGPIO_CHIP" in __import__("os").environ:
    GPIO.setmode(GPIO.BCM)
    GPIO.setup(5, GPIO.IN, pull_up_down=GPIO.PUD_UP)
    print("GPIO5", GPIO.input(5))
"""
    python = [f"{deploy.VENV}/bin/python", "-c", script]
    environment = {"BLINKA_SKIP_DEPENDENCY_CHECK": "1", **deploy.PI_ENVIRONMENT}
    alone = machine.run(python, env=environment, cwd="/tmp", timeout=120).check()
    assert alone.stdout.splitlines() == [
        "RASPBERRY_PI_4B | Pi 4 Model B | BCM2711",
        "I2C ValueError No Hardware I2C on (scl,sda)=(3, 2)",
        "SPI OSError /dev/spidev0.0 does not exist",
    ]
    machine.run(["systemctl", "start", BOARD_SERVICE], timeout=120, check=True)
    try:
        chip = int(machine.run(["cat", "/run/magboard-hil/gpiochip"], check=True).stdout)
        environment = {"BLINKA_SKIP_DEPENDENCY_CHECK": "1", **deploy.pi_environment(chip)}
        served = machine.run(python, env=environment, cwd="/tmp", timeout=120).check()
        assert served.stdout.splitlines() == [
            "RASPBERRY_PI_4B | Pi 4 Model B | BCM2711",
            "I2C opened",
            "SPI opened",
            "GPIO5 1",
        ]
    finally:
        machine.run(["systemctl", "stop", BOARD_SERVICE], timeout=60)


def test_the_broker_answers_the_host(machine: Machine) -> None:
    topic = "magboard-hil/probe"
    with Listener(machine, topic) as listener:
        publisher = client("hil-probe")
        publisher.connect("127.0.0.1", machine.ports[MQTT])
        publisher.loop_start()
        sent = publisher.publish(topic, b"through the forwarded port", qos=1, retain=True)
        sent.wait_for_publish(10)
        publisher.loop_stop()
        publisher.disconnect()
        assert listener.wait(topic, 20) == b"through the forwarded port"


def test_without_the_board_the_service_says_why_and_is_started_again(
    machine: Machine, second: deploy.Installed, timings: list[str]
) -> None:
    machine.run(["systemctl", "start", "--no-block", "magboard"], check=True)
    try:
        deadline = time.monotonic() + 180
        while restarts(machine) < 3:
            assert time.monotonic() < deadline, journal(machine)
            time.sleep(1)
        said = machine.run(["journalctl", "-u", "magboard", "-o", "cat", "_COMM=magboard"])
        assert NOT_A_BOARD in said.stdout.splitlines()
        assert "Traceback" not in said.stdout
        # RestartSec=2 between an exit and the next start: never a tight loop.
        events = [
            (float(line.split()[0]), "exit" if "Main process exited" in line else "start")
            for line in journal(machine, "-o", "short-unix").splitlines()
            if "Main process exited" in line or "Starting magboard.service" in line
        ]
        starts = [when for when, what in events if what == "start"]
        rests = [
            later - earlier
            for (earlier, first), (later, then) in itertools.pairwise(events)
            if (first, then) == ("exit", "start")
        ]
        assert len(rests) >= 2 and min(rests) >= 2, events
        gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
        state = show(machine, "Result", "ActiveState")
        assert state["Result"] != "start-limit-hit", state
        # The machine goes on answering between the attempts.
        start = time.monotonic()
        machine.run(["true"], check=True)
        assert time.monotonic() - start < 10
        timings.append(
            f"service without the board: started again every {sum(gaps) / len(gaps):.1f} s "
            f"(each attempt's failure plus RestartSec=2)"
        )
    finally:
        machine.run(["systemctl", "stop", "magboard"], timeout=120)
        machine.run(["systemctl", "reset-failed", "magboard"])


def test_the_hardening_is_in_effect(machine: Machine, second: deploy.Installed) -> None:
    found = show(machine, *HARDENING, "Environment", "EnvironmentFiles")
    assert {key: found[key] for key in HARDENING} == HARDENING
    environment = found["Environment"].split()
    for name, value in deploy.PI_ENVIRONMENT.items():
        assert f"{name}={value}" in environment
    assert "BLINKA_SKIP_DEPENDENCY_CHECK=1" in environment
    assert found["EnvironmentFiles"] == f"{deploy.GPIO_ENV} (ignore_errors=yes)"


def test_with_the_board_served_the_service_is_ready_and_reports(
    machine: Machine, second: deploy.Installed, timings: list[str]
) -> None:
    machine.run(["systemctl", "start", BOARD_SERVICE], timeout=120, check=True)
    try:
        chip = int(machine.run(["cat", "/run/magboard-hil/gpiochip"], check=True).stdout)
        machine.run(["udevadm", "settle"], check=True)
        owners = machine.run(
            ["stat", "-c", "%n %U %G %a", "/dev/i2c-1", "/dev/spidev0.0", f"/dev/gpiochip{chip}"]
        ).stdout.splitlines()
        assert owners == [
            "/dev/i2c-1 root i2c 660",
            "/dev/spidev0.0 root spi 660",
            f"/dev/gpiochip{chip} root gpio 660",
        ]
        with Listener(machine, f"magboard/{BOARD_ID}/#") as listener:
            start = time.monotonic()
            # Returns once the service said READY=1: the expanders answered, the game is set up.
            machine.run(["systemctl", "start", "magboard"], timeout=300).check()
            ready = time.monotonic() - start
            state = show(machine, "ActiveState", "StatusText", "MainPID", "NRestarts")
            assert state["ActiveState"] == "active", journal(machine)
            assert state["StatusText"] == "refereeing Tic-tac-toe on mini"
            status = machine.run(["cat", f"/proc/{state['MainPID']}/status"], check=True).stdout
            assert "NoNewPrivs:\t1" in status.splitlines()
            environ = machine.run(["cat", f"/proc/{state['MainPID']}/environ"], check=True)
            assert f"RPI_LGPIO_CHIP={chip}" in environ.stdout.split("\0")
            assert listener.wait(f"magboard/{BOARD_ID}/availability", 60) == b"online"
            heartbeat = json.loads(listener.wait(f"magboard/{BOARD_ID}/heartbeat", 60))
            assert heartbeat["expanders_missing"] == []
        timings.append(f"service with the board served: READY=1 {ready:.1f} s after start")
        # Past the watchdog's 30 s, fed from the board's loop: never restarted.
        time.sleep(35)
        assert show(machine, "NRestarts", "ActiveState") == {
            "NRestarts": "0",
            "ActiveState": "active",
        }, journal(machine)
    finally:
        machine.run(["systemctl", "stop", "magboard", BOARD_SERVICE], timeout=120)


def test_r1_with_its_interrupt_lines_is_ready_too(
    machine: Machine, second: deploy.Installed, timings: list[str]
) -> None:
    """The larger reference board, 12x12 with trays behind muxes, on the same service: the
    time it takes to READY under emulation is why the game's tests play on mini."""
    deploy.write_config(machine, "r1", mqtt="mqtt://localhost", board_id=BOARD_ID)
    install_board_unit(machine, "r1")
    try:
        start = time.monotonic()
        machine.run(["systemctl", "start", "magboard"], timeout=600).check()
        ready = time.monotonic() - start
        state = show(machine, "ActiveState", "StatusText")
        assert state == {
            "ActiveState": "active",
            "StatusText": "refereeing Tic-tac-toe on r1",
        }, journal(machine)
        timings.append(f"service on r1, INT lines wired: READY=1 {ready:.1f} s after start")
    finally:
        machine.run(["systemctl", "stop", "magboard", BOARD_SERVICE], timeout=120)
        deploy.write_config(machine, "mini", mqtt="mqtt://localhost", board_id=BOARD_ID)
        install_board_unit(machine, "mini", start=False)  # the tests after it serve mini


# Updates under real systemd, on the board served as above.

GOOD, NEVER_READY, REQUESTED = "0.2.0", "0.3.0", "0.4.0"


def copy_of_this_tree(machine: Machine, name: str, version: str) -> str:
    """A copy of the shared tree in the machine, without git, with `version` recorded in it."""
    tree = f"/var/tmp/{name}"
    machine.run(["rm", "-rf", tree], check=True)
    litter = " ".join(f"--exclude='{name}'" for name in install.BUILD_LITTER)
    copy = f"mkdir {tree} && cd {deploy.SOURCE} && tar {litter} -cf - . | "
    machine.run(["sh", "-c", f"{copy}tar -C {tree} -xf -"], timeout=300, check=True)
    deploy.write(machine, f"{tree}/magboard.version", version + "\n")
    return tree


def service_report(machine: Machine) -> dict:
    return json.loads(machine.run(["cat", "/var/lib/magboard/service.json"], check=True).stdout)


def attempts(machine: Machine) -> list[dict]:
    said = machine.run(["cat", "/var/lib/magboard/updates.jsonl"], check=True).stdout
    return [json.loads(line) for line in said.splitlines()]


@pytest.fixture(scope="module")
def serving(machine: Machine, second: deploy.Installed) -> Iterator[None]:
    """The board served and the service running on it, as a board in use."""
    machine.run(["systemctl", "start", BOARD_SERVICE], timeout=120, check=True)
    try:
        machine.run(["systemctl", "start", "magboard"], timeout=300).check()
        yield
    finally:
        machine.run(["systemctl", "stop", "magboard", BOARD_SERVICE], timeout=120)


def test_an_update_that_comes_up_healthy_is_kept(
    machine: Machine, serving: None, timings: list[str]
) -> None:
    before = service_report(machine)
    assert (before["state"], before["version"], before["faults"]) == ("ready", VERSION, [])
    tree = copy_of_this_tree(machine, "good", GOOD)
    start = time.monotonic()
    done = machine.run(["/opt/magboard/.venv/bin/magboard", "update", tree, UPDATE_PIP_ARGS],
                       timeout=1800)  # fmt: skip
    assert done.rc == 0, done.stderr + done.stdout + journal(machine)
    timings.append(f"magboard update, kept: {time.monotonic() - start:.0f} s")
    assert done.stdout.splitlines()[-1].startswith(f"update {VERSION} -> {GOOD}: kept (ready")
    assert machine.run(["readlink", "/opt/magboard/.venv"], check=True).stdout.strip() == "venv-b"
    said = machine.run(["/opt/magboard/.venv/bin/magboard", "--version"], check=True).stdout
    assert said.strip() == f"magboard {GOOD}"
    assert show(machine, "ActiveState")["ActiveState"] == "active"
    after = service_report(machine)
    assert (after["state"], after["version"], after["faults"]) == ("ready", GOOD, [])
    assert after["game"]["game"] == "tic-tac-toe", "the game the old version left, resumed"
    last = attempts(machine)[-1]
    assert (last["source"], last["from"], last["to"], last["result"]) == (
        tree,
        VERSION,
        GOOD,
        "kept",
    )
    assert last["why"].startswith("ready, its start-up check clean, tic-tac-toe after")


def test_an_update_that_never_becomes_ready_is_rolled_back(
    machine: Machine, serving: None, timings: list[str]
) -> None:
    before = service_report(machine)
    tree = copy_of_this_tree(machine, "never-ready", NEVER_READY)
    run_py = f"{tree}/firmware/app/run.py"
    line = "    board = open_pi_board(request.spec)"
    assert line in machine.run(["cat", run_py], check=True).stdout.splitlines()
    # `magboard run` exits at start: never READY=1, started again and again by Restart=always.
    machine.run(["sed", "-i", f"s/^{line}$/    raise SystemExit(3)/", run_py], check=True)
    start = time.monotonic()
    done = machine.run(
        ["/opt/magboard/.venv/bin/magboard", "update", tree, UPDATE_PIP_ARGS, "--timeout", "60"],
        timeout=1800,
    )
    assert done.rc == 1, done.stderr + done.stdout + journal(machine)
    timings.append(f"magboard update, rolled back: {time.monotonic() - start:.0f} s")
    last = done.stdout.splitlines()[-1]
    assert last == f"update {GOOD} -> {NEVER_READY}: rolled back (not ready within 60 s)"
    assert machine.run(["readlink", "/opt/magboard/.venv"], check=True).stdout.strip() == "venv-b"
    assert show(machine, "ActiveState")["ActiveState"] == "active"
    after = service_report(machine)
    assert (after["state"], after["version"]) == ("ready", GOOD)
    assert after["game"] == before["game"], "the journal intact, the same game resumed"
    assert [a["result"] for a in attempts(machine)[-2:]] == ["kept", "rolled back"]


def test_a_request_left_by_the_service_is_carried_out_by_the_path_unit(
    machine: Machine, serving: None
) -> None:
    """What the service does for `{"do": "update", ...}` over an authenticated broker (the
    machine's is open, so the request is written here as the service writes it)."""
    tree = copy_of_this_tree(machine, "requested", REQUESTED)
    wheels = "/var/tmp/requested-wheel"
    machine.run(["rm", "-rf", wheels], check=True)
    build_wheel = [f"{deploy.VENV}/bin/python", "-m", "pip", "wheel", "--no-deps", "--quiet",
                   *deploy.PIP_ARGS.split(), "-w", wheels, tree]  # fmt: skip
    machine.run(build_wheel, timeout=1800).check()
    wheel = machine.run(["sh", "-c", f"ls {wheels}"], check=True).stdout.strip()
    digest = machine.run(["sha256sum", f"{wheels}/{wheel}"], check=True).stdout.split()[0]
    request = json.dumps({"wheel": wheel, "sha256": digest, "url": f"file://{wheels}/{wheel}"})
    script = (
        f"install -d -o magboard -g magboard -m 0750 /var/lib/magboard/update && "
        f"install -o magboard -g magboard -m 0644 {wheels}/{wheel} /var/lib/magboard/update/ && "
        f"printf '%s' '{request}' > /var/lib/magboard/update/.request && "
        "mv /var/lib/magboard/update/.request /var/lib/magboard/update/request.json"
    )
    # The machine is offline: the update unit's pip is told the wheelhouse, as a Pi without
    # the internet is (hardware/magboard-update.service).
    deploy.write(machine, "/etc/magboard/update.env", f"MAGBOARD_PIP_ARGS={deploy.PIP_ARGS}\n")
    count = len(attempts(machine))
    machine.run(["sh", "-c", script], check=True)
    deadline = time.monotonic() + 1800
    while len(attempts(machine)) == count:
        assert time.monotonic() < deadline, machine.run(
            ["journalctl", "-u", "magboard-update", "--no-pager"]
        ).stdout
        time.sleep(5)
    assert attempts(machine)[-1]["to"] == REQUESTED
    assert attempts(machine)[-1]["result"] == "kept", attempts(machine)[-1]
    assert service_report(machine)["version"] == REQUESTED
    assert machine.run(["test", "-e", "/var/lib/magboard/update/request.json"]).rc == 1


# Helpers.


def show(machine: Machine, *names: str, unit: str = "magboard") -> dict[str, str]:
    argv = ["systemctl", "show", unit, *(f"--property={name}" for name in names)]
    lines = machine.run(argv, check=True).stdout.splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def restarts(machine: Machine) -> int:
    return int(show(machine, "NRestarts")["NRestarts"])


def journal(machine: Machine, *options: str) -> str:
    return machine.run(["journalctl", "-u", "magboard", "--no-pager", *options]).stdout


def client(name: str) -> mqtt.Client:
    return mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)


class Listener:
    """The host's subscriber to the machine's broker, through the forwarded port."""

    def __init__(self, machine: Machine, topic: str) -> None:
        self.received: dict[str, bytes] = {}
        self.arrived = threading.Condition()
        self.client = client("hil-listener")
        self.client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
        self.client.on_message = self._on_message
        self.port = machine.ports[MQTT]

    def _on_message(self, _client, _userdata, message) -> None:
        with self.arrived:
            self.received[message.topic] = message.payload
            self.arrived.notify_all()

    def __enter__(self) -> Listener:
        self.client.connect("127.0.0.1", self.port)
        self.client.loop_start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.loop_stop()
        self.client.disconnect()

    def wait(self, topic: str, timeout: float) -> bytes:
        with self.arrived:
            if not self.arrived.wait_for(lambda: topic in self.received, timeout):
                raise AssertionError(f"nothing on {topic} in {timeout:.0f} s: {self.received}")
            return self.received[topic]
