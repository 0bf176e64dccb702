"""The status's `state`, as an exhibit manager's dashboard shows it, changing by itself in
virtual time: active while played, idle once left alone, closed outside the opening hours, out
of order when an operator says so; and each change is a new status to publish."""

from __future__ import annotations

import json
from datetime import datetime

from magboard.firmware.app.hours import parse_hours
from magboard.firmware.app.maintenance import maintenance_file, set_out_of_order
from magboard.firmware.app.mqtt_status import IDLE_AFTER, StatusWatch
from magboard.firmware.app.unattended import Unattended
from magboard.sim.session import SimSession

TUESDAY = {"tuesday": "17:50-18:00, 18:05-19:00"}


def test_active_then_idle_then_closed_then_out_of_order(tmp_path):
    journal = tmp_path / "magboard.db"
    session = SimSession(
        "mini",
        "tic-tac-toe",
        journal=journal,
        hours=parse_hours(TUESDAY),
        calendar=datetime(2026, 12, 1, 17, 50).timestamp(),
        maintenance=maintenance_file(journal),
    )
    session.lay_out()
    session.start()
    watch = StatusWatch(session.loop)
    assert watch.read(session.clock.now()).state == "idle"  # set up, nobody playing yet
    session.perform(session.state.parse_action("b2"))
    session.settle()
    assert watch.changed
    playing = watch.read(session.clock.now())
    assert playing.state == "active" and playing.reason is None and playing.opens_at is None
    session.run_for(IDLE_AFTER - 10)
    assert not watch.changed
    session.run_for(20)
    assert watch.changed  # nothing happened but time: the status is due again
    assert watch.read(session.clock.now()).state == "idle"
    session.run_until(10 * 60 + 1)  # 18:00
    assert watch.changed
    closed = watch.read(session.clock.now())
    assert (closed.state, closed.opens_at) == ("closed", "2026-12-01T18:05")
    set_out_of_order(session.loop.maintenance.path, "new felt")
    session.run_for(1.5)
    assert watch.changed
    out = json.loads(watch.read(session.clock.now()).to_json())
    assert (out["state"], out["reason"], out["opens_at"]) == ("out-of-order", "new felt", None)
    assert out["turn"] == 1  # the game is kept


def test_a_finished_game_is_idle_and_attract_modes_wait_is_when_idle_begins():
    session = SimSession("mini", "tic-tac-toe", unattended=Unattended(attract_after=60))
    session.lay_out()
    session.start()
    watch = StatusWatch(session.loop)
    session.perform(session.state.parse_action("b2"))
    session.settle()
    assert watch.read(session.clock.now()).state == "active"
    session.run_for(61)
    assert watch.read(session.clock.now()).state == "idle"
    for move in ("a1", "b1", "c1", "b3"):
        session.perform(session.state.parse_action(move))
        session.settle()
    assert session.state.outcome() is not None
    assert watch.read(session.clock.now()).state == "idle"
