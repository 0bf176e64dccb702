"""`magboard sim --config FILE --at WHEN`: the simulated board keeps the configuration's opening
hours by a calendar its virtual clock drives, and its state directory's maintenance state, so
the page (which mirrors the LEDs) shows it closed or out of order."""

from __future__ import annotations

import argparse
from datetime import datetime

import pytest

from magboard.firmware.app.closing import Shut
from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.maintenance import set_out_of_order
from magboard.firmware.events import LedFrame
from magboard.sim.web.server import BoardHost, calendar_of


def host_of(tmp_path, at: str) -> BoardHost:
    config = tmp_path / "magboard.toml"
    config.write_text(f'journal = "{tmp_path / "magboard.db"}"\n[hours]\ntuesday = "10:00-18:00"\n')
    hours, maintenance, calendar = calendar_of(argparse.Namespace(config=str(config), at=at))
    assert maintenance == tmp_path / "maintenance"
    return BoardHost("mini", hours=hours, maintenance=maintenance, calendar=calendar)


def last_frame(host: BoardHost) -> str:
    return [e for e in host.session.events if isinstance(e, LedFrame)][-1].pixels


def test_the_simulated_board_closes_by_its_calendar_and_a_new_game_keeps_the_date(tmp_path):
    host = host_of(tmp_path, "2026-12-01T17:59:50")
    assert host.session.loop.shut is None
    host.session.run_for(15)
    assert host.session.loop.shut is Shut.CLOSED
    assert set(last_frame(host)) == {"0"}
    host.handle('{"do": "new-game", "game": "tic-tac-toe"}')
    assert host.session.clock.now() < 1.0  # a new board's clock, the same calendar
    assert host.session.loop.shut is Shut.CLOSED
    assert host.session.local_time() >= datetime(2026, 12, 1, 18, 0)


def test_the_simulated_board_is_out_of_order_while_its_state_directory_says_so(tmp_path):
    set_out_of_order(tmp_path / "maintenance", "demo")
    host = host_of(tmp_path, "2026-12-01T12:00")
    assert host.session.loop.shut is Shut.OUT_OF_ORDER
    assert set(last_frame(host)) != {"0"}  # the red cross


def test_a_start_time_that_is_not_one_is_one_line():
    with pytest.raises(CommandError, match="--at"):
        calendar_of(argparse.Namespace(config=None, at="teatime"))
