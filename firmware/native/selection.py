"""Which implementation of the native kernels to load, from MAGBOARD_NATIVE.

A board in the field should keep playing when its C extension was not built (auto falls back and
says so in the log); a benchmark or a CI job that means to test the C must not silently get the
fallback (c fails instead); python forces the fallback to test it on a machine that has the C.
"""

from __future__ import annotations

import importlib
import logging
import os
from types import ModuleType

ENV_VAR = "MAGBOARD_NATIVE"
CHOICES = ("auto", "c", "python")

log = logging.getLogger("magboard.native")


class BackendError(ValueError):
    """MAGBOARD_NATIVE names no implementation."""


def requested(environ: dict[str, str] | None = None) -> str:
    """The implementation asked for; unset or empty means auto."""
    raw = (os.environ if environ is None else environ).get(ENV_VAR, "")
    choice = raw.strip().lower() or "auto"
    if choice not in CHOICES:
        raise BackendError(f"{ENV_VAR} must be one of {', '.join(CHOICES)}; got {raw!r}")
    return choice


def load(choice: str, kernel: str = "lines") -> tuple[str, ModuleType]:
    """The name ("c" or "python") and module of a kernel (`c_<kernel>` or its pure-Python twin
    `py_<kernel>`, beside this file) to use for `choice`."""
    if choice != "python":
        try:
            module = importlib.import_module(f"{__package__}.c_{kernel}")
        except ImportError as exc:
            if choice == "c":
                raise ImportError(f"{ENV_VAR}=c: {exc}") from exc
            log.warning("%s; using the pure-Python %s kernel instead", exc, kernel)
        else:
            return "c", module
    return "python", importlib.import_module(f"{__package__}.py_{kernel}")
