"""MAGBOARD_NATIVE picks the implementation at import, so each case runs in a fresh interpreter."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from magboard.firmware.native.selection import BackendError, requested

# Stands in for a machine where the extension was never built, whatever this one has.
HIDE_C = """
import sys
class HideC:
    def find_spec(self, name, path=None, target=None):
        if name == "magboard.firmware.native._lines":
            raise ImportError("no module named _lines (hidden)")
sys.meta_path.insert(0, HideC())
"""

REPORT = """
import logging
logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
try:
    import magboard.firmware.native as native
except (ImportError, ValueError) as exc:
    print(type(exc).__name__, isinstance(exc, ValueError), exc)
else:
    print("backend", native.backend)
"""


def run(value: str | None, *, hide_c: bool = False) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("MAGBOARD_NATIVE", None)
    if value is not None:
        env["MAGBOARD_NATIVE"] = value
    code = (HIDE_C if hide_c else "") + REPORT
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


def c_is_built() -> bool:
    return importlib.util.find_spec("magboard.firmware.native._lines") is not None


def test_python_is_forced() -> None:
    result = run("python")
    assert result.stdout.strip() == "backend python"
    assert "magboard.native" not in result.stderr


def test_unknown_value_is_a_clear_value_error() -> None:
    result = run("bogus")
    assert result.stdout.startswith("BackendError True ")
    assert "MAGBOARD_NATIVE must be one of auto, c, python; got 'bogus'" in result.stdout


def test_auto_prefers_c_when_built() -> None:
    for value in (None, "", "auto", " AUTO "):
        result = run(value)
        assert result.stdout.strip() == ("backend c" if c_is_built() else "backend python")


def test_auto_falls_back_with_a_warning() -> None:
    result = run("auto", hide_c=True)
    assert result.stdout.strip() == "backend python"
    assert "magboard.native WARNING" in result.stderr
    assert "make setup" in result.stderr


def test_c_fails_loudly_when_missing() -> None:
    result = run("c", hide_c=True)
    assert result.stdout.startswith("ImportError False MAGBOARD_NATIVE=c:")
    assert "make setup" in result.stdout


def test_c_loads_when_built() -> None:
    if not c_is_built():
        if requested() == "python":
            pytest.skip("MAGBOARD_NATIVE=python and the C extension is not built")
        pytest.fail("the C line detector is not built; run `make setup`")
    assert run("c").stdout.strip() == "backend c"


def test_requested_reads_the_environment_it_is_given() -> None:
    assert requested({}) == "auto"
    assert requested({"MAGBOARD_NATIVE": "C"}) == "c"
    assert requested({"MAGBOARD_NATIVE": "python"}) == "python"
    with pytest.raises(ValueError, match="auto, c, python"):
        requested({"MAGBOARD_NATIVE": "cython"})
    assert issubclass(BackendError, ValueError)
