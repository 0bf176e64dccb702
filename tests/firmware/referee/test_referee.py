"""The referee's answers to frames and buttons, fed directly (no scanning, no simulator)."""

from __future__ import annotations

import pytest
from positions import tic_tac_toe as position
from stones import StonesState, stones, stones_profile

from magboard.firmware.events import (
    Clear,
    Fulfilled,
    GameOver,
    GameStarted,
    Illegal,
    InHand,
    Mismatch,
    Moved,
    Obligation,
    Partial,
    Restored,
    TakenBack,
)
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import (
    CLEARING,
    ILLEGAL,
    IN_HAND,
    OBLIGATION,
    OVER,
    PLAY,
    Referee,
)
from magboard.hardware.spec import Slot, load_board

MINI = load_board("mini")
R1 = load_board("r1")
TTT = get_game("tic-tac-toe")


def referee(spec=MINI, takeback=True):
    profile = profile_for(TTT, spec)
    events = []
    ref = Referee(profile, TTT.new_state(), events.append, takeback=takeback)
    ref.start(0.0)
    events.clear()
    return ref, profile, events


def kinds(events):
    return [type(e).__name__ for e in events]


def test_a_legal_stable_frame_is_accepted_once():
    ref, profile, events = referee()
    frame = profile.render(position("b2"))
    ref.judge(frame, 1.0, stable=True)
    ref.judge(frame, 1.5, stable=True)
    assert events == [Moved(1.0, 0, ("b2",), 1, 1)]
    assert ref.status.phase == PLAY and ref.status.to_move == 1
    assert ref.status.last_move == {(1, 1)} and ref.status.last_mover == 0


def test_nothing_is_concluded_from_an_unsettled_frame():
    ref, profile, events = referee()
    ref.judge(profile.render(position("b2")), 1.0, stable=False)
    assert events == []


def test_lifting_shows_where_the_piece_may_go():
    ref, profile, events = referee(R1)
    slot = 1 << R1.sensor_bit[(Slot("A", 3), "")]
    ref.judge(profile.render(position()) & ~slot, 1.0, stable=False)
    assert ref.status.phase == IN_HAND
    assert ref.status.targets == {(c, r) for c in range(4, 7) for r in range(4, 7)}
    assert events == [
        InHand(
            1.0,
            0,
            ("supply:X",),
            tuple(sorted(f"{chr(97 + c)}{r + 1}" for c in range(4, 7) for r in range(4, 7))),
        )
    ]
    ref.judge(profile.render(position()), 1.2, stable=True)  # put back in the tray
    assert ref.status.phase == PLAY
    assert kinds(events) == ["InHand"]


def test_an_illegal_board_says_what_to_fix_and_is_accepted_once_restored():
    ref, profile, events = referee(R1)
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    # O's turn, but an X piece is taken from tray A and put on a1 (board cell e5).
    a_slot = 1 << R1.sensor_bit[(Slot("A", 4), "")]
    x_on_e5 = 1 << R1.sensor_bit[((4, 4), "n")]
    ref.judge(profile.render(position("b2")) & ~a_slot | x_on_e5, 2.0, stable=True)
    assert events[-1] == Illegal(2.0, 1, ("e5",), ("A4",), "that is X's piece, and O is to move")
    assert ref.status.phase == ILLEGAL
    ref.judge(profile.render(position("b2")), 3.0, stable=True)
    assert isinstance(events[-1], Restored)
    ref.judge(profile.render(position("b2", "a1")), 4.0, stable=True)
    assert events[-1] == Moved(4.0, 1, ("a1",), 2, 0)


