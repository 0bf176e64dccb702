"""The shape of magboard's imports, as tests: no import circles anywhere in firmware/, host/,
hardware/ and sim/, and the layers the README's "How it works" describes.

Every import counts, at module level and deferred inside a function alike, read with `ast` from the
source files (nothing is imported). `from package import name` where `name` is a submodule is an
edge to that submodule, not to the package, as Python loads it; `import a.b.c` is an edge to
`a.b.c`. A failure names each offending import with the chain that makes it one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "firmware": "magboard.firmware",
    "host": "magboard.host",
    "hardware": "magboard.hardware",
    "sim": "magboard.sim",
}

# Driver libraries (Blinka and the Adafruit drivers, the Pi's GPIO, the buses) belong to hardware/.
DRIVER_LIBRARIES = (
    "board",
    "busio",
    "digitalio",
    "neopixel",
    "neopixel_write",
    "adafruit_*",
    "RPi",
    "lgpio",
    "serial",
    "spidev",
    "smbus*",
)
# Where a driver library may be imported outside hardware/, and why.
DRIVER_EXCEPTIONS: dict[str, tuple[str, str]] = {
    "sim.neopixel_wire": (
        "neopixel",
        "the one fake of the NeoPixel wire: the real adafruit_neopixel runs and only its write"
        " is captured (README, How it works)",
    ),
    "firmware.app.ports": (
        "serial",
        "the serial link to a host speaks over a USB serial port: pyserial is its transport,"
        " not a driver of the board's electronics",
    ),
    "host.link": ("serial", "the host's end of the same serial link"),
}
# What the rules of a game must not touch: the clock and the outside world.
TIME_MODULES = ("time", "datetime", "sched")
IO_MODULES = (
    "os",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "socket",
    "select",
    "selectors",
    "subprocess",
    "signal",
    "fcntl",
    "mmap",
    "sqlite3",
    "urllib",
    "http",
    "asyncio",
    "threading",
    "logging",
)


@dataclass(frozen=True)
class Import:
    """One import statement's edge: `source` names `target` on `line`."""

    source: str
    target: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line})"


