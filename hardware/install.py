"""Installs magboard as a service on a Raspberry Pi: `sudo hardware/install.sh`.

It runs on a fresh Pi before anything else is installed, so it needs nothing but the standard
library of Python 3.11 (Raspberry Pi OS Bookworm's). Every step first looks at what is there and
changes only what is missing or differs, printing one line: "created …", "updated …" or
"unchanged …". Run again, it changes nothing. The steps:

- the system groups gpio, i2c and spi (Raspberry Pi OS has them; other systems may not);
- the system user magboard, home /var/lib/magboard, no login shell, in those groups;
- /opt/magboard/venv-a, a virtual environment, and /opt/magboard/.venv a link to it (the unit
  runs /opt/magboard/.venv/bin/magboard); a board installed before has its environment at .venv
  itself, moved into venv-a. `magboard update` (hardware/update.py) fills the other slot,
  venv-b, and switches the link, and back;
- magboard and its Pi extra in the environment the link points at, skipped when the version
  installed there is the source's: the source tells its version (git describe, or the version
  recorded in a copy: hardware/versioning.py), so every new commit installs;
- /etc/magboard/magboard.toml, written only when absent: once there it is the operator's;
- /var/lib/magboard, the journal's directory, owned by magboard, mode 0750;
- /etc/systemd/system/magboard.service from hardware/magboard.service, and enabled;
- magboard-update.service and magboard-update.path beside it, the path unit enabled: it starts
  `magboard update --request` when the service leaves an update asked for over MQTT;
- /opt/magboard/bin/magboard-unchecked from hardware/magboard-unchecked.sh, and
  magboard-unchecked.service, enabled, which runs it at boot before the service: an update cut
  short between its switch and its verdict (a power cut) goes back to the old version. A shell
  script, so that it needs neither environment's Python; under /opt, so that /usr stays unwritten.

`--root DIR` puts every path under DIR, for a test or an image being prepared: useradd and
systemctl have a --root of their own, and owners are the uids found in DIR/etc/passwd. DIR must
be a system's root file system, with its etc/passwd and etc/group (an empty DIR is refused before
any change). A virtual environment records its own absolute path, so one made under DIR runs
from there.

Nothing is written under /usr (the environment links to the system's python3 there), so a root
whose /usr is read-only takes the install; /etc, /opt and /var/lib must take writes, and a root
that is read-only in service is installed into before it is made so, or with it remounted
read-write (README, "A read-only root"). One of them read-only is said in one line before
anything changes, and so is raspi-config's overlay file system, whose writes would be gone at
the next boot.

`--pip-args` and `--system-site-packages` are for a Pi without the internet, or a test. With the
former pip can install from a directory of wheels: `--pip-args="--no-index --find-links DIR"`
(with the "=", as the value starts with a dash). With the latter the environment also sees the
packages of the Python that made it (Debian's python3-cffi, python3-lgpio), so that a build
without isolation (`--no-build-isolation`) can use them instead of downloading its own.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

try:
    from . import versioning
except ImportError:  # run as a script by install.sh, beside it
    import versioning  # type: ignore[no-redef]

USER = "magboard"
GROUPS = ("gpio", "i2c", "spi")
HOME = "/var/lib/magboard"
SHELL = "/usr/sbin/nologin"
VENV = "/opt/magboard/.venv"
"""The environment the unit runs: a link to one of `SLOTS`, switched by an update."""
SLOTS = ("/opt/magboard/venv-a", "/opt/magboard/venv-b")
"""The environments beside each other: the one running, and the spare an update fills."""
CONFIG = "/etc/magboard/magboard.toml"
UNIT_NAME = "magboard.service"
UNIT = f"/etc/systemd/system/{UNIT_NAME}"
UNIT_SOURCE = "hardware/magboard.service"
UPDATE_UNITS = ("magboard-update.service", "magboard-update.path")
"""The updates asked for from afar: the path unit, enabled, starts the service on a request."""
UNCHECKED_UNIT = "magboard-unchecked.service"
"""At boot, before the service: the environment an update cut short left unchecked, taken back."""
UNCHECKED_SCRIPT = "/opt/magboard/bin/magboard-unchecked"
"""What that unit runs: hardware/magboard-unchecked.sh, where a read-only /usr does not matter."""
HERE = Path(__file__).resolve().parent
BUILD_LITTER = (
    ".git",
    ".venv",
    ".venv-ha",
    "build",
    "*.egg-info",
    "*.so",
    "test-artifacts",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
)
"""What the source's copy leaves out: version control, environments, builds and caches."""

