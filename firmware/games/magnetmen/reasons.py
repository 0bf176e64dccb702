"""Why an action is refused in a Magnetmen position, in words a player reads: what the turn
wants instead, or which rule closes the square."""

from __future__ import annotations

from magboard.firmware.article import with_article

from ..core import END_TURN, Action
from ..grid import Cell, cell_name
from .actions import SEATS, Collect, Destroy, DestroyIcon, GainIcon
from .fields import Duty, MagnetmenFields
from .restrictions import full, repelled, repellers, witness
from .setup import FIRE_TOTAL


def why_refused(state: MagnetmenFields, action: Action) -> str:
    """Why `action` is refused, "" for an action of no Magnetmen sort (the contract's
    reasons then apply)."""
    if state.result is not None:
        return "the game is over"
    if isinstance(action, Collect | Destroy):
        i = state.setup.at(action.cell)
        if i is None:
            return f"{cell_name(action.cell)} is not on this board"
    reason = _why_not_now(state, action)
    if reason:
        return reason
    if isinstance(action, Collect):
        return _why_not_collect(state, action.cell)
    if isinstance(action, Destroy):
        return _why_not_destroy(state, action.cell)
    if isinstance(action, DestroyIcon):
        return _why_not_lose(state, action)
    if isinstance(action, GainIcon):
        return _why_not_gain(state, action)
    return ""


def _why_not_now(state: MagnetmenFields, action: Action) -> str:
    """What the turn in progress wants instead, if `action` is not of that sort."""
    mover = SEATS[state.to_move]
    duty = state.duty
    if duty is Duty.EXPLORE and not isinstance(action, Destroy):
        return f"{mover} first destroys an unused square for the Explorer (like xc4)"
    if duty is Duty.PILOT and not isinstance(action, Collect):
        line = cell_name(state.setup.cell(state.pilot))
        return f"{mover} first collects one more square in the Pilot's row or column ({line})"
    if duty in (Duty.LOSE, Duty.GAIN):
        chooser = SEATS[state.choosers[0]]
        wanted = DestroyIcon if duty is Duty.LOSE else GainIcon
        if not isinstance(action, wanted) or action.seat != state.choosers[0]:
            if duty is Duty.LOSE:
                return f"first {chooser} destroys an icon of theirs for the Actress"
            return f"first {chooser} gains an icon for the Actress"
    if action == END_TURN:
        if not state.collections:
            return f"{mover} must first collect a square"
        return "the turn owes its power first"
    if isinstance(action, Destroy) and duty is Duty.NONE:
        if state.collections:
            return "a turn destroys a square instead of collecting, not as well"
        if not state.setup.advanced_rules:
            return "destroying a square needs the advanced rules (or an Explorer)"
    if isinstance(action, DestroyIcon) and duty is Duty.NONE and not state.singer:
        return "no power lets anyone destroy an icon now"
    if isinstance(action, GainIcon) and duty is not Duty.GAIN:
        return "no power lets anyone gain an icon now"
    return ""


def _why_not_collect(state: MagnetmenFields, cell: Cell) -> str:
    setup = state.setup
    i = setup.at(cell)
    assert i is not None
    name, bit = cell_name(cell), 1 << i
    mover = SEATS[state.to_move]
    if state.destroyed & bit:
        return f"{name} is destroyed"
    if state.collected & bit and not state.police & bit:
        return f"{name} is already collected"
    if full(state, state.to_move):
        return f"{mover}'s inventory is full"
    if state.duty is Duty.PILOT:
        pilot = cell_name(setup.cell(state.pilot))
        return f"the Pilot's extra square is in the row or column of {pilot}"
    if state.collections:
        if not (state.fire or state.extra):
            return "one collection a turn: end the turn"
        if state.fire and state.collections >= FIRE_TOTAL:
            return "the Firefighter's three collections are made"
        if state.fire and setup.firefighter >> i & 1:
            return "not a second Firefighter this turn"
    if not (state.extra and state.collections) and repelled(state, state.to_move) & bit:
        return _why_repelled(state, i)
    return _why_barred(state, i) or f"{name} cannot be collected now"


def _why_repelled(state: MagnetmenFields, i: int) -> str:
    """Names the neighbour and the icons that repel square `i`."""
    setup = state.setup
    seat = state.to_move
    col, row = setup.cell(i)
    for dr in (0, 1, -1):  # beside first, the plainest reason
        for dc in (-1, 1, 0):
            j = setup.at((col + dc, row + dr))
            if (dc, dr) == (0, 0) or j is None:
                continue
            t = setup.type_at[j]
            count = state.counts[seat][t]
            needed = 1 if dr == 0 else (2 if dc == 0 else 3)
            if count < needed or not repellers(state, t, count) >> j & 1:
                continue
            where = ("beside", "above or below", "diagonal to")[needed - 1]
            kind = setup.kinds[t]
            return (
                f"{cell_name(setup.cell(i))} is repelled: {SEATS[seat]} holds {count} {kind}"
                f" and {cell_name(setup.cell(j))}, {where} it, is {with_article(kind)}"
                " (one icon repels beside, two also above and below, three also diagonally)"
            )
    return f"{cell_name(setup.cell(i))} is repelled"


def _why_barred(state: MagnetmenFields, i: int) -> str:
    setup = state.setup
    seat = state.to_move
    name = cell_name(setup.cell(i))
    kind = setup.kinds[setup.type_at[i]]
    near = setup.around(1 << i)
    singer = setup.of("Singer")
    if singer >= 0 and not setup.alt[singer] and near & state.collected & setup.masks[singer]:
        return f"{name} is next to a collected Singer: nobody may collect there"
    if kind == "Mail Carrier":
        if setup.alternative(kind) and near & state.collected:
            return f"{name} is a Mail Carrier next to a collected square"
        if not setup.alternative(kind) and not near & state.collected:
            return f"{name} is a Mail Carrier with no collected square next to it"
    king = setup.of("King")
    if king >= 0 and setup.alt[king] and state.counts[seat][king]:
        if kind == "King":
            return f"{SEATS[seat]} already holds a King: one per player"
        return f"{name} is next to {SEATS[seat]}'s King"
    if kind == "Life Guard":
        side = "right" if setup.alternative(kind) else "left"
        judge = SEATS[witness(state, seat)]
        return f"{name} is a Life Guard that {judge}, to {SEATS[seat]}'s {side}, could not collect"
    return ""


def _why_not_destroy(state: MagnetmenFields, cell: Cell) -> str:
    setup = state.setup
    i = setup.at(cell)
    assert i is not None
    name = cell_name(cell)
    if setup.undestroyable & 1 << i:
        return f"{name} is a Judge: it cannot be destroyed"
    if state.destroyed & 1 << i:
        return f"{name} is already destroyed"
    return f"{name} is collected: only unused squares can be destroyed"


def _why_not_lose(state: MagnetmenFields, action: DestroyIcon) -> str:
    if action.seat >= state.players:
        game = with_article(f"{state.players}-player")
        return f"there is no seat {SEATS[action.seat]} in {game} game"
    if action.kind == "Judge":
        return "a Judge cannot be destroyed"
    who = SEATS[action.seat]
    t = state.setup.of(action.kind)
    if t < 0 or not state.counts[action.seat][t]:
        return f"{who} holds no {action.kind}"
    return f"{who} holds no {action.kind} from that square"


def _why_not_gain(state: MagnetmenFields, action: GainIcon) -> str:
    if action.kind not in state.setup.index:
        return f"the board shows no {action.kind}: the icon gained is of a type on it"
    return f"{SEATS[action.seat]} already holds a King: one per player"