def test_a_refused_placement_says_why_in_the_game_s_words():
    game = get_game("tic-tac-doh")
    profile = profile_for(game, R1)
    events = []
    ref = Referee(profile, game.new_state(), events.append)
    ref.start(0.0)
    small = 1 << R1.sensor_bit[(Slot("A", 1), "")]
    off_centre = 1 << R1.sensor_bit[((4, 4), "n")]  # board e5 is the area's b2, not its c3
    ref.judge(profile.render(game.new_state()) & ~small | off_centre, 1.0, stable=True)
    assert events[-1].remove == ("e5",) and events[-1].put_back == ("A1",)
    assert "centre" in events[-1].detail
    outside = 1 << R1.sensor_bit[((0, 0), "n")]
    ref.judge(profile.render(game.new_state()) & ~small | outside, 2.0, stable=True)
    assert events[-1].detail == "that square is outside the game's area"


def test_restoring_the_previous_position_takes_the_move_back():
    ref, profile, events = referee()
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    ref.judge(profile.render(position()), 2.0, stable=True)
    assert events[-1] == TakenBack(2.0, 0, ("b2",))
    assert ref.position == position()
    ref.judge(profile.render(position("a1")), 3.0, stable=True)
    assert events[-1] == Moved(3.0, 0, ("a1",), 1, 1)


def test_without_takeback_the_previous_position_is_a_mistake():
    ref, profile, events = referee(takeback=False)
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    ref.judge(profile.render(position()), 2.0, stable=True)
    assert isinstance(events[-1], Illegal)
    assert events[-1].put_back == ("b2",)


def test_a_fast_reply_is_understood_from_the_frames_passed_through():
    ref, profile, events = referee()  # mini: X and O look alike on the cells
    after_x = profile.render(position("c3"))
    both = profile.render(position("c3", "a3"))
    ref.judge(after_x, 0.9, stable=False)
    ref.judge(both, 1.0, stable=True)
    assert events == [Moved(1.0, 0, ("c3",), 1, 1), Moved(1.0, 1, ("a3",), 2, 0)]


def test_an_unwitnessed_fast_reply_that_two_orders_explain_is_not_guessed():
    ref, profile, events = referee()
    ref.judge(profile.render(position("c3", "a3")), 1.0, stable=True)
    assert isinstance(events[-1], Illegal)
    assert ref.position == position()


def test_a_fast_reply_whose_frames_show_the_wrong_order_is_refused():
    ref, profile, events = referee(R1)  # r1: X and O differ, so only the order is in doubt
    o_first = profile.render(position("c3", "a3")) & ~profile.sensors.cell_masks[(4, 4)]
    ref.judge(o_first, 0.9, stable=False)  # O's piece on a3 (board e7) before X's on c3
    ref.judge(profile.render(position("c3", "a3")), 1.0, stable=True)
    assert not any(isinstance(e, Moved) for e in events)
    assert isinstance(events[-1], Illegal)


def test_a_fast_reply_to_a_winning_move_leaves_the_win_and_a_piece_to_clear():
    ref, profile, events = referee()
    moves = ["a1", "b1", "a2", "b2"]
    for n in range(1, 5):
        ref.judge(profile.render(position(*moves[:n])), float(n), stable=True)
    win = position("a1", "b1", "a2", "b2", "a3")
    ref.judge(profile.render(win), 4.9, stable=False)
    reply = profile.render(win) | 1 << MINI.sensor_bit[((2, 2), "s")]
    reply &= ~(1 << MINI.sensor_bit[(Slot("B", 3), "")])
    ref.judge(reply, 5.0, stable=True)
    assert events[-2] == GameOver(5.0, (0,), ("X",), "three in a row", ("a1", "a2", "a3"))
    assert (events[-1].TYPE, events[-1].remove) == ("illegal", ("c3",))  # take it off
    assert ref.status.phase == OVER and ref.status.difference.remove[0] == (2, 2)


