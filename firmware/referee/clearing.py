"""Between games: after a game's end the board is cleared back to the start position (what is
left to clear is lit), and the next game begins when it shows it; `new` starts one at once."""

from __future__ import annotations

from magboard.firmware.events import Clear, Illegal, Note
from magboard.firmware.profiles import Difference

from .status import Phase, Status

ONE_GAME = "a remote match is one game: for another, start another match"


class Clearing:
    """The `Referee`'s job of clearing between games (the state it works on is the referee's)."""

    def new_game(self, now: float, raw: int | None = None) -> None:
        """`new`: a fresh game at once; if pieces are left on the board, they are lit until
        cleared, and nothing left over counts as a move."""
        if self.remote:
            self.emit(Note(now, f"refused: new game: {ONE_GAME}"))
            return
        self.start(now)
        if raw is not None:
            frame = self.profile.canonical(raw)
            if not self._at_start(frame):
                self._begin_clearing(raw, now, announce=False)

    def _judge_after_the_end(self, raw: int, frame: int, now: float) -> None:
        """After a game the board is expected to be cleared: pieces put on top of the final
        position are only something to take off; once a piece of it goes, the board shows
        what is left to clear."""
        final = self.profile.render(self.position)
        cells = self.profile.sensors.cells_mask
        if self._at_start(frame):
            self._next_game(frame, now)
        elif frame & final & cells == final & cells:
            difference = self._difference(raw, self.position)
            if difference != self.status.difference:
                self.status = self._status(Phase.OVER, self.status.since, difference=difference)
                # Only a piece put down is news: a supply's piece taken away as the clearing
                # begins, a stray still on a cell, is no second mistake.
                reported = self._reported
                said = reported.remove if isinstance(reported, Difference) else None
                if difference.remove and difference.remove != said:
                    self._reported = difference
                    remove, put_back = difference.labels()
                    detail = "the game is over: take off what was put down after its end"
                    self.emit(Illegal(now, self.position.to_move, remove, put_back, detail))
        else:
            self._begin_clearing(raw, now, announce=True)

    def _at_start(self, frame: int) -> bool:
        """The board shows the start position, but for pieces already in hands."""
        start = self.profile.render(self.initial)
        return frame == start or self.profile.sensors.lifted_from(frame, start) is not None

    def _begin_clearing(self, raw: int, now: float, *, announce: bool) -> None:
        self._clearing = True
        self._next_announced = not announce
        self._show_clearing(raw, now)

    def _show_clearing(self, raw: int, now: float) -> None:
        difference = self._difference(raw, self.initial)
        if difference == self._reported:
            return
        self._reported = difference
        remove, put_back = difference.labels()
        self.emit(Clear(now, remove, put_back))
        self.status = Status(
            Phase.CLEARING, now, None, difference=difference, draw=False, winners=()
        )

    def _judge_clearing(self, raw: int, frame: int, now: float, stable: bool) -> None:
        if self._at_start(frame):
            self._next_game(frame, now)
            if self._clearing:  # a remote match: no next game
                return
            lifted = self.profile.lifted_from(frame, self.position)
            if lifted is not None:
                self._in_hand(lifted, now, raw)
        elif stable:
            self._show_clearing(raw, now)

    def _next_game(self, frame: int, now: float) -> None:
        if self.remote:  # one game a remote match: the cleared board stays dark
            if self.status.phase != Phase.CLEARING or self.status.difference:
                self._clearing = True
                self._reported = None
                self.emit(Note(now, f"the board is clear: {ONE_GAME}"))
                self.status = Status(Phase.CLEARING, now, None)
            return
        announce = not self._clearing or not self._next_announced
        self._clearing = False
        self._restart(self.initial)
        self._anchor(self.initial, frame)
        if announce:
            self._announce(now)
        self._set_play(now)
