"""The search by difference made in the settle time (`Referee.search_ahead`): the still frame
is judged from it exactly as without it, and a frame that changed since is searched again."""

from __future__ import annotations

from test_frame_order import MEEP, OPENING, OPTIONS

from magboard.firmware.events import Illegal, Moved
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import ILLEGAL, PLAY, Referee
from magboard.hardware.spec import load_board

LANCE = get_game("lance-assembly")


def _meep(searches: list) -> tuple[Referee, list]:
    profile = profile_for(MEEP, load_board("r1"), OPTIONS)
    events: list = []
    referee = Referee(profile, MEEP.new_state(OPTIONS), events.append)
    referee.start(0.0, OPENING)
    events.clear()
    search = referee.matcher.search

    def counted(*args, **kwargs):
        searches.append(args[1])
        return search(*args, **kwargs)

    referee.matcher.search = counted  # type: ignore[method-assign]
    return referee, events


def _frames(referee: Referee, moves: list[str]) -> list[int]:
    state, frames = referee.position, []
    for text in moves:
        state = state.apply(state.parse_action(text))
        frames.append(referee.profile.render(state))
    return frames


def _moves(events: list) -> list[list[str]]:
    return [[str(a) for a in e.actions] for e in events if isinstance(e, Moved)]


def test_a_turn_and_a_fast_reply_searched_ahead_are_read_once_and_as_without():
    searches: list[int] = []
    referee, events = _meep(searches)
    frames = _frames(referee, ["f5-f6", "Te5cw", "Te5cw", "h6-g6", "Tg5^", "Tg6^"])
    for frame in frames:
        referee.judge(frame, 1.5, stable=False)
    referee.search_ahead()
    assert searches == [frames[-1]]
    referee.judge(frames[-1], 2.0, stable=True)
    assert searches == [frames[-1]]  # the still frame's readings were there already
    assert referee.status.phase == PLAY
    assert _moves(events) == [["f5-f6", "Te5cw", "Te5cw"], ["h6-g6", "Tg5^", "Tg6^"]]


def test_a_frame_changed_after_the_search_ahead_is_searched_again():
    """The hand went on after the search ahead: the still frame is another, and its readings
    are its own (here, the turn's third action after the two searched ahead)."""
    searches: list[int] = []
    referee, events = _meep(searches)
    frames = _frames(referee, ["f5-f6", "Te5cw", "Te5cw"])
    for frame in frames[:2]:
        referee.judge(frame, 1.5, stable=False)
    referee.search_ahead()
    referee.judge(frames[2], 1.6, stable=False)
    referee.judge(frames[2], 2.0, stable=True)
    assert searches == [frames[1], frames[2]]
    assert _moves(events) == [["f5-f6", "Te5cw", "Te5cw"]]


def test_a_mistake_searched_ahead_is_still_called_when_the_board_is_still():
    """Lance Assembly, A's opening turn: two tiles down. The search ahead finds no reading;
    nothing is said until the board is still, and then the mistake is."""
    profile = profile_for(LANCE, load_board("r1"), {"clock": "none"})
    events: list = []
    referee = Referee(profile, LANCE.new_state({"clock": "none"}), events.append)
    referee.start(0.0)
    state, render = referee.position, profile.render
    frame = render(state.apply(state.parse_action("a1"))) | render(
        state.apply(state.parse_action("f6"))
    )
    referee.judge(frame, 1.0, stable=False)
    referee.search_ahead()
    assert not [e for e in events if isinstance(e, Illegal | Moved)]
    referee.judge(frame, 1.5, stable=True)
    assert referee.status.phase == ILLEGAL
