"""Takebacks against the board: the person's last turn put back with the board's reply to it,
the reply first, one piece each in either order or the second by the lights."""

from __future__ import annotations

from magboard.firmware.events import (
    Note,
    TakenBack,
)
from magboard.firmware.games import Action, State
from magboard.firmware.profiles import Step
from magboard.hardware.spec import Slot, place_label

from ..following import follow_lights
from .hands import ACCEPT_WAIT
from .hands_people import BRISK

P_OWN_PIECE_FIRST = 0.5
"""Of takebacks: the person's own piece put back before the board's reply (where it is not
under the reply, and the reply does not stand where it goes back to)."""
P_TAKEBACK_BY_LIGHTS = 0.5
"""Of takebacks: one piece put back, then, once the board lights what is left, the other by
those lights alone."""

Turn = tuple[State, tuple[Action, ...]]
"""A turn as the hands make it: where it starts, and its actions in order."""


class TakebackAgainstBoard:
    """The takebacks of the soak's player against the board (against_board.py's `BoardSoak`)."""

    def takeback(self) -> bool:
        """The person's last turn put back with the board's reply to it; the board must undo
        both, its reply first, and call nothing on the way a mistake. A turn of the person's
        with no reply yet, as it left something to carry out (a Lance bout won, its tiles to
        clear), is put back alone, while the obligation waits. (The board's own obligations
        are made with its turn, by hand: no takeback comes between.)"""
        if self.undoable is None or self.turn_actions or self.state.choices():
            return False
        if self.reply is None:  # the person's turn is the last: it won a Lance bout, say
            return bool(self.state.obligations) and super().takeback()
        if not self._can_put_back(self.undoable):
            return False
        own, board = self.undoable, self.reply
        undone = [
            *self._undone_frames(*board),
            self.profile.render(board[0]),
            *self._undone_frames(*own),
        ]
        if self._slid(own, board) and not self._only_a_takeback(own[0], undone):
            return False
        with self._doing("takeback against the board"):
            return self._take_back_both(self.undoable, self.reply)

    def _slid(self, *turns: Turn) -> bool:
        """Whether a group was slid in `turns`: slid back, it may be a slide of the next
        player's too."""
        moves = [m for turn in turns for m in self._moves(*turn)]
        return any(isinstance(m, Step) and m.slide for m in moves)

    def _take_back_both(self, own: tuple[State, tuple[Action, ...]], board: Turn) -> bool:
        turns = [board, own]
        self.tally.takebacks += 1
        moves = [self._moves(*turn) for turn in turns]
        if all(len(m) == 1 and isinstance(m[0], Step) and not m[0].slide for m in moves) and all(
            len(actions) == 1 for _, actions in turns
        ):
            self._put_back_pieces(board, own)
        else:
            self._undo_turns([own, board], BRISK)  # in one go: the board's reply first
        self._wait(ACCEPT_WAIT, until=TakenBack)
        events = self._new_events()
        taken = [(e.player, e.actions) for e in events if isinstance(e, TakenBack)]
        expected = [(start.to_move, tuple(map(str, actions))) for start, actions in turns]
        if taken == expected:
            self.tally.taken_back += 1
        else:
            self._blame("missed", 1, f"taken back {taken}, not {expected}")
            self.lost = True
        self._unexpected([e for e in events if not isinstance(e, TakenBack)])
        self.state = self.turn_start = own[0]
        self.turn_actions = ()
        self.undoable = self.last_turn = self.reply = None
        return True

    def _a_move_back(self, step: Step) -> bool:
        """Whether putting the person's piece back where it came from is itself a move the
        rules allow now (a meeple stepping back): made first, it is that move, by design, and
        the board plays its reply; so the board's piece goes back first."""
        if any(isinstance(place, Slot | str) for place in (step.source, step.target)):
            return False
        back = self.profile.moving(self.state, step.target, step.source)
        return back is not None and self.state.is_legal(back)

    def _put_back_pieces(self, board: Turn, own: Turn) -> None:
        """One piece each: in either order, or one piece and then the other by the lights."""
        rng = self.rng
        (board_step,), (own_step,) = self._moves(*board), self._moves(*own)
        order = [(board[0], board[1][0]), (own[0], own[1][0])]
        if (
            board_step.target not in (own_step.source, own_step.target)
            and rng.random() < P_OWN_PIECE_FIRST
            and not self._a_move_back(own_step)
        ):
            order = order[::-1]
        if rng.random() < P_TAKEBACK_BY_LIGHTS:
            self._put_back_move(*order[0])
            self._wait(ACCEPT_WAIT, until=Note)  # a takeback under way: the rest is lit
            places = [place_label(place) for place in (*self.area, *self.spec.slots)]
            follow_lights(self.session, places)
        else:
            for before, made in order:
                self._put_back_move(before, made)
