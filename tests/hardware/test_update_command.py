"""`magboard update` refusing before anything is switched (one line, status 2), and its sources:
a git ref of a repository checked out with its history, so git tells its version; and the
verdict on a service's report, what keeps a version and what rolls it back."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import pytest

from magboard.hardware import update, versioning
from magboard.hardware.service_health import GameInPlay, ServiceHealth, ServiceState
from magboard.host.cli import main as magboard

pytestmark = pytest.mark.backend_free

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def args(**given: object) -> argparse.Namespace:
    defaults = {"source": None, "repo": None, "request": False, "timeout": 120.0}
    return argparse.Namespace(**defaults | {"root": "/", "pip_args": ""} | given)


def test_not_root(monkeypatch, capsys) -> None:
    monkeypatch.setattr(update.os, "geteuid", lambda: 1000)
    assert magboard(["update", "magboard-0.2.0-py3-none-any.whl"]) == 2
    assert capsys.readouterr().err == "update: must run as root: sudo magboard update SOURCE\n"


def test_a_source_that_is_neither_wheel_nor_tree(tmp_path: Path) -> None:
    with pytest.raises(update.UpdateError, match="neither a wheel nor a magboard source tree"):
        update.source_of(args(source=str(tmp_path / "nothing")), tmp_path, tmp_path)


def test_a_root_never_installed_is_refused_before_anything_is_built(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(update.os, "geteuid", lambda: 0)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text("")
    status = update.run(args(source=str(tree), root=str(tmp_path)))
    assert status == 2
    said = capsys.readouterr().err
    assert said == f"update: {tmp_path}/opt/magboard/.venv is not a link to an environment: " \
        "run `magboard install`\n"  # fmt: skip
    assert not (tmp_path / "opt/magboard/venv-b").exists()


def test_request_takes_no_source(tmp_path: Path) -> None:
    with pytest.raises(update.UpdateError, match="--request takes no SOURCE"):
        update.source_of(args(request=True, source="x.whl"), tmp_path, tmp_path)


def test_no_request_waiting(tmp_path: Path) -> None:
    with pytest.raises(update.UpdateError, match="no update request to take"):
        update.source_of(args(request=True), tmp_path, tmp_path)


@needs_git
def test_a_git_ref_is_checked_out_with_its_history(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*argv: str) -> str:
        who = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
        done = subprocess.run(["git", *who, "-C", str(repo), *argv], capture_output=True,
                              text=True, check=True)  # fmt: skip
        return done.stdout.strip()

    git("init", "-q")
    (repo / "pyproject.toml").write_text("[project]\n")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    first = git("rev-parse", "--short=7", "HEAD")
    (repo / "pyproject.toml").write_text("[project]\nname = 'magboard'\n")
    git("commit", "-q", "-am", "two")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    tree, described = update.source_of(args(source=first, repo=str(repo)), tmp_path, scratch)
    assert described == f"{first} of {repo}"
    assert (tree / "pyproject.toml").read_text() == "[project]\n"
    assert versioning.source_version(tree) == f"{versioning.BASE}.post1+g{first}"
    # A remote-tracking branch of the board's clone, as `git fetch` leaves it.
    git("update-ref", "refs/remotes/origin/main", first)
    fetched, _ = update.source_of(args(source="origin/main", repo=str(repo)), tmp_path,
                                  tmp_path / "s1")  # fmt: skip
    assert versioning.source_version(fetched) == f"{versioning.BASE}.post1+g{first}"
    with pytest.raises(update.UpdateError, match=f"no commit no-such-ref in {repo}"):
        update.source_of(args(source="no-such-ref", repo=str(repo)), tmp_path, tmp_path / "s2")


GAME = GameInPlay.of("tic-tac-toe", ["b2", "a1"])


def report(version: str, game: GameInPlay | None = GAME, faults: tuple[str, ...] = ()):
    return ServiceHealth(ServiceState.READY, version, 42, game, faults)


def test_the_verdict_on_a_report() -> None:
    before = ServiceHealth(ServiceState.STOPPED, "1", 41, GAME, ("expander U4 does not answer",))
    assert update.unhealthy(report("2", faults=before.faults), "2", before) is None
    assert update.unhealthy(report("1"), "2", before) == "magboard 1 started, not 2"
    found = update.unhealthy(report("2", faults=("journal fault survived",)), "2", before)
    assert found == "its start-up check found: journal fault survived"
    other = GameInPlay.of("tic-tac-toe", ["b2"])
    assert update.unhealthy(report("2", other), "2", before) == (
        "it resumed tic-tac-toe after 1 move, not the journal's tic-tac-toe after 2 moves"
    )
    assert update.unhealthy(report("2", None), "2", before) == (
        "it resumed a new game, not the journal's tic-tac-toe after 2 moves"
    )
    assert update.unhealthy(report("2", None), "2", None) is None, "an old version said nothing"
