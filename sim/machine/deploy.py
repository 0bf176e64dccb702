"""The board's own software in the emulated machine, installed as an operator installs it on a Pi.

    install(machine)                  # hardware/install.sh from the share, offline
    write_drop_in(machine)            # the unit told the board it runs on (environment only)
    write_config(machine, "mini", mqtt="mqtt://localhost")

Nothing of the project is changed for the machine: the installer, the unit and `magboard run`
are the repository's, run on Blinka, rpi-lgpio and lgpio as on a Pi. What differs is only what a
real deployment may set itself:

- the install runs from the repository's read-only share (its version recorded in it first:
  `record_version`) with the wheelhouse's share as its
  package index (`--pip-args="--no-index --find-links /srv/wheels"`), as on a Pi without the
  internet; pip builds the project's cffi extension with the machine's gcc, as a Pi does;
- a drop-in, /etc/systemd/system/magboard.service.d/hil.conf, written here and never by the
  installer, sets Environment= only: Blinka told the board and its chip (BLINKA_FORCEBOARD,
  BLINKA_FORCECHIP) and rpi-lgpio the Pi's revision code (RPI_LGPIO_REVISION), since a PC has
  no device tree to read them from, and which GPIO chip is the header (RPI_LGPIO_CHIP) from the
  file the simulated board's daemon writes when it has made its gpio-sim chip
  (`EnvironmentFile=-/run/magboard-hil/gpio.env`, world_link.py): the chip the INT and button
  lines are on, labelled as a Pi 4's header;
- /etc/magboard/magboard.toml, written after the install as an operator writes it (the
  installer writes its default only where there is none, and keeps this one), naming a shipped
  board file, its INT lines and all: the service waits on their edges as on a Pi.

The machine's image provides the rest as Raspberry Pi OS does: the groups gpio, i2c and spi, the
udev rules that give them the device nodes (the CUSE devices and gpio-sim chips made at run
time included), and a Mosquitto broker listening on port 1883.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from magboard.firmware.games import DEFAULT_GAME
from magboard.hardware import versioning
from magboard.sim.machine import build
from magboard.sim.machine.vm import Machine, MachineError
from magboard.sim.machine.world_link import STATE_DIR

SOURCE = build.SHARE_MOUNT
INSTALL = f"{SOURCE}/hardware/install.sh"
PIP_ARGS = f"--no-index --find-links {build.WHEELS_MOUNT}"
PIP_LOG = "/var/tmp/magboard-install-pip.log"
VENV = "/opt/magboard/.venv"
CONFIG = "/etc/magboard/magboard.toml"
BOARDS = "/etc/magboard/boards"
DROP_IN = "/etc/systemd/system/magboard.service.d/hil.conf"
GPIO_ENV = f"{STATE_DIR}/gpio.env"
"""RPI_LGPIO_CHIP=N, written by the simulated board's daemon once its gpio-sim chip is live."""
PI_ENVIRONMENT = {
    "BLINKA_FORCEBOARD": "RASPBERRY_PI_4B",
    "BLINKA_FORCECHIP": "BCM2XXX",
    # A Pi 4 Model B, 4 GB, revision 1.4, made by Sony UK: a new-style revision code.
    "RPI_LGPIO_REVISION": "c03114",
}
"""What tells Blinka and rpi-lgpio the board they run on, where no device tree says it."""


@dataclass(frozen=True)
class Installed:
    """One run of the installer: the lines it printed, and how long it and pip's phases took."""

    lines: tuple[str, ...]
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)
    """From pip's log, when pip ran: `pip` (all of it), `build dependencies` (setuptools and
    cffi into the build environment), `metadata and resolution` (the project's metadata, every
    requirement found in the wheelhouse), `wheel` (the project built, its C extension compiled)
    and `install` (every wheel unpacked into the environment)."""

    def timings(self) -> str:
        parts = [f"{self.seconds:.0f} s in all"]
        parts += [f"{name} {seconds:.0f} s" for name, seconds in self.phases.items()]
        if "pip" in self.phases:
            parts.append(f"outside pip {self.seconds - self.phases['pip']:.0f} s")
        return ", ".join(parts)


def install(machine: Machine, timeout: float = 1800) -> Installed:
    """Runs the repository's installer in the machine, as root, from the wheelhouse; raises
    MachineError, with what it said, if it fails."""
    record_version()
    machine.run(["rm", "-f", PIP_LOG], check=True)
    command = [INSTALL, f"--pip-args={PIP_ARGS} --log {PIP_LOG}"]
    start = time.monotonic()
    result = machine.run(command, timeout=timeout, cwd="/root").check()
    seconds = time.monotonic() - start
    log = machine.run(["sh", "-c", f"cat {PIP_LOG} 2>/dev/null || true"]).stdout
    return Installed(tuple(result.stdout.splitlines()), seconds, pip_phases(log))


