"""Lance Assembly between bouts: the bout's winning lance runs in the winner's colour for a few
seconds (by the board's clock) before the board asks for the tiles to be cleared, so players
see which five won it. Played on a simulated r1 board in virtual time."""

from __future__ import annotations

from magboard.firmware.events import Moved, Obligation
from magboard.firmware.lights.palette import DEFAULT
from magboard.firmware.referee.obligations import ROUND_WON_SECONDS
from magboard.hardware.spec import place_label, place_label_any
from magboard.sim.following import shows
from magboard.sim.session import SimSession

BOUT = ("a1", "a6 end", "b1 end", "b6 end", "c1 end", "d6 end", "d1 end", "c6 end")
"""Bout 1 up to A's last turn: A holds a1-d1 (game a1 is board d4), B a row of its own."""
LANCE = ["d4", "e4", "f4", "g4", "h4"]
"""a1-e1 once A puts a tile on e1."""
OTHERS = ["d9", "e9", "f9", "g9"]
"""B's tiles, a6-d6: to clear as well."""


def play(session: SimSession, turn: str) -> None:
    for text in turn.split():
        if text == "end":
            seat = f"seat-{session.state.to_move + 1}"
            session.board.press(seat)
            session.run_for(0.1)
            session.board.release(seat)
        else:
            session.perform(session.state.parse_action(text))
        session.settle()


def bout_won() -> tuple[SimSession, float]:
    """A session where A has just won bout 1 with a1-e1, and when the bout ended."""
    session = SimSession("r1", "lance-assembly", {"clock": "none"})
    session.lay_out()
    session.start()
    session.settle()
    for turn in BOUT:
        play(session, turn)
    play(session, "e1 end")
    ended = next(e for e in session.events if isinstance(e, Obligation))
    return session, ended.t


def lit(session: SimSession, places: list[str], colour) -> bool:
    leds = session.board.visible_leds()
    index = {place_label_any(p): led for p, led in session.spec.led_index.items()}
    return all(shows(leds[index[place]], colour) for place in places)


def test_the_winning_lance_runs_in_the_winners_colour_then_the_board_asks_to_be_cleared():
    session, ended = bout_won()
    assert session.clock.now() < ended + 1.0
    session.run_until(ended + 0.5)
    assert lit(session, LANCE, DEFAULT.players[0])
    assert lit(session, OTHERS, (0, 0, 0))  # nothing asks to be cleared yet
    assert lit(session, ["seat-1", "seat-2"], DEFAULT.players[0])  # the bout's winner
    session.run_until(ended + ROUND_WON_SECONDS - 0.2)
    assert not lit(session, LANCE, DEFAULT.obligation)
    # Then every tile winks white, on for most of each second from when the ask began.
    session.run_until(ended + ROUND_WON_SECONDS + 0.3)
    assert lit(session, LANCE + OTHERS, DEFAULT.obligation)
    session.run_until(ended + ROUND_WON_SECONDS + 0.9)
    assert lit(session, LANCE + OTHERS, (0, 0, 0))  # the wink's short break


def test_the_bout_event_is_said_at_once_and_names_the_result():
    session, ended = bout_won()
    last = next(e for e in reversed(session.events) if isinstance(e, Moved))
    assert last.actions == ("e1", "end") and last.t == ended  # with the turn, not later
    asked = [e for e in session.events if isinstance(e, Obligation)]
    assert len(asked) == 1
    assert asked[0].detail.startswith("bout 1: A made a lance of five (A 1, B 0)")
    assert set(asked[0].places) >= set(LANCE + OTHERS)


def test_clearing_at_once_lights_only_the_tiles_left():
    session, ended = bout_won()
    session.world.lift(session.profile.to_board((0, 0)))  # d4, a tile of the lance
    session.settle()
    assert session.clock.now() < ended + ROUND_WON_SECONDS
    shown = {place_label(p) for p in session.referee.view(fault=False).obligation}
    assert shown >= set(LANCE[1:] + OTHERS) and "d4" not in shown
