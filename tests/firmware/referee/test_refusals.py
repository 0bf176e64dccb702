"""Refusals name the rule that refuses: what a hand tried, told from the board alone, fed
directly to the referee (no scanning, no simulator)."""

from __future__ import annotations

from magboard.firmware.events import Illegal
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import Referee
from magboard.hardware.spec import load_board

R1 = load_board("r1")
LANCE = get_game("lance-assembly")


def lance_referee():
    profile = profile_for(LANCE, R1, {"clock": "none"})
    events = []
    ref = Referee(profile, LANCE.new_state({"clock": "none"}), events.append)
    ref.start(0.0)
    events.clear()
    return ref, profile, events


def test_a_tile_from_the_other_seats_box_names_whose_it_is():
    """Lance Assembly's tiles wait in boxes no sensor sees: a tile south-down (B's) on c3 in
    A's turn is told from its magnet alone."""
    ref, profile, events = lance_referee()
    c3 = profile.to_board((2, 2))
    frame = profile.render(ref.position) | 1 << R1.sensor_bit[(c3, "s")]
    ref.judge(frame, 1.0, stable=True)
    (illegal,) = [e for e in events if isinstance(e, Illegal)]
    assert illegal.detail == "that is B's piece, and A is to move"
    assert illegal.remove == ("f6",)


def test_a_tile_of_the_mover_off_the_area_says_so():
    ref, profile, events = lance_referee()
    b2 = (1, 1)  # a board cell outside the 6x6 area (board d4-i9)
    frame = profile.render(ref.position) | 1 << R1.sensor_bit[(b2, "n")]
    ref.judge(frame, 1.0, stable=True)
    (illegal,) = [e for e in events if isinstance(e, Illegal)]
    assert illegal.detail == "that square is outside the game's area"