def record_version() -> str:
    """The checkout's version, recorded in the share for the machine: its git may be absent, or
    a worktree's .git name a path on this host only (hardware/versioning.py then reads the
    record, which git ignores). The version, as the installer will find it."""
    version = versioning.source_version(build.REPO)
    versioning.record(build.REPO, version)
    return version


PHASES = {
    "build dependencies": (
        "Installing build dependencies: started",
        "Installing build dependencies: finished",
    ),
    "metadata and resolution": (
        "Installing build dependencies: finished",
        "Building wheels for collected packages",
    ),
    "wheel": ("Building wheel for magboard", "Created wheel for magboard"),
    "install": ("Installing collected packages", "Successfully installed"),
}


def pip_phases(log: str) -> dict[str, float]:
    """Seconds between the marks of pip's log (each line stamped to the millisecond)."""
    stamped = []
    for line in log.splitlines():
        if match := re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d),(\d{3}) (.*)", line):
            when = datetime.fromisoformat(match[1]).timestamp() + int(match[2]) / 1000
            stamped.append((when, match[3]))
    if not stamped:
        return {}
    phases = {"pip": stamped[-1][0] - stamped[0][0]}
    # The phases come in this order, each looked for after the one before: the build
    # dependencies' own install says "Installing collected packages" too, before the project's.
    at = 0
    for name, (begins, ends) in PHASES.items():
        start = next((i for i in range(at, len(stamped)) if begins in stamped[i][1]), None)
        if start is None:
            continue
        end = next((i for i in range(start, len(stamped)) if ends in stamped[i][1]), None)
        if end is not None:
            phases[name] = stamped[end][0] - stamped[start][0]
            at = end
    return phases


def pi_environment(chip: int) -> dict[str, str]:
    """The drop-in's environment with the header on /dev/gpiochip`chip`, for a command run by
    hand."""
    return {**PI_ENVIRONMENT, "RPI_LGPIO_CHIP": str(chip)}


def write_drop_in(machine: Machine) -> str:
    """The drop-in that tells the unit the board it runs on; returns its text. The header's
    chip comes from the simulated board's `GPIO_ENV` (optional: without the board, the service
    fails at its I2C bus first, as a Pi with nothing on its header does)."""
    lines = [
        "# Written by the emulated machine's setup (sim/machine/deploy.py), not the installer:",
        "# the board that a PC's missing device tree cannot tell Blinka and rpi-lgpio.",
        "[Service]",
        *(f"Environment={name}={value}" for name, value in PI_ENVIRONMENT.items()),
        f"EnvironmentFile=-{GPIO_ENV}",
    ]
    text = "\n".join(lines) + "\n"
    write(machine, DROP_IN, text)
    machine.run(["systemctl", "daemon-reload"], check=True)
    return text


def write_config(
    machine: Machine,
    board: str,
    game: str = DEFAULT_GAME,
    mqtt: str | None = None,
    board_id: str = "hil",
) -> str:
    """/etc/magboard/magboard.toml as an operator writes it (`board` a shipped board's name or
    a board file); returns its text."""
    lines = [
        f"board = {quote(board)}",
        f"game = {quote(game)}",
        'journal = "/var/lib/magboard/magboard.db"',
    ]
    if mqtt is not None:
        lines += ["", "[mqtt]", f"url = {quote(mqtt)}", f"board_id = {quote(board_id)}"]
    text = "\n".join(lines) + "\n"
    write(machine, CONFIG, text)
    return text


def quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write(machine: Machine, path: str, text: str, mode: str = "0644") -> None:
    directory, target = shlex.quote(str(Path(path).parent)), shlex.quote(path)
    script = f"mkdir -p {directory} && cat > {target} && chmod {mode} {target}"
    machine.run(["sh", "-c", script], input=text, check=True)


def wait_for(machine: Machine, argv: list[str], timeout: float, every: float = 0.5) -> str:
    """Runs `argv` until it succeeds; its output, or MachineError once `timeout` has passed."""
    deadline = time.monotonic() + timeout
    while True:
        result = machine.run(argv, timeout=max(timeout, 10))
        if result.ok:
            return result.stdout
        if time.monotonic() > deadline:
            raise MachineError(f"{' '.join(argv)} did not succeed in {timeout:.0f} s: {result}")
        time.sleep(every)
