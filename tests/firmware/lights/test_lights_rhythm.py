"""Every light's rhythm counts from the event that started its meaning: a later event (a mistake,
a piece lifted, progress on an obligation) never re-times what was already showing."""

from __future__ import annotations

import pytest

from magboard.firmware.lights import DEFAULT, Meaning, Rhythms, View, render
from magboard.firmware.lights.animation import next_change
from magboard.firmware.lights.palette import OFF
from magboard.hardware.spec import Slot, load_board

R1 = load_board("r1")
P = DEFAULT
SEAT_2 = R1.led_index["seat-2"]
FLAG_FELL = 432.404
MISTAKE = 433.291


def seat_2(view: View, now: float):
    return render(view, R1, now)[SEAT_2]


def led(view: View, place, now: float):
    return render(view, R1, now)[R1.led_index[place]]


def test_a_view_says_when_each_meaning_began_and_falls_back_to_its_own_moment():
    view = View(players=2, flagged=1, since=5.0, starts={Meaning.FLAGGED: 3.0})
    assert view.began(Meaning.FLAGGED) == 3.0
    assert view.began(Meaning.REMOVE) == 5.0
    assert hash(view) == hash(View(players=2, flagged=1, since=5.0, starts=view.starts))


def test_a_fallen_flag_flashes_from_its_fall_whatever_view_came_after():
    mistake = View(
        players=2,
        error={(5, 5)},
        remove={(5, 5)},
        flagged=1,
        since=MISTAKE,
        starts={Meaning.FLAGGED: FLAG_FELL},
    )
    # Double flash: 0-0.125 s and 0.25-0.375 s of every second since the fall.
    assert seat_2(mistake, FLAG_FELL + 2.05) != OFF
    assert seat_2(mistake, FLAG_FELL + 2.30) != OFF
    assert seat_2(mistake, FLAG_FELL + 1.90) == OFF
    assert seat_2(mistake, FLAG_FELL + 2.50) == OFF
    # It flashes for 30 s from the fall, then holds still (where a count from the mistake
    # would still be in a dark step).
    assert seat_2(mistake, FLAG_FELL + 30.4) != OFF
    assert seat_2(mistake, FLAG_FELL + 31.0) == seat_2(mistake, FLAG_FELL + 30.4)


def test_the_lights_wake_at_the_flags_own_steps():
    view = View(players=2, flagged=1, since=MISTAKE, starts={Meaning.FLAGGED: FLAG_FELL})
    now = FLAG_FELL + 3.9  # the dark of the fourth second: the next flash is at the fifth
    assert next_change(view, now) == pytest.approx(FLAG_FELL + 4.0)


def test_the_clocks_blinks_count_from_their_stage_not_from_the_last_move():
    rhythms = Rhythms()
    turn = View(players=2, to_move=1, clock="turn", since=74.0)
    rhythms.timed(turn, 74.0)
    last = rhythms.timed(View(players=2, to_move=1, clock="last-seconds", since=74.0), 422.404)
    assert last.began(Meaning.CLOCK_LAST_SECONDS) == 422.404
    assert seat_2(last, 422.45) != OFF  # the first quarter second: on, then off
    assert seat_2(last, 422.60) == OFF
    # A piece lifted meanwhile is a new view; the fast blink keeps its count.
    lifted = View(players=2, to_move=1, clock="last-seconds", targets={(3, 3)}, since=425.0)
    assert rhythms.timed(lifted, 425.0).began(Meaning.CLOCK_LAST_SECONDS) == 422.404


def test_a_flag_keeps_its_start_through_a_later_mistake():
    rhythms = Rhythms()
    flagged = View(players=2, obligation={(3, 3)}, flagged=1, since=FLAG_FELL)
    assert rhythms.timed(flagged, FLAG_FELL, "obligation").began(Meaning.FLAGGED) == FLAG_FELL
    mistake = View(players=2, obligation={(3, 3)}, remove={(3, 8)}, flagged=1, since=MISTAKE)
    timed = rhythms.timed(mistake, MISTAKE, "obligation")
    assert timed.began(Meaning.FLAGGED) == FLAG_FELL
    assert timed.began(Meaning.OBLIGATION) == FLAG_FELL  # still the same thing to do
    assert timed.began(Meaning.REMOVE) == MISTAKE  # the mistake's own meaning starts with it


def test_an_obligation_replaced_unchanged_keeps_its_wink():
    rhythms = Rhythms()
    places = {(4, 4), Slot("B", 4)}
    rhythms.timed(View(players=2, obligation=places, since=9.0), 9.0, "obligation")
    again = View(players=2, obligation=places, since=9.6)
    timed = rhythms.timed(again, 9.6, "obligation")
    assert timed.began(Meaning.OBLIGATION) == 9.0
    # Wink: on the first 0.75 s of every second since the obligation; at 9.6 + 0.3 the count
    # from the later view would still be on.
    assert led(timed, (4, 4), 9.9) == OFF
    assert led(timed, (4, 4), 10.1) != OFF


def test_a_put_back_goes_on_while_a_mistakes_other_places_change():
    rhythms = Rhythms()
    first = View(players=2, to_move=0, error={(1, 1)}, remove={(1, 1)}, put_back={(2, 2): 0})
    rhythms.timed(first, 3.0, "illegal")
    lifted = View(players=2, to_move=0, put_back={(2, 2): 0}, since=3.4)
    timed = rhythms.timed(lifted, 3.4, "illegal")
    assert timed.began(Meaning.PUT_BACK) == 3.0


def test_what_is_new_starts_at_its_own_event():
    """A mistake after a piece held wrongly, and each step of clearing the board, are the
    events that announce what they show: their rhythm starts with them."""
    rhythms = Rhythms()
    held = View(players=2, to_move=0, put_back={Slot("A", 1): 0}, since=3.53)
    rhythms.timed(held, 3.53, "in-hand")
    mistake = View(
        players=2, to_move=0, error={(0, 1)}, remove={(0, 1)}, put_back={Slot("A", 1): 0}
    )
    assert rhythms.timed(mistake, 4.08, "illegal").began(Meaning.PUT_BACK) == 4.08
    rhythms = Rhythms()
    rhythms.timed(View(players=2, remove={(0, 0), (0, 2)}, since=6.28), 6.28, "clearing")
    less = rhythms.timed(View(players=2, remove={(0, 2)}, since=7.78), 7.78, "clearing")
    assert less.began(Meaning.REMOVE) == 7.78
    second = View(players=2, to_move=0, error={(0, 1)}, remove={(0, 1)}, since=4.08)
    rhythms.timed(second, 4.08, "illegal")
    another = View(players=2, to_move=0, error={(0, 1)}, remove={(0, 1)}, since=5.0)
    assert rhythms.timed(another, 5.0, "illegal").began(Meaning.ERROR) == 5.0


def test_a_winning_line_runs_from_the_win_whatever_is_shown_after():
    rhythms = Rhythms()
    line = ((0, 0), (1, 1), (2, 2))
    rhythms.timed(View(players=2, win=line, winner=0, since=20.0), 20.0, "over")
    stray = View(players=2, win=line, winner=0, remove={(5, 5)}, since=23.1)
    timed = rhythms.timed(stray, 23.1, "over")
    assert timed.began(Meaning.WIN_LINE) == 20.0
    assert timed.began(Meaning.REMOVE) == 23.1
    assert next_change(timed, 49.99) == pytest.approx(50.0)  # the run stops 30 s after the win
