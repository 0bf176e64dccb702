"""Whether the board referees now: not while closed (outside its opening hours) nor while out
of order; and when that may change by itself, so the loop sleeps until then.

The opening hours are in wall time and the loop's clock is not a calendar: the calendar is
injected (on a Pi the local time, in the simulator and the tests a date driven by the virtual
clock). The loop's clock tells when to look again; the calendar is asked again at least once a
minute as well, so a Pi whose clock is set late (by NTP, after a boot without a network) opens
and closes on time once it is.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import Enum

from .hours import OpeningHours

LOOK_AGAIN = 60.0
"""Seconds of the loop's clock after which the calendar is asked again, whatever it said."""
MARGIN = 0.001
"""Seconds past a change to wake at: the calendar reads the new minute, never the old one's
last instant."""


class Shut(Enum):
    """Why the board does not referee now."""

    CLOSED = "closed"
    OUT_OF_ORDER = "out-of-order"


class Schedule:
    """The opening hours against a calendar, in the loop's clock."""

    def __init__(self, hours: OpeningHours, calendar: Callable[[], datetime], now: float) -> None:
        self.hours = hours
        self.calendar = calendar
        self.open = True
        self.changes_at: datetime | None = None
        """The calendar's time of the next opening or closing (None: never)."""
        self._wake: float | None = None
        self._look_at = now
        self.look(now)

    def look(self, now: float) -> bool:
        """Whether the board is open at `now`; the calendar is asked only when something may
        have changed (the next change is due, or a minute has passed)."""
        due = min(self._look_at, self._wake if self._wake is not None else self._look_at)
        if now < due:
            return self.open
        when = self.calendar()
        self.open = self.hours.open_at(when)
        self.changes_at = self.hours.next_change(when)
        changes = self.changes_at
        self._wake = None if changes is None else now + (changes - when).total_seconds() + MARGIN
        self._look_at = now + LOOK_AGAIN
        return self.open

    def next_wake(self) -> float | None:
        """When the board next opens or closes, on the loop's clock."""
        return self._wake
