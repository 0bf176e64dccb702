"""The hand commands of the console and the web page, and what they refuse."""

from __future__ import annotations

import pytest

from magboard.firmware.app import wiring
from magboard.firmware.events import GameStarted, Moved
from magboard.firmware.games import get_game
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


def test_the_hands_play_a_game_started_from_afar(session):
    # As the link, MQTT or the LED menu change it: five Smalls a seat are the pieces in the trays.
    cap = get_game("tic-tac-cap")
    wiring.change_game(session.loop, cap, {"variant": "five-small"}, session.clock.now())
    assert (session.game, session.options["variant"]) == (cap, "five-small")
    hands = Hands(session)
    hands.run(parse_line("play Sb2"))
    session.settle()
    assert [e.game for e in session.events if isinstance(e, GameStarted)][-1] == cap.name
    assert [m.actions for m in session.events if isinstance(m, Moved)] == [("Sb2",)]


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


@pytest.fixture
def tiled():
    """Meep Tac Toe with two tile actions a turn on r1: game c3 is board e5, the tiles lie on
    e5-h8; A's meeples on f5, h5, e8, g8, B's on e5, g5, f8, h8."""
    made = SimSession("r1", "meep-tac-toe", {"maneuver": "advanced"})
    made.lay_out()
    made.start()
    return made


def where(session, *cells):
    """The kind of the piece on each board cell, or None."""
    world = session.world
    return [
        world.pieces_at(cell)[-1].kind.name if world.pieces_at(cell) else None for cell in cells
    ]


E5, F5, D5, E6, D6 = (4, 4), (5, 4), (3, 4), (4, 5), (3, 5)


def test_tiles_shift_and_turn_with_their_pieces_and_the_referee_follows(tiled):
    hands = Hands(tiled)
    hands.run(parse_line("move f5 f6"))  # d3-d4
    tiled.settle()
    hands.run(parse_line("shift-tile f6 left"))  # any cell of the tile takes hold of it
    tiled.settle()
    tile = tiled.world.tile_at(D5)
    assert tiled.world.tile_cells(tile)[0] == D5 and tiled.world.key_of(tile) == D5
    assert where(tiled, D5, E6, F5) == ["B", "A", None]
    hands.run(parse_line("turn-tile e6 cw"))
    tiled.settle()
    assert tiled.world.key_of(tile) == D6
    assert where(tiled, D6, E5, D5, E6) == ["B", "A", None, None]
    moves = [e for e in tiled.events if isinstance(e, Moved)]
    assert [m.actions for m in moves] == [("d3-d4", "Tc3<", "Tb3cw")]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("shift-tile a1 up", "shift-tile: no tile covers a1"),
        ("shift-tile e5 right", "the tile on e5-f6 cannot shift right: it would cover the tile on"),
        ("shift-tile e5 sideways", "usage: shift-tile CELL WAY"),
        ("shift-tile e5", "usage: shift-tile CELL WAY"),
        ("shift-tile A1 up", "tiles lie on cells, not in tray slot A1"),
        ("shift-tile z9 up", "no place 'z9'"),
        ("turn-tile e5 half", "usage: turn-tile CELL cw|ccw"),
        ("turn-tile e5", "usage: turn-tile CELL cw|ccw"),
        ("turn-tile d4 cw", "turn-tile: no tile covers d4"),
    ],
)
def test_impossible_tile_commands_are_refused_and_change_nothing(tiled, line, reason):
    before = tiled.world.expected_frame()
    with pytest.raises(CommandRefused, match=reason.replace("|", r"\|")):
        Hands(tiled).run(parse_line(line))
    assert tiled.world.expected_frame() == before


def test_a_tile_stops_at_the_edge_of_the_lattice(tiled):
    hands = Hands(tiled)
    for row in (7, 8, 9, 10):  # the tile on e7-f8 up to e11-f12, the top rows of r1
        hands.run(parse_line(f"shift-tile e{row} up"))
    before = tiled.world.expected_frame()
    with pytest.raises(CommandRefused, match="the tile on e11-f12 cannot shift up: it would leave"):
        hands.run(parse_line("shift-tile e12 up"))
    assert tiled.world.expected_frame() == before


def test_a_tile_does_not_push_pieces_standing_beside_it(tiled):
    hands = Hands(tiled)
    hands.run(parse_line("move e5 d5"))  # a meeple off the tiles, beside one
    with pytest.raises(CommandRefused, match="pieces stand on d5 in its way"):
        hands.run(parse_line("shift-tile f5 left"))


def test_tiles_are_left_alone_while_a_piece_slides(tiled):
    hands = Hands(tiled)
    hands.run(parse_line("slide f5 f6 f7"))
    for line in ("shift-tile g5 right", "turn-tile g5 cw"):
        with pytest.raises(CommandRefused, match="still sliding"):
            hands.run(parse_line(line))
    tiled.run_for(0.5)
    hands.run(parse_line("turn-tile g5 cw"))
