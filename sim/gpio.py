"""Simulated input lines of the Pi, and the wired logic of whatever drives them.

A line is one Pi GPIO pin used as an input. Things on the board drive it through a
`LineDriver`: an MCP23017 INT output, a button, a test. A driver either forces a level (0 or 1)
or lets go (None, high impedance). An open-drain output only ever pulls low or lets go; a
push-pull output always forces one level or the other. The resolved level is:

- low if any driver pulls low, else high if any driver forces high (wired-AND: several
  open-drain INT outputs on one line with a pull-up make an active-low "any interrupt" line);
- with no driver active, the pull decides: up reads 1, down reads 0, none floats and reads 0
  here (a real floating input reads whatever noise gives it);
- one driver forcing high while another pulls low is a short circuit on a real board, so it
  raises `LineContentionError` instead of picking a winner.

Edge callbacks run synchronously, in the caller's thread, when the resolved level changes. If a
callback causes further edges on the same line (it reads an expander, which releases INT), those
edges are queued and delivered in order after the running callback returns, as one event thread
would deliver them, rather than nesting one callback inside another.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Literal

Pull = Literal["up", "down", "none"]
Edge = Literal["rising", "falling", "both"]
EdgeCallback = Callable[["GpioLine", int], None]

_PULLS = ("up", "down", "none")
_EDGES = ("rising", "falling", "both")


class LineContentionError(RuntimeError):
    """Two drivers force one line to opposite levels (a short circuit on real hardware)."""


class LineDriver:
    """One output connected to a `GpioLine`; `drive(0 | 1 | None)` sets what it does."""

    __slots__ = ("_level", "_line", "diode", "name")

    def __init__(self, line: GpioLine, name: str, diode: bool = False) -> None:
        self._line = line
        self.name = name
        self.diode = diode
        """Wired through a diode, cathode at the output: it can pull the line low, never high."""
        self._level: int | None = None

    @property
    def line(self) -> GpioLine:
        return self._line

    @property
    def level(self) -> int | None:
        """What this driver does now: 0 or 1 forced, None let go."""
        return self._level

    def drive(self, level: int | None) -> None:
        """Force 0 or 1, or let go with None; the line re-resolves at once."""
        if level == self._level:
            return
        if level not in (0, 1, None):
            raise ValueError(f"a driver level is 0, 1 or None, not {level!r}")
        if self.diode and level == 1:
            level = None  # the diode blocks: to the line, a high output is let go
        if level == self._level:
            return
        self._level = level
        self._line._resolve()

    def __repr__(self) -> str:
        return f"LineDriver({self.name!r}, level={self._level!r})"


class GpioLine:
    """A Pi input line with an optional pull, wired drivers and edge callbacks."""

    def __init__(self, name: str = "gpio", *, pull: Pull = "none") -> None:
        if pull not in _PULLS:
            raise ValueError(f"pull must be one of {_PULLS}, not {pull!r}")
        self.name = name
        self._pull: Pull = pull
        self._drivers: list[LineDriver] = []
        self._callbacks: list[tuple[EdgeCallback, Edge]] = []
        self._queued_edges: deque[int] = deque()
        self._dispatching = False
        self._level = 1 if pull == "up" else 0

    @property
    def level(self) -> int:
        """The resolved level the Pi reads: 0 or 1."""
        return self._level

    @property
    def pull(self) -> Pull:
        return self._pull

    @pull.setter
    def pull(self, pull: Pull) -> None:
        """The Pi side configures its pull when it requests the line; edges may follow."""
        if pull not in _PULLS:
            raise ValueError(f"pull must be one of {_PULLS}, not {pull!r}")
        self._pull = pull
        self._resolve()

    @property
    def drivers(self) -> tuple[LineDriver, ...]:
        return tuple(self._drivers)

    def add_driver(self, name: str, diode: bool = False) -> LineDriver:
        """Connect a new output to this line; it starts let go (high impedance). With `diode`
        it reaches the line through a diode and can only pull it low."""
        driver = LineDriver(self, name, diode)
        self._drivers.append(driver)
        return driver

    def add_edge_callback(self, fn: EdgeCallback, edge: Edge = "both") -> None:
        """Call `fn(line, level)` on every `edge` of the resolved level."""
        if edge not in _EDGES:
            raise ValueError(f"edge must be one of {_EDGES}, not {edge!r}")
        self._callbacks.append((fn, edge))

    def remove_edge_callback(self, fn: EdgeCallback) -> None:
        """Forget every registration of `fn` on this line."""
        kept = [entry for entry in self._callbacks if entry[0] is not fn]
        if len(kept) == len(self._callbacks):
            raise ValueError(f"{fn!r} is not an edge callback of line {self.name!r}")
        self._callbacks = kept

    def _resolve(self) -> None:
        low = high = None
        for driver in self._drivers:
            if driver._level == 0:
                low = driver
            elif driver._level == 1:
                high = driver
        if low is not None and high is not None:
            raise LineContentionError(
                f"line {self.name!r}: {high.name!r} drives high while {low.name!r} drives low"
                " (push-pull outputs sharing a line must be open-drain instead)"
            )
        if low is not None:
            level = 0
        elif high is not None:
            level = 1
        else:
            level = 1 if self._pull == "up" else 0
        if level != self._level:
            self._level = level
            self._deliver(level)

    def _deliver(self, level: int) -> None:
        self._queued_edges.append(level)
        if self._dispatching:
            return
        self._dispatching = True
        try:
            while self._queued_edges:
                edge_level = self._queued_edges.popleft()
                edge = "rising" if edge_level else "falling"
                for fn, wanted in tuple(self._callbacks):
                    if wanted == "both" or wanted == edge:
                        fn(self, edge_level)
        finally:
            self._dispatching = False
            self._queued_edges.clear()

    def __repr__(self) -> str:
        return f"GpioLine({self.name!r}, pull={self._pull!r}, level={self._level})"
