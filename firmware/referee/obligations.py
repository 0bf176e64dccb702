"""Obligations: what the rules need done by hand after a turn (pieces carried off, a square of
the mover's choosing to act on), lit until the board shows it done, in any order and a piece at
a time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from magboard.firmware.events import Fulfilled, Illegal, Obligation, Restored
from magboard.firmware.games import CARRY_OUT
from magboard.firmware.games import Obligation as Duty
from magboard.firmware.profiles import Spot

from .announce import labels
from .carrying import Carrying, carrying, step_places
from .history import Turn
from .status import Phase

OBLIGATION_FIRST = "finish the obligation first"
"""Every refusal while an obligation waits begins so: the obligation is what the board asks for
first, whatever else the hands did wrong."""
ROUND_WON_SECONDS = 4.0
"""How long a round's winning line runs (a Lance Assembly bout) before the board asks to be
cleared for the next: a few passes of the running light, long enough for both to see it."""


def _details(duties: Sequence[Duty]) -> str:
    """What the obligations need done, in the game's words."""
    return "; ".join(duty.detail for duty in duties)


def _todo(duties: Sequence[Duty]) -> str:
    """What the obligations ask of the hands, as one instruction."""
    return "; ".join(duty.todo for duty in duties if duty.todo)


class Obligations:
    """The `Referee`'s job of obligations (the state it works on is the referee's)."""

    def _obliged_spots(self, duties: Sequence[Duty] | None = None) -> frozenset[Spot]:
        """The board places the pending obligations (or `duties`) move pieces from and to."""
        spots: set[Spot] = set()
        for duty in self.position.obligations if duties is None else duties:
            for spot in duty.sources | duty.targets:
                spots.add(spot if isinstance(spot, str) else self.profile.to_board(spot))
        return frozenset(spots)

    def _oblige(self, now: float, frame: int | None) -> None:
        """The rules need pieces moved by hand: blink them until the board shows it done. A
        frame that already shows some of them carried off (at once, inside the settle window
        of the turn that made the obligation) is progress already."""
        position = self.position
        places = self.profile.places_of(self._obliged_spots())
        self._duties_shown = position.obligations
        self._obliged_since = now
        duties = position.obligations
        self.emit(
            Obligation(
                now,
                self.history[-1].player,
                _details(duties),
                tuple(labels(places)),
                todo=_todo(duties),
            )
        )
        self.status = self._status(Phase.OBLIGATION, now, obligation=places)
        won = position.round_outcome()
        if won is not None and won.winners and won.cells:
            line = tuple(sorted(self.profile.to_board(c) for c in won.cells))
            self.status = replace(self.status, win=line, winners=won.winners, round_won=True)
        if frame is None:
            return
        if frame == self.profile.render(position.apply(CARRY_OUT)):
            self._carry_out(now, frame)
            return
        carried = carrying(self.profile, position, frame)
        if carried.gone and frame == carried.frame:
            self._carried_in_part(carried, now, stable=True)

    def _judge_obligation(self, raw: int, frame: int, now: float, stable: bool) -> None:
        """Waiting for the board to show the obligation done. Hands carry its pieces off one
        at a time, in any order: each that reaches its place is progress, and pieces in hands
        are part of doing it. Once the board settles, the position before the turn is a
        takeback (the obligation goes with the turn); anything else is a mistake to put right."""
        position, profile = self.position, self.profile
        done = position.apply(CARRY_OUT)
        if frame == profile.render(done):
            self._carry_out(now, frame)
            return
        early = profile.lifted_from(frame, done)
        if early is not None and not early & self._obliged_spots():
            # Done, while the next player already holds a piece for the next turn.
            self._carry_out(now, frame)
            self._in_hand(early, now, raw)
            return
        carried = carrying(profile, position, frame)
        if frame == carried.frame:
            self._carried_in_part(carried, now, stable)
            return
        if not stable:
            return
        if self._is_takeback(frame):
            self._take_back(frame, now)
            return
        if carried.in_hands(profile, frame) is not None:
            return
        difference = self._difference(raw, done)
        if difference != self.status.difference:
            remove, put_back = difference.labels()
            self._mistaken = True
            detail = f"{OBLIGATION_FIRST}: {_details(self._duties_shown)}"
            self.emit(Illegal(now, position.to_move, remove, put_back, detail))
            self.status = self._status(
                Phase.OBLIGATION, now, obligation=self.status.obligation, difference=difference
            )

    def _carried_in_part(self, carried: Carrying, now: float, stable: bool) -> None:
        """The board shows the obligation with some of its pieces (or none) in their places and
        nothing else out of place: what is left stays lit, in the rhythm the obligation began
        with; once settled, a change in what is left is said (an `obligation` with the rest)."""
        if self._mistaken:
            self.emit(Restored(now))
            self._mistaken = False
        places = step_places(self.profile, carried.left)
        if self.status.obligation != places or self.status.difference:
            self.status = self._status(Phase.OBLIGATION, self._obliged_since, obligation=places)
        duties = self._duties_left(carried)
        if stable and duties != self._duties_shown:
            self._duties_shown = duties
            shown = self.profile.places_of(self._obliged_spots(duties))
            player = self.history[-1].player
            detail, todo = _details(duties), _todo(duties)
            self.emit(Obligation(now, player, detail, tuple(labels(shown)), todo=todo))

    def _duties_left(self, carried: Carrying) -> tuple[Duty, ...]:
        """The pending obligations not yet shown done: those with a piece still on its cell, or
        none on any cell (carried from a supply: done only with the whole)."""
        to_board, left = self.profile.to_board, {step.source for step in carried.left}
        duties = []
        for duty in self.position.obligations:
            cells = {to_board(spot) for spot in duty.sources if not isinstance(spot, str)}
            if not cells or cells & left:
                duties.append(duty)
        return tuple(duties)

    def _carry_out(self, now: float, frame: int) -> None:
        if self._mistaken:
            self.emit(Restored(now))
        before = self.position
        last = self.history.pop()
        self.history.append(Turn(last.start, last.player, (*last.actions, CARRY_OUT)))
        self.position = before.apply(CARRY_OUT)
        self.emit(Fulfilled(now, last.player, _details(before.obligations)))
        self._pass_while_forced(now)
        self._anchor(self.position, frame)
        self._set_play(now)
        self._announce_end(now)

    def _ask(self, now: float) -> None:
        """What the rules ask the turn to do by hand on a square of the player's choosing (a
        Magnetmen Explorer's destruction): said, and its squares lit as an obligation, since
        no lifted piece shows where it may go."""
        mover = self.position.to_move
        asked = self.profile.asked(self.position) if self.is_local_seat(mover) else None
        if asked is None:
            return
        self.emit(Obligation(now, mover, asked.detail, tuple(labels(asked.places))))
        self.status = replace(
            self.status, obligation=asked.places, targets=frozenset(), due=frozenset()
        )
