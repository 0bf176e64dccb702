"""Takeback: a board that shows the position before the last turn (where takebacks are on) has
it taken back; against the board, the person's last move goes back with the board's replies,
put back by hand in any order. A piece the mover may put back changed in place (a token turned
over) is held in the hand a moment before its absence reads as a takeback."""

from __future__ import annotations

from dataclasses import dataclass, replace

from magboard.firmware.events import Note, TakenBack
from magboard.firmware.games import CARRY_OUT, PASS, State
from magboard.firmware.profiles import Spot

from .history import notation
from .status import Phase

CHANGE_IN_PLACE = 1.0
"""Seconds a piece the mover may change in place (a token turned over) may stay off its square,
once the board is still, before its absence is read as the last move taken back: a hand turns a
token over well within it."""


@dataclass(frozen=True)
class Held:
    """A still board that would take back the last move (or the accepted part of the turn),
    held off for a while because the pieces lifted are ones the mover may put back changed (a
    Police square's token turned over): until then they are in the hand."""

    frame: int
    raw: int
    until: float
    seen: int
    """How many frames the turn had passed through when the board stood still: while it
    still shows no other, the wait may end without a new still frame."""


def _cells(spots: frozenset[Spot]) -> frozenset[Spot]:
    """The board cells among `spots` (not the supplies)."""
    return frozenset(spot for spot in spots if not isinstance(spot, str))


class Takeback:
    """The `Referee`'s job of takebacks (the state it works on is the referee's)."""

    def _held_off(self, raw: int, frame: int, now: float, lifted: frozenset[Spot] | None) -> bool:
        """Pieces lifted off a still board that shows the last move taken back (or the turn's
        accepted part), where the mover may put them back changed in place: they are in the
        hand, not taken back, for `CHANGE_IN_PLACE` seconds. True while the board waits."""
        held = self._held
        if held is not None and held.frame == frame:
            if held.seen == self._seen and now < held.until:
                return True
            if held.seen == self._seen:  # the wait is over: the board shows what it shows
                self._held = None
                return False
        if lifted is None or not (self._partial or self._is_takeback(frame)):
            return False
        if not self._may_change_in_place(lifted):
            return False
        self._held = Held(frame, raw, now + CHANGE_IN_PLACE, self._seen)
        self._in_hand(lifted, now, raw)
        return True

    def _may_change_in_place(self, lifted: frozenset[Spot]) -> bool:
        """Whether a legal action of the mover puts pieces back on exactly the cells `lifted`
        empties, changed, and touches no other cell (a Police square's token turned over)."""
        cells = _cells(lifted)
        if not cells:
            return False
        for action in self.position.legal_actions():
            if not action.seen:
                continue
            movement = self._movement(action)
            changed = _cells(movement.lifted), _cells(movement.placed)
            if lifted <= movement.lifted and changed == (cells, cells):
                return True
        return False

    def _is_takeback(self, frame: int) -> bool:
        return self.takeback and self._takeback_depth(frame) > 0

    def _takeback_depth(self, frame: int) -> int:
        if self.board_seats:
            return self._takeback_past_the_board(frame)
        return self.history.takeback_depth(frame, self.turn_start, self.profile.render)

    def _takeback_past_the_board(self, frame: int) -> int:
        """Against the board: how many turns back `frame` shows, where it shows the position
        before a person's last move (the board's replies after it go back with it); 0 if not.
        The board's own move alone is never taken back: it would only play again."""
        render, current = self.profile.render, self.profile.render(self.turn_start)
        for depth, turn in enumerate(reversed(self.history), start=1):
            if self.is_local_seat(turn.player) and turn.actions != (PASS,):
                shown = render(turn.start)
                return depth if shown == frame and shown != current else 0
        return 0

    def _taking_back(self, raw: int, frame: int, now: float) -> bool:
        """Against the board, a takeback is two turns or more to put back by hand, in the order
        people choose: once a piece of them is back where it came from and nothing else has
        changed, it is a takeback under way, not a mistake. The lights show what is left to put
        back; the takeback itself comes when the board shows the position before the person's
        move. True if `frame` is such a board."""
        target = self._takeback_target()
        if target is None or not self.on_the_way_back(frame):
            return False
        difference = self._difference(raw, target)
        if self.status.phase != Phase.TAKING_BACK:
            self.emit(Note(now, f"taking back {self._taken_back_text()}: put back what is lit"))
        if self.status.phase != Phase.TAKING_BACK or difference != self.status.difference:
            self._reported = difference
            self._mistaken = False
            shown = self._status(Phase.TAKING_BACK, now, difference=difference)
            # The last move is being taken back: only what is left to put back is lit.
            self.status = replace(shown, last_move=frozenset(), last_mover=None)
        return True

    def on_the_way_back(self, frame: int) -> bool:
        """Against the board, whether `frame` is on the way back to the position before the
        person's last move (`_takeback_target`): something has changed, and only what that
        position has otherwise. A tile of the right colour from a box on a cell the takeback
        fills is such a step, whichever tile it is: tiles of one colour are all alike."""
        target = self._takeback_target()
        if target is None:
            return False
        current, before = self.profile.render(self.position), self.profile.render(target)
        changed = frame ^ current
        return bool(changed) and not changed & ~(current ^ before)

    def _takeback_target(self) -> State | None:
        """Against the board, with takebacks on: the position before the person's last move,
        if the board's reply follows it (a takeback of several turns); None otherwise."""
        if not (self.takeback and self.board_seats) or self._partial:
            return None
        for depth, turn in enumerate(reversed(self.history), start=1):
            if self.is_local_seat(turn.player) and turn.actions != (PASS,):
                return turn.start if depth > 1 else None
        return None

    def _taken_back_text(self) -> str:
        """The turns a takeback against the board undoes, as its note names them: "X a1 with
        the board's reply O b2"."""
        seats, turns = self.game.seats, []
        for turn in reversed(self.history):
            actions = [str(a) for a in turn.actions if a not in (CARRY_OUT, PASS)]
            if actions:
                turns.append(f"{seats[turn.player]} {' '.join(actions)}")
            if self.is_local_seat(turn.player) and turn.actions != (PASS,):
                break
        person, *replies = reversed(turns)
        return f"{person} with the board's reply {', then '.join(replies)}"

    def _take_back(self, frame: int, now: float) -> None:
        for _ in range(self._takeback_depth(frame)):
            turn = self.history.pop()
            actions = tuple(a for a in turn.actions if a != CARRY_OUT)
            self.emit(TakenBack(now, turn.player, notation(actions)))
            self.position = turn.start
        self._partial = ()
        self._anchor(self.position, frame)
        self._set_play(now)
