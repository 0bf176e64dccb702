"""Why a board is refused, in the game's words, where the board shows what the hand tried."""

from __future__ import annotations

from dataclasses import dataclass

from magboard.firmware.games import Action, Cell, State
from magboard.firmware.profiles import Difference, Profile
from magboard.hardware.spec import Slot

from .frame_order import Misordered

NO_RULE = "no legal move gives this board"
OUTSIDE = "that square is outside the game's area"
"""The square is named by the fix that comes with the refusal (a board square outside the game
has no name in the game)."""
"""The refusal that names no rule: nothing the board shows is one action the rules refuse."""


@dataclass(frozen=True)
class Tried:
    """An action the board shows a hand made, and why the rules refuse it."""

    action: Action
    why: str


def forbidden(profile: Profile, position: State, frame: int) -> Tried | None:
    """If the board shows `position` with one action made that the rules forbid but the
    profile knows a hand may try (a grid tile shifted away from the others, out of the area,
    back where the turn's first action took it from, or another tile than the turn's moved),
    that action and why the rules forbid it; else None. Asked before any reading, as an undone
    tile action shows a legal position: the turn before its first."""
    action = profile.tried_shown(position, frame)
    return None if action is None else Tried(action, position.why_illegal(action))


def misordered(refused: Misordered) -> str:
    """Why the rules refuse a turn made in the order the frames show: the rule the first
    action out of its turn's order breaks (placing after a slide, a tile moved before its
    meeple is placed)."""
    return refused.state.why_illegal(refused.action)


def explain(profile: Profile, position: State, difference: Difference, frame: int) -> str:
    """When the board shows one piece taken from a sensed supply and put on one cell, one
    piece more on one cell from a box no sensor sees, or one piece moved from a cell to
    another: the action the hand tried, refused by the rules. Otherwise a general word."""
    cells = [p for p in difference.remove if not isinstance(p, Slot)]
    if len(cells) == 1 and not difference.put_back and not isinstance(cells[0], Slot):
        tried = _from_a_box(profile, position, cells[0], frame)
        if tried is not None:
            return tried
    if len(cells) == 1 and len(difference.remove) == 1 and len(difference.put_back) == 1:
        source = difference.put_back[0][0]
        if not isinstance(source, Slot):
            tried = _moved(profile, position, source, cells[0])
            if tried is not None:
                return tried
    emptied = {p for p, _ in difference.put_back if isinstance(p, Slot)}
    supplies = [s for s in profile.supplies if emptied & set(s.slots)]
    if len(cells) == 1 and len(supplies) == 1 and len(difference.put_back) == 1:
        supply, mover = supplies[0], position.to_move
        if len(supply.kinds) == 1:
            kind = supply.kinds[0]
            if kind.owner is not None and kind.owner != mover:
                return _not_theirs(profile, position, kind.owner)
            tried = profile.placement(position, kind, cells[0])
            if tried is None:
                return OUTSIDE
            if not position.is_legal(tried):
                return position.why_illegal(tried)
    return NO_RULE


def tried_move(profile: Profile, position: State, difference: Difference) -> Action | None:
    """The one piece moved from a cell to another, as the action the rules refuse (a tile
    slid where it may not go), so that it can be undone as it was made; None otherwise."""
    cells = [p for p in difference.remove if not isinstance(p, Slot)]
    if len(cells) != 1 or len(difference.remove) != 1 or len(difference.put_back) != 1:
        return None
    source = difference.put_back[0][0]
    if isinstance(source, Slot):
        return None
    action = profile.moving(position, source, cells[0])
    return action if action is not None and not position.is_legal(action) else None


def _from_a_box(profile: Profile, position: State, cell: Cell, frame: int) -> str | None:
    """Why the rules refuse a piece from an unsensed box put on `cell`, told from the magnets
    the cell shows beyond the position's; None where no such piece shows or the rules allow it."""
    added = (frame & ~profile.render(position)) & profile.sensors.spot_mask(cell)
    bit = profile.spec.sensor_bit
    for supply in profile.supplies:
        if supply.sensed:
            continue
        for kind in supply.kinds:
            if added == sum(1 << bit[(cell, channel)] for channel in kind.signature):
                if kind.owner is not None and kind.owner != position.to_move:
                    return _not_theirs(profile, position, kind.owner)
                if profile.to_game(cell) is None:
                    return OUTSIDE
                tried = profile.placement(position, kind, cell)
                if tried is not None and not position.is_legal(tried):
                    return position.why_illegal(tried)
    return None


def _moved(profile: Profile, position: State, source: Cell, target: Cell) -> str | None:
    """Why the rules refuse the piece on `source` moved to `target`; None where the game moves
    no pieces so, or the rules allow it."""
    tried = profile.moving(position, source, target)
    if tried is None:
        return None
    if profile.to_game(target) is None:
        return OUTSIDE
    return None if position.is_legal(tried) else position.why_illegal(tried)


def _not_theirs(profile: Profile, position: State, owner: int) -> str:
    seats = profile.game.seats
    return f"that is {seats[owner]}'s piece, and {seats[position.to_move]} is to move"
