"""A board's health for the heartbeat (`magboard/<board-id>/heartbeat`): whether its expanders
answer, how noisy its I2C bus is, how many faults it survived, what the last self-test found,
how long it has run, and how warm the Pi is. A museum's technician reads it from the office
before a visitor finds the board blind.

`HealthWatch` follows the loop's events (faults) and reads the scanner's counters, in the loop's
thread; it never touches the bus itself.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from magboard.firmware.events import Event, FaultSurvived
from magboard.hardware.spec import INPUT_PINS

from .loop import BoardLoop

THERMAL = Path("/sys/class/thermal/thermal_zone0/temp")
"""The Pi's SoC temperature in thousandths of a degree (absent elsewhere)."""


@dataclass(frozen=True)
class Health:
    t: float
    uptime: float
    """Seconds since the board started reporting."""
    expanders_present: tuple[str, ...]
    expanders_missing: tuple[str, ...]
    """Expanders not answering now: their squares are blind."""
    i2c_transfers: int
    i2c_errors: int
    i2c_error_rate: float | None
    """Failed transfers over all transfers since start (None before the first)."""
    faults: int
    """Fault events since start, of every kind."""
    fault_kinds: dict[str, int] = field(default_factory=dict)
    selftest: dict[str, Any] | None = None
    """The last self-test kept in the state database: when (`wall`), whether it `passed`, and
    its `stuck` sensors, `dead_sensors`, `dead_leds` and `missing_expanders`."""
    cpu_temp: float | None = None
    """Degrees Celsius, where the machine says (a Pi does; elsewhere None)."""

    def to_json(self) -> str:
        data = asdict(self)
        data["t"] = round(self.t, 6)
        data["uptime"] = round(self.uptime, 3)
        return json.dumps(data, separators=(",", ":"))


def selftest_summary(report: dict[str, Any] | None) -> dict[str, Any] | None:
    """The parts of a kept self-test report a heartbeat carries (the squares, not the crossings
    and timings)."""
    if report is None:
        return None
    if report.get("unreadable"):
        return {"wall": report.get("wall"), "unreadable": True}
    missing = report.get("missing_expanders") or []
    return {
        "wall": report.get("wall"),
        "passed": report.get("passed"),
        "stuck": list(report.get("stuck") or []),
        "dead_sensors": list(report.get("dead_sensors") or []),
        "dead_leds": list(report.get("dead_leds") or []),
        "missing_expanders": [m.get("name") for m in missing if isinstance(m, dict)],
    }


def cpu_temperature(path: Path = THERMAL) -> float | None:
    try:
        return round(int(path.read_text().strip()) / 1000, 1)
    except (OSError, ValueError):
        return None


class HealthWatch:
    def __init__(self, loop: BoardLoop, thermal: Path = THERMAL) -> None:
        self.loop = loop
        self.thermal = thermal
        self.started = loop.board.clock.now()
        spec = loop.board.spec
        self._labels = {e.index: e.label for e in spec.expanders}
        width = len(INPUT_PINS)
        self._bits = {e.index: ((1 << width) - 1) << (e.index * width) for e in spec.expanders}
        """Each expander's bits in a frame, blind while it does not answer."""
        self._lost: set[str] = set()
        """Expanders reported lost and not yet back."""
        self._faults: Counter[str] = Counter()
        self.selftest: dict[str, Any] | None = None
        """The last self-test's summary, refreshed with the usage figures."""

    def hear(self, event: Event) -> None:
        if not isinstance(event, FaultSurvived):
            return
        self._faults[event.kind] += 1
        if event.kind == "expander-lost":
            self._lost.add(event.where)
        elif event.kind == "expander-back":
            self._lost.discard(event.where)

    def read(self, now: float) -> Health:
        scanner = self.loop.scanner
        blind = scanner.blind
        missing = {
            label
            for index, label in self._labels.items()
            if label in self._lost or blind & self._bits[index]
        }
        labels = list(self._labels.values())
        transfers, errors = scanner.transfers, scanner.errors
        return Health(
            t=now,
            uptime=now - self.started,
            expanders_present=tuple(label for label in labels if label not in missing),
            expanders_missing=tuple(label for label in labels if label in missing),
            i2c_transfers=transfers,
            i2c_errors=errors,
            i2c_error_rate=round(errors / transfers, 6) if transfers else None,
            faults=sum(self._faults.values()),
            fault_kinds=dict(self._faults),
            selftest=self.selftest,
            cpu_temp=cpu_temperature(self.thermal),
        )
