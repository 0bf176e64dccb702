"""The soak's people careless with the rules: actions in an order the rules forbid, and a fault
as a piece lands."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from magboard.firmware.events import (
    FaultSurvived,
    Moved,
    Partial,
)
from magboard.firmware.games import CARRY_OUT, Action, State
from magboard.firmware.profiles import Step, TileStep
from magboard.hardware.spec import Cell, place_label_any

from .answers import _EVENT_OF
from .careless import _completes
from .hands import ACCEPT_WAIT, HAND_PAUSE, _kind
from .hands_people import BRISK, TRIES, Move

LANDING_FAULT = 0.1
"""Seconds after a piece lands that its expander resets."""


class Carelessness:
    """How the people (PeopleSoak) act in an order the rules forbid, and fault a landing."""

    def out_of_order(self) -> None:
        """An action the rules forbid in this order, made by hand, then undone: the board must
        refuse it naming the rule, then say `restored`."""
        found = self._find_out_of_order()
        if found is None:
            return
        moves, rule = found
        self._mistake_put_right(
            "out of order",
            _moves_made(moves),
            partial(self._do, moves, BRISK),
            partial(self._undo, moves, BRISK),
            rule,
        )

    def _find_out_of_order(self) -> tuple[list[Move], str] | None:
        """An action the turn's start allows that the turn so far rules out, or one the rules
        allow only after another action of the turn: its movements and the rule it breaks."""
        state, start, rng = self.state, self.turn_start, self.rng
        if state.obligations or state.choices() or state.outcome() is not None:
            return None
        candidates: list[tuple[State, Action]] = []
        if self.turn_actions:  # something the turn's start allows, ruled out by now
            candidates += [(start, a) for a in start.legal_actions() if not state.is_legal(a)]
        else:  # something allowed only after another action of this turn
            firsts = [a for a in self._seen_actions() if not _completes(state, a)]
            for first in rng.sample(firsts, min(3, len(firsts))):
                after = state.apply(first)
                candidates += [(after, a) for a in after.legal_actions() if not state.is_legal(a)]
        candidates = [(s, a) for s, a in candidates if a.seen and a != CARRY_OUT]
        rng.shuffle(candidates)
        for where, action in candidates[:TRIES]:
            moves = list(self.profile.plan(where, action))
            if moves and self._doable(moves):
                return moves, state.why_illegal(action)
        return None

    # Faults as a piece lands.

    @_kind("fault as a piece lands")
    def landing_fault(self, action: Action) -> bool:
        """`action`'s piece put down, and its expander reset just after: the board must accept
        the move, and only after a complete scan and the settle time again."""
        (step,) = self.profile.plan(self.state, action)
        assert isinstance(step, Step) and not isinstance(step.target, str)
        expected = self._expect(action)
        piece = self.session.take(step.source)
        self._wait(HAND_PAUSE / 2)
        self.session.give(step.target, piece)
        self._wait(LANDING_FAULT)
        self.world.reset_expander(self._expander_of(step.target))
        self.tally.faults_injected += 1
        faulted_at = self.clock.now()
        seen = len(self.session.events)
        self._wait(ACCEPT_WAIT + 1.0, until=_EVENT_OF[expected[-1][0]])
        self._judge_haste(self.session.events[seen:], faulted_at)
        ok = self._check(expected)
        self._survived(True, ok)
        self.last_turn = None
        return ok and self._agree()

    def _judge_haste(self, events: Sequence[Any], faulted_at: float) -> None:
        """A move accepted sooner than the settle time after the fault was found (or before it
        was) was judged on a board the scan had not seen whole: a false accept."""
        found = [e.t for e in events if isinstance(e, FaultSurvived)]
        since = found[0] if found else faulted_at
        for event in events:
            if isinstance(event, Moved | Partial) and event.t - since < self.profile.settle:
                waited = (event.t - since) * 1000
                self._blame("false_accepts", 1, f"accepted {waited:.0f} ms after the fault")

    def _expander_of(self, cell: Cell) -> int:
        for sensor in self.spec.sensors:
            if sensor.place == cell:
                return sensor.expander
        return 0


def _moves_made(moves: Sequence[Move]) -> str:
    """A hand's movements in words, for an example of what went wrong."""
    return ", ".join(map(_move_made, moves))


def _move_made(move: Move) -> str:
    if isinstance(move, TileStep):
        return f"the tile at {place_label_any(move.tile)} {move.way}"
    how = "slid" if move.slide else "carried"
    return f"{place_label_any(move.source)} {how} to {place_label_any(move.target)}"
