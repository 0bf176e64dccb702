"""The actions a Magnetmen position allows: a turn's collection (or destruction), what a power
then asks, and what it leaves to the mover."""

from __future__ import annotations

from ..core import END_TURN, Action
from .actions import DestroyIcon, GainIcon
from .fields import Duty, MagnetmenFields
from .restrictions import available, collectable, destroyable, full
from .setup import FIRE_TOTAL, pick


def legal_actions(state: MagnetmenFields) -> tuple[Action, ...]:
    if state.result is not None:
        return ()
    setup = state.setup
    duty = state.duty
    if duty is Duty.NONE:
        if not state.collections:
            actions = pick(setup.collects, collectable(state, state.to_move))
            if setup.advanced_rules:
                actions += pick(setup.destroys, destroyable(state))
            return tuple(actions)
        return (*optional(state), END_TURN)
    if duty is Duty.EXPLORE:
        return tuple(pick(setup.destroys, destroyable(state)))
    if duty is Duty.PILOT:
        return tuple(pick(setup.collects, setup.lines[state.pilot] & available(state)))
    if duty is Duty.LOSE:
        return tuple(losses(state, state.choosers[0]))
    return tuple(gains(state, state.choosers[0]))


def extra_collectable(state: MagnetmenFields) -> int:
    """The optional collections left to the mover (the Firefighter's)."""
    if full(state, state.to_move):
        return 0
    setup = state.setup
    mask = 0
    if state.fire and state.collections < FIRE_TOTAL:
        mask = collectable(state, state.to_move) & ~setup.firefighter
    if state.extra:
        mask |= collectable(state, state.to_move, repel=False)
    return mask


def optional(state: MagnetmenFields) -> list[Action]:
    actions = pick(state.setup.collects, extra_collectable(state))
    if state.singer:
        for seat in range(state.players):
            actions += losses(state, seat)
    return actions


def optional_left(state: MagnetmenFields) -> bool:
    if state.singer and any(losses(state, seat) for seat in range(state.players)):
        return True
    return bool((state.fire or state.extra) and extra_collectable(state))


def losses(state: MagnetmenFields, seat: int) -> list[Action]:
    """Every different icon `seat` could lose (a Judge cannot be destroyed)."""
    setup = state.setup
    judge = setup.of("Judge")
    found: list[Action] = []
    for t, count in enumerate(state.counts[seat]):
        if not count or t == judge:
            continue
        name = setup.kinds[t]
        if t in setup.marked:
            where = sorted({i for k, i in state.squares[seat] if k == t})
            found += [DestroyIcon(seat, name, setup.cell(i)) for i in where]
            if count > sum(k == t for k, _ in state.squares[seat]):
                found.append(DestroyIcon(seat, name))
        else:
            found.append(DestroyIcon(seat, name))
    return found


def gains(state: MagnetmenFields, seat: int) -> list[Action]:
    """The icons `seat` may gain: any type printed on the board, but a second King where
    one per player is the rule."""
    setup = state.setup
    king = setup.of("King")
    barred = king if king >= 0 and setup.alt[king] and state.counts[seat][king] else -1
    return [GainIcon(seat, name) for t, name in enumerate(setup.kinds) if t != barred]
