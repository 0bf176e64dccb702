"""`hardware/install.sh` into a seeded root, twice: every artefact, then nothing changed at all.

The installer runs as `sudo hardware/install.sh` would: with sudo's PATH, so `python3` is the
system's. Pip stays offline: the environment sees that Python's own setuptools, wheel and cffi
(--system-site-packages) and pip is told to build with them and fetch nothing (--no-index
--no-build-isolation --no-deps). `magboard games` needs only the standard library and cffi.

A read-only root: the install again into a root whose /usr is a read-only bind mount, made in a
private mount namespace (`unshare --mount`), and the board run with every file system read-only
but its state and runtime directories, as the unit leaves it on such a root.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from target_root import INSTALL_SH, OFFLINE, REPO, SUDO_PATH, needs_install, needs_tools, seed

from magboard.hardware import install
from magboard.host.cli import main as magboard

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]

WANTS_LINK = "/etc/systemd/system/multi-user.target.wants/magboard.service"
UPDATE_WANTS_LINK = "/etc/systemd/system/paths.target.wants/magboard-update.path"
UNCHECKED_WANTS_LINK = "/etc/systemd/system/multi-user.target.wants/magboard-unchecked.service"
UNITS = (
    "magboard.service",
    "magboard-update.service",
    "magboard-update.path",
    "magboard-unchecked.service",
)


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


def runner(home: Path):
    """Runs a command as sudo would, in a clean environment: no PYTHON* or PIP_* variables, no
    pip configuration of this machine."""
    env = {"PATH": SUDO_PATH, "HOME": str(home), "PIP_CONFIG_FILE": os.devnull, "LANG": "C.UTF-8"}

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)

    return run


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = seed(tmp_path_factory.mktemp("root"))
    run = runner(tmp_path_factory.mktemp("home"))

    first = run(str(INSTALL_SH), "--root", str(root), *OFFLINE)
    games = run(str(root / "opt/magboard/.venv/bin/magboard"), "games")
    verify = run("systemd-analyze", "verify", f"--root={root}", *UNITS)
    before = snapshot(root)
    second = run(str(INSTALL_SH), "--root", str(root), *OFFLINE)
    return Installed(root, first, second, before, snapshot(root), games, verify)


def first_run(root: Path) -> list[str]:
    """What the first run into a seeded root prints."""
    return [
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
        f"created {root}/opt/magboard/bin/magboard-unchecked",
        f"created {root}/etc/systemd/system/magboard-unchecked.service",
        f"created {root}{WANTS_LINK}",
        f"created {root}{UPDATE_WANTS_LINK}",
        f"created {root}{UNCHECKED_WANTS_LINK}",
    ]


@needs_install
def test_the_first_run_creates_every_step(installed: Installed) -> None:
    assert (installed.first.returncode, installed.first.stderr) == (0, "")
    assert installed.first.stdout.splitlines() == first_run(installed.root)


@needs_install
def test_the_second_run_changes_nothing(installed: Installed) -> None:
    assert (installed.second.returncode, installed.second.stderr) == (0, "")
    lines = installed.second.stdout.splitlines()
    assert len(lines) == 16
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
        "takeback": True,
        "journal": "/var/lib/magboard/magboard.db",
        "options": {},
        "unattended": {"attract_after": 120, "reset_after": 300},
    }
    assert "# seconds untouched before the lights invite play; 0 = never" in text
    assert '# game = "..."' in text, "the game left unset, with where to find the names"
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
    unchecked_link = installed.root / UNCHECKED_WANTS_LINK.lstrip("/")
    assert os.readlink(unchecked_link) == "/etc/systemd/system/magboard-unchecked.service"
    script = installed.root / "opt/magboard/bin/magboard-unchecked"
    assert script.read_bytes() == (REPO / "hardware/magboard-unchecked.sh").read_bytes()
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
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
        "ProtectSystem": "strict",
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


def test_an_update_cut_short_is_taken_back_before_the_service_starts() -> None:
    """At boot, only when `magboard update` left its marker, and by a script that needs no
    Python, installed where a read-only /usr does not matter."""
    text = (REPO / "hardware/magboard-unchecked.service").read_text()
    assert unit_settings(text, "Unit") == {
        "Description": "magboard update cut short, rolled back",
        "ConditionPathExists": "/var/lib/magboard/update/unchecked",
        "RequiresMountsFor": "/var/lib/magboard /opt/magboard",
        "Before": "magboard.service",
    }
    assert unit_settings(text, "Service") == {
        "Type": "oneshot",
        "ExecStart": "/opt/magboard/bin/magboard-unchecked",
    }
    assert unit_settings(text, "Install") == {"WantedBy": "multi-user.target"}
    script = (REPO / "hardware/magboard-unchecked.sh").read_text()
    assert script.startswith("#!/bin/sh\n")
    assert "bin/python" not in script and "bin/magboard" not in script, "nothing of either"


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


def test_an_empty_root_is_one_line_saying_what_it_needs(tmp_path: Path, monkeypatch, capsys):
    """An empty DIR is no system's root: groupadd would fail on it halfway ("cannot lock")."""
    monkeypatch.setattr(install.os, "geteuid", lambda: 0)
    monkeypatch.setattr(install, "venv_available", lambda: True)
    assert install.run(args(tmp_path)) == 2
    assert capsys.readouterr().err == (
        f"install: {tmp_path} is not a system's root: it has no etc/passwd and etc/group, where "
        "groupadd and useradd add the service's accounts (--root takes an image's root)\n"
    )
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    assert install.run(args(tmp_path)) == 2
    assert "it has no etc/group, where" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "etc").iterdir()) == ["passwd"]


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


