"""View: a hashable value that takes plain sets and mappings and refuses what cannot be drawn."""

from __future__ import annotations

import pytest

from magboard.firmware.lights import View
from magboard.hardware.spec import Slot


def test_sets_and_mappings_are_stored_frozen_so_views_hash_and_compare():
    a = View(
        players=2,
        to_move=0,
        targets={(0, 0), (1, 1)},
        put_back={Slot("A", 1): 1, (2, 2): 0},
        win=[(0, 0), (1, 1)],
        winner=0,
    )
    b = View(
        players=2,
        to_move=0,
        targets=frozenset({(1, 1), (0, 0)}),
        put_back=frozenset({((2, 2), 0), (Slot("A", 1), 1)}),
        win=((0, 0), (1, 1)),
        winner=0,
    )
    assert a == b
    assert hash(a) == hash(b)
    assert isinstance(a.targets, frozenset)
    assert a.put_back == frozenset({(Slot("A", 1), 1), ((2, 2), 0)})
    assert a.win == ((0, 0), (1, 1))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"players": 0}, "at least one player"),
        ({"to_move": 2}, "to_move is seat 2, not one of 0 to 1"),
        ({"last_mover": -1}, "last_mover is seat -1"),
        ({"put_back": {(0, 0): 3}}, r"put_back\[\(0, 0\)\] is seat 3"),
        ({"targets": {(0, 0)}}, "targets .* to_move is None"),
        ({"last_move": {(0, 0)}}, "last_mover is None"),
        ({"win": ((0, 0), (1, 1))}, "winner is None"),
        ({"draw": True, "winner": 1}, "a draw has no winner"),
        ({"put_back": frozenset({((0, 0), 0), ((0, 0), 1)})}, "put_back names a place twice"),
    ],
)
def test_a_view_that_cannot_be_drawn_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        View(**{"players": 2, **fields})
