"""Reading a still board as turns: the search by difference from the turn's start, its readings
told in the order the frames show, the accepted part of the turn kept, and the one reading
that explains the board best accepted; a board no reading explains is pieces in hand, a
takeback, or a mistake to put right."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

from magboard.firmware.games import Action, State
from magboard.firmware.profiles import Spot

from .evidence import best_explained, in_order, reply_cells, witness
from .explain import NO_RULE, explain, forbidden, misordered
from .frame_order import Misordered, in_frame_order
from .history import notation
from .matcher import Reading, SearchLimitError
from .status import Phase


@dataclass(frozen=True)
class Told:
    """The readings of a frame, each turn's actions in the order the frames show them made
    (`in_frame_order`), and the first reading that order breaks a rule of."""

    exact: tuple[Reading, ...]
    endings: tuple[Reading, ...]
    refused: Misordered | None


def _after(turn: Reading, position: State) -> tuple[Action, ...] | None:
    """The actions of `turn` after it passes through `position`, or None if it never does."""
    state = turn.start
    for n, action in enumerate(turn.actions):
        if state == position:
            return turn.actions[n:]
        state = state.advance(action)
    return () if state == position else None


def _reordered(
    turn: Reading, accepted: tuple[Action, ...], position: State
) -> tuple[Action, ...] | None:
    """The actions of `turn` after the accepted ones, where its actions are the accepted ones
    and others in another order that still reaches the same position from `position` (two
    collections whose order the board already announced); None if there are no such. Readings
    come here already in the order the frames show (`in_frame_order`): this only puts the
    accepted part first where the frames left the order open, and never makes an order the
    rules forbid legal, as the rest must be legal after the accepted part."""
    rest = list(turn.actions)
    for action in accepted:
        if action not in rest:
            return None
        rest.remove(action)
    state = position
    for action in rest:
        if not state.is_legal(action):
            return None
        state = state.advance(action)
    return tuple(rest) if state == turn.state else None


class Judging:
    """The `Referee`'s job of judging a still board (the state it works on is the
    referee's)."""

    def _judge_settled(
        self, raw: int, frame: int, now: float, lifted: frozenset[Spot] | None
    ) -> None:
        profile, trail, accepted = self.profile, self._trail, self._accepted_frame()
        tried = forbidden(profile, self.position, frame)
        if tried is not None:
            self._illegal(raw, now, tried.why, str(tried.action))
            return
        if self._held_off(raw, frame, now, lifted):
            return
        try:
            told = self._readings(frame)
        except SearchLimitError as error:
            self._illegal(raw, now, f"too much changed at once to read ({error}): put it back")
            return
        exact, endings, refused = told.exact, told.endings, told.refused
        single = best_explained(
            profile,
            self._keeping_accepted(
                [r for r in exact if r.previous is None and in_order(profile, trail, r, accepted)]
            ),
            self._touched,
            trail,
        )
        if len(single) > 1:
            shown = ", ".join(" ".join(notation(r.actions)) for r in single)
            self._illegal(raw, now, f"the board cannot tell these apart: {shown}")
            return
        if single:
            self._accept(single[0], now, frame)
            return
        turn_start = self.turn_start
        if self._partial and frame == profile.render(turn_start):
            self._accept(Reading(turn_start, (), False, turn_start), now, frame)
            return
        if self._is_takeback(frame):
            self._take_back(frame, now)
            return
        for candidates, strict in (
            ([r for r in exact if r.previous is not None], False),
            ([r for r in endings if witness(profile, trail, r) is not None], True),
        ):
            readings = best_explained(
                profile,
                self._keeping_accepted(
                    [r for r in candidates if in_order(profile, trail, r, accepted)], strict=strict
                ),
                self._touched,
                trail,
            )
            if len(readings) == 1:
                for turn in readings[0].turns:
                    self._accept(turn, now, frame)
                if self.position.outcome() is not None:
                    self._judge_after_the_end(raw, frame, now)
                return
            if len(readings) > 1:
                self._illegal(raw, now, "two moves were made too fast to tell: put them back")
                return
        self._unexplained(raw, frame, now, lifted, refused)

    def search_ahead(self) -> None:
        """The loop's call once it has answered a frame that changed and the board is not yet
        still: the search by difference for that frame, made now, in the settle time, where the
        board has nothing else to do. When the frame is still, the judging takes its readings
        as they are (`_readings`): the lights answer a turn of thousands of continuations in as
        little time as a turn of one. A frame passed through on the way is searched for
        nothing, as the next frame asks for another search."""
        raw, self._unsettled = self._unsettled, None
        if raw is None or self._clearing or self._owed is not None:
            return
        position = self.position
        if self.status.phase not in (Phase.PLAY, Phase.IN_HAND, Phase.ILLEGAL):
            return
        frame = self.profile.canonical(raw)
        if frame == self.profile.render(position) or position.outcome() is not None:
            return
        if not self.is_local_seat(position.to_move):
            return
        with contextlib.suppress(SearchLimitError):
            self._readings(frame)

    def _readings(self, frame: int) -> Told:
        """The readings of `frame` from the search's start, through the frames passed, told
        in the order the frames show; the same question asked again (the frame now still,
        searched ahead) is not worked out twice."""
        start, changed, trail = self._search_start(), self._changed_cells(), self._trail
        asked = (start, self.turn_start, self._partial, frame, changed, tuple(trail))
        searched = self._searched
        if searched is None or searched[0] != asked:
            try:
                found = self.matcher.search(
                    start, frame, changed, across=self._reply_cells, passed=trail
                )
                exact, refused = self._in_frame_order(found.exact)
                endings, _ = self._in_frame_order(found.endings)
                told: Told | SearchLimitError = Told(tuple(exact), tuple(endings), refused)
            except SearchLimitError as error:
                told = error
            searched = self._searched = (asked, told)
        if isinstance(searched[1], SearchLimitError):
            raise searched[1]
        return searched[1]

    def _unexplained(
        self,
        raw: int,
        frame: int,
        now: float,
        lifted: frozenset[Spot] | None,
        refused: Misordered | None,
    ) -> None:
        """No reading explains the still board: pieces in the hand, or a mistake. But where it
        showed the last move taken back before, held off as pieces that might come back changed
        (`_held_off`), they did not: the takeback was one, and what followed is judged from
        there (the last mover put the token on another square at once, say)."""
        held = self._held
        self._held = None
        if held is None or not self._is_takeback(held.frame):
            # A piece lifted that the mover may put nowhere (the board's reply, back in a box no
            # sensor sees) is the first of a takeback under way, as one put back in its tray is.
            nowhere = lifted is None or not self._targets(lifted)
            if nowhere and self._taking_back(raw, frame, now):
                return
            if lifted is not None:
                self._in_hand(lifted, now, raw)
            else:
                self._illegal(raw, now, self._why_misordered(raw, frame, refused))
            return
        self._take_back(held.frame, now)
        self._record(frame)
        self._judge_settled(raw, frame, now, self.profile.lifted_from(frame, self.position))

    def _why_misordered(self, raw: int, frame: int, refused: Misordered | None) -> str:
        """Why the rules refuse the turn the frames show (`refused`, if any; else the general
        word). Where that turn is not the accepted part extended, but one action from the
        accepted part is what the board shows and the rules name why they refuse it, that is
        the reason: the lights ask for that action undone, and a meeple stepped again after
        its tile moved shows the frames of the tile moved before the step."""
        if refused is None:
            return ""
        if refused.rewrites:
            difference = self._difference(raw, self.position)
            tried = explain(self.profile, self.position, difference, frame)
            if tried != NO_RULE:
                return tried
        return misordered(refused)

    def _judge_before_ending(self, raw: int, now: float) -> None:
        """The mover's board as it is at the press, if it reads as one turn (done, or one the
        button may end). Anything else waits for the board to settle, as without the press."""
        if self.status.phase not in (Phase.PLAY, Phase.IN_HAND):
            return
        frame = self.profile.canonical(raw)
        self._record(frame)
        if frame == self.profile.render(self.position):
            return
        try:
            found = self.matcher.search(self.turn_start, frame, self._changed_cells())
        except SearchLimitError:
            return
        profile, trail, accepted = self.profile, self._trail, self._accepted_frame()
        exact, _ = self._in_frame_order(found.exact)
        readings = best_explained(
            profile,
            self._keeping_accepted([r for r in exact if in_order(profile, trail, r, accepted)]),
            self._touched,
            trail,
        )
        if len(readings) == 1 and (readings[0].complete or readings[0].state.can_end_turn):
            self._accept(readings[0], now, frame)

    def _in_frame_order(
        self, readings: Iterable[Reading]
    ) -> tuple[list[Reading], Misordered | None]:
        """The readings with each turn's actions in the order the frames show them made, and
        the first that order breaks a rule of, if any (a slide before the turn's placement):
        a reading that reorders what the frames showed is never accepted."""
        told: list[Reading] = []
        refused = None
        for reading in readings:
            fixed = self._accepted_prefix(reading)
            result = in_frame_order(self.profile, self._trail, reading, fixed)
            if isinstance(result, Misordered):
                first = reading.turns[0].start
                rewrites = bool(self._partial) and not fixed and first == self.turn_start
                refused = refused or replace(result, rewrites=rewrites)
            elif result is not None:
                told.append(result)
        return told, refused

    def _accepted_prefix(self, reading: Reading) -> int:
        """How many of `reading`'s first actions are the part of the turn already accepted,
        in the order it was accepted."""
        first, accepted = reading.turns[0], self._partial
        if not accepted or first.start != self.turn_start:
            return 0
        return len(accepted) if first.actions[: len(accepted)] == accepted else 0

    def _keeping_accepted(self, readings: list[Reading], *, strict: bool = False) -> list[Reading]:
        """The readings that pass through the part of the turn already accepted, if any do,
        told with the accepted actions first: a tile put on d3, accepted, then slid to f3 was
        not put on e3 and slid on, although the slide tripped e3 too; and two placements
        accepted one after the other keep their order. Where none passes through, the hands
        took the accepted part back, unless `strict`: a game won by a turn that rewrites the
        accepted part, with pieces on top as strays (a tile put on e4, slid to e2 where the
        board saw one put, then a second put on e4), is a doubt, never a win."""
        if not self._partial:
            return readings
        kept = []
        for reading in readings:
            first = reading.turns[0]
            rest = _after(first, self.position)
            if rest is None:
                rest = _reordered(first, self._partial, self.position)
            if rest is not None:
                retold = replace(first, actions=(*self._partial, *rest), start=self.turn_start)
                kept.append(replace(reading, previous=retold) if reading.previous else retold)
        return kept if kept or strict else readings

    def _accepted_frame(self) -> int | None:
        """The frame of the accepted part of the turn in progress, if any."""
        return self.profile.render(self.position) if self._partial else None

    def _search_start(self) -> State:
        """Where the search for a reading begins: the turn's start, or, once the turn holds a
        choice no sensor saw (Magnetmen's Actress), the position after the accepted part of it,
        which the frames alone could never lead back to."""
        if any(not action.seen for action in self._partial):
            return self.position
        return self.turn_start

    def _reply_cells(self, reading: Reading) -> frozenset[Spot] | None:
        return reply_cells(self.profile, self._trail, reading)

    def _changed_cells(self) -> frozenset:
        """Game cells the hands changed in this turn: those of the accepted part of it, and
        every cell that changed since the board last showed the referee's position."""
        cells = set(self.matcher.game_cells(self.profile.sensors.spots(self._touched)))
        for action in self._partial:
            cells |= action.touches
        return frozenset(cells)
