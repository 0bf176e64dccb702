"""A turn is told the way the frames show it made, fed directly to the referee (no scanning,
no simulator)."""

from __future__ import annotations

from magboard.firmware.events import Moved
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import PLAY, Referee
from magboard.hardware.spec import load_board

MEEP = get_game("meep-tac-toe")
OPTIONS = {"maneuver": "advanced"}
OPENING = [
    "e6-e5",
    "Te5>",
    "Tf5ccw",
    "f6-f5",
    "Tf5>",
    "Tg5ccw",
    "c6-c5",
    "Tc5ccw",
    "Tc5<",
    "e3-e4",
    "Te3cw",
    "Te3^",
    "e4-f4",
    "Te4^",
    "Te5cw",
]


def test_a_half_turn_made_clockwise_then_a_fast_reply_is_read_as_made():
    """The search may reach a tile turned twice clockwise by turning it twice anticlockwise,
    the same end by another way. The frames show the clockwise way, after the meeple's step:
    the turn is read as made, not refused as made in an order the rules forbid, and the reply
    made before the board settled is read with it."""
    profile = profile_for(MEEP, load_board("r1"), OPTIONS)
    events = []
    referee = Referee(profile, MEEP.new_state(OPTIONS), events.append)
    referee.start(0.0, OPENING)
    events.clear()
    state, frames = referee.position, []
    for text in ("f5-f6", "Te5cw", "Te5cw", "h6-g6", "Tg5^", "Tg6^"):
        state = state.apply(state.parse_action(text))
        frames.append(profile.render(state))
    for frame in frames[:-1]:
        referee.judge(frame, 1.5, stable=False)
    referee.judge(frames[-1], 2.0, stable=True)
    assert referee.status.phase == PLAY
    assert referee.position.key() == state.key()
    moves = [[str(a) for a in e.actions] for e in events if isinstance(e, Moved)]
    assert moves == [["f5-f6", "Te5cw", "Te5cw"], ["h6-g6", "Tg5^", "Tg6^"]]
