"""render: every element of the visual language on the right LEDs, in the right colour and level,
at the right moments; precedence; status LEDs; places without an LED."""

from __future__ import annotations

import dataclasses

import pytest

from magboard.firmware.lights import DEFAULT, PRECEDENCE, Palette, View, render
from magboard.firmware.lights.animation import next_change
from magboard.firmware.lights.palette import OFF, dimmed
from magboard.hardware.spec import Slot, load_board

R1 = load_board("r1")
MINI = load_board("mini")
P = DEFAULT
FAST_HALF = 0.5 / P.fast_blink_hz
SLOW_HALF = 0.5 / P.slow_blink_hz


def lit(frame):
    """LED index -> colour of every LED that is not dark."""
    return {i: c for i, c in enumerate(frame) if c != OFF}


def at(spec, *places):
    return {spec.led_index[p] for p in places}


def seat_led(spec, seat):
    return spec.led_index[f"seat-{seat + 1}"]


@pytest.mark.parametrize("spec", [R1, MINI], ids=["r1", "mini"])
def test_a_frame_has_one_colour_per_led_and_an_empty_view_is_dark(spec):
    frame = render(View(players=2), spec, 0.0)
    assert len(frame) == spec.leds.count
    assert lit(frame) == {}


def test_the_palette_keeps_seats_apart_and_blinks_above_steady_light():
    assert len(set(P.players)) == len(P.players) == 4
    assert P.error not in P.players and P.obligation not in P.players
    assert P.target_level < P.last_move_level < P.due_level < P.blink_level
    assert P.fast_blink_hz > P.slow_blink_hz


def test_targets_are_dim_and_steady_in_the_movers_colour():
    view = View(players=2, to_move=1, targets={(0, 0), (4, 7), Slot("B", 3)}, since=10.0)
    expected = dimmed(P.players[1], P.target_level)
    for now in (10.0, 10.3, 11.7, 60.0):
        frame = lit(render(view, R1, now))
        leds = at(R1, (0, 0), (4, 7), Slot("B", 3))
        assert {i: frame[i] for i in leds} == dict.fromkeys(leds, expected)
        assert set(frame) == leds | {seat_led(R1, 1)}


def test_what_a_turn_must_still_move_glows_steadily_above_where_it_may_go():
    tile = {(4, 6), (4, 7), (5, 6), (5, 7)}
    view = View(players=2, to_move=0, due=tile, targets={(3, 6), (3, 7)}, since=2.0)
    frames = [lit(render(view, R1, now)) for now in (2.0, 2.6, 30.0)]
    assert frames[0] == frames[1] == frames[2]  # steady: nothing to rewrite while it waits
    bright, dim = dimmed(P.players[0], P.due_level), dimmed(P.players[0], P.target_level)
    assert {frames[0][i] for i in at(R1, *tile)} == {bright}
    assert {frames[0][i] for i in at(R1, (3, 6), (3, 7))} == {dim}


def test_the_last_move_glows_softly_in_its_movers_colour():
    view = View(players=2, to_move=1, last_move={(2, 2), (3, 3)}, last_mover=0)
    frame = lit(render(view, MINI, 5.0))
    expected = dimmed(P.players[0], P.last_move_level)
    assert {i: frame[i] for i in at(MINI, (2, 2))} == {MINI.led_index[(2, 2)]: expected}
    # (3, 3) is off the 3x3 lattice: no LED, nothing drawn, no error
    assert set(frame) == at(MINI, (2, 2)) | {seat_led(MINI, 1)}


def test_an_error_blinks_fast_in_red_from_the_moment_the_view_began():
    view = View(players=2, to_move=0, error={(5, 5)}, since=3.0)
    led = R1.led_index[(5, 5)]
    red = dimmed(P.error, P.blink_level)
    phases = [
        render(view, R1, 3.0 + t)[led] for t in (0, 0.9 * FAST_HALF, FAST_HALF, 1.5 * FAST_HALF)
    ]
    assert phases == [red, red, OFF, OFF]
    assert render(view, R1, 3.0 + 2 * FAST_HALF)[led] == red


def test_an_error_decays_into_what_must_be_removed_or_put_back():
    view = View(
        players=2,
        to_move=0,
        error={(1, 1), (2, 2)},
        remove={(1, 1)},
        put_back={(2, 2): 1},
        since=0.0,
    )
    removed, returned = R1.led_index[(1, 1)], R1.led_index[(2, 2)]
    red = dimmed(P.error, P.blink_level)
    assert render(view, R1, FAST_HALF)[removed] == OFF  # the fast blink's off phase
    after = P.error_seconds
    # the slow blink counts from `since` too: at 1.5 s it is in its off phase, at 2.0 s on
    assert render(view, R1, after + 0.01)[removed] == OFF
    frame = render(view, R1, 2.0)
    assert frame[removed] == dimmed(P.remove, P.blink_level) == red
    assert frame[returned] == dimmed(P.players[1], P.blink_level)


