"""A piece the player to move may put back changed in place (a Police square's token turned
over) leaves its square bare for a moment: the referee, fed directly, holds that bare square
as a piece in the hand for a while before it reads it as the last move taken back."""

from __future__ import annotations

from magboard.firmware.events import InHand, Moved, TakenBack
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import IN_HAND, Referee
from magboard.firmware.referee.takeback import CHANGE_IN_PLACE
from magboard.hardware.spec import load_board

R1 = load_board("r1")
MAGNETMEN = get_game("magnetmen")
OPTIONS = {"seed": 13, "set": "advanced"}
"""a1 (board c3) is a Police square, collected twice."""


def collected_once(square: str = "a1"):
    """A referee after A's collection of `square` (a1 by default, a Police square), and its
    events since."""
    profile = profile_for(MAGNETMEN, R1, OPTIONS)
    events = []
    ref = Referee(profile, MAGNETMEN.new_state(OPTIONS), events.append)
    ref.start(0.0)
    collected = ref.position.apply(ref.position.parse_action(square))
    ref.judge(profile.render(collected), 1.0, stable=True)
    events.clear()
    return ref, profile, events, collected


def test_the_bare_square_is_in_the_hand_until_the_wait_is_over_then_taken_back():
    ref, profile, events, collected = collected_once()
    bare = profile.render(ref.initial)
    ref.judge(bare, 2.0, stable=True)
    assert ref.status.phase == IN_HAND and ref.status.to_move == 1
    assert events == [InHand(2.0, 1, ("c3",), ("c3",))]
    assert ref.wake_at == 2.0 + CHANGE_IN_PLACE
    ref.wake(2.5)  # too early: nothing
    assert ref.position == collected
    ref.wake(ref.wake_at)
    assert events[1:] == [TakenBack(3.0, 0, ("a1",))]
    assert ref.position == ref.initial and ref.wake_at is None


def test_the_token_turned_over_is_the_next_players_collection():
    ref, profile, events, collected = collected_once()
    ref.judge(profile.render(ref.initial), 2.0, stable=True)
    turned = collected.apply(collected.parse_action("a1"))
    ref.judge(profile.render(turned), 2.6, stable=True)
    assert events[1:] == [Moved(2.6, 1, ("a1",), 2, 0)]
    assert ref.wake_at is None


def test_no_wait_where_the_next_player_cannot_change_the_piece():
    """A square that is not a Police square: its bare square is the takeback at once."""
    ref, profile, events, _ = collected_once("b1")
    ref.judge(profile.render(ref.initial), 2.0, stable=True)
    assert events[-1] == TakenBack(2.0, 0, ("b1",))
    assert ref.wake_at is None


def test_a_wait_the_game_no_longer_reaches_is_dropped():
    """A remote match stopped while the square was bare: nothing is taken back, and the loop
    is not woken for it again."""
    ref, profile, events, collected = collected_once()
    ref.judge(profile.render(ref.initial), 2.0, stable=True)
    ref.halt(2.5)
    ref.wake(3.0)
    assert ref.wake_at is None
    assert ref.position == collected
    assert not [e for e in events if isinstance(e, TakenBack)]
