"""What people decide without moving a piece: a seat's button that ends a turn, the choices the
rules leave to a player (stepped through with the seat's button, taken with `menu`, or sent
from the page or the link), and the mover's clock running out."""

from __future__ import annotations

from dataclasses import replace

from magboard.firmware.events import ChoiceOffered
from magboard.firmware.games import END_TURN, Action

from .history import notation
from .matcher import Reading
from .status import Phase

MENU = "menu"
"""The button that takes the option a pending choice points at."""


class ChoiceError(ValueError):
    """A choice sent from the page or the link that the board is not waiting for."""


class Choices:
    """The `Referee`'s job of buttons, choices and time (the state it works on is the
    referee's)."""

    def press(self, button: str, now: float, raw: int | None = None) -> None:
        """A seat's button ends that seat's turn where it may go on; `new` starts again. A
        press first judges the board as it is now (`raw`, if given), then acts: a player who
        presses the clock the moment their piece lands ends the turn with that piece in it."""
        if self.status.phase == Phase.STOPPED:
            return
        if button == "new":
            self.new_game(now, raw)
            return
        seat = self._seat_of(button)
        if seat is not None and not self.is_local_seat(seat):
            return  # that seat's button is pressed on its own board
        if self._press_choice(button, seat, now):
            return
        if raw is not None and seat == self.turn_start.to_move and not self._clearing:
            self._judge_before_ending(raw, now)
        if (
            seat == self.position.to_move
            and self.status.phase == Phase.PLAY
            and self.position.can_end_turn
            and self.position.is_legal(END_TURN)
        ):
            after = self.position.apply(END_TURN)
            reading = Reading(after, (*self._partial, END_TURN), True, self.turn_start)
            self._accept(reading, now, None)

    def _press_choice(self, button: str, seat: int | None, now: float) -> bool:
        """While a choice is pending: the chooser's seat button steps through the options, the
        `menu` button takes the one pointed at. True if the press was the choice's."""
        options = self.position.choices() if self.status.phase == Phase.PLAY else ()
        if not options or self._clearing or not self.is_local_seat(self.position.chooser):
            return False
        if button == MENU:
            self._take_choice(options[self._choice % len(options)], now)
            return True
        if seat is not None and seat == self.position.chooser:
            self._choice = (self._choice + 1) % len(options)
            self._offer_choice(now, force=True)
            return True
        return False

    def choice_pending(self) -> bool:
        """Whether a press of `menu` here takes a choice of the rules (else the board's own
        menu may have it)."""
        options = self.position.choices() if self.status.phase == Phase.PLAY else ()
        return bool(options) and not self._clearing and self.is_local_seat(self.position.chooser)

    def choose(self, text: str, now: float) -> None:
        """A choice made on the page or over the link, in the game's notation; a ValueError
        (a GameError or ChoiceError) says why one is refused."""
        if self._clearing or self.status.phase != Phase.PLAY or not self.position.choices():
            raise ChoiceError("no choice is waiting: the board shows what to do")
        if not self.is_local_seat(self.position.chooser):
            name = self.game.seats[self.position.chooser]
            if self.position.chooser in self.board_seats:
                raise ChoiceError(f"the board chooses for {name}")
            raise ChoiceError(f"{name} chooses on the other board")
        action = self.position.parse_action(text)
        if action not in self.position.choices():
            raise ChoiceError(f"{text} is made on the board, not chosen")
        self._take_choice(action, now)

    def _take_choice(self, action: Action, now: float) -> None:
        after = self.position.apply(action)
        done = after.turn != self.turn_start.turn or after.outcome() is not None
        self._accept(Reading(after, (*self._partial, action), done, self.turn_start), now, None)

    def _offer_choice(self, now: float, force: bool = False) -> None:
        """Says what the rules wait for someone to choose, and lights the squares the option
        pointed at concerns; a new choice starts at its first option."""
        options = self.position.choices()
        if not options:
            self._offered = ()
            return
        if options != self._offered:
            self._offered, self._choice, force = options, 0, True
        current = options[self._choice]
        chooser = self.position.chooser
        assert chooser is not None
        if force:
            self.emit(ChoiceOffered(now, chooser, notation(options), self._choice))
        places = self.profile.choice_places(self.position, current)
        self.status = replace(self.status, targets=places, due=frozenset())

    def time_up(self, now: float, raw: int | None = None) -> None:
        """The mover's clock ran out. What the board shows first counts, as for a press; then
        the rules' verdict on the time (a lost bout) ends the turn where it stands. In a
        remote match that verdict is the board's whose seat it is, and reaches this one as its
        turn."""
        if self.status.phase == Phase.STOPPED or not self.is_local_seat(self.position.to_move):
            return
        if raw is not None and not self._clearing:
            self._judge_before_ending(raw, now)
        action = self.position.on_time_up()
        if action is None or self._clearing or self.position.obligations:
            return
        after = self.position.apply(action)
        self._accept(Reading(after, (*self._partial, action), True, self.turn_start), now, None)

    @staticmethod
    def _seat_of(button: str) -> int | None:
        name, _, number = button.rpartition("-")
        return int(number) - 1 if name == "seat" and number.isdigit() else None
