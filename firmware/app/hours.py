"""Opening hours: when a museum's or a cafe's board referees, and what it shows the rest of the
time (`[hours]` in the configuration).

    [hours]
    monday = "10:00-18:00"
    saturday = "10:00-13:00, 14:00-23:30"
    friday = "18:00-02:00"          # past midnight: the night belongs to Friday
    closed = ["2026-12-25"]         # dates the board stays closed, whatever the weekday
    outside = "attract"             # or "dark" (the default)

A day not named is closed. Times are the board's local time. Only wall time counts here (the
loop's own clock is not a calendar); the loop asks whether the board is open now and when that
changes next, and does the rest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import Enum
from typing import Any

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SPAN = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


class HoursError(ValueError):
    """A setting of `[hours]` that cannot be used; the message names the key."""


class Outside(Enum):
    """What the board shows while closed."""

    DARK = "dark"
    ATTRACT = "attract"


@dataclass(frozen=True)
class Span:
    """Open from `start` to `end`, minutes after the day's midnight; an `end` at or before the
    `start` runs past midnight into the next day."""

    start: int
    end: int

    @property
    def overnight(self) -> bool:
        return self.end <= self.start


@dataclass(frozen=True)
class OpeningHours:
    week: tuple[tuple[Span, ...], ...]
    """Monday's spans first."""
    closed: frozenset[date] = frozenset()
    outside: Outside = Outside.DARK

    def open_at(self, when: datetime) -> bool:
        minute = when.hour * 60 + when.minute
        today, yesterday = when.date(), when.date() - timedelta(days=1)
        for span in self._spans(today):
            if span.start <= minute and (span.overnight or minute < span.end):
                return True
        return any(span.overnight and minute < span.end for span in self._spans(yesterday))

    def next_change(self, when: datetime) -> datetime | None:
        """The first minute after `when` at which the board opens or closes; None if it never
        does again (open all the time, or closed all the time)."""
        now = self.open_at(when)
        midnight = datetime.combine(when.date(), datetime.min.time(), when.tzinfo)
        moments = sorted(
            midnight + timedelta(days=day, minutes=minute)
            for day in range(-1, 9)
            for span in self.week[(when.weekday() + day) % 7]
            for minute in (span.start, span.end + (1440 if span.overnight else 0))
        )
        for moment in moments:
            if moment > when and self.open_at(moment) != now:
                return moment
        # Eight days with no change here may still end at a closed date further on.
        later = [day for day in sorted(self.closed) if day > when.date() + timedelta(days=8)]
        for day in later[:1]:
            moment = datetime.combine(day, datetime.min.time(), when.tzinfo)
            if self.open_at(moment) != now:
                return moment
        return None

    def _spans(self, day: date) -> tuple[Span, ...]:
        return () if day in self.closed else self.week[day.weekday()]


def parse_hours(table: Mapping[str, Any]) -> OpeningHours:
    """The `[hours]` table (HoursError naming the key if a setting cannot be used)."""
    known = (*DAYS, "closed", "outside")
    for key in table:
        if key not in known:
            raise HoursError(f"hours.{key} is not a setting (the settings: {', '.join(known)})")
    week = tuple(_day(f"hours.{day}", table.get(day)) for day in DAYS)
    closed = table.get("closed", [])
    if not isinstance(closed, list):
        raise HoursError(f'hours.closed is a list of dates ("2026-12-25"), not {closed!r}')
    dates = set()
    for value in closed:
        try:
            dates.add(value if isinstance(value, date) else date.fromisoformat(str(value)))
        except ValueError:
            raise HoursError(f"hours.closed: {value!r} is not a date (YYYY-MM-DD)") from None
    outside = table.get("outside", Outside.DARK.value)
    try:
        shown = Outside(outside)
    except ValueError:
        choices = " or ".join(f'"{o.value}"' for o in Outside)
        raise HoursError(f"hours.outside is {choices}, not {outside!r}") from None
    return OpeningHours(week, frozenset(dates), shown)


def _day(key: str, value: object) -> tuple[Span, ...]:
    if value is None or value == "closed":
        return ()
    if not isinstance(value, str):
        raise HoursError(f'{key} is "HH:MM-HH:MM" (several separated by commas), not {value!r}')
    spans = []
    for text in value.split(","):
        match = _SPAN.match(text)
        if not match:
            raise HoursError(f'{key}: {text.strip()!r} is not a span of time ("10:00-18:00")')
        hours_from, minutes_from, hours_to, minutes_to = map(int, match.groups())
        if max(hours_from, hours_to) > 24 or max(minutes_from, minutes_to) > 59:
            raise HoursError(f"{key}: {text.strip()!r} is not a time of day")
        start, end = hours_from * 60 + minutes_from, hours_to * 60 + minutes_to
        spans.append(Span(start % 1440, end % 1440 if end != 1440 else 1440))
    return tuple(spans)
