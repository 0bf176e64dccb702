"""The difference between a frame and a position is worked out once for a frame, however many
of the referee's jobs the judgement passes through: on a board of many sensors it is the
costly part of answering a frame the rules do not explain."""

from __future__ import annotations

from positions import tic_tac_toe as position

from magboard.firmware.events import Illegal, Obligation
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import ILLEGAL, OBLIGATION, Referee
from magboard.hardware.spec import Slot, load_board

R1 = load_board("r1")
MINI = load_board("mini")
TTT = get_game("tic-tac-toe")


def counted(spec):
    """A referee whose profile counts the differences asked of it."""
    profile = profile_for(TTT, spec)
    calls = []
    difference = profile.difference

    def spy(raw, state):
        calls.append((raw, state))
        return difference(raw, state)

    profile.difference = spy
    events: list = []
    ref = Referee(profile, TTT.new_state(), events.append)
    return ref, profile, events, calls


def test_an_illegal_frame_judged_moving_then_still_is_compared_once():
    ref, profile, events, calls = counted(R1)
    ref.start(0.0)
    a_slot = 1 << R1.sensor_bit[(Slot("A", 4), "")]
    x_on_e5 = 1 << R1.sensor_bit[((4, 4), "n")]
    o_in_play = profile.render(position("b2"))
    ref.judge(o_in_play, 1.0, stable=True)
    calls.clear()
    raw = o_in_play & ~a_slot | x_on_e5
    ref.judge(raw, 2.0, stable=False)
    ref.judge(raw, 2.5, stable=True)
    ref.judge(raw, 3.0, stable=True)
    assert ref.status.phase == ILLEGAL and isinstance(events[-1], Illegal)
    assert len(calls) == 1


def test_a_turn_owed_is_lit_and_judged_from_one_difference():
    ref, profile, events, calls = counted(MINI)
    ref.board_plays((1,))
    ref.start(0.0)
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    calls.clear()
    ref.board_move(["a1"], 1.5, profile.render(position("b2")))
    assert ref.status.phase == OBLIGATION and isinstance(events[-1], Obligation)
    assert len(calls) == 1
