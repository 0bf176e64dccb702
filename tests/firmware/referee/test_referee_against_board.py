"""The referee when the board plays a seat (`board_plays`), fed directly: the board's turn is
due only in play, is accepted and owed like a remote board's with words of its own, games follow
one another, and a takeback reaches back past the board's reply to the person's move."""

from __future__ import annotations

import pytest
from positions import tic_tac_toe as position

from magboard.firmware.events import (
    Illegal,
    InHand,
    Moved,
    Note,
    Obligation,
    RemoteMade,
    Restored,
    TakenBack,
)
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import OBLIGATION, PLAY, Phase, Referee, RemoteError
from magboard.hardware.spec import load_board

MINI = load_board("mini")
TTT = get_game("tic-tac-toe")


def against_board(seat: int = 1):
    profile = profile_for(TTT, MINI)
    events: list = []
    ref = Referee(profile, TTT.new_state(), events.append)
    ref.board_plays((seat,))
    ref.start(0.0)
    events.clear()
    return ref, profile, events


def test_the_boards_turn_is_due_only_when_its_seat_decides_in_play():
    ref, profile, events = against_board()
    assert ref.board_to_play is None  # X, a person, opens
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    assert ref.board_to_play == 1
    with pytest.raises(RemoteError):
        against_board(1)[0].board_move(["a1"], 1.0, profile.render(position()))  # X to move
    ref.board_move(["a1"], 1.0, profile.render(position("b2")))
    assert ref.board_to_play is None and ref.owed is not None
    assert ref.status.phase == OBLIGATION
    assert [type(e) for e in events] == [Moved, Moved, Obligation]
    assert events[-1].detail == "the board plays O: a1: make it"
    ref.judge(profile.render(position("b2", "a1")), 2.0, stable=True)
    assert events[-1] == Note(2.0, "made: the board's move O a1")
    assert not any(isinstance(e, RemoteMade) for e in events)
    assert ref.status.phase == PLAY and ref.board_to_play is None


def test_a_piece_for_the_boards_seat_is_refused_in_the_boards_words():
    ref, profile, events = against_board(0)
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    [refused] = [e for e in events if isinstance(e, Illegal)]
    assert refused.detail == "the board plays X: put this back and wait"


def test_a_takeback_goes_back_past_the_boards_reply_to_the_persons_move():
    ref, profile, events = against_board()
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    ref.board_move(["a1"], 1.0, profile.render(position("b2")))
    ref.judge(profile.render(position("b2", "a1")), 2.0, stable=True)
    ref.judge(profile.render(position("b2")), 3.0, stable=True)  # the board's move alone
    assert not any(isinstance(e, TakenBack) for e in events)
    ref.judge(profile.render(position()), 4.0, stable=True)
    assert [(e.player, e.actions) for e in events if isinstance(e, TakenBack)] == [
        (1, ("a1",)),
        (0, ("b2",)),
    ]
    assert ref.position == position() and ref.board_to_play is None


def replied(takeback: bool = True):
    """X played b2 and the board's reply, O a1, is made: the takeback tests' start."""
    ref, profile, events = against_board()
    ref.takeback = takeback
    ref.judge(profile.render(position("b2")), 1.0, stable=True)
    ref.board_move(["a1"], 1.0, profile.render(position("b2")))
    ref.judge(profile.render(position("b2", "a1")), 2.0, stable=True)
    events.clear()
    return ref, profile, events


def own_piece_back(profile) -> int:
    """X's b2 back in its tray, the board's a1 still on the board."""
    x_changed = profile.render(position("b2")) ^ profile.render(position())
    return profile.render(position("b2", "a1")) ^ x_changed


