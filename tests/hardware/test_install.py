"""`hardware/install.sh` into a seeded root, twice: every artefact, then nothing changed at all.

The installer runs as `sudo hardware/install.sh` would: with sudo's PATH, so `python3` is the
system's. Pip stays offline: the environment sees that Python's own setuptools, wheel and cffi
(--system-site-packages) and pip is told to build with them and fetch nothing (--no-index
--no-build-isolation --no-deps). `magboard games` needs only the standard library and cffi.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import stat
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from target_root import INSTALL_SH, OFFLINE, REPO, SUDO_PATH, needs_install, needs_tools, seed

from magboard.hardware import install
from magboard.host.cli import main as magboard

pytestmark = pytest.mark.backend_free

WANTS_LINK = "/etc/systemd/system/multi-user.target.wants/magboard.service"
UPDATE_WANTS_LINK = "/etc/systemd/system/paths.target.wants/magboard-update.path"
UNITS = ("magboard.service", "magboard-update.service", "magboard-update.path")


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under `root` with its type and mode, owner, size, mtime, and content or link."""
    tree = {}
    for path in [root, *root.rglob("*")]:
        found = path.lstat()
        if stat.S_ISLNK(found.st_mode):
            content = os.readlink(path)
        elif stat.S_ISREG(found.st_mode):
            content = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            content = None
        tree[str(path.relative_to(root))] = (
            found.st_mode,
            found.st_uid,
            found.st_gid,
            found.st_size if content is not None else None,
            found.st_mtime_ns,
            content,
        )
    return tree


def entries(root: Path, name: str) -> dict[str, list[str]]:
    lines = (root / "etc" / name).read_text().splitlines()
    return {line.split(":")[0]: line.split(":") for line in lines}


@dataclass(frozen=True)
class Installed:
    root: Path
    first: subprocess.CompletedProcess
    second: subprocess.CompletedProcess
    before: dict[str, tuple]
    """The tree after the first run (and after `magboard games` and verify had run in it)."""
    after: dict[str, tuple]
    games: subprocess.CompletedProcess
    verify: subprocess.CompletedProcess


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = seed(tmp_path_factory.mktemp("root"))
    home = tmp_path_factory.mktemp("home")
    # A clean environment: no PYTHON* or PIP_* variables, no pip configuration of this machine.
    env = {"PATH": SUDO_PATH, "HOME": str(home), "PIP_CONFIG_FILE": os.devnull, "LANG": "C.UTF-8"}

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)

    first = run(str(INSTALL_SH), "--root", str(root), *OFFLINE)
    games = run(str(root / "opt/magboard/.venv/bin/magboard"), "games")
    verify = run("systemd-analyze", "verify", f"--root={root}", *UNITS)
    before = snapshot(root)
    second = run(str(INSTALL_SH), "--root", str(root), *OFFLINE)
    return Installed(root, first, second, before, snapshot(root), games, verify)


@needs_install
def test_the_first_run_creates_every_step(installed: Installed) -> None:
    root = installed.root
    assert (installed.first.returncode, installed.first.stderr) == (0, "")
    assert installed.first.stdout.splitlines() == [
        "created group gpio",
        "created group i2c",
        "created group spi",
        "created user magboard in gpio, i2c, spi",
        f"created {root}/opt/magboard/.venv -> venv-a",
        f"created magboard {project_version()} in {root}/opt/magboard/venv-a",
        f"created {root}/etc/magboard/magboard.toml",
        f"created {root}/var/lib/magboard (owner magboard, mode 0750)",
        f"created {root}/etc/systemd/system/magboard.service",
        f"created {root}/etc/systemd/system/magboard-update.service",
        f"created {root}/etc/systemd/system/magboard-update.path",
        f"created {root}{WANTS_LINK}",
        f"created {root}{UPDATE_WANTS_LINK}",
    ]


@needs_install
def test_the_second_run_changes_nothing(installed: Installed) -> None:
    assert (installed.second.returncode, installed.second.stderr) == (0, "")
    lines = installed.second.stdout.splitlines()
    assert len(lines) == 13
    assert all(line.startswith("unchanged ") for line in lines), lines
    changed = sorted(
        path
        for path in installed.before.keys() | installed.after.keys()
        if installed.before.get(path) != installed.after.get(path)
    )
    assert changed == []


@needs_install
def test_the_user_and_its_groups(installed: Installed) -> None:
    passwd = entries(installed.root, "passwd")
    groups = entries(installed.root, "group")
    name, _, uid, gid, _, home, shell = passwd["magboard"]
    assert (home, shell) == ("/var/lib/magboard", "/usr/sbin/nologin")
    assert int(uid) < 1000, "a system user"
    assert groups["magboard"][2] == gid
    for group in ("gpio", "i2c", "spi"):
        assert int(groups[group][2]) < 1000, f"{group} is a system group"
        assert name in groups[group][3].split(",")


