"""What a self-test found, as a value: kept by the state database, printed for the operator.

Squares are named as the board names them (`a1`, or `A4` for a tray slot), sensors as
`square.channel` (`c3.n`; a slot's single sensor is the slot's name), expanders by their name in
the board file's order (`U11`) and their address. `to_dict` gives plain JSON values and
`from_dict` takes them back, so a report read from the database is the report that was kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


class SelfTestReportError(ValueError):
    """A stored report that cannot be read back (a key missing or of the wrong kind)."""


def square_of(sensor: str) -> str:
    """The square a sensor name belongs to: `c3.n` -> `c3`; a slot's sensor is the slot."""
    return sensor.partition(".")[0]


@dataclass(frozen=True)
class MissingExpander:
    """An expander that did not answer, and the squares it leaves untested."""

    name: str
    address: int
    wiring: str
    """Where it hangs: the bus, and the mux channel if any (`i2c1 via mux ch1`)."""
    squares: tuple[str, ...]
    """Every square with a sensor on it: none of them could be tested fully (their sensors on
    other expanders were tested)."""

    def describe(self) -> str:
        return f"{self.name} at 0x{self.address:02x} ({self.wiring})"


@dataclass(frozen=True)
class Crossing:
    """The magnet put on the lit square showed on other sensors instead.

    Two swapped wires show as two crossings that name each other; a magnet put on the wrong
    square by a slip of the hand, then moved to the lit one, is not kept (that visit passed).
    """

    lit: str
    read: tuple[str, ...]
    """Sensors elsewhere that saw a magnet while the square was lit."""
    missing: tuple[str, ...]
    """Sensors of the lit square that never did."""


@dataclass(frozen=True)
class SelfTestReport:
    board: str
    squares: int
    """How many squares (cells and tray slots) the board has."""
    channels: tuple[str, ...]
    """The cell channels the magnet had to trip on every cell (a slot has one sensor)."""
    missing_expanders: tuple[MissingExpander, ...]
    stuck: tuple[str, ...]
    """Sensors that read a magnet when none was there."""
    dead_sensors: tuple[str, ...]
    """Sensors that never saw the magnet put over them."""
    dead_leds: tuple[str, ...]
    """Squares whose LED the person could not see lit (their sensors were not checked)."""
    crossed: tuple[Crossing, ...]
    i2c_errors: int
    i2c_transfers: int
    error_rate_limit: float
    """The share of failed transfers above which the bus fails the test."""
    started: float
    finished: float
    """The board clock's seconds (virtual on the simulator): a duration, not a date."""

    @property
    def error_rate(self) -> float:
        return self.i2c_errors / self.i2c_transfers if self.i2c_transfers else 0.0

    @property
    def bus_ok(self) -> bool:
        return self.error_rate <= self.error_rate_limit

    @property
    def failed_squares(self) -> frozenset[str]:
        """Every square named by a failure: untested, stuck, dead, dark or crossed."""
        names = {s for e in self.missing_expanders for s in e.squares}
        names |= {square_of(s) for s in (*self.stuck, *self.dead_sensors)}
        names |= set(self.dead_leds)
        names |= {c.lit for c in self.crossed}
        return frozenset(names)

    @property
    def passed(self) -> bool:
        found = (
            self.missing_expanders,
            self.stuck,
            self.dead_sensors,
            self.dead_leds,
            self.crossed,
        )
        return self.bus_ok and not any(found)

    # -- for people ----------------------------------------------------------------------------

    def lines(self) -> list[str]:
        """The summary an operator reads: one line per finding, then the verdict."""
        minutes, seconds = divmod(round(self.finished - self.started), 60)
        channels = " ".join(self.channels) or "none"
        out = [
            f"self-test of board {self.board}: {self.squares} squares, "
            f"magnet on channels {channels}, took {minutes} min {seconds} s"
        ]
        for expander in self.missing_expanders:
            out.append(
                f"missing expander {expander.describe()}: not answering; "
                f"sensors of {' '.join(expander.squares) or 'no square'} untested"
            )
        out += [f"stuck sensor {s}: reads a magnet with nothing there" for s in self.stuck]
        out += [f"dead sensor {s}: never saw the magnet" for s in self.dead_sensors]
        out += [f"dead LED {s}: not seen lit; its sensors not checked" for s in self.dead_leds]
        for crossing in self.crossed:
            missing = f" ({' '.join(crossing.missing)} never did)" if crossing.missing else ""
            out.append(
                f"crossed: the magnet for {crossing.lit} showed at {' '.join(crossing.read)}"
                f"{missing}"
            )
        errors = _plural(self.i2c_errors, "error")
        transfers = _plural(self.i2c_transfers, "transfer")
        out.append(
            f"I2C: {errors} in {transfers} "
            f"({self.error_rate:.3%}; at most {self.error_rate_limit:.3%} passes)"
        )
        out.append(f"verdict: {self.verdict()}")
        return out

    def verdict(self) -> str:
        if self.passed:
            return f"all {self.squares} squares passed"
        failures = [
            _count(len(self.missing_expanders), "missing expander"),
            _count(len(self.stuck), "stuck sensor"),
            _count(len(self.dead_sensors), "dead sensor"),
            _count(len(self.dead_leds), "dead LED"),
            _count(len(self.crossed), "crossed square"),
        ]
        if not self.bus_ok:
            failures.append(f"I2C errors above {self.error_rate_limit:.3%}")
        passed = self.squares - len(self.failed_squares)
        return f"FAILED: {passed} of {self.squares} squares passed; " + ", ".join(
            f for f in failures if f
        )

    # -- for the database ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values; `error_rate` and `passed` are there for readers of the JSON and
        are worked out again, not read, by `from_dict`."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "missing_expanders":
                value = [{**vars(e), "squares": list(e.squares)} for e in value]
            elif f.name == "crossed":
                value = [
                    {"lit": c.lit, "read": list(c.read), "missing": list(c.missing)} for c in value
                ]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        out["error_rate"] = self.error_rate
        out["passed"] = self.passed
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SelfTestReport:
        try:
            return cls(
                board=str(data["board"]),
                squares=int(data["squares"]),
                channels=_strings(data["channels"]),
                missing_expanders=tuple(
                    MissingExpander(
                        name=str(e["name"]),
                        address=int(e["address"]),
                        wiring=str(e["wiring"]),
                        squares=_strings(e["squares"]),
                    )
                    for e in data["missing_expanders"]
                ),
                stuck=_strings(data["stuck"]),
                dead_sensors=_strings(data["dead_sensors"]),
                dead_leds=_strings(data["dead_leds"]),
                crossed=tuple(
                    Crossing(str(c["lit"]), _strings(c["read"]), _strings(c["missing"]))
                    for c in data["crossed"]
                ),
                i2c_errors=int(data["i2c_errors"]),
                i2c_transfers=int(data["i2c_transfers"]),
                error_rate_limit=float(data["error_rate_limit"]),
                started=float(data["started"]),
                finished=float(data["finished"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise SelfTestReportError(f"not a self-test report: {error!r}") from None


def _strings(values: Any) -> tuple[str, ...]:
    if isinstance(values, str):
        raise TypeError(f"a list of names, not the string {values!r}")
    return tuple(str(v) for v in values)


def _plural(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def _count(n: int, what: str) -> str:
    return _plural(n, what) if n else ""
