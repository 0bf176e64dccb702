"""`sudo magboard update SOURCE`: a new version on a board, kept only if the board comes up
healthy on it, and otherwise the old one back by itself.

A board runs /opt/magboard/.venv, a link to one of two environments (hardware/install.py's
slots). The update fills the other one, the spare, with SOURCE: a wheel file, a source tree
(a checkout, or a copy with the version recorded in it), or a git ref of the repository `--repo`
names. Then:

1. the service is stopped; as it stops it writes which game it leaves in the journal
   (hardware/service_health.py);
2. the link is switched to the spare (one rename: the unit finds one environment or the other)
   and the service started;
3. the new version is kept if, before the deadline, it reports itself ready: its own version,
   its start-up check finding nothing the old version's did not, and the game the old one left
   resumed, move for move;
4. otherwise it is stopped, the link switched back and the old version started again, and the
   update exits with status 1 saying why.

From just before the switch until the verdict (kept or rolled back) a marker in the state
directory, update/unchecked, names the environment to go back to. If the power goes (or the
update is killed) in between, the board would come up on a version nobody checked: at the next
boot magboard-unchecked.service, before the service, runs hardware/magboard-unchecked.sh, which
switches the link back and records the attempt as rolled back. It is plain sh, as the new
version may be too broken to run its own Python. An update that finds the marker (cut short,
then tried again before a reboot) runs the same script first, the service stopped around it.

Each attempt (when, from, to, the result and why) is a JSON line in
/var/lib/magboard/updates.jsonl, for the operator and the fleet. A board takes an update from
afar by leaving a request in /var/lib/magboard/update/ (firmware/app/update_request.py): the
unit magboard-update.path starts magboard-update.service, which runs `magboard update
--request` as root on it, the service itself having no right to write /opt nor restart itself.

The service manager and the clock are given, so that a test starts the service itself (with
NOTIFY_SOCKET its own) and never waits on a real deadline.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from . import install, service_health
from .install import SLOTS, VENV, InstallError, Target
from .interface import Clock
from .service_health import ServiceHealth, ServiceState

STATE = install.HOME
ATTEMPTS = "updates.jsonl"
"""In the state directory: a JSON line an attempt."""
REQUESTS = "update"
"""The directory in the state directory where the service leaves a request from afar."""
REQUEST = "request.json"
UNCHECKED = "unchecked"
"""In that directory, from just before the switch until the verdict: the slot to go back to."""
UNCHECKED_SCRIPT = Path(__file__).resolve().parent / "magboard-unchecked.sh"
"""What takes an update cut short back, here as at boot (installed as install.UNCHECKED_SCRIPT)."""
CUT_SHORT = "the power went before the new version was checked"
"""Why the script records such an attempt as rolled back."""
LOCK = "update.lock"
DEFAULT_TIMEOUT = 120.0
"""Seconds the new version has to report itself ready (a Pi 3 starts it in about 15)."""
POLL = 0.5


class UpdateError(ValueError):
    """An update that cannot even be tried (nothing was switched); said in one line."""


class Result(Enum):
    KEPT = "kept"
    ROLLED_BACK = "rolled back"
    UNCHANGED = "unchanged"
    """The source is the version already running: nothing switched."""


@dataclass(frozen=True)
class Attempt:
    wall: float
    source: str | None
    """None in an attempt the script took back: the marker does not name the source."""
    old: str | None
    new: str | None
    result: Result
    why: str

    def to_json(self) -> str:
        data = asdict(self) | {"result": self.result.value, "from": self.old, "to": self.new}
        del data["old"], data["new"]
        return json.dumps(data, separators=(",", ":"))

    def __str__(self) -> str:
        return f"update {self.old} -> {self.new}: {self.result.value} ({self.why})"


class ServiceManager(Protocol):
    """What systemd does for the update; a test stands in for it."""

    def stop(self) -> None: ...

    def start(self, timeout: float) -> None:
        """Starts the service and returns once it said READY=1, failed, or `timeout` passed
        (which of them is for its report to say)."""


class Systemd:
    """The unit on this machine, through systemctl (`start` waits for READY=1: Type=notify)."""

    def __init__(self, unit: str = install.UNIT_NAME) -> None:
        self.unit = unit

    def stop(self) -> None:
        subprocess.run(["systemctl", "stop", self.unit], capture_output=True)

    def start(self, timeout: float) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):  # its report then says "not ready"
            subprocess.run(["systemctl", "start", self.unit], capture_output=True, timeout=timeout)


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


@dataclass(frozen=True)
class Updater:
    target: Target
    """The root, the interpreter environments are made with, and pip's arguments (its
    `source` is unused: each update names its own)."""
    manager: ServiceManager
    clock: Clock
    timeout: float = DEFAULT_TIMEOUT
    wall: Callable[[], float] = time.time
    out: Callable[[str], None] = print

    @property
    def state_dir(self) -> Path:
        return self.target.path(STATE)

    def update(self, source: Path, described: str | None = None) -> Attempt:
        """Installs `source` (a wheel file or a tree) into the spare environment and switches
        to it, keeping it only if the service comes up healthy on it."""
        link = self.target.path(VENV)
        if not link.is_symlink():
            raise UpdateError(f"{link} is not a link to an environment: run `magboard install`")
        self.take_back_unchecked()
        current = link.resolve()
        slots = [self.target.path(slot) for slot in SLOTS]
        spare = next(slot for slot in slots if slot != current)
        old = install.installed_version(current)
        new = self._prepare(spare, source, current)
        what = described or str(source)
        if new == old:
            shutil.rmtree(spare)
            return self._record(what, old, new, Result.UNCHANGED, "the version already running")
        self.out(f"switching {link} to {spare.name}: magboard {old} -> {new}")
        self.manager.stop()
        before = service_health.read(self.state_dir)
        if before is not None and before.state is not ServiceState.STOPPED:
            before = None  # not a clean stop: which game it left is not known
        self._mark_unchecked(current.name)
        why = self._switch_and_check(link, spare.name, new, before)
        if why is None:
            self._checked()
            return self._record(what, old, new, Result.KEPT, self._kept(before))
        self.out(f"switching {link} back to {current.name}: {why}")
        self.manager.stop()
        back = self._switch_and_check(link, current.name, old, before)
        self._checked()
        if back is not None:
            why += f"; and the old version, back, is not healthy either: {back}"
        return self._record(what, old, new, Result.ROLLED_BACK, why)

    def take_back_unchecked(self) -> None:
        """An update cut short before its verdict (its marker still there) taken back as the
        next boot would: the service stopped, the script run, the service started again."""
        if not (self.state_dir / REQUESTS / UNCHECKED).exists():
            return
        self.out("an update was cut short before its verdict: taking it back first")
        self.manager.stop()
        root = "" if self.target.live else str(self.target.root)
        done = subprocess.run(["sh", str(UNCHECKED_SCRIPT), root], capture_output=True, text=True)
        for line in done.stderr.splitlines():
            self.out(line)
        self.manager.start(self.timeout)
        if done.returncode != 0:
            raise UpdateError("nothing switched: the update cut short could not be taken back")

    def _mark_unchecked(self, slot: str) -> None:
        """The marker, on the card before the switch: written aside, synced, renamed, and the
        rename synced too."""
        directory = self.state_dir / REQUESTS
        if not directory.is_dir():
            directory.mkdir(mode=0o750)
            owner = self.state_dir.stat()  # the service leaves its requests in it too
            os.chown(directory, owner.st_uid, owner.st_gid)
        install.write_file(directory / UNCHECKED, f"{slot}\n".encode(), 0o644)
        sync_directory(directory)

    def _checked(self) -> None:
        directory = self.state_dir / REQUESTS
        (directory / UNCHECKED).unlink(missing_ok=True)
        sync_directory(directory)

    def _prepare(self, spare: Path, source: Path, current: Path) -> str:
        """The spare environment, made afresh, with `source` in it; its version."""
        if spare.exists():
            shutil.rmtree(spare)
        try:
            install.make_venv(self.target, spare, system_site_packages(current))
            version = None if source.is_file() else install.source_version(source)
            install.pip_install(self.target, spare, source, version)
        except InstallError as error:
            shutil.rmtree(spare, ignore_errors=True)
            raise UpdateError(f"nothing switched: {error}") from None
        new = install.installed_version(spare)
        if new is None:
            raise UpdateError(f"nothing switched: {source} did not install magboard")
        return new

    def _switch_and_check(
        self, link: Path, slot: str, version: str | None, before: ServiceHealth | None
    ) -> str | None:
        """Points the link at `slot` and starts the service; None once it reports itself ready
        and healthy, else why not, `timeout` after the start at the latest."""
        service_health.clear(self.state_dir)
        install.switch(link, slot)
        deadline = self.clock.now() + self.timeout
        self.manager.start(self.timeout)
        while True:
            report = service_health.read(self.state_dir)
            if report is not None and report.state is ServiceState.READY:
                return unhealthy(report, version, before)
            if self.clock.now() >= deadline:
                return f"not ready within {self.timeout:g} s"
            self.clock.sleep(POLL)

    def _kept(self, before: ServiceHealth | None) -> str:
        if before is None:
            return "ready, its start-up check clean (no game was known to resume)"
        if before.game is None:
            return "ready, its start-up check clean"
        return f"ready, its start-up check clean, {before.game.describe()} resumed"

    def _record(self, source: str, old: str | None, new: str | None, result: Result, why: str):
        attempt = Attempt(self.wall(), source, old, new, result, why)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        with (self.state_dir / ATTEMPTS).open("a", encoding="utf-8") as file:
            file.write(attempt.to_json() + "\n")
        self.out(str(attempt))
        return attempt


def sync_directory(directory: Path) -> None:
    """A rename or an unlink in `directory` on the card, not only in the cache."""
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def unhealthy(
    report: ServiceHealth, version: str | None, before: ServiceHealth | None
) -> str | None:
    """Why a ready service is not the healthy `version` the old one (`before`) hands over to,
    or None."""
    if version is not None and report.version != version:
        return f"magboard {report.version} started, not {version}"
    new_faults = [fault for fault in report.faults if before is None or fault not in before.faults]
    if new_faults:
        return f"its start-up check found: {'; '.join(new_faults)}"
    if before is not None and before.game != report.game:
        left = before.game.describe() if before.game else "no game"
        found = report.game.describe() if report.game else "a new game"
        return f"it resumed {found}, not the journal's {left}"
    return None


def system_site_packages(venv: Path) -> bool:
    """Whether `venv` sees its Python's packages: the spare is made like the running one."""
    try:
        config = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return False
    for line in config.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "include-system-site-packages":
            return value.strip().lower() == "true"
    return False