@needs_install
def test_the_environment_runs_magboard(installed: Installed) -> None:
    assert installed.games.returncode == 0, installed.games.stderr
    assert "tic-tac-toe" in installed.games.stdout
    venv = installed.root / "opt/magboard/.venv"
    site = next(venv.glob("lib/python3*/site-packages"))
    assert list((site / "magboard/firmware/native").glob("_lines.*.so")), "the C extension"
    assert install.installed_version(venv) == project_version()


@needs_install
def test_the_configuration(installed: Installed) -> None:
    config = installed.root / "etc/magboard/magboard.toml"
    text = config.read_text()
    assert text.startswith("# magboard's configuration: the board, the game and how it runs")
    assert tomllib.loads(text) == {
        "board": "r1",
        "game": "tic-tac-toe",
        "takeback": True,
        "journal": "/var/lib/magboard/magboard.db",
        "options": {},
        "unattended": {"attract_after": 120, "reset_after": 300},
    }
    assert "# seconds untouched before the lights invite play; 0 = never" in text
    assert stat.S_IMODE(config.stat().st_mode) == 0o644


@needs_install
def test_the_state_directory(installed: Installed) -> None:
    _, _, uid, gid, *_ = entries(installed.root, "passwd")["magboard"]
    found = (installed.root / "var/lib/magboard").stat()
    assert (found.st_uid, found.st_gid) == (int(uid), int(gid))
    assert stat.S_IMODE(found.st_mode) == 0o750


@needs_install
def test_the_unit_is_installed_enabled_and_verifies(installed: Installed) -> None:
    for name in UNITS:
        unit = installed.root / "etc/systemd/system" / name
        assert unit.read_bytes() == (REPO / "hardware" / name).read_bytes()
        assert stat.S_IMODE(unit.stat().st_mode) == 0o644
    link = installed.root / WANTS_LINK.lstrip("/")
    assert os.readlink(link) == "/etc/systemd/system/magboard.service"
    update_link = installed.root / UPDATE_WANTS_LINK.lstrip("/")
    assert os.readlink(update_link) == "/etc/systemd/system/magboard-update.path"
    # verify warns on stderr and still exits 0 for an unknown key or a bad value: both must be
    # silent.
    assert (installed.verify.returncode, installed.verify.stderr, installed.verify.stdout) == (
        0,
        "",
        "",
    )


def test_the_unit_asks_for_what_the_service_needs() -> None:
    """The settings the board relies on, read as systemd reads them (last assignment wins)."""
    service = unit_settings((REPO / "hardware/magboard.service").read_text(), "Service")
    expected = {
        "Type": "notify",
        "WatchdogSec": "30",
        "NotifyAccess": "main",
        "Restart": "always",
        "RestartSec": "2",
        "StateDirectory": "magboard",
        "RuntimeDirectory": "magboard",
        "WorkingDirectory": "/run/magboard",
        "User": "magboard",
        "Group": "magboard",
        "SupplementaryGroups": "gpio i2c spi",
        "ExecStart": "/opt/magboard/.venv/bin/magboard run --config /etc/magboard/magboard.toml",
        "NoNewPrivileges": "yes",
        "PrivateTmp": "yes",
        "ProtectSystem": "full",
    }
    assert {key: service.get(key) for key in expected} == expected
    assert "PrivateDevices" not in service, "it would hide the I2C, SPI and GPIO devices"
    assert "BLINKA_SKIP_DEPENDENCY_CHECK=1" in service["Environment"]


def test_the_update_units_hand_the_services_request_to_root() -> None:
    """The path unit watches the request the unprivileged service leaves in its state
    directory (firmware/app/update_request.py); the oneshot it starts runs the updater."""
    path = unit_settings((REPO / "hardware/magboard-update.path").read_text(), "Path")
    assert path == {
        "PathExists": "/var/lib/magboard/update/request.json",
        "Unit": "magboard-update.service",
    }
    service = unit_settings((REPO / "hardware/magboard-update.service").read_text(), "Service")
    assert service["Type"] == "oneshot"
    assert service["ExecStart"] == "/opt/magboard/.venv/bin/magboard update --request"
    assert "User" not in service, "root: it writes /opt and restarts magboard.service"


def unit_settings(text: str, section: str) -> dict[str, str]:
    settings: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("["):
            current = line.strip("[]")
        elif current == section and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            joined = key == "Environment" and key in settings
            settings[key] = f"{settings[key]} {value}" if joined else value
    return settings


def project_version() -> str:
    """The version the checkout tells (git describe), not a string frozen in a file."""
    return install.source_version(REPO)


# The steps one at a time, where the full run does not reach.


def target(root: Path) -> install.Target:
    return install.Target(root=root, source=REPO, python="python3")


