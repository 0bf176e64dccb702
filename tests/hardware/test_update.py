"""`magboard update` on a board installed in a target root: a good version kept; a version whose
service never becomes ready, and one whose start-up check finds a fault, each rolled back by
itself, the game in the journal resumed move for move throughout.

systemd is stood in for by a child process: the installed environment's own `magboard run
--sim` (the unit's ExecStart, on a simulated board), with MAGBOARD_STATE as the unit sets it and
NOTIFY_SOCKET a socket this test reads, so READY=1 and the report come from the version being
tried (the packages magboard depends on come from this test's environment: the install is
offline). The bad versions are copies of this source tree, broken and given a version of their
own. The updater's clock is virtual: it polls the report without waiting; only the child's
start is waited for, with a deadline, as `systemctl start` waits.

A power cut between the switch and the verdict is the stand-in's start raising: the marker is
left and the link on the new version, and the installed script magboard-unchecked.service runs
at boot takes it back, after which the old version resumes the game.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sysconfig
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from target_root import INSTALL_SH, OFFLINE, REPO, SUDO_PATH, needs_install, seed

from magboard.hardware import install, service_health, update
from magboard.hardware.service_health import ServiceHealth, ServiceState

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]

START_WITHIN = 60.0
"""Seconds a child has to say READY=1 or exit, on a busy machine."""


class VirtualClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


class ChildService:
    """The service as systemd would run it, started and stopped by the updater."""

    def __init__(self, root: Path, scratch: Path, env: dict[str, str]) -> None:
        self.root = root
        self.journal = root / "var/lib/magboard/magboard.db"
        self.env = env | {
            "MAGBOARD_STATE": str(root / "var/lib/magboard"),
            "NOTIFY_SOCKET": str(scratch / "notify"),
        }
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(scratch / "notify"))
        self.process: subprocess.Popen | None = None
        self.lines: list[str] = []
        self.said = threading.Condition()
        self.readies = 0

    def start(self, timeout: float) -> None:
        command = [str(self.root / "opt/magboard/.venv/bin/magboard"), "run", "--sim"]
        self.process = subprocess.Popen(
            [*command, "--board", "mini", "--journal", str(self.journal)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=self.env,
            text=True,
        )
        threading.Thread(target=self._read, args=(self.process,), daemon=True).start()
        deadline = time.monotonic() + min(timeout, START_WITHIN)
        self.socket.settimeout(0.1)
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                message = self.socket.recv(4096).decode()
            except TimeoutError:
                continue
            if "READY=1" in message.splitlines():
                self.readies += 1
                return

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=START_WITHIN)
        self.process = None

    def type(self, line: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, count: int, kind: str) -> None:
        """Until the board has printed `count` events of `kind` since it started."""
        with self.said:
            found = self.said.wait_for(lambda: self._count(kind) >= count, timeout=START_WITHIN)
        assert found, self.lines[-20:]

    def _count(self, kind: str) -> int:
        return sum(f'"type":"{kind}"' in line for line in self.lines)

    def _read(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with self.said:
                self.lines.append(line)
                self.said.notify_all()


@dataclass(frozen=True)
class Tried:
    attempt: update.Attempt
    link: str
    version: str
    """What `/opt/magboard/.venv/bin/magboard --version` says afterwards."""
    report: ServiceHealth | None
    """The running service's report afterwards."""
    running: bool
    unchecked: bool
    """Whether the marker of an update not yet judged is there afterwards."""


class PowerCut(Exception):
    """The power going: nothing after it happens."""


@dataclass(frozen=True)
class CutBeforeTheVerdict:
    """The service manager of a board whose power goes as the new version is started."""

    service: ChildService

    def stop(self) -> None:
        self.service.stop()

    def start(self, timeout: float) -> None:
        raise PowerCut


@dataclass(frozen=True)
class CutShort:
    """An update cut short by a power cut, then the next boot."""

    link: str
    """The link as the power went."""
    marker: str | None
    """The marker as the power went."""
    boot: subprocess.CompletedProcess
    """The installed magboard-unchecked, as the unit runs it at boot."""
    after_boot: Tried
    """The link and the marker after it, the service started as systemd starts it then."""


