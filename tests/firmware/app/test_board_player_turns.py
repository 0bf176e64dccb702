"""The board's turns of several actions on r1: a Lance Assembly tile placed and a group slid,
a Meep Tac Toe meeple moved and its tile shifted or turned, a Meeple Maneuver meeple placed and
its tile moved twice (the capture planner's turn). Each is lit as an obligation naming
the whole turn, made by hands action by action (the tiles moved with what stands on them), and
the game goes on with the person's next turn."""

from __future__ import annotations

import pytest

from magboard.firmware.app.board_player import stepped_clock
from magboard.firmware.engine.opponent import AiSeat, Level, Opponent
from magboard.firmware.events import Moved, Note, Obligation
from magboard.firmware.games import END_TURN
from magboard.firmware.referee import Phase
from magboard.sim.scenario_file import PRESS_HOLD
from magboard.sim.session import SimSession


def make(session: SimSession, actions) -> None:
    """Hands make a whole turn, action by action; a turn that may go on ends with the mover's
    seat button."""
    state = session.state
    for action in actions:
        if action == END_TURN:
            session.world.press(f"seat-{state.to_move + 1}", PRESS_HOLD)
            session.run_for(0.5)
        elif action.seen:
            session.perform(action, state=state)
        state = state.advance(action)
    session.settle()


@pytest.mark.parametrize(
    ("game", "options", "level"),
    [
        ("lance-assembly", {"clock": "none"}, Level.EASY),
        ("meep-tac-toe", {"maneuver": "advanced"}, Level.EASY),
        ("meeple-maneuver", {}, Level.STRONG),
    ],
)
def test_the_boards_turn_of_several_actions_is_lit_made_by_hand_and_play_goes_on(
    game, options, level
):
    session = SimSession("r1", game, options, ai=AiSeat(1, level))
    session.lay_out()
    session.start()
    session.settle()
    person = Opponent(Level.EASY, clock=stepped_clock(), budget=0.05, seed=1)
    longest = 0
    for _ in range(3):  # the person's turn, the board's, three times
        make(session, person.choose(session.state))
        assert session.referee.owed is not None, "the board's turn is owed"
        obligation = [e for e in session.events if isinstance(e, Obligation)][-1]
        board_turn = [e for e in session.events if isinstance(e, Moved)][-1]
        assert board_turn.player == 1
        assert obligation.detail == f"the board plays B: {' '.join(board_turn.actions)}: make it"
        assert obligation.places, "the lights show where"
        longest = max(longest, len(board_turn.actions))
        owed = session.referee.owed.turns[-1]
        make_owed_turn(session, owed.start, owed.actions)
        assert session.referee.owed is None
        made = [e for e in session.events if isinstance(e, Note)][-1]
        assert made.text == f"made: the board's move B {' '.join(board_turn.actions)}"
        if session.state.outcome() is not None:  # the board's move won
            assert session.referee.status.phase is Phase.OVER
            break
        assert session.referee.status.phase is Phase.PLAY
    assert longest >= 2, "a turn of several actions: a slide, a tile shifted or turned"


def make_owed_turn(session: SimSession, start, actions) -> None:
    """Hands make the board's owed turn from where it starts (the referee is already past it)."""
    state = start
    for action in actions:
        if action.seen:
            session.perform(action, state=state)
        state = state.advance(action)
    session.settle()