def source_files() -> dict[str, Path]:
    """Each module of the four packages by its name below `magboard.`, e.g. `firmware.app.run`."""
    modules = {}
    for directory in PACKAGES:
        for path in sorted((ROOT / directory).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


MODULES = source_files()


def local(name: str) -> str | None:
    """`magboard.x.y` as `x.y` when it is one of ours (or inside one), else None."""
    if not name.startswith("magboard."):
        return None
    name = name.removeprefix("magboard.")
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every absolute module name `module` imports, with its line: third-party and ours alike."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = ("magboard." + module).split(".")
                if not is_package:
                    package = package[:-1]
                base = ".".join(
                    package[: len(package) - node.level + 1]
                    + ([node.module] if node.module else [])
                )
            else:
                base = node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                is_submodule = local(submodule) == submodule.removeprefix("magboard.")
                yield (submodule if is_submodule else base), node.lineno


def graph() -> list[Import]:
    """Every import of every module, our modules named below `magboard.`, others as written."""
    edges = []
    for module, path in MODULES.items():
        for name, line in imports_of(module, path):
            target = local(name) if name.startswith("magboard.") else name
            if target and target != module:
                edges.append(Import(module, target, line))
    return edges


EDGES = graph()


def ours(edges: list[Import]) -> dict[str, list[Import]]:
    """The import graph among our own modules: each module's edges to others of ours."""
    out: dict[str, list[Import]] = {module: [] for module in MODULES}
    for edge in edges:
        if edge.target in MODULES:
            out[edge.source].append(edge)
    return out


def strongly_connected(out: dict[str, list[Import]]) -> list[frozenset[str]]:
    """Tarjan's strongly connected components of more than one module, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in out:
        if start in index:
            continue
        work = [(start, iter(out[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            edge = next(edges, None)
            if edge is not None:
                target = edge.target
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(out[target])))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(frozenset(component))
    return components


def cycle_through(component: frozenset[str], out: dict[str, list[Import]]) -> list[Import]:
    """One closed chain of imports inside `component`, from its first module back to it."""
    start = min(component)
    trail: dict[str, Import] = {}
    frontier = [start]
    while frontier:
        node = frontier.pop(0)
        for edge in out[node]:
            if edge.target == start:
                chain = [edge]
                while chain[0].source != start:
                    chain.insert(0, trail[chain[0].source])
                return chain
            if edge.target in component and edge.target not in trail:
                trail[edge.target] = edge
                frontier.append(edge.target)
    raise AssertionError(f"no cycle through {start}")


def matches(name: str, patterns: tuple[str, ...]) -> bool:
    """Whether module `name` is one of `patterns` or inside one (`x*` matches any name from x)."""
    top = name.split(".")[0]
    return any(top.startswith(p[:-1]) if p.endswith("*") else top == p for p in patterns)


def test_the_sources_were_found():
    assert {"firmware.app.run", "host.cli", "hardware.real", "sim.web.server"} <= MODULES.keys()
    assert len(EDGES) > 500


def test_from_package_import_submodule_is_an_edge_to_the_submodule(tmp_path):
    path = tmp_path / "run.py"
    path.write_text(
        "from magboard.firmware import app, events\n"
        "from . import wiring\n"
        "from .wiring import wire\n"
        "def later():\n"
        "    from ..journal import Journal\n"
        "    import serial.tools\n",
        encoding="utf-8",
    )
    assert list(imports_of("firmware.app.run", path)) == [
        ("magboard.firmware.app", 1),
        ("magboard.firmware.events", 1),
        ("magboard.firmware.app.wiring", 2),
        ("magboard.firmware.app.wiring", 3),
        ("magboard.firmware.journal", 5),
        ("serial.tools", 6),
    ]


def test_the_cycle_search_finds_a_circle_and_its_chain():
    a_b = Import("a", "b", 1)
    b_c = Import("b", "c", 2)
    c_a = Import("c", "a", 3)
    out = {"a": [a_b], "b": [b_c], "c": [c_a], "d": [Import("d", "a", 4)]}
    assert strongly_connected(out) == [frozenset("abc")]
    assert cycle_through(frozenset("abc"), out) == [a_b, b_c, c_a]
    assert strongly_connected({"a": [a_b], "b": [], "c": []}) == []


def test_no_import_circles():
    """Every strongly connected component of the import graph is a single module."""
    out = ours(EDGES)
    chains = {
        ", ".join(sorted(component)): " -> ".join(
            [str(edge) for edge in cycle_through(component, out)]
        )
        for component in strongly_connected(out)
    }
    assert chains == {}


def test_the_firmware_imports_no_sim_and_no_host():
    offences = [
        str(edge)
        for edge in EDGES
        if edge.source.startswith("firmware") and edge.target.split(".")[0] in ("sim", "host")
    ]
    assert offences == []


def test_the_sim_imports_no_host():
    offences = [
        str(edge)
        for edge in EDGES
        if edge.source.startswith("sim") and edge.target.split(".")[0] == "host"
    ]
    assert offences == []


@pytest.mark.parametrize(
    ("forbidden", "what"),
    [
        (("hardware",), "hardware"),
        (TIME_MODULES, "the clock"),
        (IO_MODULES, "I/O"),
        (DRIVER_LIBRARIES, "a driver library"),
    ],
)
def test_the_rules_know_nothing_of_hardware_time_or_io(forbidden, what):
    offences = [
        f"{edge} is {what}"
        for edge in EDGES
        if edge.source.startswith("firmware.games") and matches(edge.target, forbidden)
    ]
    assert offences == []


def test_driver_libraries_only_in_hardware():
    offences = [
        str(edge)
        for edge in EDGES
        if not edge.source.startswith("hardware")
        and matches(edge.target, DRIVER_LIBRARIES)
        and edge.target not in MODULES
        and DRIVER_EXCEPTIONS.get(edge.source, ("",))[0] != edge.target.split(".")[0]
    ]
    assert offences == []
