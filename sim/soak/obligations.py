"""The soak's people carrying out what the rules oblige: captured pieces carried off late, in part,
to the wrong place, or the next player's move made first."""

from __future__ import annotations

from functools import partial

import magboard.sim.soak.careless as careless
from magboard.firmware.games import CARRY_OUT, Action
from magboard.firmware.profiles import Step
from magboard.hardware.spec import Cell, Place, Slot, place_label_any

from .answers import _EVENT_OF, Expected
from .hands import ACCEPT_WAIT, FAST, HAND_PAUSE, _kind
from .hands_people import Move

P_LATE = 0.25
"""Of obligations: carried out only after the board has waited a while."""
LATE = (2.0, 6.0)
"""Seconds the captured pieces stay on the board when carried off late."""
P_IN_PART = 0.4
"""Of obligations of several pieces: one carried off, the board left still, then the rest."""
P_WRONG_PLACE = 0.2
"""Of obligations: a piece put in a supply it does not go to, then moved where it goes."""
P_FIRST = 0.25
"""Of obligations: the next player puts a piece down before they are carried out."""


class Obligations:
    """How the people (PeopleSoak) carry out what the rules oblige, carelessly at times."""

    def carry_out(self, faulted: bool) -> bool:
        """The obligation carried out by hand: perhaps late, perhaps after the next player tried
        to go first, a piece first in the wrong place, in part, or with a power cut while a
        piece is in the hand."""
        rng = self.rng
        if rng.random() < P_LATE:
            self.late()
        if rng.random() < P_FIRST:
            self.move_first()
        if rng.random() < P_WRONG_PLACE:
            self.wrong_place()
        moves = list(self.profile.plan(self.state, CARRY_OUT))
        if len(moves) > 1 and rng.random() < P_IN_PART:
            return self.in_part(moves, faulted)
        if faulted or rng.random() >= careless.P_POWER_CUT:
            self.tally.obligations += 1
            return self.move(CARRY_OUT, faulted)
        self.tally.obligations += 1
        return self.power_cut(CARRY_OUT)

    @_kind("obligation late")
    def late(self) -> None:
        """Nobody carries the obligation out for a while: the board waits for it."""
        self.tally.late_obligations += 1
        self._wait(self.rng.uniform(*LATE))
        self._unexpected(self._new_events())

    @_kind("obligation in part")
    def in_part(self, moves: list[Move], faulted: bool) -> bool:
        """One piece carried off, the board left still (progress, not a mistake), then the rest:
        the board must say the obligation is done only then."""
        self.tally.obligations += 1
        self._do(moves[:1], HAND_PAUSE)
        self._wait(ACCEPT_WAIT)
        self._unexpected(self._new_events())
        expected = self._expect(CARRY_OUT)
        self._do(moves[1:], HAND_PAUSE)
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        self._survived(faulted, ok)
        return ok and self._agree()

    @_kind("obligation at once")
    def at_once(self, action: Action, faulted: bool) -> bool:
        """`action` ends a turn with something to carry out, and the other hand carries it out
        straight away, before the board settled: both must be accepted, in that order."""
        expected = self._expect(action)
        self.session.perform(action, pause=FAST)
        expected += self._carry_at_once()
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        self._survived(faulted, ok)
        return ok and self._agree()

    def _carry_at_once(self) -> list[Expected]:
        self.tally.obligations += 1
        moves = list(self.profile.plan(self.state, CARRY_OUT))
        expected = self._expect(CARRY_OUT)
        self._do(moves, FAST)
        return expected

    def wrong_place(self) -> None:
        """A piece carried off into a supply it does not go to, then moved where it goes: the
        board must call it a mistake (naming a rule), then say `restored`."""
        found = self._find_wrong_place()
        if found is None:
            return
        cell, wrong = found
        self._carried_and_back("obligation in the wrong place", cell, wrong, rule="")

    def _find_wrong_place(self) -> tuple[Cell, Slot] | None:
        """A cell to carry off and a free slot of a sensed supply that is not where it goes:
        the piece comes back out of that very slot (a supply's other pieces stay)."""
        for step in self.profile.plan(self.state, CARRY_OUT):
            if not isinstance(step, Step) or isinstance(step.source, str):
                continue
            free = [
                slot
                for s in self.profile.supplies
                if s.sensed and s.name != step.target
                for slot in s.slots
                if not self.world.pieces_at(slot)
            ]
            if free:
                return step.source, self.rng.choice(free)
        return None

    def move_first(self) -> None:
        """The next player puts a piece down before the obligation is carried out; the board
        must refuse it, and take it back in its stride once the piece goes back."""
        step = self._first_move()
        if step is None:
            return
        self.tally.moved_first += 1
        with self._doing("moved before the obligation"):
            answer = self._put_right(
                partial(self._carry, step.source, step.target),
                partial(self._carry, step.target, step.source),
            )
        self.tally.moved_first_refused += answer.recovered

    def _first_move(self) -> Step | None:
        """A piece action the next player could make once the obligation is done, by one hand
        movement, from where a piece is now onto a cell that is free now."""
        after = self.state.apply(CARRY_OUT)
        steps = [self.profile.plan(after, action) for action in after.legal_actions()]
        free = [
            step
            for (step,) in (s for s in steps if len(s) == 1)
            if isinstance(step, Step)
            and not step.slide
            and not isinstance(step.target, str)
            and not self.world.pieces_at(step.target)
            and self._holds(step.source)
        ]
        return self.rng.choice(free) if free else None

    def _holds(self, spot: str | Cell) -> bool:
        """Whether a hand can take a piece from `spot` now."""
        if not isinstance(spot, str):
            return bool(self.world.pieces_at(spot))
        supply = self.profile.supply(spot)
        return not supply.sensed or any(map(self.world.pieces_at, supply.slots))

    def _carried_and_back(
        self, kind: str, source: str | Place, target: str | Place, rule: str | None = None
    ) -> None:
        """A mistake of `kind`: a piece carried from `source` to `target`, then back."""
        self._mistake_put_right(
            kind,
            f"{place_label_any(source)} to {place_label_any(target)}",
            partial(self._carry, source, target),
            partial(self._carry, target, source),
            rule,
        )

    def _carry(self, source: str | Place, target: str | Place) -> None:
        piece = self.session.take(source)
        self._wait(HAND_PAUSE / 2)
        self.session.give(target, piece)