CONFIG_TEXT = (HERE / "magboard.toml").read_text(encoding="utf-8")
"""The configuration a new install starts from (hardware/magboard.toml): the operator's to edit,
never overwritten."""


class InstallError(Exception):
    """Something the person running the installer can put right; said in one line."""


class Change(Enum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class Step:
    """What one step found or did, as the line printed for it."""

    change: Change
    what: str

    def __str__(self) -> str:
        return f"{self.change.value} {self.what}"


@dataclass(frozen=True)
class Target:
    """Where to install from and to, and how pip may reach the packages."""

    root: Path
    source: Path
    python: str
    """The interpreter the virtual environment is made from."""
    system_site_packages: bool = False
    pip_args: tuple[str, ...] = ()

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def root_args(self) -> list[str]:
        """The option that points a system tool at the root, none for the running system."""
        return [] if self.live else ["--root", str(self.root)]

    @property
    def live(self) -> bool:
        return self.root == Path("/")


@dataclass(frozen=True)
class Account:
    uid: int
    gid: int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", default="/", metavar="DIR", help="install under DIR instead of / (default: /)"
    )
    parser.add_argument(
        "--source",
        metavar="DIR",
        help="the magboard checkout to install (default: the one this installer is in)",
    )
    parser.add_argument(
        "--system-site-packages",
        action="store_true",
        help="let the virtual environment see the packages of the Python that makes it",
    )
    parser.add_argument(
        "--pip-args",
        default="",
        metavar="ARGS",
        help='more arguments for `pip install`, as one string: --pip-args="--no-index '
        '--find-links DIR"',
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="install.sh", description="Install magboard as a systemd service (run as root)."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Installs as `args` say, printing a line per step; 2 with one line for what stopped it."""
    umask = os.umask(0o022)  # the service's user reads the environment and the files made here
    try:
        target = target_of(args)
        for step in install(target):
            out(str(step))
    except InstallError as error:
        print(f"install: {error}", file=sys.stderr)
        return 2
    finally:
        os.umask(umask)
    return 0


def target_of(args: argparse.Namespace) -> Target:
    """The target, once everything that would stop the install halfway has been checked."""
    if sys.version_info < (3, 11):  # noqa: UP036 (run by whatever python3 the Pi has)
        raise InstallError("needs Python 3.11 or later (Raspberry Pi OS Bookworm has it)")
    if os.geteuid() != 0:
        raise InstallError("must run as root: sudo hardware/install.sh")
    root = Path(args.root).resolve()
    if not root.is_dir():
        raise InstallError(f"no directory {root} to install into")
    source = Path(args.source).resolve() if args.source else HERE.parent
    if not (source / "pyproject.toml").is_file() or not (source / UNIT_SOURCE).is_file():
        raise InstallError(f"no magboard source at {source}: give --source DIR, a checkout")
    try:
        pip_args = tuple(shlex.split(args.pip_args))
    except ValueError as error:
        raise InstallError(f"--pip-args: {error}") from error
    target = Target(
        root=root,
        source=source,
        python=sys.executable,
        system_site_packages=args.system_site_packages,
        pip_args=pip_args,
    )
    source_version(source)  # a source whose version cannot be read stops it here, not halfway
    check_writable(target)
    if not (target.path(VENV) / "bin" / "python").exists() and not venv_available():
        raise InstallError("Python cannot make virtual environments: apt install python3-venv")
    check_accounts(target)
    missing = [tool for tool in ("groupadd", "useradd", "usermod") if shutil.which(tool) is None]
    if missing:
        raise InstallError(f"{', '.join(missing)} not found: install the passwd package")
    return target


WRITTEN = ("/etc", VENV, HOME)
"""Where the install writes (the systemd unit and the accounts are under /etc): never /usr."""
OVERLAY_ROOT = "overlayroot="
"""On the kernel command line, raspi-config's overlay file system (the overlayroot package)."""


def check_writable(target: Target, cmdline: Path = Path("/proc/cmdline")) -> None:
    """Stops before the first change where a write could not land or would not last."""
    for absolute in WRITTEN:
        path = target.path(absolute)
        while not path.exists():
            path = path.parent
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            raise InstallError(
                f"{path} is on a read-only file system: install before the root is made "
                'read-only, or remount it read-write first (README, "A read-only root")'
            )
    if target.live and overlay_in_ram(cmdline.read_text() if cmdline.exists() else ""):
        raise InstallError(
            "the root is an overlay in RAM (raspi-config's overlay file system): the install "
            "would be gone at the next boot; turn the overlay off, reboot, install, turn it on"
        )


ACCOUNT_FILES = ("passwd", "group")
"""What groupadd and useradd --root add to and cannot make: without them they fail halfway
("cannot lock /etc/group"), after the first changes."""


def check_accounts(target: Target) -> None:
    """Stops before any change when --root names a directory that is no system's root (an empty
    one, say): the accounts are added to its own files, which must be there."""
    missing = [f"etc/{name}" for name in ACCOUNT_FILES if not target.path(f"/etc/{name}").is_file()]
    if missing and not target.live:
        raise InstallError(
            f"{target.root} is not a system's root: it has no {' and '.join(missing)}, where "
            "groupadd and useradd add the service's accounts (--root takes an image's root)"
        )


def overlay_in_ram(cmdline: str) -> bool:
    """Whether the kernel was booted with the overlay over the root (overlayroot=tmpfs...)."""
    values = [arg[len(OVERLAY_ROOT) :] for arg in cmdline.split() if arg.startswith(OVERLAY_ROOT)]
    return bool(values) and values[-1] not in ("", "disabled")


def venv_available() -> bool:
    """Debian splits ensurepip into python3-venv; without it `python3 -m venv` fails halfway."""
    return all(importlib.util.find_spec(name) is not None for name in ("venv", "ensurepip"))


def install(target: Target) -> Iterator[Step]:
    for group in GROUPS:
        yield ensure_group(target, group)
    yield ensure_user(target)
    account = account_of(target)
    yield ensure_venv(target)
    yield ensure_package(target)
    yield ensure_config(target)
    yield ensure_state_dir(target, account)
    yield ensure_unit(target)
    for name in UPDATE_UNITS:
        yield ensure_unit(target, name)
    yield ensure_unchecked_script(target)
    yield ensure_unit(target, UNCHECKED_UNIT)
    yield ensure_enabled(target, shutil.which("systemctl"))
    yield ensure_enabled(target, shutil.which("systemctl"), UPDATE_UNITS[1], now=True)
    yield ensure_enabled(target, shutil.which("systemctl"), UNCHECKED_UNIT)


# Users and groups: looked up in the root's own files, so that --root sees its own.


def entries(target: Target, name: str) -> dict[str, list[str]]:
    """The colon-separated entries of an etc file under the root, by their first field."""
    path = target.path(f"/etc/{name}")
    if not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8").splitlines()
    return {fields[0]: fields for fields in (line.split(":") for line in lines) if len(fields) > 3}


def members(target: Target, group: str) -> set[str]:
    fields = entries(target, "group").get(group)
    return {name for name in fields[3].split(",") if name} if fields else set()


def ensure_group(target: Target, group: str) -> Step:
    if group in entries(target, "group"):
        return Step(Change.UNCHANGED, f"group {group}")
    command(["groupadd", *target.root_args(), "--system", group], f"groupadd {group}")
    return Step(Change.CREATED, f"group {group}")


def ensure_user(target: Target) -> Step:
    if USER not in entries(target, "passwd"):
        primary = ["--gid", USER] if USER in entries(target, "group") else ["--user-group"]
        command(
            [
                "useradd",
                *target.root_args(),
                "--system",
                *primary,
                "--groups",
                ",".join(GROUPS),
                "--home-dir",
                HOME,
                "--no-create-home",
                "--shell",
                SHELL,
                USER,
            ],
            f"useradd {USER}",
        )
        return Step(Change.CREATED, f"user {USER} in {', '.join(GROUPS)}")
    missing = [group for group in GROUPS if USER not in members(target, group)]
    if not missing:
        return Step(Change.UNCHANGED, f"user {USER} in {', '.join(GROUPS)}")
    command(
        ["usermod", *target.root_args(), "--append", "--groups", ",".join(missing), USER],
        f"usermod {USER}",
    )
    return Step(Change.UPDATED, f"user {USER}, now in {', '.join(missing)} too")


def account_of(target: Target) -> Account:
    fields = entries(target, "passwd").get(USER)
    if fields is None:
        raise InstallError(f"user {USER} is not in {target.path('/etc/passwd')}")
    return Account(uid=int(fields[2]), gid=int(fields[3]))


# The virtual environment and the project in it.


def ensure_venv(target: Target) -> Step:
    """`VENV` a link to a slot. A board installed before there were slots has its environment
    at `VENV` itself: it is moved into the first slot, which its scripts still find through the
    link (they name `VENV`'s python)."""
    link = target.path(VENV)
    first = target.path(SLOTS[0])
    what = f"{link} -> {first.name}"
    if link.is_symlink():
        return Step(Change.UNCHANGED, f"{link} -> {os.readlink(link)}")
    if link.is_dir():
        if first.exists():
            raise InstallError(f"{link} and {first} are both there: move one away")
        link.rename(first)
        switch(link, first.name)
        return Step(Change.UPDATED, f"{what} (the environment moved there)")
    make_venv(target, first, target.system_site_packages)
    switch(link, first.name)
    return Step(Change.CREATED, what)


def make_venv(target: Target, venv: Path, system_site_packages: bool) -> None:
    venv.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    site = ["--system-site-packages"] if system_site_packages else []
    command([target.python, "-m", "venv", *site, str(venv)], f"python3 -m venv {venv}")


def switch(link: Path, slot: str) -> None:
    """Points `link` at `slot` in one step: a new link beside it renamed over it, so that the
    unit finds the old environment or the new one, never none."""
    fresh = link.with_name(f".{link.name}.{os.getpid()}")
    if fresh.is_symlink() or fresh.exists():
        fresh.unlink()
    fresh.symlink_to(slot)
    os.replace(fresh, link)


def ensure_package(target: Target) -> Step:
    venv = target.path(VENV).resolve()  # the slot: its scripts name its own python
    wanted = source_version(target.source)
    installed = installed_version(venv)
    what = f"magboard {wanted} in {venv}"
    if installed == wanted:
        return Step(Change.UNCHANGED, what)
    pip_install(target, venv, target.source, wanted)
    if installed is None:
        return Step(Change.CREATED, what)
    return Step(Change.UPDATED, f"{what} (was {installed})")


def pip_install(target: Target, venv: Path, source: Path, version: str | None) -> None:
    """Installs `source` (a tree, or a wheel file) with the Pi extra into `venv`. A tree is
    built from a copy, with `version` recorded in it (the copy has no git): pip builds a local
    directory in place, which would leave root-owned build/ and egg-info in the operator's
    checkout."""
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    quiet = ["--disable-pip-version-check", "--root-user-action=ignore", "--no-input"]
    if source.is_file():
        command([*pip, *quiet, *target.pip_args, f"{source}[pi]"], "pip install", show=True)
        return
    with tempfile.TemporaryDirectory(prefix="magboard-install-") as scratch:
        copy = Path(scratch) / "magboard"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(*BUILD_LITTER))
        if version is not None:
            versioning.record(copy, version)
        command([*pip, *quiet, *target.pip_args, f"{copy}[pi]"], "pip install", show=True)


