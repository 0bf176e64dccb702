"""An idle board is idle: the Pi's loop (`magboard run`, with a serial link attached) scans the
sensors no more than once a second while nobody touches the board, and after a game ends its
animation stops and the lights stop being rewritten. Counted in virtual time."""

from __future__ import annotations

import pytest

from magboard.firmware.app.link import POLL as LINK_POLL
from magboard.firmware.app.link import SerialLink
from magboard.firmware.events import GameOver, LedFrame
from magboard.firmware.lights.palette import DEFAULT
from magboard.sim.session import SimSession

MINUTE = 60.0

X_WINS = ("a1", "b1", "b2", "c1", "c3")
"""X takes the a1-b2-c3 diagonal on its third move."""
DRAW = ("b2", "a1", "c1", "a3", "a2", "c2", "b3", "b1", "c3")
"""Nine pieces, no line."""


@pytest.fixture
def linked(tmp_path):
    session = SimSession("mini", "tic-tac-toe", journal=tmp_path / "magboard.db")
    link = SerialLink("pty", session.loop)
    session.lay_out()
    session.start()
    yield session
    link.close()


def play(session: SimSession, moves: tuple[str, ...]) -> None:
    for move in moves:
        session.perform(session.state.parse_action(move))
        session.settle()


def idle_for(session: SimSession, seconds: float) -> tuple[int, int]:
    """Runs the loop as `magboard run --link` does; the scans and LED frames it made."""
    scanner = session.loop.scanner
    scans, frames = scanner.scans, len(session.events)
    session.loop.run_until(session.clock.now() + seconds, look_every=LINK_POLL)
    written = sum(1 for e in session.events[frames:] if isinstance(e, LedFrame))
    return scanner.scans - scans, written


def test_an_untouched_board_with_a_link_scans_once_a_second(linked):
    linked.run_for(2.0)
    scans, frames = idle_for(linked, MINUTE)
    assert scans <= MINUTE + 1
    assert frames == 0


@pytest.mark.parametrize("moves", [X_WINS, DRAW], ids=["win", "draw"])
def test_after_a_game_the_animation_stops_and_the_board_goes_idle(linked, moves):
    play(linked, moves)
    assert any(isinstance(e, GameOver) for e in linked.events)
    _, celebrating = idle_for(linked, 5.0)
    assert celebrating > 5  # the end is animated at first
    idle_for(linked, DEFAULT.celebration_seconds)
    scans, frames = idle_for(linked, MINUTE)
    assert scans <= MINUTE + 1
    assert frames == 0


def test_a_touch_still_wakes_an_idle_board_at_once(linked):
    idle_for(linked, MINUTE)
    play(linked, ("b2",))
    assert [e.actions for e in linked.events if e.TYPE == "move"] == [("b2",)]
