"""What a collection does: the square and the icon taken, and what the collected type's power
asks or allows (Police, King, Firefighter, Singer, Explorer, Pilot, Actress); and the icons lost
or gained for a power."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import DestroyIcon, GainIcon
from .fields import Duty, MagnetmenFields, bumped
from .legal import losses
from .restrictions import available, destroyable, full
from .scoring import last_placed, leaders
from .setup import SINGER_ICONS
from .turns import close, settle


def collect(state: MagnetmenFields, i: int) -> MagnetmenFields:
    setup = state.setup
    seat = state.to_move
    t = setup.type_at[i]
    name = setup.kinds[t]
    bit = 1 << i
    collected, destroyed, police = state.collected, state.destroyed, state.police
    if name == "Police" and police & bit:
        police, collected, destroyed = police & ~bit, collected & ~bit, destroyed | bit
    else:
        collected |= bit
        if name == "Police":
            police |= bit
    changes: dict[str, Any] = {
        "collected": collected,
        "destroyed": destroyed,
        "police": police,
        "counts": bumped(state.counts, seat, t, 1),
        "collections": state.collections + 1,
    }
    if t in setup.marked:
        mine = tuple(sorted((*state.squares[seat], (t, i))))
        changes["squares"] = (*state.squares[:seat], mine, *state.squares[seat + 1 :])
    if state.duty is Duty.PILOT:
        changes.update(duty=Duty.NONE, pilot=-1)
    elif state.collections and state.extra and not state.fire:
        changes["extra"] = state.extra - 1
    alt = setup.alt[t]
    if name == "King" and not alt:
        changes["retired"] = state.retired | 1 << seat
    elif name == "Firefighter" and alt:
        changes["extra"] = changes.get("extra", state.extra) + 1
    elif name == "Firefighter":
        changes["fire"] = True
    elif name == "Singer" and alt:
        changes["singer"] = state.singer + SINGER_ICONS
    if t not in setup.powered and not allowances(state, changes):
        return close(state, changes)  # most turns: one collection, nothing follows
    return settle(power(state._evolve(**changes), name, i, alt))


def allowances(state: MagnetmenFields, changes: Mapping[str, Any]) -> bool:
    """Whether the turn, with `changes`, still has optional actions allowed (some of which
    may not be possible)."""
    return bool(
        changes.get("fire", state.fire)
        or changes.get("extra", state.extra)
        or changes.get("singer", state.singer)
    )


def power(state: MagnetmenFields, name: str, i: int, alt: bool) -> MagnetmenFields:
    """The duty the collected type's power sets, if it can be done. Only called on a state
    just made, which nobody holds yet: set in place."""
    if name == "Explorer" and destroyable(state):
        state.__dict__["duty"] = Duty.EXPLORE
    elif name == "Pilot" and state.setup.lines[i] & available(state):
        if not full(state, state.to_move):
            state.__dict__.update(duty=Duty.PILOT, pilot=i)
    elif name == "Actress":
        actress(state, alt)
    return state


def actress(state: MagnetmenFields, alt: bool) -> None:
    """The Actress's choosers: the leading players who have an icon to lose (main text),
    or the last-placed players with a free slot (alternative), from the mover's left."""
    current = state.scores
    picked = last_placed(current) if alt else leaders(current)
    order = [(state.to_move + k) % state.players for k in range(1, state.players + 1)]
    if alt:
        choosers = tuple(s for s in order if s in picked and not full(state, s))
    else:
        choosers = tuple(s for s in order if s in picked and losses(state, s))
    if choosers:
        state.__dict__.update(duty=Duty.GAIN if alt else Duty.LOSE, choosers=choosers)


def lose(state: MagnetmenFields, action: DestroyIcon) -> MagnetmenFields:
    setup = state.setup
    seat, t = action.seat, setup.index[action.kind]
    changes: dict[str, Any] = {"counts": bumped(state.counts, seat, t, -1)}
    if action.square is not None:
        mine = list(state.squares[seat])
        mine.remove((t, setup.square(action.square)))
        changes["squares"] = (*state.squares[:seat], tuple(mine), *state.squares[seat + 1 :])
    if state.duty is Duty.LOSE:
        rest = state.choosers[1:]
        changes.update(choosers=rest, duty=Duty.LOSE if rest else Duty.NONE)
    else:
        changes["singer"] = state.singer - 1
    return settle(state._evolve(**changes))


def gain(state: MagnetmenFields, action: GainIcon) -> MagnetmenFields:
    setup = state.setup
    seat, t = action.seat, setup.index[action.kind]
    rest = state.choosers[1:]
    changes: dict[str, Any] = {
        "counts": bumped(state.counts, seat, t, 1),
        "choosers": rest,
        "duty": Duty.GAIN if rest else Duty.NONE,
    }
    if action.kind == "King" and not setup.alt[t]:
        changes["retired"] = state.retired | 1 << seat
    return settle(state._evolve(**changes))
