"""What a screen shows of a game besides its pieces (`State.standings`, `holders`, `pictures`):
nothing for a game of plain pieces; Magnetmen's scores, inventories, holders and printed types."""

from __future__ import annotations

from magboard.firmware.games import get_game
from magboard.firmware.games.grid import parse_cell
from magboard.firmware.games.magnetmen.generator import Printed
from magboard.firmware.games.magnetmen.kinds import Set
from magboard.firmware.games.magnetmen.rules import MagnetmenState
from magboard.firmware.games.magnetmen.traced import traced
from magboard.firmware.games.screen import Picture, Standings

POLICE = Printed(
    0,
    "small",
    Set.EXPERT,
    "main",
    3,
    3,
    ("Veterinarian",) * 4 + ("Police",) + ("Veterinarian",) * 4,
    frozenset(),
)
"""Veterinarians around a Police square in the middle, b2."""


def test_a_game_of_plain_pieces_shows_nothing_more():
    state = get_game("tic-tac-toe").new_state()
    assert state.standings() is None
    assert state.holders(("b2",)) == {}
    assert state.pictures() == ()


def test_scores_and_inventories_follow_the_collections():
    start = MagnetmenState.laid_out(POLICE, 2)
    assert start.standings() == Standings((0, 0), ({}, {}))
    state = start.apply(start.parse_action("a1"))
    shown = state.standings()
    assert shown == Standings(state.scores, ({"Veterinarian": 1}, {}))


def test_holders_are_who_collected_each_square_and_a_police_square_taken_twice_is_no_ones():
    start = MagnetmenState.laid_out(POLICE, 2)
    assert start.holders(("a1", "b2")) == {parse_cell("a1"): 0, parse_cell("b2"): 1}
    assert start.holders(("b2", "b2")) == {}


def test_every_printed_square_shows_its_type_drawn_as_the_overlay_prints_it():
    pictures = MagnetmenState.laid_out(POLICE, 2).pictures()
    assert [p.name for p in pictures] == ["Veterinarian", "Police"]
    assert pictures[1] == Picture("Police", (parse_cell("b2"),), traced("Police"))
    assert sorted(c for p in pictures for c in p.cells) == sorted(
        (col, row) for col in range(3) for row in range(3)
    )