def test_an_error_without_anything_to_put_right_goes_dark_after_its_blink():
    view = View(players=2, to_move=0, error={(4, 4)}, since=0.0)
    led = R1.led_index[(4, 4)]
    assert render(view, R1, 2 * FAST_HALF)[led] != OFF
    assert render(view, R1, P.error_seconds)[led] == OFF
    assert render(view, R1, P.error_seconds + 2 * FAST_HALF)[led] == OFF


def test_what_to_remove_blinks_slowly():
    view = View(players=2, to_move=0, since=7.0, remove={(6, 1)})
    led = R1.led_index[(6, 1)]
    on = dimmed(P.remove, P.blink_level)
    times = [
        7.0,
        7.0 + 0.9 * SLOW_HALF,
        7.0 + SLOW_HALF,
        7.0 + 1.9 * SLOW_HALF,
        7.0 + 2 * SLOW_HALF,
    ]
    assert [render(view, R1, t)[led] for t in times] == [on, on, OFF, OFF, on]


FLASH = P.flash_step_seconds


@pytest.mark.parametrize(
    ("field", "value", "colour", "shape"),
    [
        ("put_back", {(6, 1): 1}, P.players[1], "#.#....."),  # double flash
        ("obligation", {(6, 1)}, P.obligation, "######.."),  # wink: long on, short off
    ],
)
def test_other_things_to_put_right_have_rhythms_of_their_own(field, value, colour, shape):
    """Each is told apart from "remove" by its rhythm, not only its colour; each is on at the
    moment it begins, as a slow blink is."""
    view = View(players=2, to_move=0, since=7.0, **{field: value})
    led = R1.led_index[(6, 1)]
    on = dimmed(colour, P.blink_level)
    for cycle in (0, 3):
        for i, mark in enumerate(shape):
            t = 7.0 + (cycle * len(shape) + i + 0.5) * FLASH
            assert render(view, R1, t)[led] == (on if mark == "#" else OFF), (cycle, i)


def test_put_back_uses_the_colour_of_each_pieces_owner_and_works_in_trays():
    view = View(players=2, put_back={Slot("A", 2): 0, Slot("B", 13): 1})
    frame = render(view, MINI, 0.0)
    assert frame[MINI.led_index[Slot("A", 2)]] == dimmed(P.players[0], P.blink_level)
    assert frame[MINI.led_index[Slot("B", 13)]] == dimmed(P.players[1], P.blink_level)


def test_the_winning_line_has_a_bright_light_running_along_it_in_order():
    line = ((0, 0), (1, 1), (2, 2), (3, 3))
    view = View(players=2, win=line, winner=1, since=20.0)
    bright = dimmed(P.players[1], P.blink_level)
    soft = dimmed(P.players[1], P.win_line_level)
    heads = []
    for step in range(6):
        frame = render(view, R1, 20.0 + step * P.win_step_seconds)
        colours = [frame[R1.led_index[place]] for place in line]
        assert sorted(colours) == sorted([bright, soft, soft, soft])
        heads.append(colours.index(bright))
    assert heads == [0, 1, 2, 3, 0, 1]


def test_a_win_lights_every_seat_in_play_in_the_winners_colour():
    view = View(players=3, win=((0, 0), (0, 1), (0, 2)), winner=2)
    frame = render(view, R1, 0.0)
    winner = dimmed(P.players[2], P.blink_level)
    assert [frame[seat_led(R1, s)] for s in range(4)] == [winner, winner, winner, OFF]


def test_the_seat_led_of_the_player_to_move_is_lit_steadily_in_their_colour():
    for seat in range(4):
        view = View(players=4, to_move=seat, since=1.0)
        frames = [render(view, R1, t) for t in (1.0, 1.3, 9.0)]
        assert frames[0] == frames[1] == frames[2]
        expected = {seat_led(R1, seat): dimmed(P.players[seat], P.status_level)}
        assert lit(frames[0]) == expected


def test_a_draw_pulses_every_seat_in_its_own_colour():
    view = View(players=2, draw=True, since=0.0)
    low, high = P.draw_levels
    start = render(view, MINI, 0.0)
    middle = render(view, MINI, P.draw_pulse_seconds / 2)
    assert start[seat_led(MINI, 0)] == dimmed(P.players[0], low)
    assert middle[seat_led(MINI, 0)] == dimmed(P.players[0], high)
    assert middle[seat_led(MINI, 1)] == dimmed(P.players[1], high)
    assert render(view, MINI, P.draw_pulse_seconds) == start
    assert set(lit(middle)) == {seat_led(MINI, 0), seat_led(MINI, 1)}


def test_a_fault_lights_the_alert_led_where_the_board_has_one():
    frame = lit(render(View(players=2, fault=True), R1, 0.0))
    assert frame == {R1.led_index["alert"]: dimmed(P.alert, P.status_level)}
    assert lit(render(View(players=2, fault=True), MINI, 0.0)) == {}  # mini has no alert LED


def test_seats_and_places_the_board_has_no_led_for_are_left_out():
    view = View(
        players=4,
        to_move=3,  # mini has seat LEDs for two seats only
        targets={(9, 9), Slot("Z", 1), (-1, 0)},
        remove={(5, 0)},
    )
    assert lit(render(view, MINI, 0.0)) == {}