# Sources: a wheel, a tree, a git ref, or a request left by the service.


def checkout(repo: Path, ref: str, scratch: Path) -> Path:
    """`ref` of the git repository `repo` (as `repo` names it: a branch, a remote-tracking
    branch such as origin/main, a tag, a commit), cloned into `scratch` with its history, so
    that git describes its version."""
    tree = scratch / "checkout"

    def git(argv: list[str], what: str) -> str:
        done = subprocess.run(["git", *argv], capture_output=True, text=True)
        if done.returncode != 0:
            said = (done.stderr.strip() or f"exit status {done.returncode}").splitlines()[-1]
            raise UpdateError(f"{what}: {said}")
        return done.stdout.strip()

    safe = ["-c", f"safe.directory={repo}"]
    commit = git([*safe, "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                 f"no commit {ref} in {repo}")  # fmt: skip
    # A local clone shares every object of `repo`, so the commit is there whatever named it.
    git([*safe, "clone", "--quiet", "--no-checkout", str(repo), str(tree)], "git clone")
    git(["-C", str(tree), "checkout", "--quiet", commit], f"git checkout {ref}")
    return tree


@dataclass(frozen=True)
class Request:
    """An update asked for from afar: a wheel the service downloaded and checked."""

    wheel: Path
    sha256: str
    url: str


def take_request(state_dir: Path) -> Request:
    """The request left in the state directory, removed at once (the path unit would start the
    update again while it is there), its wheel checked again here: the service wrote it."""
    directory = state_dir / REQUESTS
    path = directory / REQUEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UpdateError(f"no update request to take in {path}: {error}") from None
    finally:
        path.unlink(missing_ok=True)
    try:
        wheel, sha256, url = data["wheel"], data["sha256"], data["url"]
    except (KeyError, TypeError):
        raise UpdateError(f"{path}: not an update request") from None
    file = directory / Path(str(wheel)).name
    try:
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
    except OSError as error:
        raise UpdateError(f"the requested wheel cannot be read: {error}") from None
    if digest != sha256:
        raise UpdateError(f"{file.name}: sha256 {digest}, not the {sha256} asked for")
    return Request(file, sha256, str(url))


# The command.


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="a wheel file, a source tree, or with --repo a git ref (a commit, tag or branch)",
    )
    parser.add_argument("--repo", metavar="DIR", help="the git repository SOURCE is a ref of")
    parser.add_argument(
        "--request",
        action="store_true",
        help="take the update the service was asked for from afar (magboard-update.service)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long the new version has to report itself ready ({DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--root", default="/", metavar="DIR", help="the board's files under DIR (default: /)"
    )
    parser.add_argument(
        "--pip-args",
        default=os.environ.get("MAGBOARD_PIP_ARGS", ""),
        metavar="ARGS",
        help='more arguments for pip, as one string: --pip-args="--no-index --find-links DIR" '
        "(default: $MAGBOARD_PIP_ARGS, which /etc/magboard/update.env may set for the unit)",
    )


def run(
    args: argparse.Namespace,
    manager: ServiceManager | None = None,
    clock: Clock | None = None,
    out: Callable[[str], None] = print,
) -> int:
    """0: kept, or unchanged; 1: rolled back; 2: not tried, with one line saying why."""
    try:
        if os.geteuid() != 0:
            raise UpdateError("must run as root: sudo magboard update SOURCE")
        try:
            pip_args = tuple(shlex.split(args.pip_args))
        except ValueError as error:
            raise UpdateError(f"--pip-args: {error}") from None
        root = Path(args.root).resolve()
        target = Target(root=root, source=root, python=sys.executable, pip_args=pip_args)
        updater = Updater(
            target, manager or Systemd(), clock or MonotonicClock(), args.timeout, out=out
        )
        with (
            one_at_a_time(updater.state_dir),
            tempfile.TemporaryDirectory(prefix="magboard-update-") as scratch,
        ):
            source, described = source_of(args, updater.state_dir, Path(scratch))
            attempt = updater.update(source, described)
    except UpdateError as error:
        print(f"update: {error}", file=sys.stderr)
        return 2
    return 1 if attempt.result is Result.ROLLED_BACK else 0


@contextlib.contextmanager
def one_at_a_time(state_dir: Path) -> Iterator[None]:
    """Holds the update lock: two updates at once would fill the same spare environment."""
    state_dir.mkdir(parents=True, exist_ok=True)
    with (state_dir / LOCK).open("a") as file:
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UpdateError("another update is under way") from None
        yield


def source_of(args: argparse.Namespace, state_dir: Path, scratch: Path) -> tuple[Path, str]:
    """What to install, and how the attempt names it."""
    if args.request:
        if args.source or args.repo:
            raise UpdateError("--request takes no SOURCE nor --repo: the request names it")
        request = take_request(state_dir)
        return request.wheel, request.url
    if not args.source:
        raise UpdateError("give SOURCE: a wheel file, a source tree, or a ref with --repo")
    if args.repo:
        repo = Path(args.repo).resolve()
        return checkout(repo, args.source, scratch), f"{args.source} of {repo}"
    source = Path(args.source).resolve()
    if source.is_file() and source.suffix == ".whl":
        return source, str(source)
    if source.is_dir() and (source / "pyproject.toml").is_file():
        return source, str(source)
    raise UpdateError(
        f"{args.source} is neither a wheel nor a magboard source tree (a git ref needs --repo)"
    )
