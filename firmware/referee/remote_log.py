"""A remote match's log: the turns both boards have accepted, in order, which they compare to
stay one game.

Each turn is one entry, in the game's notation, numbered from 1 by its sequence number (`seq`):
the actions of the turn, then `done` for each obligation it left, carried out by hand. A board
publishes only settled turns (no obligation pending, no turn half made), so an entry never
changes once sent, and a log only grows: whichever copy is longer holds the other. Two copies
that differ at some seq are two games, and the match must stop rather than fork.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from typing import Any

from magboard.firmware.games import CARRY_OUT, GameError, State

Turns = tuple[tuple[str, ...], ...]
"""A log: each settled turn's actions in notation, seq 1 first."""


class RemoteError(ValueError):
    """A turn or a log from the other board that this board cannot follow: the match stops."""


def digest(state: State) -> str:
    """The position's key as a short hash that every board computes alike: two boards whose
    rules read the same actions differently disagree here even where the actions agree."""
    text = json.dumps(_canonical(state.key()), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _canonical(value: Hashable | Any) -> Any:
    """A JSON value for a key's parts: sets sorted, so the hash does not depend on the order a
    process happens to keep them in."""
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Enum):
        return _canonical(value.value)
    if isinstance(value, tuple | list):
        return [_canonical(v) for v in value]
    if isinstance(value, frozenset | set):
        items = [_canonical(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, dict):
        return sorted([[_canonical(k), _canonical(v)] for k, v in value.items()], key=str)
    if is_dataclass(value):
        return [type(value).__name__, *(_canonical(getattr(value, f.name)) for f in fields(value))]
    return str(value)


@dataclass(frozen=True)
class Followed:
    """One turn of a log read under the rules: where it starts, who played it, its actions."""

    start: State
    player: int
    actions: tuple
    after: State


def follow(state: State, turn: Sequence[str], seq: int) -> Followed:
    """Reads log entry `seq` from `state`: exactly one whole turn (the action that ends it last
    but for `done`s), leaving nothing to carry out. RemoteError says what does not fit."""
    shown = " ".join(turn) or "nothing"
    if not turn:
        raise RemoteError(f"move {seq} is empty")
    start, actions, ended = state, [], False
    for text in turn:
        try:
            action = state.parse_action(text)
        except GameError as error:
            reason = str(error).splitlines()[0]
            raise RemoteError(f"move {seq} ({shown}) is not legal here: {reason}") from None
        if action == CARRY_OUT:
            if not ended:
                raise RemoteError(f"move {seq} ({shown}) carries out before it ends")
        elif ended:
            raise RemoteError(f"move {seq} ({shown}) holds more than one turn")
        before, state = state, state.apply(action)
        actions.append(action)
        if action != CARRY_OUT and (state.turn != before.turn or state.outcome() is not None):
            ended = True
    if not ended:
        raise RemoteError(f"move {seq} ({shown}) does not end its turn")
    if state.obligations:
        raise RemoteError(f"move {seq} ({shown}) leaves something to carry out")
    return Followed(start, start.to_move, tuple(actions), state)


def replay(initial: State, turns: Turns) -> State:
    """The position after a whole log, read turn by turn under the rules (RemoteError)."""
    state = initial
    for seq, turn in enumerate(turns, start=1):
        state = follow(state, turn, seq).after
    return state


def conflict(ours: Turns, theirs: Turns) -> str | None:
    """Where two logs differ, in words; None when one holds the other."""
    for seq, (mine, other) in enumerate(zip(ours, theirs, strict=False), start=1):
        if mine != other:
            return (
                f"move {seq} differs: {' '.join(mine)} on this board, "
                f"{' '.join(other)} on the other"
            )
    return None
