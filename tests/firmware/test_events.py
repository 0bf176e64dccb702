"""The one event schema: round trips, and garbage refused with a reason."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.firmware import events as ev
from magboard.sim.web import events as page

SAMPLES = [
    ev.GameStarted(0.0, "tic-tac-toe", {"variant": "classic"}, "mini", ("X", "O"), ("b2",)),
    ev.Moved(1.25, 0, ("b2",), 1),
    ev.Partial(1.5, 1, ("c3",)),
    ev.InHand(2.0, 0, ("supply:X",), ("a1", "b2")),
    ev.Obligation(2.5, 1, "return the captured meeple", ("c4",)),
    ev.Fulfilled(2.6, 1, "return the captured meeple"),
    ev.ChoiceOffered(2.7, 2, ("C-Guitarist", "C-Athlete", "end"), 1),
    ev.Clear(2.7, ("b2",), ("A3",)),
    ev.Illegal(3.0, 0, ("b2",), ("A4",), "no legal move gives this board"),
    ev.Restored(3.5),
    ev.TakenBack(4.0, 0, ("b2",)),
    ev.GameOver(5.0, (0,), ("X",), "three in a row", ("a1", "b2", "c3")),
    ev.GameOver(6.0, (1, 2), ("B", "C"), "highest score, shared", (), (12, 19, 19)),
    ev.ClockChanged(5.05, 1, "reserve", 0.0, (300.0, 287.5)),
    ev.LedFrame(5.1, "ff0000000000"),
    ev.FaultSurvived(6.0, "i2c-error", "U1 i2c1 0x20", "read failed 1x, then ok"),
    ev.ButtonPressed(6.5, "seat-1", True),
    ev.Mismatch(7.0, ("c3",), ("A1",)),
    ev.Note(8.0, "hello"),
    ev.RemoteMade(8.1, 1, ("b2",), 4),
    ev.MatchStopped(8.2, "cafe-7", 4, "the boards disagree on move 4"),
    ev.HoursChanged(8.3, False, "2026-12-01T10:00"),
    ev.HoursChanged(8.35, True, None),
    ev.MaintenanceChanged(8.4, True, "LED chain being replaced"),
    page.SimBoardInfo(
        8.5,
        board="mini",
        title="Mini",
        columns=3,
        rows=3,
        holes=("b3",),
        trays=({"name": "A", "side": "left", "rows": [2], "slots": ["A1", "A2"]},),
        buttons=({"name": "new", "label": "New game"},),
        status=("seat-1",),
        leds={"a1": 0, "A1": 9, "seat-1": 35},
        led_count=37,
        expanders=("U1",),
        games=({"name": "ttt", "title": "Tic-tac-toe", "seats": ["X", "O"], "options": []},),
        game="tic-tac-toe",
        options={},
        players=("X", "O"),
        area=("a1", "b1"),
        seat_colours=("#005aff", "#ff6e00"),
        overlay=(
            {
                "name": "Doctor",
                "cells": ["a1"],
                "drawing": [{"d": "M14 38L86 38Z", "fill": "ink", "stroke": None, "width": 5.0}],
            },
        ),
    ),
    page.SimPieces(
        9.0,
        {"b2": [{"id": 1, "kind": "X", "label": "X", "size": 1, "owner": 0, "colour": "#285aff"}]},
        ({"id": 2, "kind": "L", "label": "L", "size": 3, "owner": None, "colour": "#c8c8c8"},),
    ),
    page.SimScores(9.2, (4, -3, 0), ({"Guitarist": 2, "Athlete": 1}, {"Ballerina": 1}, {})),
    page.SimLeds(9.5, "0000ff000000"),
]


def test_every_event_type_has_a_sample():
    assert {type(e) for e in SAMPLES} == set(ev.EVENT_TYPES.values())


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.TYPE)
def test_events_round_trip_through_json(event):
    line = event.to_json()
    assert "\n" not in line
    assert json.loads(line)["type"] == event.TYPE
    assert ev.event_from_json(line) == event


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "not JSON"),
        ("{", "not JSON"),
        ("[1, 2]", "a JSON object"),
        ('{"type": "teleport", "t": 1}', "unknown event type 'teleport'"),
        ('{"t": 1}', "unknown event type None"),
        ('{"type": "move", "t": 1, "player": 0, "turn": 1}', "without 'actions'"),
        ('{"type": "move", "t": "soon", "player": 0, "actions": [], "turn": 1}', "t cannot be"),
        ('{"type": "move", "t": 1, "player": true, "actions": [], "turn": 1}', "player cannot"),
        ('{"type": "move", "t": 1, "player": 0, "actions": [1], "turn": 1}', "actions cannot"),
        ('{"type": "button", "t": 1, "button": "a", "pressed": "yes"}', "pressed cannot"),
        ('{"type": "sim-pieces", "t": 1, "places": []}', "places cannot"),
        ('{"type": "sim-leds", "t": 1}', "without 'pixels'"),
    ],
)
def test_garbage_is_refused_with_a_reason(line, reason):
    with pytest.raises(ev.EventError, match=reason):
        ev.event_from_json(line)


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_no_text_crashes_the_parser(text):
    with contextlib.suppress(ev.EventError):
        ev.event_from_json(text)


def test_people_read_the_games_own_squares_and_board_squares_named_as_such():
    """On r1, tic-tac-toe's b2 is board square f6: the log says b2, as the move does; a board
    square outside the game is called one; a tray is named by whose pieces it holds."""
    from magboard.firmware.events import GameStarted, Illegal, InHand
    from magboard.firmware.words import Describer

    words = Describer()
    words.text(GameStarted(0.0, "tic-tac-toe", {}, "r1", ("X", "O")))
    lifted = words.text(InHand(1.0, 0, ("A1",), ("e5", "f6")))
    assert lifted == "X lifted a piece from X's tray: put the piece down on a1, b2"
    wrong = words.text(Illegal(2.0, 0, ("a12",), ("f6",), "two pieces moved"))
    assert wrong == (
        "Not legal: two pieces moved. To put it right: take the piece off board square a12"
        " (outside the game); put the piece back on b2"
    )
