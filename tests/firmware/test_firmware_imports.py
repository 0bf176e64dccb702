"""The firmware stands below the simulator and the host tools: nothing under firmware/ reaches up
to them, by an import statement or by a module name in a string (importlib, __import__)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import magboard.firmware

FIRMWARE = Path(magboard.firmware.__file__).resolve().parent
ABOVE = re.compile(r"\bmagboard\.(?:sim|host)\b")


def module_name(path: Path) -> str:
    parts = path.relative_to(FIRMWARE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("magboard.firmware", *parts))


def imported_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name of `from X import ...`, relative imports resolved against `module`."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def reaches_above(source: str, module: str, is_package: bool = False) -> list[str]:
    """What in `source` names magboard.sim or magboard.host, one entry each."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, module, is_package)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        else:
            continue
        found += [f"line {node.lineno}: {name}" for name in names if ABOVE.search(name)]
    return found


@pytest.mark.parametrize(
    "source",
    [
        "import magboard.sim.board",
        "from magboard.host.watch import main",
        "from magboard import sim",
        "from magboard import host as tools",
        "from ...sim import console",
        "import importlib\nimportlib.import_module('magboard.sim.console')",
        "__import__('magboard.host.link')",
        "def f():\n    return run('magboard.sim.scenario')",
    ],
)
def test_the_check_sees_every_way_up(source):
    assert reaches_above(source, "magboard.firmware.app.run")


@pytest.mark.parametrize(
    "source",
    [
        "from magboard.hardware.spec import load_board",
        "from .. import games",
        "from . import wiring",
        "SIMULATED = 'magboard.simulation is not a module'",
    ],
)
def test_the_check_lets_the_layers_below_through(source):
    assert reaches_above(source, "magboard.firmware.app.run") == []


def test_no_firmware_module_reaches_up_to_sim_or_host():
    paths = sorted(FIRMWARE.rglob("*.py"))
    assert len(paths) > 30, "the firmware's modules were not found"
    offences = {
        str(path.relative_to(FIRMWARE)): found
        for path in paths
        if (
            found := reaches_above(
                path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py"
            )
        )
    }
    assert offences == {}