@dataclass(frozen=True)
class Story:
    installed: str
    before: ServiceHealth
    """The old version's report as it stopped for the first update."""
    good: Tried
    never_ready: Tried
    failing_check: Tried
    requested: Tried
    """A wheel left by the service as an MQTT update command leaves it, taken by
    `magboard update --request` (what magboard-update.service runs)."""
    request_status: int
    request_left: bool
    cut_short: CutShort
    requests_owner: tuple[int, int]
    """The owner of the directory the marker is kept in, where the service leaves requests."""
    state_owner: tuple[int, int]
    attempts: list[dict]


def third_party(into: Path) -> Path:
    """The packages magboard depends on, from this test's environment: the offline install
    installs magboard alone (--no-deps). magboard itself is left out, so that the environment
    under test is the only magboard the service finds."""
    site = Path(sysconfig.get_paths()["purelib"])
    for found in site.iterdir():
        if "magboard" not in found.name and found.suffix != ".pth" and found.name != "__pycache__":
            (into / found.name).symlink_to(found)
    return into


def broken_copy(tmp: Path, name: str, version: str, path: str, old: str, new: str) -> Path:
    tree = tmp / name
    shutil.copytree(REPO, tree, ignore=shutil.ignore_patterns(*install.BUILD_LITTER))
    text = (tree / path).read_text()
    assert old in text, f"{path} no longer has {old!r}: update the test's breakage"
    (tree / path).write_text(text.replace(old, new, 1))
    (tree / "magboard.version").write_text(version + "\n")
    return tree


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> Story:
    root = seed(tmp_path_factory.mktemp("root"))
    tmp = tmp_path_factory.mktemp("trees")
    home = tmp_path_factory.mktemp("home")
    env = {"PATH": SUDO_PATH, "HOME": str(home), "PIP_CONFIG_FILE": os.devnull, "LANG": "C.UTF-8"}
    done = subprocess.run(
        [str(INSTALL_SH), "--root", str(root), *OFFLINE], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    venv = root / "opt/magboard/.venv"
    installed = install.installed_version(venv)
    assert installed is not None
    deps = third_party(tmp_path_factory.mktemp("deps"))
    service = ChildService(root, tmp_path_factory.mktemp("run"), env | {"PYTHONPATH": str(deps)})
    python3 = shutil.which("python3", path=SUDO_PATH)
    assert python3 is not None
    target = install.Target(
        root=root,
        source=root,
        python=python3,
        pip_args=("--no-index", "--no-build-isolation", "--no-deps"),
    )
    attempts: list[update.Attempt] = []
    updater = update.Updater(target, service, VirtualClock(), timeout=30, out=lambda line: None)
    state = root / "var/lib/magboard"

    def tried(source: Path | None) -> Tried:
        attempt = attempts[-1] if source is None else updater.update(source)  # None: the request
        said = subprocess.run([str(venv / "bin/magboard"), "--version"], env=env, text=True,
                              capture_output=True)  # fmt: skip
        running = service.process is not None and service.process.poll() is None
        report = service_health.read(state)
        unchecked = (state / "update/unchecked").exists()
        return Tried(attempt, os.readlink(venv), said.stdout.strip(), report, running, unchecked)

    with pytest.MonkeyPatch.context() as patch:  # pip as the installer runs it, not this test
        patch.delenv("PYTHONPATH", raising=False)
        patch.setenv("PIP_CONFIG_FILE", os.devnull)
        try:
            service.start(START_WITHIN)
            service.type("play b2")  # one at a time: the console reads a line when it is idle
            service.wait_for(1, "move")
            service.type("play a1")
            service.wait_for(2, "move")
            service.stop()  # as the update's first step stops it: what did it leave?
            before = service_health.read(state)
            service.start(START_WITHIN)
            good = tried(broken_copy(tmp, "good", "0.2.0", "README.md", "# magboard", "# mb"))
            never_ready = tried(
                broken_copy(
                    tmp,
                    "never-ready",
                    "0.3.0",
                    "sim/console.py",
                    "    session = SimSession(",
                    '    raise SystemExit("broken: never starts")\n    session = SimSession(',
                )
            )
            failing_check = tried(
                broken_copy(
                    tmp,
                    "failing-check",
                    "0.3.1",
                    "sim/session.py",
                    "SimBoard(self.spec, clock)",
                    "SimBoard(self.spec, clock, dead_expanders=[0])",
                )
            )
            wheel = build_wheel(tmp, broken_copy(tmp, "wheel", "0.2.1", "README.md", "# ", "# "))
            leave_request(state, wheel)
            status = update.run(
                argparse.Namespace(
                    source=None,
                    repo=None,
                    request=True,
                    timeout=30.0,
                    root=str(root),
                    pip_args="--no-index --no-deps",
                ),
                manager=service,
                clock=VirtualClock(),
                out=lambda line: None,
            )
            attempts.append(recorded(state)[-1])
            requested = tried(None)
            cut_at = update.Updater(
                target, CutBeforeTheVerdict(service), VirtualClock(), 30, out=lambda line: None
            )
            with pytest.raises(PowerCut):
                cut_at.update(broken_copy(tmp, "cut-short", "0.2.2", "README.md", "# ", "# "))
            marker = state / "update/unchecked"
            marker_cut = marker.read_text() if marker.exists() else None
            link_cut = os.readlink(venv)
            script = root / "opt/magboard/bin/magboard-unchecked"
            booted = subprocess.run([script, root], env=env, capture_output=True, text=True)
            service.start(START_WITHIN)
            attempts.append(recorded(state)[-1])
            cut_short = CutShort(link_cut, marker_cut, booted, tried(None))
        finally:
            service.stop()
    assert before is not None
    left = (state / "update/request.json").exists()
    return Story(
        installed,
        before,
        good,
        never_ready,
        failing_check,
        requested,
        status,
        left,
        cut_short,
        owner(state / "update"),
        owner(state),
        [json.loads(line) for line in (state / update.ATTEMPTS).read_text().splitlines()],
    )


def owner(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_uid, found.st_gid


def build_wheel(tmp: Path, tree: Path) -> Path:
    """A wheel of `tree`, built offline with the system's python3 as the installer builds."""
    out = tmp / "wheels"
    python3 = shutil.which("python3", path=SUDO_PATH)
    assert python3 is not None
    done = subprocess.run(
        [python3, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "-w", str(out), str(tree)],
        capture_output=True, text=True, cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (wheel,) = out.glob("magboard-*.whl")
    return wheel


def leave_request(state: Path, wheel: Path) -> None:
    """The wheel and the request, as firmware/app/update_request.py leaves them."""
    requests = state / "update"
    requests.mkdir(exist_ok=True)  # the updates before made it, for their marker
    shutil.copy(wheel, requests / wheel.name)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    url = f"https://hub.local/{wheel.name}"
    (requests / "request.json").write_text(
        json.dumps({"wheel": wheel.name, "sha256": digest, "url": url})
    )


def recorded(state: Path) -> list[update.Attempt]:
    """The attempts as the file keeps them."""
    found = []
    for line in (state / update.ATTEMPTS).read_text().splitlines():
        data = json.loads(line)
        result = update.Result(data["result"])
        attempt = update.Attempt(
            data["wall"], data["source"], data["from"], data["to"], result, data["why"]
        )
        found.append(attempt)
    return found


@needs_install
def test_the_game_in_progress_is_what_the_stopped_service_leaves(story: Story) -> None:
    assert story.before.state is ServiceState.STOPPED
    assert story.before.version == story.installed
    assert story.before.game is not None
    assert (story.before.game.game, story.before.game.moves) == ("tic-tac-toe", 2)


@needs_install
def test_a_good_version_is_kept(story: Story) -> None:
    good = story.good
    assert good.attempt.result is update.Result.KEPT
    assert (good.attempt.old, good.attempt.new) == (story.installed, "0.2.0")
    assert good.link == "venv-b"
    assert good.version == "magboard 0.2.0"
    assert good.running
    assert not good.unchecked, "judged: the marker is gone"
    assert good.report is not None and good.report.state is ServiceState.READY
    assert good.report.version == "0.2.0"
    assert good.report.game == story.before.game, "the same game, move for move"
    assert good.attempt.why == "ready, its start-up check clean, tic-tac-toe after 2 moves resumed"


@needs_install
def test_a_version_that_never_becomes_ready_is_rolled_back(story: Story) -> None:
    tried = story.never_ready
    assert tried.attempt.result is update.Result.ROLLED_BACK
    assert (tried.attempt.old, tried.attempt.new) == ("0.2.0", "0.3.0")
    assert tried.attempt.why == "not ready within 30 s"
    assert tried.link == "venv-b", "back to the version that was running"
    assert not tried.unchecked, "judged, if badly: the marker is gone"
    assert tried.version == "magboard 0.2.0"
    assert tried.running
    assert tried.report is not None and tried.report.version == "0.2.0"
    assert tried.report.game == story.before.game, "the journal intact, the same game resumed"


@needs_install
def test_a_version_whose_start_up_check_fails_is_rolled_back(story: Story) -> None:
    tried = story.failing_check
    assert tried.attempt.result is update.Result.ROLLED_BACK
    assert (tried.attempt.old, tried.attempt.new) == ("0.2.0", "0.3.1")
    assert tried.attempt.why.startswith("its start-up check found: expander ")
    assert "does not answer" in tried.attempt.why
    assert tried.link == "venv-b"
    assert tried.version == "magboard 0.2.0"
    assert tried.running
    assert tried.report is not None and tried.report.version == "0.2.0"
    assert tried.report.faults == ()
    assert tried.report.game == story.before.game


@needs_install
def test_a_wheel_requested_from_afar_is_taken_and_kept(story: Story) -> None:
    tried = story.requested
    assert story.request_status == 0
    assert not story.request_left, "the request is taken, so the path unit does not start again"
    assert tried.attempt.result is update.Result.KEPT
    assert (tried.attempt.old, tried.attempt.new) == ("0.2.0", "0.2.1")
    assert tried.attempt.source.startswith("https://hub.local/magboard-0.2.1-")
    assert tried.link == "venv-a", "the spare: the slot the rolled-back versions were built in"
    assert tried.version == "magboard 0.2.1"
    assert tried.running
    assert tried.report is not None and tried.report.game == story.before.game


@needs_install
def test_every_attempt_is_recorded(story: Story) -> None:
    assert [(a["from"], a["to"], a["result"]) for a in story.attempts] == [
        (story.installed, "0.2.0", "kept"),
        ("0.2.0", "0.3.0", "rolled back"),
        ("0.2.0", "0.3.1", "rolled back"),
        ("0.2.0", "0.2.1", "kept"),
        ("0.2.1", "0.2.2", "rolled back"),
    ]
    assert story.attempts[1]["why"] == "not ready within 30 s"
    assert all(isinstance(a["wall"], float) for a in story.attempts)
    assert all(a["source"] for a in story.attempts[:-1])
    assert story.attempts[-1]["source"] is None, "the script does not know it"


@needs_install
def test_an_update_cut_short_goes_back_to_the_old_version_at_the_next_boot(story: Story) -> None:
    cut = story.cut_short
    assert (cut.link, cut.marker) == ("venv-b", "venv-a\n"), "switched, not judged"
    assert (cut.boot.returncode, cut.boot.stdout) == (0, "")
    assert "switched" in cut.boot.stderr and "back to venv-a" in cut.boot.stderr
    after = cut.after_boot
    assert after.link == "venv-a"
    assert not after.unchecked
    assert after.attempt.result is update.Result.ROLLED_BACK
    assert (after.attempt.old, after.attempt.new) == ("0.2.1", "0.2.2")
    assert after.attempt.why == "the power went before the new version was checked"
    assert after.version == "magboard 0.2.1"
    assert after.running
    assert after.report is not None and after.report.version == "0.2.1"
    assert after.report.game == story.before.game, "the old version resumes the game"


@needs_install
def test_the_marker_leaves_the_update_directory_the_services(story: Story) -> None:
    """The first update made the directory for its marker; the service still leaves its
    requests there."""
    assert story.requests_owner == story.state_owner != (0, 0)


# The script alone, on a board of two environments that hold nothing but their metadata.


SCRIPT = REPO / "hardware/magboard-unchecked.sh"


def board(root: Path, running: str, marker: str | None) -> Path:
    """`root` with venv-a holding magboard 0.2.0 and venv-b 0.3.0, the link on `running`."""
    for slot, version in (("venv-a", "0.2.0"), ("venv-b", "0.3.0")):
        site = root / f"opt/magboard/{slot}/lib/python3.11/site-packages"
        (site / f"magboard-{version}.dist-info").mkdir(parents=True)
        metadata = f"Metadata-Version: 2.1\nName: magboard\nVersion: {version}\n\nVersion: 9\n"
        (site / f"magboard-{version}.dist-info/METADATA").write_text(metadata)
    (root / "opt/magboard/.venv").symlink_to(running)
    (root / "var/lib/magboard/update").mkdir(parents=True)
    if marker is not None:
        (root / "var/lib/magboard/update/unchecked").write_text(marker)
    return root


def boot(root: Path) -> subprocess.CompletedProcess:
    """The script as the unit runs it, with sudo's PATH and nothing of this test's Python."""
    env = {"PATH": SUDO_PATH, "LANG": "C.UTF-8"}
    return subprocess.run(["sh", str(SCRIPT), str(root)], env=env, capture_output=True, text=True)


def lines(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "var/lib/magboard/updates.jsonl").open()]


def test_the_script_switches_back_and_records_the_attempt(tmp_path: Path) -> None:
    root = board(tmp_path, running="venv-b", marker="venv-a\n")
    started = time.time()
    done = boot(root)
    assert done.returncode == 0, done.stderr
    assert os.readlink(root / "opt/magboard/.venv") == "venv-a"
    assert not (root / "var/lib/magboard/update/unchecked").exists()
    assert not (root / "opt/magboard/.venv.tmp").exists()
    (line,) = lines(root)
    assert line == {
        "wall": line["wall"],
        "source": None,
        "from": "0.2.0",
        "to": "0.3.0",
        "result": "rolled back",
        "why": update.CUT_SHORT,
    }
    assert isinstance(line["wall"], float) and started - 1 <= line["wall"] <= time.time()
    assert recorded(root / "var/lib/magboard")[0].result is update.Result.ROLLED_BACK
    assert boot(root).returncode == 0 and len(lines(root)) == 1, "no marker: nothing to do"


@pytest.mark.parametrize("marker", ["../../../etc\n", "venv-c\n", "", "venv-a; rm -rf /\n"])
def test_a_marker_naming_no_environment_changes_nothing_but_is_removed(
    tmp_path: Path, marker: str
) -> None:
    root = board(tmp_path, running="venv-b", marker=marker)
    done = boot(root)
    assert done.returncode == 0
    assert "names no environment" in done.stderr
    assert os.readlink(root / "opt/magboard/.venv") == "venv-b"
    assert not (root / "var/lib/magboard/update/unchecked").exists()
    (line,) = lines(root)
    assert (line["result"], line["from"], line["to"]) == ("unchanged", None, None)


def test_a_marker_on_the_running_environment_switches_nothing(tmp_path: Path) -> None:
    """The power went after the marker was written and before the switch."""
    root = board(tmp_path, running="venv-a", marker="venv-a\n")
    assert boot(root).returncode == 0
    assert os.readlink(root / "opt/magboard/.venv") == "venv-a"
    assert not (root / "var/lib/magboard/update/unchecked").exists()
    (line,) = lines(root)
    assert (line["result"], line["from"], line["to"]) == ("unchanged", "0.2.0", "0.2.0")


@dataclass
class Manager:
    calls: list[str]

    def stop(self) -> None:
        self.calls.append("stop")

    def start(self, timeout: float) -> None:
        self.calls.append("start")


def test_an_update_finding_the_marker_takes_the_cut_short_one_back_first(tmp_path: Path) -> None:
    """Cut short, then tried again before any reboot: the service restarted on the old one."""
    root = board(tmp_path, running="venv-b", marker="venv-a\n")
    manager = Manager([])
    said: list[str] = []
    target = install.Target(root=root, source=root, python="python3")
    update.Updater(target, manager, VirtualClock(), out=said.append).take_back_unchecked()
    assert manager.calls == ["stop", "start"]
    assert os.readlink(root / "opt/magboard/.venv") == "venv-a"
    assert not (root / "var/lib/magboard/update/unchecked").exists()
    assert [line["result"] for line in lines(root)] == ["rolled back"]
    assert said[0] == "an update was cut short before its verdict: taking it back first"


def test_without_the_marker_an_update_takes_nothing_back(tmp_path: Path) -> None:
    root = board(tmp_path, running="venv-b", marker=None)
    manager = Manager([])
    target = install.Target(root=root, source=root, python="python3")
    update.Updater(target, manager, VirtualClock(), out=print).take_back_unchecked()
    assert manager.calls == []
    assert os.readlink(root / "opt/magboard/.venv") == "venv-b"
