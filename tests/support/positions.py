"""Positions the tests start from, played from the start by moves in notation."""

from __future__ import annotations

from magboard.firmware.games import State, get_game


def tic_tac_toe(*moves: str) -> State:
    """Tic-tac-toe after `moves` ("b2", "a1", ...), each checked by the rules."""
    state = get_game("tic-tac-toe").new_state()
    for move in moves:
        state = state.apply(state.parse_action(move))
    return state
