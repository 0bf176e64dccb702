"""The Makefile as a maker uses it: `make run` or `make setup` a second time builds nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NATIVE = ROOT / "firmware/native"


def _dry_run(*flags: str) -> str:
    done = subprocess.run(
        ["make", "-n", *flags, "setup"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_second_setup_rebuilds_no_c_kernels():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    if not (ROOT / ".venv/.installed").exists():
        pytest.skip("no .venv in this checkout: `make setup` has not been run here")
    built = NATIVE / ".built"
    if not built.exists():
        pytest.skip("the C kernels have not been built here: `make setup` builds them")
    sources = [*NATIVE.glob("*.c"), *NATIVE.glob("*.h"), *NATIVE.glob("*build*.py")]
    if any(source.stat().st_mtime > built.stat().st_mtime for source in sources):
        pytest.skip("a C kernel's source changed since the last build: `make setup` rebuilds it")
    assert "build_" not in _dry_run()
    # What a change to a kernel's C does, so the assertion above can fail.
    assert "build_frames.py" in _dry_run("-W", "firmware/native/frames.c")