def source_version(source: Path) -> str:
    """The version the source tree tells (hardware/versioning.py: git, or a recorded one)."""
    try:
        return versioning.source_version(source)
    except versioning.VersionError as error:
        raise InstallError(str(error)) from error


def installed_version(venv: Path) -> str | None:
    """The version of magboard in the environment itself, from its metadata (no process run,
    and a copy the system's Python might see does not count)."""
    for metadata in sorted(venv.glob("lib/python3*/site-packages/magboard-*.dist-info/METADATA")):
        for line in metadata.read_text(encoding="utf-8").splitlines():
            if line.startswith("Version:"):
                return line.partition(":")[2].strip()
            if not line:
                break
    return None


# Files and directories.


def ensure_config(target: Target) -> Step:
    config = target.path(CONFIG)
    if config.exists():
        return Step(Change.UNCHANGED, f"{config} (the operator's, kept as it is)")
    config.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    write_file(config, CONFIG_TEXT.encode(), 0o644)
    return Step(Change.CREATED, str(config))


def ensure_state_dir(target: Target, account: Account) -> Step:
    state = target.path(HOME)
    if not state.exists():
        state.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        state.mkdir(mode=0o750)
        change = Change.CREATED
    else:
        found = state.stat()
        right = (found.st_uid, found.st_gid, stat.S_IMODE(found.st_mode)) == (
            account.uid,
            account.gid,
            0o750,
        )
        if right:
            return Step(Change.UNCHANGED, f"{state} (owner {USER}, mode 0750)")
        change = Change.UPDATED
    os.chown(state, account.uid, account.gid)
    state.chmod(0o750)
    return Step(change, f"{state} (owner {USER}, mode 0750)")


