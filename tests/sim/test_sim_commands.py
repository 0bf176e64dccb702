"""The hand commands of the console and the web page, and what they refuse."""

from __future__ import annotations

import pytest

from magboard.firmware.events import Moved
from magboard.sim.commands import CommandRefused, Hands, parse_line
from magboard.sim.session import SimSession


@pytest.fixture
def session():
    made = SimSession("mini", "tic-tac-toe")
    made.lay_out()
    made.start()
    return made


def test_typed_moves_reach_the_referee(session):
    hands = Hands(session)
    hands.run(parse_line("move A1 b2"))
    session.settle()
    hands.run(parse_line("lift B3"))
    hands.run(parse_line("put c3"))
    session.settle()
    hands.run(parse_line("play a1"))
    session.settle()
    moves = [e for e in session.events if isinstance(e, Moved)]
    assert [m.actions for m in moves] == [("b2",), ("c3",), ("a1",)]


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ({"do": "teleport"}, "unknown command 'teleport'"),
        ({"do": "move", "args": ["A1"]}, "usage: move FROM TO"),
        ({"do": "move", "args": ["A1", "z9"]}, "no place 'z9'"),
        ({"do": "lift", "args": ["b2"]}, "lift"),
        ({"do": "play", "args": ["q9"]}, "play"),
        ({"do": "press", "args": ["self-destruct"]}, "press"),
        ({"do": "fault", "args": ["meteor"]}, "unknown fault 'meteor'"),
        ({"do": "fault", "args": ["noise", "soon"]}, "fault"),
        ({"do": "fault", "args": ["noise", "inf"]}, "up to 60 seconds"),
        ({"do": "fault", "args": ["noise", "1e9"]}, "up to 60 seconds"),
        ({"do": "fault", "args": ["noise", "-1"]}, "over 0"),
        ({"do": "move", "args": [1, 2]}, "args are a list of words"),
        (["move"], "an object"),
    ],
)
def test_bad_commands_are_refused_and_change_nothing(session, command, reason):
    before = session.world.expected_frame()
    with pytest.raises(CommandRefused, match=reason):
        Hands(session).run(command)
    assert session.world.expected_frame() == before


def test_faults_from_the_console_are_survived(session):
    hands = Hands(session)
    hands.run(parse_line("fault i2c-burst U1"))
    hands.run(parse_line("fault expander-reset U2"))
    hands.run(parse_line("move A1 b2"))
    session.run_for(1.5)  # the set-up scans are incomplete: the board settles after them
    kinds = {e.kind for e in session.events if e.TYPE == "fault"}
    assert {"i2c-error", "expander-reset"} <= kinds
    assert [e.actions for e in session.events if isinstance(e, Moved)] == [("b2",)]


def test_pieces_are_left_alone_while_one_slides(session):
    hands = Hands(session)
    hands.run(parse_line("move A1 a1"))
    session.settle()
    hands.run(parse_line("slide a1 b1 c1"))
    for line in ("lift a1", "lift b1", "move B1 b2", "slide a1 a2"):
        with pytest.raises(CommandRefused, match="still sliding"):
            hands.run(parse_line(line))
    hands.run(parse_line("press seat-1"))  # buttons and faults are not hands on pieces
    session.run_for(0.5)
    hands.run(parse_line("lift c1"))
    assert [p.kind.name for p in session.world.hand] == ["X"]
