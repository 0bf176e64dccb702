"""Pieces in hand and mistakes: a piece lifted lights where it may legally go (or, if nowhere,
where it must go back); a board no turn explains shows what to change, with the rules' reason."""

from __future__ import annotations

from magboard.firmware.events import Illegal, InHand
from magboard.firmware.games import Action
from magboard.firmware.profiles import Difference, Movement, Spot
from magboard.hardware.spec import place_label

from .announce import labels
from .explain import explain, tried_move
from .status import Phase

MOVEMENT_CACHE = 10_000


def spot_label(spot: Spot) -> str:
    """A board cell, or a supply (any of its slots): "supply:X"."""
    return f"supply:{spot}" if isinstance(spot, str) else place_label(spot)


class Hands:
    """The `Referee`'s job of pieces in hand and mistakes (the state it works on is the
    referee's)."""

    def _in_hand(self, lifted: frozenset[Spot], now: float, raw: int) -> None:
        """Pieces lifted: light where they may legally go, or, if nowhere (a size not allowed
        yet, the other player's piece), where they must go back."""
        places = self.profile.places_of(self._targets(lifted))
        report = (Phase.IN_HAND, lifted, self.position)
        if self._reported == report and self.status.phase == Phase.IN_HAND:
            return  # the same piece still in the hand: the lights keep their rhythm
        if self._reported != report:
            self._reported = report
            self.emit(
                InHand(
                    now,
                    self.position.to_move,
                    tuple(sorted(spot_label(spot) for spot in lifted)),
                    tuple(labels(places)),
                )
            )
        difference = Difference() if places else self._difference(raw, self.position)
        self.status = self._status(Phase.IN_HAND, now, targets=places, difference=difference)

    def _targets(self, lifted: frozenset[Spot]) -> set[Spot]:
        """Where the mover's legal actions that lift `lifted` put pieces."""
        targets: set[Spot] = set()
        for action in self.position.legal_actions():
            if not action.seen:
                continue
            movement = self._movement(action)
            if lifted <= movement.lifted:
                targets |= movement.placed
        return targets

    def _movement(self, action: Action) -> Movement:
        key = (self.position, action)
        found = self._movements.get(key)
        if found is None:
            if len(self._movements) > MOVEMENT_CACHE:
                self._movements.clear()
            found = self._movements[key] = self.profile.movement(self.position, action)
        return found

    def _illegal(self, raw: int, now: float, detail: str = "", tried: str = "") -> None:
        difference = self._difference(raw, self.position)
        if difference == self._reported and self.status.phase == Phase.ILLEGAL:
            return
        self._reported = difference
        self._mistaken = True
        remove, put_back = difference.labels()
        detail = detail or explain(
            self.profile, self.position, difference, self.profile.canonical(raw)
        )
        moved = None if tried else tried_move(self.profile, self.position, difference)
        tried = tried or (str(moved) if moved is not None else "")
        self.emit(Illegal(now, self.position.to_move, remove, put_back, detail, tried))
        self.status = self._status(Phase.ILLEGAL, now, difference=difference)