# A read-only root.

KEEP_WRITABLE = """
while [ "$1" != -- ]; do
    mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 97
    shift
done
shift
exec "$@"
"""
"""Each path up to `--` made a read-only bind mount of itself, then the command after it run."""
ALL_READ_ONLY = """
for keep in $WRITABLE; do mount --bind "$keep" "$keep" || exit 97; done
findmnt -rn -o TARGET | while read -r target; do
    case "$target" in
        /proc | /proc/* | /sys | /sys/* | /dev | /dev/*) ;;
        *) case " $WRITABLE " in
            *" $target "*) ;;
            *) mount -o remount,bind,ro "$target" 2>/dev/null ;;
        esac ;;
    esac
done
exec "$@"
"""
"""Every file system read-only but /proc, /sys, /dev and the directories in $WRITABLE (each made
a mount of its own first), then the command run: what the unit's ProtectSystem=strict leaves."""


def read_only(paths: list[Path], argv: list[str]) -> list[str]:
    """`argv` run in a mount namespace of its own where each of `paths` is read-only."""
    return [
        *("unshare", "--mount", "--propagation", "private", "--"),
        *("sh", "-c", KEEP_WRITABLE, "sh", *map(str, paths), "--", *argv),
    ]


def namespaces_refused() -> str | None:
    """Why a private mount namespace with a read-only bind mount cannot be made here, or None."""
    if os.geteuid() != 0:
        return "read-only bind mounts in a mount namespace need root: run the tests as root"
    if shutil.which("unshare") is None or shutil.which("findmnt") is None:
        return "unshare and findmnt (util-linux) are missing"
    try:
        probe = subprocess.run(
            read_only([Path("/")], ["true"]), capture_output=True, text=True, timeout=30
        )
    except OSError as error:
        return f"unshare cannot run: {error}"
    if probe.returncode != 0:
        said = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
        return f"mount namespaces are not allowed here (unshare --mount, mount --bind): {said}"
    return None


NAMESPACES_REFUSED = namespaces_refused()
needs_namespaces = pytest.mark.skipif(
    NAMESPACES_REFUSED is not None, reason=str(NAMESPACES_REFUSED)
)


@dataclass(frozen=True)
class UsrReadOnly:
    root: Path
    probe: subprocess.CompletedProcess
    """A file created under the root's /usr, as the installer would: refused."""
    first: subprocess.CompletedProcess
    second: subprocess.CompletedProcess
    usr_before: dict[str, tuple]
    usr_after: dict[str, tuple]
    """The root's /usr before the first run and after the second."""
    between: dict[str, tuple]
    after: dict[str, tuple]
    """The whole root after the first run and after the second."""