def test_a_win_lights_the_line_and_resetting_the_board_starts_again():
    ref, profile, events = referee()
    moves = ["a1", "b1", "a2", "b2", "a3"]
    for n in range(1, 6):
        ref.judge(profile.render(position(*moves[:n])), float(n), stable=True)
    over = events[-1]
    assert over == GameOver(5.0, (0,), ("X",), "three in a row", ("a1", "a2", "a3"))
    assert ref.status.phase == OVER and ref.status.win == ((0, 0), (0, 1), (0, 2))
    ref.judge(profile.render(position("a1")), 6.0, stable=True)  # clearing the board
    assert ref.status.phase == CLEARING and isinstance(events[-1], Clear)
    assert not any(isinstance(e, Illegal | TakenBack) for e in events)
    ref.judge(profile.render(position()), 7.0, stable=True)
    assert isinstance(events[-1], GameStarted)
    assert ref.position == position()


def test_a_board_that_does_not_match_the_resumed_game_says_what_to_change():
    ref, profile, events = referee()
    ref.start(0.0, ["b2", "a1"])
    assert events[-1].actions == ("b2", "a1")
    ref.check_board(profile.render(position("b2")), 0.1)
    assert events[-1] == Mismatch(0.1, ("B5",), ("a1",))
    assert ref.status.phase == ILLEGAL


def stones_referee():
    profile = stones_profile(MINI)
    events = []
    ref = Referee(profile, StonesState(), events.append)
    ref.start(0.0)
    return ref, profile, events


def test_a_partial_turn_waits_and_the_seat_button_ends_it():
    ref, profile, events = stones_referee()
    ref.judge(profile.render(stones("a1")), 1.0, stable=True)
    assert events[-1] == Partial(1.0, 0, ("a1",))
    ref.press("seat-2", 1.5)  # not the mover's button
    assert isinstance(events[-1], Partial)
    ref.press("seat-1", 2.0)
    assert events[-1] == Moved(2.0, 0, ("a1", "end"), 1, 1)


def test_a_place_and_a_push_without_a_pause_are_one_turn():
    ref, profile, events = stones_referee()
    ref.judge(profile.render(stones("b1", "end")), 1.0, stable=True)
    ref.judge(profile.render(stones("b1", "end", "a1")), 1.5, stable=False)
    ref.judge(profile.render(stones("b1", "end", "a1", "a1>2")), 2.0, stable=True)
    assert events[-1] == Moved(2.0, 1, ("a1", "a1>2"), 2, 0)


def test_a_press_judges_the_board_before_it_ends_the_turn():
    ref, profile, events = stones_referee()
    ref.press("seat-1", 1.0, profile.render(stones("c3")))  # pressed as the stone lands
    assert [type(e) for e in events[-2:]] == [Partial, Moved]
    assert events[-1].actions == ("c3", "end")


def test_a_capture_is_blinked_until_the_board_shows_it_carried_out():
    ref, profile, events = stones_referee()
    played: list[str] = []
    for t, (cell, seat) in enumerate([("a1", "seat-1"), ("b1", "seat-2"), ("c1", "seat-1")]):
        played.append(cell)
        ref.judge(profile.render(stones(*played)), t + 0.5, stable=True)
        ref.press(seat, t + 0.8)
        played.append("end")
    assert events[-1] == Obligation(2.8, 0, "return the captured stones to B's supply", ("b1",))
    assert ref.status.phase == OBLIGATION and ref.status.obligation == {(1, 0)}
    b_on_c3 = profile.render(ref.position) | 1 << MINI.sensor_bit[((2, 2), "m")]
    ref.judge(b_on_c3, 3.0, stable=True)
    assert ref.status.phase == OBLIGATION, "the next turn waits for the capture"
    done = stones(*played, "done")
    ref.judge(profile.render(done), 4.0, stable=True)
    assert isinstance(events[-1], Fulfilled) and ref.position == done
    assert ref.actions_played == (*played, "done")


def test_a_partial_turn_can_be_redone_before_it_ends():
    ref, profile, events = stones_referee()
    ref.judge(profile.render(stones("a1")), 1.0, stable=True)
    ref.judge(profile.render(stones()), 2.0, stable=True)
    assert ref.position == stones()
    ref.judge(profile.render(stones("c3")), 3.0, stable=True)
    assert events[-1] == Partial(3.0, 0, ("c3",))


