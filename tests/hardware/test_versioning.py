"""The version comes from the source tree: a new commit is a new version, so the installer
installs it; a copy without git keeps the version recorded in it."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from magboard.hardware import install, versioning

pytestmark = pytest.mark.backend_free

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(tree: Path, *args: str) -> str:
    env_args = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "tag.gpgSign=false"]
    done = subprocess.run(
        ["git", *env_args, "-C", str(tree), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def repository(tmp_path: Path) -> Path:
    tree = tmp_path / "src"
    tree.mkdir()
    git(tree, "init", "-q")
    (tree / "a.txt").write_text("one\n")
    git(tree, "add", "a.txt")
    git(tree, "commit", "-q", "-m", "one")
    return tree


@needs_git
def test_each_commit_is_a_version_of_its_own(tmp_path: Path) -> None:
    tree = repository(tmp_path)
    first = versioning.source_version(tree)
    assert first == f"{versioning.BASE}.post1+g{git(tree, 'rev-parse', '--short=7', 'HEAD')}"
    (tree / "a.txt").write_text("two\n")
    assert versioning.source_version(tree) == f"{first}.dirty"
    git(tree, "commit", "-q", "-am", "two")
    second = versioning.source_version(tree)
    assert second.startswith(f"{versioning.BASE}.post2+g")
    assert second not in (first, f"{first}.dirty")


@needs_git
def test_a_release_tag_is_the_base(tmp_path: Path) -> None:
    tree = repository(tmp_path)
    git(tree, "tag", "v1.2.0")
    assert versioning.source_version(tree) == "1.2.0"
    (tree / "a.txt").write_text("two\n")
    git(tree, "commit", "-q", "-am", "two")
    commit = git(tree, "rev-parse", "--short=7", "HEAD")
    assert versioning.source_version(tree) == f"1.2.0.post1+g{commit}"


def test_a_copy_without_git_keeps_the_recorded_version(tmp_path: Path) -> None:
    versioning.record(tmp_path, "0.1.0.post7+gabcdef0")
    assert versioning.source_version(tmp_path) == "0.1.0.post7+gabcdef0"


def test_a_tree_that_cannot_tell_its_version_stops_the_installer(tmp_path: Path) -> None:
    with pytest.raises(install.InstallError, match="neither a git checkout nor a tree with"):
        install.source_version(tmp_path)


def test_the_checkout_is_not_frozen_at_a_string() -> None:
    """This very checkout: pyproject.toml declares no version, setup.py asks the tree."""
    repo = Path(__file__).resolve().parents[2]
    assert "version" in tomllib.loads((repo / "pyproject.toml").read_text())["project"]["dynamic"]
    if shutil.which("git") is not None and (repo / ".git").exists():
        assert "+g" in versioning.source_version(repo)