@pytest.fixture(scope="module")
def usr_read_only(tmp_path_factory: pytest.TempPathFactory) -> UsrReadOnly:
    root = seed(tmp_path_factory.mktemp("root-usr-ro"))
    usr = root / "usr"
    usr.mkdir(exist_ok=True)
    run = runner(tmp_path_factory.mktemp("home"))
    install_sh = read_only([usr], [str(INSTALL_SH), "--root", str(root), *OFFLINE])
    usr_before = snapshot(usr)
    probe = run(*read_only([usr], ["touch", str(usr / "probe")]))
    first = run(*install_sh)
    between = snapshot(root)
    second = run(*install_sh)
    return UsrReadOnly(
        root, probe, first, second, usr_before, snapshot(usr), between, snapshot(root)
    )


@needs_install
@needs_namespaces
def test_a_root_whose_usr_is_read_only_takes_the_install(usr_read_only: UsrReadOnly) -> None:
    first, second = usr_read_only.first, usr_read_only.second
    assert (first.returncode, first.stderr) == (0, "")
    assert first.stdout.splitlines() == first_run(usr_read_only.root)
    unit = usr_read_only.root / "etc/systemd/system/magboard.service"
    assert unit.read_bytes() == (REPO / "hardware/magboard.service").read_bytes()
    assert (second.returncode, second.stderr) == (0, "")
    assert all(line.startswith("unchanged ") for line in second.stdout.splitlines())
    assert usr_read_only.between == usr_read_only.after


@needs_install
@needs_namespaces
def test_nothing_is_written_under_usr(usr_read_only: UsrReadOnly) -> None:
    # The bind mount did refuse writes: the runs above had to do without.
    assert usr_read_only.probe.returncode != 0
    assert "Read-only file system" in usr_read_only.probe.stderr
    assert usr_read_only.usr_before == usr_read_only.usr_after


@needs_tools
@needs_namespaces
def test_a_read_only_etc_is_one_line_before_any_change(tmp_path: Path) -> None:
    """A root that is read-only in service, not remounted read-write for the install."""
    root = seed(tmp_path / "root")
    before = snapshot(root)
    run = runner(tmp_path / "home")
    result = run(*read_only([root / "etc"], [str(INSTALL_SH), "--root", str(root), *OFFLINE]))
    assert result.returncode == 2
    assert result.stderr == (
        f"install: {root}/etc is on a read-only file system: install before the root is made "
        'read-only, or remount it read-write first (README, "A read-only root")\n'
    )
    assert snapshot(root) == before


def test_an_overlay_in_ram_is_refused_on_the_live_root(tmp_path: Path) -> None:
    """With raspi-config's overlay file system on, an install would last until the next boot."""
    cmdline = tmp_path / "cmdline"
    live = install.Target(root=Path("/"), source=REPO, python="python3")
    for text in ("console=serial0,115200 root=PARTUUID=1-02 rootwait", "overlayroot=disabled"):
        cmdline.write_text(text)
        install.check_writable(live, cmdline)
    for text in (
        "overlayroot=tmpfs console=tty1 root=PARTUUID=1-02",
        "overlayroot=tmpfs:recurse=0",
    ):
        cmdline.write_text(text)
        with pytest.raises(install.InstallError, match="overlay in RAM"):
            install.check_writable(live, cmdline)
    # An image prepared under --root is not the running system's root.
    install.check_writable(target(tmp_path), cmdline)


def test_the_unit_is_ready_for_a_read_only_root() -> None:
    """On a root mounted read-only only the state partition, /run and a private /tmp take
    writes: the unit waits for the state partition, and keeps every other write out even where
    the root is writable, so a write a read-only root would refuse shows up anywhere."""
    text = (REPO / "hardware/magboard.service").read_text()
    unit, service = unit_settings(text, "Unit"), unit_settings(text, "Service")
    state = f"/var/lib/{service['StateDirectory']}"
    runtime = f"/run/{service['RuntimeDirectory']}"
    assert state in unit["RequiresMountsFor"].split()
    assert (service["ProtectSystem"], service["PrivateTmp"]) == ("strict", "yes")
    opened = {"ReadWritePaths", "BindPaths", "CacheDirectory", "LogsDirectory"} & service.keys()
    assert opened == set(), "nothing writable but the state and runtime directories"
    assert service["WorkingDirectory"] == runtime
    environment = dict(item.split("=", 1) for item in service["Environment"].split())
    assert environment["MAGBOARD_STATE"] == state == install.HOME
    assert Path(tomllib.loads(install.CONFIG_TEXT)["journal"]).parent == Path(state)