def test_an_operators_configuration_is_never_overwritten(tmp_path: Path) -> None:
    config = tmp_path / "etc/magboard/magboard.toml"
    config.parent.mkdir(parents=True)
    config.write_text('board = "mini"\n')
    step = install.ensure_config(target(tmp_path))
    assert step.change is install.Change.UNCHANGED
    assert config.read_text() == 'board = "mini"\n'


def test_enabled_by_hand_without_systemctl(tmp_path: Path) -> None:
    """The link `systemctl enable` makes, made by hand where there is no systemctl."""
    unit = tmp_path / "etc/systemd/system/magboard.service"
    unit.parent.mkdir(parents=True)
    shutil.copy(REPO / "hardware/magboard.service", unit)
    first = install.ensure_enabled(target(tmp_path), systemctl=None)
    again = install.ensure_enabled(target(tmp_path), systemctl=None)
    assert (first.change, again.change) == (install.Change.CREATED, install.Change.UNCHANGED)
    assert os.readlink(tmp_path / WANTS_LINK.lstrip("/")) == "/etc/systemd/system/magboard.service"


@needs_tools
def test_an_existing_user_is_added_to_the_groups_it_lacks(tmp_path: Path) -> None:
    root = seed(tmp_path / "root")
    with (root / "etc/passwd").open("a") as passwd:
        passwd.write("magboard:x:990:990::/var/lib/magboard:/usr/sbin/nologin\n")
    with (root / "etc/group").open("a") as group:
        group.write("magboard:x:990:\ngpio:x:991:magboard\ni2c:x:992:pi\nspi:x:993:\n")
    with (root / "etc/gshadow").open("a") as gshadow:
        gshadow.write("magboard:!::\ngpio:!::magboard\ni2c:!::pi\nspi:!::\n")
    steps = [install.ensure_user(target(root)) for _ in range(2)]
    assert [step.change for step in steps] == [install.Change.UPDATED, install.Change.UNCHANGED]
    assert str(steps[0]) == "updated user magboard, now in i2c, spi too"
    groups = entries(root, "group")
    assert groups["i2c"][3] == "pi,magboard"
    assert all("magboard" in groups[name][3].split(",") for name in ("gpio", "i2c", "spi"))


# What a person can get wrong: one line and exit status 2, before anything is changed.


def args(root: Path, **given: object) -> argparse.Namespace:
    return argparse.Namespace(
        **{"root": str(root), "source": None, "system_site_packages": False, "pip_args": ""} | given
    )


def test_not_root(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(install.os, "geteuid", lambda: 1000)
    assert install.run(args(tmp_path)) == 2
    assert capsys.readouterr().err == "install: must run as root: sudo hardware/install.sh\n"
    assert list(tmp_path.iterdir()) == []


def test_no_source(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(install.os, "geteuid", lambda: 0)
    (tmp_path / "root").mkdir()
    assert install.run(args(tmp_path / "root", source=str(tmp_path / "nowhere"))) == 2
    said = f"no magboard source at {tmp_path}/nowhere: give --source DIR, a checkout"
    assert capsys.readouterr().err == f"install: {said}\n"
    assert list((tmp_path / "root").iterdir()) == []


def test_no_python3_venv(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(install.os, "geteuid", lambda: 0)
    monkeypatch.setattr(install, "venv_available", lambda: False)
    assert install.run(args(tmp_path)) == 2
    err = capsys.readouterr().err
    assert err == "install: Python cannot make virtual environments: apt install python3-venv\n"
    assert list(tmp_path.iterdir()) == []


def test_magboard_install_is_the_same_installer(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(install.os, "geteuid", lambda: 0)
    assert magboard(["install", "--root", str(tmp_path), "--source", str(tmp_path / "no")]) == 2
    assert capsys.readouterr().err.startswith(f"install: no magboard source at {tmp_path}/no:")


def test_install_sh_passes_its_arguments_and_status_on(tmp_path: Path) -> None:
    assert os.access(INSTALL_SH, os.X_OK)
    result = subprocess.run(
        [str(INSTALL_SH), "--root", str(tmp_path), "--source", str(tmp_path / "no")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stdout == ""


def test_an_environment_installed_before_slots_is_moved_into_the_first(tmp_path: Path) -> None:
    """A board installed with /opt/magboard/.venv a directory keeps it, as venv-a behind the
    link the unit runs through."""
    venv = tmp_path / "opt/magboard/.venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin/magboard").write_text("#!/opt/magboard/.venv/bin/python\n")
    steps = [install.ensure_venv(target(tmp_path)) for _ in range(2)]
    assert [str(step) for step in steps] == [
        f"updated {venv} -> venv-a (the environment moved there)",
        f"unchanged {venv} -> venv-a",
    ]
    assert os.readlink(venv) == "venv-a"
    assert (tmp_path / "opt/magboard/venv-a/bin/magboard").read_text().startswith("#!/opt")
