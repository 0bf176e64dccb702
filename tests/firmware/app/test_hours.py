"""Opening hours: open when the table says, closed on the dates it names, and the next opening
or closing found exactly (against a minute-by-minute walk)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.firmware.app.config import ConfigError, load_config
from magboard.firmware.app.hours import DAYS, OpeningHours, Outside, parse_hours

CAFE = parse_hours(
    {
        "monday": "10:00-18:00",
        "friday": "18:00-02:00",
        "saturday": "10:00-13:00, 14:00-23:30",
        "sunday": "00:00-24:00",
        "closed": ["2026-12-25"],
        "outside": "attract",
    }
)
MONDAY = datetime(2026, 11, 23)  # a Monday


def at(day: int, hhmm: str) -> datetime:
    hours, minutes = map(int, hhmm.split(":"))
    return MONDAY + timedelta(days=day, hours=hours, minutes=minutes)


@pytest.mark.parametrize(
    ("day", "time", "open_"),
    [
        (0, "09:59", False),
        (0, "10:00", True),
        (0, "17:59", True),
        (0, "18:00", False),
        (1, "12:00", False),  # Tuesday is not named: closed
        (4, "23:00", True),  # Friday night...
        (5, "01:59", True),  # ...past midnight
        (5, "02:00", False),
        (5, "13:30", False),  # Saturday's lunch break
        (5, "14:00", True),
        (6, "00:00", True),
        (6, "23:59", True),
    ],
)
def test_open_when_the_table_says(day, time, open_):
    assert CAFE.open_at(at(day, time)) is open_


def test_a_closed_date_closes_its_own_hours_only():
    christmas = datetime(2026, 12, 25, 20, 0)  # a Friday
    assert not CAFE.open_at(christmas)
    assert CAFE.open_at(datetime(2026, 12, 18, 20, 0))  # the Friday before
    assert CAFE.next_change(datetime(2026, 12, 24, 12, 0)) == datetime(2026, 12, 26, 10, 0)


def test_the_next_change_is_the_next_opening_or_closing():
    assert CAFE.next_change(at(0, "09:00")) == at(0, "10:00")
    assert CAFE.next_change(at(0, "10:00")) == at(0, "18:00")
    assert CAFE.next_change(at(0, "18:00")) == at(4, "18:00")
    assert CAFE.next_change(at(4, "19:00")) == at(5, "02:00")
    # Saturday 23:30 closes for half an hour only: Sunday is open all day.
    assert CAFE.next_change(at(5, "20:00")) == at(5, "23:30")
    assert CAFE.next_change(at(5, "23:40")) == at(6, "00:00")
    assert CAFE.outside is Outside.ATTRACT


def test_always_open_or_always_closed_never_changes():
    always = parse_hours({day: "00:00-24:00" for day in DAYS})
    assert always.open_at(at(2, "03:00")) and always.next_change(at(2, "03:00")) is None
    never = parse_hours({})
    assert not never.open_at(at(2, "03:00")) and never.next_change(at(2, "03:00")) is None


SPAN = st.tuples(st.integers(0, 23), st.sampled_from([0, 15, 30, 45]), st.integers(1, 20 * 4))


@st.composite
def tables(draw) -> OpeningHours:
    table: dict = {}
    for day in DAYS:
        spans = draw(st.lists(SPAN, max_size=2))
        texts = []
        for hour, minute, quarters in spans:
            end = (hour * 60 + minute + quarters * 15) % 1440
            texts.append(f"{hour:02d}:{minute:02d}-{end // 60:02d}:{end % 60:02d}")
        if texts:
            table[day] = ", ".join(texts)
    days = draw(st.lists(st.integers(0, 13), max_size=2))
    table["closed"] = [str(MONDAY.date() + timedelta(days=d)) for d in days]
    return parse_hours(table)


@settings(max_examples=40, deadline=None)
@given(hours=tables(), start=st.integers(0, 7 * 1440 - 1))
def test_the_next_change_agrees_with_a_walk_minute_by_minute(hours, start):
    when = MONDAY + timedelta(minutes=start)
    now = hours.open_at(when)
    found = hours.next_change(when)
    walk = when
    for _ in range(9 * 1440):
        walk += timedelta(minutes=1)
        if hours.open_at(walk) != now:
            assert found == walk
            return
    assert found is None or found > walk


def test_the_configuration_names_a_setting_it_cannot_use(tmp_path):
    path = tmp_path / "magboard.toml"
    path.write_text('[hours]\nmonday = "10:00-18:00"\nclosed = ["2026-12-25"]\n')
    hours = load_config(path).hours
    assert hours is not None and hours.closed == frozenset({date(2026, 12, 25)})
    assert load_config(path).hours.open_at(at(0, "11:00"))
    for text, said in [
        ('[hours]\nmonday = "10-18"\n', "hours.monday: '10-18' is not a span of time"),
        ('[hours]\nmonday = "10:00-25:00"\n', "hours.monday: '10:00-25:00' is not a time"),
        ('[hours]\nclosed = ["Christmas"]\n', "hours.closed: 'Christmas' is not a date"),
        ('[hours]\noutside = "blink"\n', 'hours.outside is "dark" or "attract"'),
        ('[hours]\nmondays = "10:00-18:00"\n', "hours.mondays is not a setting"),
    ]:
        path.write_text(text)
        with pytest.raises(ConfigError, match=re.escape(f"{path}: {said}")):
            load_config(path)
