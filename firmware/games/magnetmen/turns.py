"""How a Magnetmen turn goes on or ends, who plays next, and the outcome when nobody can act."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import Outcome
from .actions import SEATS
from .fields import FRESH_TURN, Duty, MagnetmenFields
from .legal import optional_left
from .restrictions import can_act
from .scoring import leaders


def settle(state: MagnetmenFields) -> MagnetmenFields:
    """The turn goes on while it owes something or something optional is left."""
    if state.duty is not Duty.NONE or optional_left(state):
        return state
    return end_turn(state)


def end_turn(state: MagnetmenFields) -> MagnetmenFields:
    return close(state, {})


def close(state: MagnetmenFields, changes: Mapping[str, Any]) -> MagnetmenFields:
    """This state with `changes` and the turn over: the next player's begins."""
    after = state._evolve(**{**changes, **FRESH_TURN, "turn": state.turn + 1})
    return next_player(after, state.to_move)


def next_player(state: MagnetmenFields, mover: int) -> MagnetmenFields:
    """The next seat after `mover` that can act (the mover itself last), or the end. Only
    called on a state just made, which nobody holds yet: finished in place."""
    assert "_hash" not in state.__dict__
    for k in range(1, state.players + 1):
        seat = (mover + k) % state.players
        if can_act(state, seat):
            state.__dict__["to_move"] = seat
            return state
    state.__dict__["to_move"] = (mover + 1) % state.players
    state.__dict__["result"] = final(state)
    return state


def final(state: MagnetmenFields) -> Outcome:
    final = state.scores
    winners = leaders(final)
    names = " and ".join(SEATS[s] for s in winners)
    top = final[winners[0]]
    verdict = f"{names} share the win" if len(winners) > 1 else f"{names} wins"
    board = ", ".join(f"{SEATS[s]} {p}" for s, p in enumerate(final))
    return Outcome(winners, f"nobody can act: {verdict} with {top} ({board})", scores=final)
