"""Magnetmen's Explorer: "when collected, you also destroy any unused square". The board says
so and lights the squares that may go, as no lifted token shows where a turned one may land."""

from __future__ import annotations

from magboard.firmware.events import Moved, Obligation, Partial
from magboard.firmware.games import get_game
from magboard.firmware.games.magnetmen.rules import Collect, Destroy
from magboard.firmware.lights import DEFAULT, render
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import Referee
from magboard.hardware.spec import load_board, place_label

R1 = load_board("r1")
MAGNETMEN = get_game("magnetmen")
OPTIONS = {"seed": 0}
"""c1 (board e3) is an Explorer A may collect on the first turn."""
EXPLORER = "c1"


def explorer_collected():
    """A referee after A's collection of the Explorer, and its events since the start."""
    profile = profile_for(MAGNETMEN, R1, OPTIONS)
    events = []
    ref = Referee(profile, MAGNETMEN.new_state(OPTIONS), events.append)
    ref.start(0.0)
    events.clear()
    collected = ref.position.apply(ref.position.parse_action(EXPLORER))
    ref.judge(profile.render(collected), 1.0, stable=True)
    return ref, profile, events, collected


def unused_squares(profile, state) -> set[str]:
    """Every square neither collected nor destroyed, by board label (no Judge on this board)."""
    width, height = state.setup.width, state.setup.height
    taken = state.collected | state.destroyed
    return {
        place_label(profile.to_board((i % width, i // width)))
        for i in range(width * height)
        if not taken >> i & 1
    }


def test_the_board_asks_for_a_square_destroyed_and_names_every_unused_one():
    _, profile, events, collected = explorer_collected()
    assert printed_type(collected, EXPLORER) == "Explorer"
    unused = unused_squares(profile, collected)
    assert len(unused) == 63
    assert events[0] == Partial(1.0, 0, (EXPLORER,))
    asked = events[1]
    assert isinstance(asked, Obligation) and asked.player == 0
    assert asked.detail == "destroy one unused square: put a token on it turned over"
    assert set(asked.places) == unused
    assert place_label(profile.to_board((2, 0))) not in asked.places  # the Explorer itself


def test_the_squares_that_may_be_destroyed_wink_white_and_nothing_else_is_offered():
    ref, profile, _, collected = explorer_collected()
    view = ref.view(fault=False)
    assert {place_label(p) for p in view.obligation} == unused_squares(profile, collected)
    assert not view.targets and not view.due
    frame = render(view, R1, 1.0, DEFAULT)  # the wink's on phase
    lit = {
        place_label(place)
        for place, led in R1.led_index.items()
        if not isinstance(place, str) and frame[led] == DEFAULT.obligation
    }
    assert lit == unused_squares(profile, collected)


def test_a_turned_token_on_a_lit_square_ends_the_turn():
    ref, profile, events, collected = explorer_collected()
    destroyed = collected.apply(Destroy((5, 5)))
    ref.judge(profile.render(destroyed), 2.0, stable=True)
    moved = events[-1]
    assert isinstance(moved, Moved) and moved.t == 2.0
    assert (moved.player, moved.actions, moved.to_move) == (0, (EXPLORER, "xf6"), 1)
    assert not ref.view(fault=False).obligation


def test_a_plain_collection_asks_nothing():
    profile = profile_for(MAGNETMEN, R1, OPTIONS)
    events = []
    ref = Referee(profile, MAGNETMEN.new_state(OPTIONS), events.append)
    ref.start(0.0)
    events.clear()
    first = next(
        action
        for action in ref.position.legal_actions()
        if isinstance(action, Collect) and printed_type(ref.position, str(action)) != "Explorer"
    )
    ref.judge(profile.render(ref.position.apply(first)), 1.0, stable=True)
    assert [type(e) for e in events] == [Moved]
    assert not ref.view(fault=False).obligation


def printed_type(state, square: str) -> str:
    """The type printed on `square`."""
    col, row = MAGNETMEN.parse_action(square).cell
    return state.printed.squares[row * state.setup.width + col]