def ensure_unit(target: Target, name: str = UNIT_NAME) -> Step:
    unit = target.path(f"/etc/systemd/system/{name}")
    change = copy_file((target.source / "hardware" / name).read_bytes(), unit, 0o644)
    if change is Change.UNCHANGED:
        return Step(change, str(unit))
    if target.live and Path("/run/systemd/system").is_dir():
        command(["systemctl", "daemon-reload"], "systemctl daemon-reload")
    return Step(change, str(unit))


def ensure_unchecked_script(target: Target) -> Step:
    script = target.path(UNCHECKED_SCRIPT)
    text = (target.source / "hardware" / "magboard-unchecked.sh").read_bytes()
    return Step(copy_file(text, script, 0o755), str(script))


def copy_file(content: bytes, path: Path, mode: int) -> Change:
    """`path` with `content` and `mode`, written only where it differs."""
    if path.exists() and path.read_bytes() == content and stat.S_IMODE(path.stat().st_mode) == mode:
        return Change.UNCHANGED
    change = Change.UPDATED if path.exists() else Change.CREATED
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    write_file(path, content, mode)
    return change


def ensure_enabled(
    target: Target, systemctl: str | None, name: str = UNIT_NAME, now: bool = False
) -> Step:
    """Enabled as `systemctl enable` does it, by a link in each target's .wants directory; by
    hand where there is no systemctl (an image prepared on another system). `now`: started as
    well on this very system, for a unit that must work before the next boot (the update
    request's watch: an update asked for from afar right after the install)."""
    unit = f"/etc/systemd/system/{name}"
    links = [
        target.path(f"/etc/systemd/system/{wanted_by}.wants/{name}")
        for wanted_by in wanted_by_targets(target.path(unit).read_text(encoding="utf-8"))
    ]
    what = ", ".join(str(link) for link in links)
    if all(link.is_symlink() and os.readlink(link) == unit for link in links):
        return Step(Change.UNCHANGED, what)
    if systemctl is not None:
        at_once = ["--now"] if now and target.live else []
        command(
            [systemctl, *target.root_args(), "enable", *at_once, name], f"systemctl enable {name}"
        )
    else:
        for link in links:
            link.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(unit)
    return Step(Change.CREATED, what)


def wanted_by_targets(unit_text: str) -> list[str]:
    """The units the [Install] section's WantedBy= names."""
    section = ""
    wanted: list[str] = []
    for raw in unit_text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif section == "[Install]" and line.startswith("WantedBy="):
            wanted += line.partition("=")[2].split()
    return wanted


def write_file(path: Path, content: bytes, mode: int) -> None:
    """Writes whole or not at all: a power cut mid-write leaves the old file or none."""
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as f:
        f.write(content)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(f.name, mode)
    os.replace(f.name, path)


def command(argv: list[str], what: str, show: bool = False) -> None:
    """Runs a tool quietly. If it fails: its last line in ours, or with `show` (pip, whose
    reasons take more than a line) all it said, then ours."""
    try:
        result = subprocess.run(argv, capture_output=True, text=True)
    except OSError as error:
        raise InstallError(f"{what} failed: {error}") from error
    if result.returncode == 0:
        return
    said = result.stderr.strip() or result.stdout.strip()
    if show and said:
        print(said, file=sys.stderr)
    reason = said.splitlines()[-1] if said and not show else f"exit status {result.returncode}"
    raise InstallError(f"{what} failed: {reason}")


if __name__ == "__main__":
    sys.exit(main())