def run_read_only(tmp_path: Path, writable: list[Path], script: str) -> list[dict]:
    """`magboard run --sim` with every file system read-only but `writable`, its journal in
    tmp_path/state, its working directory tmp_path/run and TMPDIR tmp_path/tmp (the private
    /tmp); the events it printed."""
    state, runtime, private = (tmp_path / name for name in ("state", "run", "tmp"))
    for directory in (state, runtime, private):
        directory.mkdir(exist_ok=True)
    argv = [
        *(sys.executable, "-m", "magboard.host.cli", "run", "--sim", "--board", "mini"),
        *("--journal", str(state / "magboard.db")),
    ]
    env = {**os.environ, "WRITABLE": " ".join(map(str, writable)), "TMPDIR": str(private)}
    done = subprocess.run(
        [
            *("unshare", "--mount", "--propagation", "private", "--"),
            *("sh", "-c", ALL_READ_ONLY, "sh", "sh", "-c", f'touch "{tmp_path}/probe"; exec "$@"'),
            *("sh", *argv),
        ],
        input=script,
        env=env,
        cwd=runtime,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "probe").exists(), "the file system under the test was writable"
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


@needs_namespaces
def test_the_board_runs_with_only_its_state_and_runtime_writable(tmp_path: Path) -> None:
    state, runtime, private = (tmp_path / name for name in ("state", "run", "tmp"))
    events = run_read_only(tmp_path, [state, runtime, private], "play b2\nquit\n")
    assert [e["actions"] for e in events if e["type"] == "move"] == [["b2"]]
    assert [e for e in events if e["type"] == "fault"] == []
    uri = f"{(state / 'magboard.db').as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
        kept = [json.loads(event) for (event,) in db.execute("SELECT event FROM records")]
    assert [e["actions"] for e in kept if e["type"] == "move"] == [["b2"]]


@needs_namespaces
def test_a_state_directory_that_is_read_only_too_is_a_journal_fault(tmp_path: Path) -> None:
    """The same run with the state directory read-only as well: the journal says so and play
    goes on, which shows the run above had nothing else to write to."""
    runtime, private = tmp_path / "run", tmp_path / "tmp"
    events = run_read_only(tmp_path, [runtime, private], "play b2\nquit\n")
    assert [e["actions"] for e in events if e["type"] == "move"] == [["b2"]]
    assert any(e["type"] == "fault" and e.get("kind") == "journal" for e in events), events


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


@needs_install
def test_a_new_commit_is_installed_over_the_old(tmp_path: Path) -> None:
    """The issue this version scheme closes: a changed source, run again, is installed (not
    "unchanged magboard 0.1.0"), in place in the environment the unit runs."""
    root = seed(tmp_path / "root")
    env = {"PATH": SUDO_PATH, "HOME": str(tmp_path), "PIP_CONFIG_FILE": os.devnull}
    newer = tmp_path / "newer"
    shutil.copytree(REPO, newer, ignore=shutil.ignore_patterns(*install.BUILD_LITTER))
    (newer / "magboard.version").write_text("0.1.0.post999+g0123456\n")

    def run(source: Path) -> list[str]:
        argv = [str(INSTALL_SH), "--root", str(root), "--source", str(source), *OFFLINE]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return [line for line in done.stdout.splitlines() if " magboard 0." in line]

    assert run(REPO) == [f"created magboard {project_version()} in {root}/opt/magboard/venv-a"]
    assert run(newer) == [
        f"updated magboard 0.1.0.post999+g0123456 in {root}/opt/magboard/venv-a "
        f"(was {project_version()})"
    ]
    said = subprocess.run(
        [str(root / "opt/magboard/.venv/bin/magboard"), "--version"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert said.stdout == "magboard 0.1.0.post999+g0123456\n"