@pytest.mark.parametrize("order", ["own piece first", "the board's piece first"])
def test_a_takeback_under_way_lights_what_is_left_and_is_no_mistake(order):
    ref, profile, events = replied()
    first_back = {
        "own piece first": own_piece_back(profile),
        "the board's piece first": profile.render(position("b2")),
    }
    ref.judge(first_back[order], 3.0, stable=True)
    said = "taking back X b2 with the board's reply O a1: put back what is lit"
    assert events == [Note(3.0, said)]
    assert ref.status.phase == Phase.TAKING_BACK
    left = {"own piece first": (["a1"], ["B5"]), "the board's piece first": (["b2"], ["A5"])}
    remove, put_back = ref.status.difference.labels()
    assert (list(remove), list(put_back)) == left[order]
    view = ref.view(False)
    assert not view.error and not view.last_move  # no mistake blink, no last move to show
    ref.judge(profile.render(position()), 4.0, stable=True)
    assert [(e.player, e.actions) for e in events if isinstance(e, TakenBack)] == [
        (1, ("a1",)),
        (0, ("b2",)),
    ]
    assert not any(isinstance(e, (Illegal, Restored, InHand)) for e in events)
    assert ref.position == position() and ref.status.phase == PLAY


def test_a_takeback_given_up_halfway_goes_on_with_the_game_as_it_was():
    ref, profile, events = replied()
    ref.judge(own_piece_back(profile), 3.0, stable=True)
    ref.judge(profile.render(position("b2", "a1")), 4.0, stable=True)  # X's piece back on b2
    assert ref.status.phase == PLAY and not ref.status.difference
    assert ref.position == position("b2", "a1")
    assert not any(isinstance(e, (Illegal, Restored, TakenBack)) for e in events)


def test_anything_else_changed_on_the_way_back_is_a_mistake():
    ref, profile, events = replied()
    ref.judge(own_piece_back(profile), 3.0, stable=True)
    ref.judge(profile.render(position("c3", "a1")), 4.0, stable=True)  # on c3, not in its tray
    assert [type(e) for e in events][-1] is Illegal
    assert ref.status.phase == Phase.ILLEGAL


def test_without_takebacks_putting_a_piece_back_is_a_mistake():
    ref, profile, events = replied(takeback=False)
    ref.judge(own_piece_back(profile), 3.0, stable=True)
    assert [type(e) for e in events] == [Illegal]


def test_new_games_follow_one_another_and_people_alone_play_again_when_asked():
    ref, profile, events = against_board(0)
    assert ref.board_to_play == 0
    ref.new_game(1.0, profile.render(position()))
    assert not any(isinstance(e, Note) and "refused" in e.text for e in events)
    ref.board_plays(())
    assert ref.board_to_play is None and ref.seats is None and not ref.remote


def test_the_boards_token_lifted_into_a_box_no_sensor_sees_starts_a_takeback_under_way():
    """In Magnetmen the board's reply goes back into a box, not a tray: the board only sees it
    lifted. A token A may put nowhere is no piece in the hand for A's next move: the takeback
    is under way, and it is done once A's own token is off too."""
    game = get_game("magnetmen")
    options = game.resolve_options({"seed": 1})
    profile = profile_for(game, load_board("r1"), options)
    start = game.new_state(options)
    events: list = []
    ref = Referee(profile, start, events.append)
    ref.board_plays((1,))
    ref.start(0.0)
    collected = start.apply(start.parse_action("c4"))
    ref.judge(profile.render(collected), 1.0, stable=True)
    ref.board_move(["e4"], 1.0, profile.render(collected))
    replied = collected.apply(collected.parse_action("e4"))
    ref.judge(profile.render(replied), 2.0, stable=True)
    events.clear()
    ref.judge(profile.render(collected), 3.0, stable=True)  # the board's token off
    assert Note(3.0, "taking back A c4 with the board's reply B e4: put back what is lit") in events
    assert not any(isinstance(e, Illegal | TakenBack) for e in events)
    ref.judge(profile.render(start), 4.0, stable=True)  # and A's
    assert [(e.player, e.actions) for e in events if isinstance(e, TakenBack)] == [
        (1, ("e4",)),
        (0, ("c4",)),
    ]
    assert ref.position == start
