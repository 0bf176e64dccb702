"""Who plays where: in a remote match each board moves its own seats' pieces, and the board
itself may play seats (their turns come to it as a remote board's do, and hands make them)."""

from __future__ import annotations

from collections.abc import Iterable

from magboard.firmware.games import PASS

from .history import Turn, notation
from .remote_log import Turns
from .status import Phase, Status


class Seats:
    """The `Referee`'s job of seats played elsewhere (the state it works on is the
    referee's)."""

    def play_remote_match(
        self, seats: Iterable[int], now: float | None = None, raw: int | None = None
    ) -> None:
        """Only `seats` are played on this board; the others' turns arrive by `remote_move`. A
        turn once sent to the other board cannot be undone by hand here, so takebacks are off.
        Given the board (`raw`), a difference left from start-up that is the other board's
        last turn not yet made here is shown as that obligation again."""
        self.seats = frozenset(seats)
        self.takeback = False
        if now is not None and raw is not None and self.status.phase != Phase.OBLIGATION:
            self._show_owed(now, raw)

    def is_local_seat(self, seat: int | None) -> bool:
        """Whether people at this board decide for `seat`: every seat but the other board's (a
        remote match) or the board's own (`board_plays`); None, no seat, is anyone's."""
        return self.seats is None or seat is None or seat in self.seats

    @property
    def remote(self) -> bool:
        """A remote match: one game, shared with another board."""
        return self.seats is not None and not self.board_seats

    def _elsewhere(self) -> str:
        """Who has the move that is not made here: the board itself, or the other board."""
        name = self.game.seats[self.position.to_move]
        if self.position.to_move in self.board_seats:
            return f"the board plays {name}"
        return f"{name} plays on the other board"

    def board_plays(
        self, seats: Iterable[int], now: float | None = None, raw: int | None = None
    ) -> None:
        """The board plays `seats` itself (`board_move` hands it their turns); people play the
        others. Unlike a remote match, games follow one another, and a takeback undoes the
        person's last move together with the board's replies to it. Given the board (`raw`),
        the board's last turn not yet made by hand is shown as owed again (a restart)."""
        self.board_seats = frozenset(seats)
        everyone = frozenset(range(self.initial.players))
        self.seats = everyone - self.board_seats if self.board_seats else None
        if now is not None and raw is not None and self.status.phase != Phase.OBLIGATION:
            self._show_owed(now, raw)

    @property
    def board_to_play(self) -> int | None:
        """The seat of the board's own whose decision the game waits for now, if the board is
        in play (nothing owed or pending, not clearing, not over); None otherwise."""
        position = self.position
        if not self.board_seats or self._clearing or self._owed is not None:
            return None
        if self.status.phase == Phase.STOPPED or position.obligations:
            return None
        if position.outcome() is not None:
            return None
        seat = position.to_move if position.chooser is None else position.chooser
        return seat if seat in self.board_seats else None

    @property
    def log(self) -> Turns:
        """The settled turns, in notation, seq 1 first: what the other board must agree with.
        A turn whose obligation is still pending, or half made, is not settled yet."""
        turns = [notation(turn.actions) for turn in self.history]
        if turns and self.position.obligations:
            turns.pop()
        return tuple(turns)

    def halt(self, now: float) -> None:
        """A remote match stopped: nothing more is judged or accepted here. The game's area
        flashes red, and the alert stays lit."""
        self._owed = None
        self._clearing = False
        self.status = Status(Phase.STOPPED, now, None, alarm=self.profile.area)

    def _turns_made_elsewhere(self) -> list[Turn]:
        """The last turns not played here (the other board's, or the board's own), in order."""
        turns: list[Turn] = []
        for turn in reversed(self.history):
            if self.is_local_seat(turn.player) and turn.actions != (PASS,):
                break
            turns.append(turn)
        while turns and turns[-1].actions == (PASS,):
            turns.pop()  # the local seat's forced passes before them are no one's to make
        return turns[::-1]
