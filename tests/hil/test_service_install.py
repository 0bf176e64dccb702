"""The real install and the real unit in the emulated machine: hardware/install.sh run offline
from the wheelhouse in a fresh machine, twice; the unit installed, enabled, verified and hardened;
the board's Pi libraries (Blinka, rpi-lgpio) imported as on a Pi 4; without the board the service
fails with one clear line and systemd starts it again every few seconds; with the board served at
the kernel's character devices (`python -m magboard.sim.chardev`, where this tree has it) the
service says READY=1 and reports to the machine's broker, which the host reads.

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
import tomllib
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from magboard.sim.machine import deploy
from magboard.sim.machine.vm import Machine
from magboard.sim.machine.world_link import BOARD_SERVICE, install_board_unit

REPO = Path(__file__).resolve().parents[2]
MQTT = 1883
BOARD_ID = "hil"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
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
        f"created {venv}",
        f"created magboard {VERSION} in {venv}",
        "created /etc/magboard/magboard.toml",
        "created /var/lib/magboard (owner magboard, mode 0750)",
        "created /etc/systemd/system/magboard.service",
        "created /etc/systemd/system/multi-user.target.wants/magboard.service",
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
    # With the drop-in: verify warns on stderr, still exiting 0, of anything it dislikes.
    verify = machine.run(["systemd-analyze", "verify", "magboard.service"], timeout=120)
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


# Helpers.


def show(machine: Machine, *names: str) -> dict[str, str]:
    argv = ["systemctl", "show", "magboard", *(f"--property={name}" for name in names)]
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
