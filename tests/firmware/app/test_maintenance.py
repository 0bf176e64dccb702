"""Out of order, in virtual time: `magboard maintenance on` (or the MQTT command) stops the
refereeing within a second of the board's clock, the lights show a steady red cross, the game is
kept through a power cut, and `off` resumes the same game."""

from __future__ import annotations

import pytest

from magboard.firmware.app.closing import Shut
from magboard.firmware.app.loop import pixels_hex
from magboard.firmware.app.maintenance import maintenance_file, set_in_service, set_out_of_order
from magboard.firmware.app.mqtt_commands import (
    Refused,
    SetMaintenance,
    carry_out,
    read_command,
)
from magboard.firmware.events import LedFrame, MaintenanceChanged, Moved
from magboard.firmware.lights.palette import DEFAULT, dimmed
from magboard.host.cli import main
from magboard.sim.session import SimSession


@pytest.fixture
def session(tmp_path):
    journal = tmp_path / "magboard.db"
    found = SimSession(
        "mini", "tic-tac-toe", journal=journal, maintenance=maintenance_file(journal)
    )
    found.lay_out()
    found.start()
    return found


def play(session: SimSession, moves: tuple[str, ...]) -> None:
    for move in moves:
        session.perform(session.state.parse_action(move))
        session.settle()


def moves(session: SimSession) -> list[tuple[str, ...]]:
    return [e.actions for e in session.events if isinstance(e, Moved)]


def lit(session: SimSession) -> dict[int, str]:
    pixels = [e for e in session.events if isinstance(e, LedFrame)][-1].pixels
    colours = {i: pixels[6 * i : 6 * i + 6] for i in range(len(pixels) // 6)}
    return {i: colour for i, colour in colours.items() if colour != "000000"}


def test_out_of_order_from_the_command_line_stops_refereeing_and_shows_a_red_cross(
    session, tmp_path, capsys
):
    play(session, ("b2",))
    journal = str(tmp_path / "magboard.db")
    assert main(["maintenance", "on", "--reason", "LED chain", "--journal", journal]) == 0
    assert "out of order since" in capsys.readouterr().out
    session.run_for(1.5)  # the loop looks at the file once a second
    said = [e for e in session.events if isinstance(e, MaintenanceChanged)]
    assert [(e.on, e.reason) for e in said] == [(True, "LED chain")]
    assert session.loop.shut is Shut.OUT_OF_ORDER
    red = pixels_hex([dimmed(DEFAULT.alert, DEFAULT.out_of_order_level)])
    corners = ((0, 0), (1, 1), (2, 2), (0, 2), (2, 0))
    cross = {session.spec.led_index[session.board_cell(c)] for c in corners}
    assert lit(session) == dict.fromkeys(cross, red)  # the cross alone: no seat, no last move
    play(session, ("a1",))  # not judged while out of order
    assert moves(session) == [("b2",)]
    assert main(["maintenance", "status", "--journal", journal]) == 0
    assert "LED chain" in capsys.readouterr().out
    session.give("O", session.take(session.board_cell((0, 0))))  # the stray piece taken back
    assert main(["maintenance", "off", "--journal", journal]) == 0
    assert capsys.readouterr().out == "in service\n"
    session.run_for(1.5)
    assert session.loop.shut is None
    play(session, ("a1",))  # the same game goes on
    assert moves(session) == [("b2",), ("a1",)]


def test_out_of_order_outlasts_a_power_cut_and_the_same_game_resumes_after(session):
    play(session, ("b2", "a1"))
    set_out_of_order(session.loop.maintenance.path, "glass cracked")
    session.run_for(1.5)
    session = session.restart()
    assert session.loop.shut is Shut.OUT_OF_ORDER
    said = [e for e in session.events if isinstance(e, MaintenanceChanged)]
    assert [(e.on, e.reason) for e in said] == [(True, "glass cracked")]
    set_in_service(session.loop.maintenance.path)
    session.run_for(1.5)
    assert session.loop.shut is None
    assert session.state.turn == 2
    play(session, ("c3",))
    assert moves(session) == [("c3",)] and session.state.turn == 3


def test_the_mqtt_command_takes_the_board_out_of_order_at_once_and_back(session):
    play(session, ("b2",))
    command = read_command(b'{"do": "maintenance", "on": true, "reason": "cleaning"}')
    assert command == SetMaintenance(True, "cleaning")
    carry_out(command, session.loop, session.clock.now())
    session.run_for(0.1)
    assert session.loop.shut is Shut.OUT_OF_ORDER
    assert session.loop.maintenance.state.reason == "cleaning"
    carry_out(read_command(b'{"do": "maintenance", "on": false}'), session.loop, 0.0)
    session.run_for(0.1)
    assert session.loop.shut is None
    said = [e for e in session.events if isinstance(e, MaintenanceChanged)]
    assert [(e.on, e.reason) for e in said] == [(True, "cleaning"), (False, "")]
    assert session.state.turn == 1


def test_a_new_game_from_afar_is_refused_while_out_of_order_and_the_game_kept(session):
    play(session, ("b2",))
    carry_out(read_command(b'{"do": "maintenance", "on": true}'), session.loop, 0.0)
    session.run_for(0.1)
    with pytest.raises(Refused, match="new-game: the board is out-of-order"):
        carry_out(read_command(b'{"do": "new-game"}'), session.loop, session.clock.now())
    carry_out(read_command(b'{"do": "maintenance", "on": false}'), session.loop, 0.0)
    session.run_for(0.1)
    assert moves(session) == [("b2",)] and session.state.turn == 1


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b'{"do": "maintenance"}', "on is true or false"),
        (b'{"do": "maintenance", "on": "yes"}', "on is true or false"),
        (b'{"do": "maintenance", "on": true, "reason": 7}', "reason is text"),
        (b'{"do": "maintenance", "on": false, "reason": "x"}', "a reason goes with on"),
        (b'{"do": "maintenance", "on": true, "why": "x"}', "unknown field"),
    ],
)
def test_a_malformed_maintenance_command_is_refused_saying_why(payload, reason):
    with pytest.raises(Refused, match=reason):
        read_command(payload)


def test_a_board_without_a_state_directory_refuses_the_command():
    bare = SimSession("mini", "tic-tac-toe")
    bare.lay_out()
    bare.start()
    with pytest.raises(Refused, match="no state directory"):
        carry_out(SetMaintenance(True), bare.loop, 0.0)
    assert bare.loop.shut is None


def test_a_reason_without_on_is_one_line_and_status_two(tmp_path, capsys):
    journal = str(tmp_path / "magboard.db")
    assert main(["maintenance", "off", "--reason", "x", "--journal", journal]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not maintenance_file(tmp_path / "magboard.db").exists()
