"""The emulated machine's tests (sim/machine/) run only when asked for, and only once it is built.

They boot a QEMU machine under emulation, tens of seconds each, so `make test` leaves them out:
they run when tests/hil (or a file in it) is named on the command line, as `make hil` does, and
say why they are skipped otherwise. Named but not built, they are skipped too: building takes
minutes and root, and is `make hil-machine`'s job, never a test's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from magboard.sim.machine import build

HIL = Path(__file__).resolve().parent
TIMINGS: list[str] = []
"""What the tests measured in the machine, shown after the run (`make hil` prints them)."""


def _named(config: pytest.Config) -> bool:
    """Whether tests/hil, or something in it, is on the command line (pytest or xdist's worker)."""
    for arg in config.args:
        path = Path(arg.split("::")[0])
        for base in (config.invocation_params.dir, config.rootpath):
            candidate = (base / path).resolve()
            if candidate == HIL or HIL in candidate.parents:
                return True
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ours = [item for item in items if HIL in item.path.parents]
    if not ours:
        return
    if not _named(config):
        reason = "the emulated machine's tests run only when asked for: `make hil`"
    elif build.built() is None:
        reason = "the emulated machine is not built for the current inputs: `make hil-machine`"
    else:
        return
    for item in ours:
        item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def timings() -> list[str]:
    """Lines a test adds to say what it measured, printed at the end of the run."""
    return TIMINGS


def pytest_terminal_summary(terminalreporter) -> None:
    if TIMINGS:
        terminalreporter.write_sep("-", "timings in the emulated machine")
        for line in TIMINGS:
            terminalreporter.write_line(line)