def test_new_button_starts_over():
    ref, profile, events = stones_referee()
    ref.judge(profile.render(stones("a1")), 1.0, stable=True)
    ref.press("new", 2.0)
    assert isinstance(events[-1], GameStarted)
    assert ref.position == stones()


@pytest.mark.parametrize("spec", [MINI, R1], ids=["mini", "r1"])
def test_status_never_offers_targets_outside_the_game(spec):
    ref, profile, _ = referee(spec)
    for supply in profile.supplies:
        lifted = profile.render(position()) & ~(1 << spec.sensor_bit[(supply.slots[0], "")])
        ref.judge(lifted, 1.0, stable=False)
        area = {profile.to_board((c, r)) for c in range(3) for r in range(3)}
        assert ref.status.targets <= area


def test_the_parts_of_a_turn_keep_the_order_they_were_accepted_in():
    lance = get_game("lance-assembly")
    profile = profile_for(lance, R1)
    events = []
    ref = Referee(profile, lance.new_state(), events.append)
    ref.start(0.0)
    state = ref.position
    for n, text in enumerate(("c3", "d4", "Nb2", "d4>1:2"), start=1):
        state = state.apply(state.parse_action(text))
        ref.judge(profile.render(state), float(n), stable=True)
    turns = [e.actions for e in events if isinstance(e, Moved)]
    partials = [e.actions for e in events if isinstance(e, Partial)]
    assert partials == [("d4",), ("d4", "Nb2")]
    assert turns == [("c3",), ("d4", "Nb2", "d4>1:2")]  # not Nb2 first, though it ends alike


def lance_after(*texts):
    """A Lance Assembly referee on R1 after `texts` were played and accepted one by one, with
    its events since."""
    lance = get_game("lance-assembly")
    profile = profile_for(lance, R1)
    events = []
    ref = Referee(profile, lance.new_state(), events.append)
    ref.start(0.0)
    state = ref.position
    for n, text in enumerate(texts, start=1):
        state = state.apply(state.parse_action(text))
        ref.judge(profile.render(state), float(n), stable=True)
    events.clear()
    return ref, profile, events, state


def test_a_slide_then_a_placement_read_together_is_refused_naming_the_rule():
    ref, profile, events, start = lance_after("c3")
    slid = start.apply(start.parse_action("c3>1:1"))
    placed = start.apply(start.parse_action("d4"))
    both = placed.apply(placed.parse_action("c3>1:1"))  # the same board, told the rules' way
    ref.judge(profile.render(slid), 2.0, stable=False)
    ref.judge(profile.render(both), 2.1, stable=True)
    assert kinds(events) == ["Illegal"]
    assert events[0].detail == "one placement a turn, and never after a slide"
    # Back to the turn's start: the slide undone and the tile off d4.
    assert (events[0].remove, events[0].put_back) == (("g6", "g7"), ("f6",))
    assert ref.position == start


def test_two_placements_read_together_are_told_in_the_order_made():
    for first, second in (("d4", "Nd3"), ("Nd3", "d4")):
        ref, profile, events, start = lance_after("c3")
        one = start.apply(start.parse_action(first))
        two = one.apply(one.parse_action(second))
        ref.judge(profile.render(one), 2.0, stable=False)
        ref.judge(profile.render(two), 2.1, stable=True)
        assert events == [Partial(2.1, 1, (first, second))]


def test_a_knock_does_not_move_the_accepted_part_of_a_turn_after_the_rest():
    ref, profile, events, placed = lance_after("c3", "d4")
    slid = placed.apply(placed.parse_action("c3>1:1"))
    tile = profile.render(placed) & ~profile.render(ref.turn_start)  # B's tile on d4
    ref.judge(profile.render(slid), 3.0, stable=False)
    ref.judge(profile.render(slid) & ~tile, 3.1, stable=False)  # knocked off d4...
    ref.judge(profile.render(slid), 3.2, stable=True)  # ...and put straight back
    assert events == [Partial(3.2, 1, ("d4", "c3>1:1"))]
