"""Random playouts: how a search values a position it has not expanded.

A playout plays uniformly random legal atomic actions to the end and scores that end. It is where
a search spends its time, so each step does only what the rules require: the state's own actions
(`advance`, no second legality check), obligations carried out without listing the one action
they allow; a game with a compact engine of its own (`SearchHooks.playout`, a C kernel with a
pure-Python twin) hands its playouts to it, to where its search stops.
"""

from __future__ import annotations

import random

from magboard.firmware.games import CARRY_OUT, Outcome, State
from magboard.firmware.games.search import search_hooks


def rewards(outcome: Outcome, players: int) -> tuple[float, ...]:
    """Per seat: a lone winner 1 and the rest 0; k winners 1/k each; no winner 1/players each"""
    if not outcome.winners:
        return (1 / players,) * players
    share = 1 / len(outcome.winners)
    return tuple(share if seat in outcome.winners else 0.0 for seat in range(players))


def playout(state: State, rng: random.Random) -> tuple[float, ...]:
    """Uniformly random legal actions from `state` until the game ends (obligations carried
    out: CARRY_OUT is then the only legal action), the rewards of the end; where the game's
    compact engine stops, if it has one."""
    fast = search_hooks(state.game).playout
    if fast is not None:
        return fast(state, rng)
    return state_playout(state, rng)


def state_playout(state: State, rng: random.Random) -> tuple[float, ...]:
    """The rules' own States played to the end: what every game without a fast path uses."""
    end = play_to_end(state, rng)
    outcome = end.outcome()
    assert outcome is not None
    return rewards(outcome, end.players)


def play_to_end(state: State, rng: random.Random) -> State:
    """The finished game a State playout reaches.

    Each step lists the actions with `_legal()`, the list `legal_actions()` caches together with
    a set of them for `is_legal`: a playout never asks whether an action is legal, and building
    that set of hashed actions for every position it passes was a fifth of its time."""
    choice = rng.choice
    while state.outcome() is None:
        if state.obligations:
            state = state.advance(CARRY_OUT)
        else:
            state = state.advance(choice(state._legal()))
    return state
