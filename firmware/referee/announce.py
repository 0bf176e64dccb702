"""The parts of the referee's events that several of its jobs say alike."""

from __future__ import annotations

from magboard.firmware.events import Moved
from magboard.firmware.games import State
from magboard.hardware.spec import Place, place_label


def labels(places: frozenset[Place]) -> list[str]:
    return sorted(place_label(p) for p in places)


def moved_event(now: float, player: int, actions: tuple[str, ...], after: State) -> Moved:
    """The `move` event of `player`'s turn, which leaves `after`: who moves now, and the seats
    the rules passed over on the way (Magnetmen skips a player who cannot act)."""
    if after.outcome() is not None:
        return Moved(now, player, actions, after.turn)
    seats = after.players
    gap = (after.to_move - player - 1) % seats if seats > 1 else 0
    passed = [(player + 1 + k) % seats for k in range(gap)]
    skipped = tuple({"seat": seat, "why": after.why_skipped(seat)} for seat in passed)
    return Moved(now, player, actions, after.turn, after.to_move, skipped)
