"""Which squares a Magnetmen player may collect: the repel rule, the types' restrictions
(Singer, Mail Carrier, King, Life Guard), and who takes a turn at all."""

from __future__ import annotations

from .fields import MagnetmenFields
from .setup import FOUR, Repel


def unused(state: MagnetmenFields) -> int:
    return state.setup.all & ~(state.collected | state.destroyed)


def available(state: MagnetmenFields) -> int:
    """Squares a collection may take: unused ones, and Police squares collected once."""
    return unused(state) | state.police


def destroyable(state: MagnetmenFields) -> int:
    return unused(state) & ~state.setup.undestroyable


def full(state: MagnetmenFields, seat: int) -> bool:
    return sum(state.counts[seat]) >= state.setup.slots


def repellers(state: MagnetmenFields, t: int, count: int) -> int:
    """The squares of type `t` that repel a player holding `count` of it: not destroyed
    ones, and for the Astronaut and the Doctor as their texts say."""
    rule = state.setup.repel[t]
    source = state.setup.masks[t] & ~state.destroyed
    if rule is Repel.ALL:
        return source
    if rule is Repel.UNUSED:
        return source & ~state.collected
    if rule is Repel.COLLECTED:
        return source & state.collected
    if rule is Repel.FROM_THREE:
        return source if count >= 3 else 0
    return source if count < 3 else 0


def repelled(state: MagnetmenFields, seat: int) -> int:
    """The squares the repel rule (item 10) closes to `seat`: beside a square of a type it
    holds once, also above and below at twice, also diagonally from three."""
    setup = state.setup
    found = 0
    standing = ~state.destroyed
    for t, count in enumerate(state.counts[seat]):
        if not count:
            continue
        source = repellers(state, t, count) if setup.repel[t] else setup.masks[t] & standing
        if not source:
            continue
        found |= setup.side(source)
        if count >= 2:
            vertical = setup.updown(source)
            found |= vertical
            if count >= 3:
                found |= setup.side(vertical)
    return found


def barred(state: MagnetmenFields, seat: int) -> int:
    """Squares the types' restrictions close to `seat`: next to a collected Singer (main),
    a Mail Carrier with (alternative: without) no collected neighbour, and a King holder's
    other Kings and the squares next to their King (alternative)."""
    setup = state.setup
    barred = 0
    if setup.singer_main:
        barred = setup.around(state.collected & setup.singer_main)
    if setup.mail:
        near = setup.around(state.collected)
        barred |= setup.mail & (near if setup.alternative("Mail Carrier") else ~near)
    king = setup.king_alt
    if king >= 0 and state.counts[seat][king]:
        barred |= setup.masks[king]
        for t, i in state.squares[seat]:
            if t == king:
                barred |= setup.around(1 << i)
    return barred


def witness(state: MagnetmenFields, seat: int) -> int:
    """The seat whose view the Life Guard reads: to the left (next in turn order), or to
    the right with the alternative text."""
    step = -1 if state.setup.alternative("Life Guard") else 1
    return (seat + step) % state.players


def collectable(
    state: MagnetmenFields, seat: int, *, repel: bool = True, lifeguard: bool = True
) -> int:
    """The squares `seat` may collect by the squares' rules (not counting its free slots,
    nor whose turn it is)."""
    mask = available(state)
    if repel:
        mask &= ~repelled(state, seat)
    mask &= ~barred(state, seat)
    guard = state.setup.guard
    if lifeguard and mask & guard:
        theirs = collectable(state, witness(state, seat), lifeguard=False)
        mask &= ~(guard & ~theirs)
    return mask


def can_act(state: MagnetmenFields, seat: int) -> bool:
    """Whether `seat` takes a turn when it comes (item 12): not after a King (main), not
    with a full inventory, not with four of a type (advanced rules), and only with a square
    to collect (or, advanced rules, one to destroy)."""
    if state.retired >> seat & 1 or full(state, seat):
        return False
    if state.setup.advanced_rules:
        if max(state.counts[seat], default=0) >= FOUR:
            return False
        if destroyable(state):
            return True
    return bool(collectable(state, seat))