def test_a_hole_in_the_lattice_has_no_led_and_is_ignored():
    holed = dataclasses.replace(
        MINI,
        holes=frozenset({(1, 1)}),
        led_index={k: v for k, v in MINI.led_index.items() if k != (1, 1)},
    )
    view = View(players=2, to_move=0, targets={(1, 1), (0, 0)})
    assert set(lit(render(view, holed, 0.0))) == at(MINI, (0, 0)) | {seat_led(MINI, 0)}


def test_precedence_is_out_of_order_error_put_right_win_due_targets_last_move_then_attract():
    assert PRECEDENCE == (
        "out_of_order",
        "error",
        "remove",
        "put_back",
        "obligation",
        "win",
        "due",
        "targets",
        "last_move",
        "attract",
    )
    place = (3, 0)
    layers = [
        ("out_of_order", {"out_of_order": (place,)}, dimmed(P.alert, P.out_of_order_level)),
        ("error", {"error": {place}}, dimmed(P.error, P.blink_level)),
        ("remove", {"remove": {place}}, dimmed(P.remove, P.blink_level)),
        ("put_back", {"put_back": {place: 1}}, dimmed(P.players[1], P.blink_level)),
        ("obligation", {"obligation": {place}}, dimmed(P.obligation, P.blink_level)),
        ("win", {"win": (place, (4, 0)), "winner": 0}, dimmed(P.players[0], P.blink_level)),
        ("due", {"due": {place}, "to_move": 1}, dimmed(P.players[1], P.due_level)),
        ("targets", {"targets": {place}, "to_move": 1}, dimmed(P.players[1], P.target_level)),
        (
            "last_move",
            {"last_move": {place}, "last_mover": 1},
            dimmed(P.players[1], P.last_move_level),
        ),
        ("attract", {"attract": (place,)}, dimmed(P.players[0], P.attract_levels[0])),
    ]
    for top, (name, _, colour) in enumerate(layers):
        fields = {key: value for _, more, _ in layers[top:] for key, value in more.items()}
        assert render(View(players=2, **fields), R1, 0.0)[R1.led_index[place]] == colour, name


def test_attract_mode_is_a_calm_wave_across_the_area_in_every_seats_colour():
    """A board nobody touches breathes: each square rises and falls in turn, never brighter
    than a target, through every seat's colour; and the lights know when they next change."""
    places = ((0, 0), (1, 0), (2, 0), (2, 1))
    view = View(players=2, attract=places, attract_since=10.0)
    step = P.attract_step_seconds
    seen: dict[tuple[int, int], set] = {place: set() for place in places}
    for k in range(2 * P.attract_wave_steps + 10):
        frame = render(view, MINI, 10.0 + k * step)
        for place in places:
            seen[place].add(frame[MINI.led_index[place]])
    brightest = max(max(c) for colours in seen.values() for c in colours)
    assert 0 < brightest <= max(dimmed(P.players[0], P.target_level))
    for colours in seen.values():  # each square both dark and in each seat's hue at times
        assert OFF in colours and len(colours) > 10
    first = render(view, MINI, 10.0 + step * P.attract_wave_steps / 2)
    assert first[MINI.led_index[places[0]]] != first[MINI.led_index[places[3]]]  # a wave
    assert next_change(view, 10.05) == pytest.approx(10.0 + step)


def test_a_blink_owns_its_place_in_its_off_phase_too():
    view = View(players=2, to_move=0, targets={(2, 0)}, remove={(2, 0)}, since=0.0)
    assert render(view, MINI, SLOW_HALF)[MINI.led_index[(2, 0)]] == OFF


def test_a_palette_is_data_a_caller_may_replace():
    mine = Palette(players=((10, 20, 30), (40, 50, 60)), target_level=1.0)
    view = View(players=2, to_move=1, targets={(0, 0)})
    assert render(view, MINI, 0.0, mine)[MINI.led_index[(0, 0)]] == (40, 50, 60)
    with pytest.raises(ValueError, match="colours for 2 seats, not the 3 players"):
        render(View(players=3), MINI, 0.0, mine)


def test_rendering_is_a_pure_function_of_its_inputs():
    view = View(players=2, to_move=0, error={(1, 0)}, win=((0, 0), (1, 1)), winner=0, since=2.0)
    assert render(view, R1, 2.2) == render(view, R1, 2.2)
    assert render(view, R1, 2.2) is not render(view, R1, 2.2)


def test_a_writer_sleeps_through_steps_that_repeat_the_same_level():
    """next_change is exact: a wink stays on for six flash steps, so the next change is when
    it goes off, not the next step boundary; a double flash changes at every step of its
    first half, then rests."""
    wink = View(players=2, obligation={(1, 1)}, since=0.0)
    assert next_change(wink, 0.1) == pytest.approx(6 * FLASH)
    double = View(players=2, put_back={(1, 1): 0}, since=0.0)
    assert next_change(double, 0.0) == pytest.approx(FLASH)
    assert next_change(double, 3.5 * FLASH) == pytest.approx(8 * FLASH)
