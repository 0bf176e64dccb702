"""Opening hours on a running board, in virtual time: it closes at closing time (nothing is
judged, the lights go dark or invite play as configured, the game is kept), opens again at
opening time looking afresh at what is on it, and keeps closed dates and spans past midnight."""

from __future__ import annotations

from datetime import datetime

from magboard.firmware.app.closing import Shut
from magboard.firmware.app.hours import parse_hours
from magboard.firmware.events import (
    ButtonPressed,
    GameStarted,
    HoursChanged,
    LedFrame,
    Mismatch,
    Moved,
    Restored,
)
from magboard.sim.session import SimSession

MINUTE = 60.0


def at(*when: int) -> float:
    """The calendar (epoch seconds, local time) at virtual time 0."""
    return datetime(*when).timestamp()


def session_with(hours: dict, calendar: float, tmp_path=None) -> SimSession:
    found = SimSession(
        "mini",
        "tic-tac-toe",
        hours=parse_hours(hours),
        calendar=calendar,
        journal=tmp_path / "magboard.db" if tmp_path else None,
    )
    found.lay_out()
    found.start()
    return found


def play(session: SimSession, moves: tuple[str, ...]) -> None:
    for move in moves:
        session.perform(session.state.parse_action(move))
        session.settle()


def of(session: SimSession, kind: type) -> list:
    return [e for e in session.events if isinstance(e, kind)]


def last_frame(session: SimSession) -> str:
    return of(session, LedFrame)[-1].pixels


# Tuesday 1 December 2026: open 17:50-18:00 and again from 18:05 (short, to walk through).
TUESDAY = {"tuesday": "17:50-18:00, 18:05-19:00", "wednesday": "10:00-18:00"}


def test_at_closing_time_nothing_is_judged_the_lights_go_dark_and_the_game_is_kept(tmp_path):
    session = session_with(TUESDAY, at(2026, 12, 1, 17, 55), tmp_path)
    play(session, ("b2",))
    assert [m.actions for m in of(session, Moved)] == [("b2",)]
    session.run_for(5 * MINUTE)  # 18:00
    closed = of(session, HoursChanged)
    assert [(e.open, e.until) for e in closed] == [(False, "2026-12-01T18:05")]
    assert session.loop.shut is Shut.CLOSED
    assert set(last_frame(session)) == {"0"}  # dark, seat LEDs too
    written = len(of(session, LedFrame))
    session.perform(session.state.parse_action("a1"))  # O plays while closed
    session.settle()
    session.run_for(MINUTE)
    assert [m.actions for m in of(session, Moved)] == [("b2",)]  # not judged
    assert len(of(session, LedFrame)) == written  # and the lights stay dark
    assert session.journal.load().actions == ("b2",)  # the game as it was


def test_at_opening_time_the_board_asks_for_what_changed_meanwhile_to_be_put_right(tmp_path):
    session = session_with(TUESDAY, at(2026, 12, 1, 17, 59), tmp_path)
    play(session, ("b2",))
    session.run_for(MINUTE)
    assert session.loop.shut is Shut.CLOSED
    cell = session.board_cell((0, 0))
    piece = session.take("O")
    session.give(cell, piece)  # a move nobody saw made: never accepted
    session.run_for(5 * MINUTE)  # 18:05: open again
    assert [(e.open, e.until) for e in of(session, HoursChanged)] == [
        (False, "2026-12-01T18:05"),
        (True, "2026-12-01T19:00"),
    ]
    assert session.loop.shut is None
    mismatch = of(session, Mismatch)[-1]
    assert mismatch.remove == ("a1",)
    assert [m.actions for m in of(session, Moved)] == [("b2",)]
    session.give("O", session.take(cell))  # put right
    session.settle()
    assert of(session, Restored)
    play(session, ("a1",))  # and play goes on, judged again
    assert [m.actions for m in of(session, Moved)] == [("b2",), ("a1",)]


def test_the_loop_sleeps_through_the_closed_time_scanning_once_a_second():
    session = session_with(TUESDAY, at(2026, 12, 1, 18, 0, 30))
    assert session.loop.shut is Shut.CLOSED
    session.run_for(2.0)
    scans = session.loop.scanner.scans
    session.run_for(4 * MINUTE)
    assert session.loop.scanner.scans - scans <= 4 * MINUTE + 1
    session.run_for(MINUTE)
    assert session.loop.shut is None


def test_a_closed_date_keeps_the_board_closed_and_says_until_when():
    hours = {**TUESDAY, "closed": ["2026-12-02"], "thursday": "09:00-17:00"}
    session = session_with(hours, at(2026, 12, 1, 18, 58))
    session.run_for(3 * MINUTE)
    assert [(e.open, e.until) for e in of(session, HoursChanged)] == [(False, "2026-12-03T09:00")]


def test_a_span_past_midnight_belongs_to_the_night_it_began():
    # Saturday 5 December, 01:58: still Friday night's hours.
    session = session_with({"friday": "18:00-02:00"}, at(2026, 12, 5, 1, 58))
    assert session.loop.shut is None
    play(session, ("b2",))
    session.run_for(2 * MINUTE)
    assert [(e.open, e.until) for e in of(session, HoursChanged)] == [(False, "2026-12-11T18:00")]
    assert session.loop.shut is Shut.CLOSED


def test_a_board_started_outside_its_hours_starts_closed_and_opens_on_time():
    session = session_with(TUESDAY, at(2026, 12, 1, 17, 49))
    assert session.loop.shut is Shut.CLOSED
    assert [(e.open, e.until) for e in of(session, HoursChanged)] == [(False, "2026-12-01T17:50")]
    session.run_for(MINUTE)
    assert session.loop.shut is None
    play(session, ("b2",))
    assert [m.actions for m in of(session, Moved)] == [("b2",)]


def test_closed_with_attract_the_lights_invite_play_and_a_touch_changes_nothing():
    hours = {**TUESDAY, "outside": "attract"}
    session = session_with(hours, at(2026, 12, 1, 18, 0, 10))
    start = len(of(session, LedFrame))
    session.run_for(20.0)
    waving = {e.pixels for e in of(session, LedFrame)[start:]}
    assert len(waving) > 20  # a wave: a new frame every step
    session.perform(session.state.parse_action("b2"))
    session.settle()
    assert not of(session, Moved)
    assert session.loop.shut is Shut.CLOSED


def test_magboard_run_takes_the_hours_from_the_configuration_file(tmp_path):
    from magboard.firmware.app.run import request_of
    from magboard.host.cli import _parser

    path = tmp_path / "magboard.toml"
    journal = tmp_path / "state.db"
    path.write_text(
        f'journal = "{journal}"\n[hours]\nmonday = "09:00-17:00"\noutside = "attract"\n'
    )
    request = request_of(_parser().parse_args(["run", "--config", str(path)]))
    assert request.hours == parse_hours({"monday": "09:00-17:00", "outside": "attract"})


def test_buttons_pressed_while_closed_are_reported_and_change_nothing():
    session = session_with(TUESDAY, at(2026, 12, 1, 17, 59))
    play(session, ("b2",))
    session.run_for(MINUTE)
    assert session.loop.shut is Shut.CLOSED
    started = len(of(session, GameStarted))
    session.world.press("new")
    session.run_for(1.0)
    assert [(e.button, e.pressed) for e in of(session, ButtonPressed)] == [
        ("new", True),
        ("new", False),
    ]
    assert len(of(session, GameStarted)) == started and session.state.turn == 1
