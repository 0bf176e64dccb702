"""The soak's player against the board (`magboard soak --ai O`): everything a player of soak.py
does on their own turns, and the board's turns made by hand from its lights alone.

The board chooses its move as soon as its turn comes, accepts it as a `move` and lights it as an
obligation; the person reads the lights (red where to take a piece, the board's colour where to
put it) and makes it. Sometimes carelessly:

- on the wrong square first: the board must say `illegal`, then `restored` once the piece is back
  in its tray, and the move is then made as lit;
- with the power going while the board's piece is in the hand: the board comes back owing the
  same move, lights it again, and takes it when it is made, never playing it twice;
- a takeback: the person puts the board's reply and their own move back in the trays, in either
  order, quickly or one piece first: the board must light what is left of the takeback (the
  person puts the other piece back by those lights alone), never call it a mistake, undo both,
  and the person moves again;
- a quick hand: the person's own next piece put down the moment the board's is, before the
  board settled; after the board's winning move, a stray piece of the person's (the win must
  stand, the piece only something to clear).

Every move the board announces must be one the rules allow from the game as played, and must be
seen made ("made: the board's move ...") by the person's next move. The board's seat is not
the first: after the game the soak checks that the next game takes the person's first move.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from magboard.firmware.app.board_player import Thinking, stepped_clock
from magboard.firmware.app.errors import CommandError
from magboard.firmware.engine.opponent import AiSeat
from magboard.firmware.events import Event, Illegal, Moved, Note, Obligation, TakenBack
from magboard.firmware.games import Action, Game, GameError, State
from magboard.hardware.spec import BoardSpec, Place, Slot, place_label

from . import soak
from .following import follow_lights
from .soak import ACCEPT_WAIT, FAST, HAND_PAUSE, Tally, _kind
from .soak_people import PeopleSoak

P_WRONG_SQUARE = 0.15
"""Of the board's moves: its piece put on a square it did not light first."""
P_POWER_CUT = 0.08
"""Of the board's moves: the power goes while its piece is in the hand."""
P_OWN_PIECE_FIRST = 0.5
"""Of takebacks: the person's own piece put back before the board's reply (where it is not
under the reply)."""
P_TAKEBACK_BY_LIGHTS = 0.5
"""Of takebacks: one piece put back, then, once the board lights what is left, the other by
those lights alone."""
MADE = "made: the board's move"
ASKED = "the board plays"


PLACING = ("tic-tac-toe", "tic-tac-cap", "tic-tac-doh")
"""The games whose every move is one piece put down: what a hand following the lights makes."""


def check_seat(seat: AiSeat, game: Game) -> None:
    """The games and seats a soak against the board plays (see the module's docstring)."""
    if game.name not in PLACING:
        raise CommandError(f"a soak against the board plays {', '.join(PLACING)}, not {game.name}")
    if seat.seat == 0:
        raise CommandError(
            f"a soak against the board has it play a seat after {game.seats[0]}: "
            "the person makes each game's first move"
        )


class BoardSoak(PeopleSoak):
    """One game against the board, with trouble mixed in, then the board cleared."""

    def __init__(
        self,
        spec: BoardSpec,
        game: Game,
        options: dict[str, Any],
        seed: int,
        tally: Tally,
        journal: Path,
        ai: AiSeat,
        budget: float | None = None,
    ) -> None:
        self.ai = ai
        self.owed: tuple[State, Action] | None = None
        """The board's move, accepted and lit, not yet made: where it starts, and the move."""
        self.asked: tuple[str, ...] = ()
        """The places the board's latest obligation lights."""
        self.reply: tuple[State, Action] | None = None
        """The board's last move, made by hand: what a takeback puts back with the person's."""
        self.made = 0
        """The board's moves it said it saw made."""
        thinking = Thinking(stepped_clock(), budget, seed)
        super().__init__(spec, game, options, seed, tally, journal, ai=ai, thinking=thinking)

    def play(self) -> None:
        session = self.session
        session.lay_out()
        session.start()
        self._wait(0.1)
        self._unexpected(self._new_events())
        while True:
            if self.owed is not None:
                ok = self._board_turn()
            elif self.state.outcome() is not None:
                self.clear_board()
                # The board's reply to the next game's first move, made (nothing after it).
                if self.owed is not None and not self._board_turn(quick=False):
                    self.tally.aborted += 1
                break
            else:
                action = self._choose()
                ok = action is not None and self._turn(action)
            if not ok:
                self.tally.aborted += 1
                break
        self.tally.virtual_seconds += self.clock.now()

    # What the board says.

    def _new_events(self) -> list[Event]:
        """The events since the last look, the board's own moves taken out: each is checked
        against the rules and the game as played goes on by it."""
        kept = []
        for event in super()._new_events():
            if isinstance(event, Moved) and event.player == self.ai.seat:
                self._board_moved(event)
            elif isinstance(event, Obligation) and event.detail.startswith(ASKED):
                self.asked = event.places
            else:
                if isinstance(event, Note) and event.text.startswith(MADE):
                    self.made += 1
                kept.append(event)
        return kept

    def _board_moved(self, event: Moved) -> None:
        tally, state = self.tally, self.state
        tally.board_moves += 1
        try:
            if self.owed is not None or len(event.actions) != 1:
                raise GameError("not one move, or a move while one is still owed")
            action = self.profile.game.parse_action(event.actions[0])
            after = state.apply(action)
        except GameError:
            tally.false_accepts += 1
            return
        self.owed = (state, action)
        self.state = after

    # The board's turn, made by hand.

    def _board_turn(self, quick: bool = True) -> bool:
        """The board's move made from its lights: perhaps on the wrong square first, perhaps
        with a power cut while its piece is in the hand, perhaps (if `quick`) followed at once
        by the person's next piece."""
        assert self.owed is not None
        rng = self.rng
        if not self.asked:
            self._wait(ACCEPT_WAIT, until=Obligation)
            self._new_events()
        roll = rng.random()
        if roll < P_WRONG_SQUARE:
            self._wrong_square()
        elif roll < P_WRONG_SQUARE + P_POWER_CUT:
            self._cut_with_piece_in_hand()
        return self._follow(quick)

    def _lit(self, tray: bool) -> list[Place]:
        """The places the board's obligation lights: its tray slots, or its cells."""
        spec = self.spec
        places = [*spec.slots, *spec.cells]
        return [p for p in places if place_label(p) in self.asked and isinstance(p, Slot) == tray]

    def _wrong_square(self) -> None:
        """The board's piece put on a free square it does not light, then back in its tray."""
        world = self.world
        slots = [s for s in self._lit(tray=True) if world.pieces_at(s)]
        lit = {place_label(c) for c in self._lit(tray=False)}
        free = [c for c in self.area if not world.pieces_at(c) and place_label(c) not in lit]
        if not slots or not free:
            return
        slot, wrong = slots[0], self.rng.choice(free)
        self.tally.board_wrong_squares += 1
        self._mistake_put_right(
            "the board's piece on a square not lit",
            lambda: self._hand(slot, wrong),
            lambda: self._hand(wrong, slot),
        )

    def _cut_with_piece_in_hand(self) -> None:
        """The power goes with the board's piece lifted from its tray; the board comes back."""
        slots = [s for s in self._lit(tray=True) if self.world.pieces_at(s)]
        if not slots:
            return
        with self._doing("power cut with the board's piece in the hand"):
            self.tally.power_cuts += 1
            self.tally.board_power_cuts += 1
            self.world.lift(slots[0])
            self._wait(HAND_PAUSE / 2)
            self._restart()
            self.asked = ()
            # The board lights its move again once it reads the board, which a burst of sensor
            # noise at the restart delays: the person waits for it.
            self._wait(3 * ACCEPT_WAIT, until=Obligation)
            self._unexpected(self._new_events())

    def _follow(self, quick: bool) -> bool:
        """The person follows the lights, perhaps putting their own next piece down at once
        (or, after the board's winning move, a stray one); the board must say it saw its move
        made, take the person's, and agree."""
        assert self.owed is not None
        made, rng = self.made, self.rng
        after_win = self.state.outcome() is not None
        quick = quick and rng.random() < (soak.P_WIN_REPLY if after_win else soak.P_FAST_REPLY)
        slots = [place_label(slot) for slot in self.spec.slots]
        follow_lights(self.session, [*self.asked, *slots], pause=FAST if quick else HAND_PAUSE)
        board_move, reply = self.owed, None
        self.owed, self.asked = None, ()  # made: what the board says next is about the next move
        if quick and after_win:
            ok = self._stray_after_win()
        elif quick and (reply := self._quick_reply()) is not None:
            ok = self._fast_reply(reply)
        else:
            self._wait(ACCEPT_WAIT, until=Note)
            events = self._new_events()
            self._unexpected(events)
            self._count_result(events)  # a winning move of the board's ends the game once made
            ok = True
        if self.made == made:
            self._blame("missed", 1, "the board never said it saw its move made")
            return False
        self.tally.board_moves_made += 1
        # What a takeback puts back with the person's last move: the board's reply to it (after
        # a quick reply, the board's next move, once made).
        one_step = len(self.profile.plan(*board_move)) == 1
        self.reply = board_move if one_step and reply is None else None
        return ok and self._agree()

    def _quick_reply(self) -> Action | None:
        """A move of the person's made with one hand movement, from the game as played."""
        state = self.state
        replies = [a for a in state.legal_actions() if self._one_step_from(state, a)]
        return self.rng.choice(replies) if replies else None

    @_kind("fast reply")
    def _fast_reply(self, reply: Action) -> bool:
        """The person's move put down as soon as the board's is made, before the board settled:
        the board must see its own made and take the person's."""
        self.tally.fast_replies += 1
        before = self.state
        expected = self._expect(reply)
        self.session.perform(reply, pause=FAST, state=before)
        self._wait(ACCEPT_WAIT, until=Moved)
        ok = self._check(expected)
        self._remember(before, reply, expected)
        return ok

    @_kind("reply after a win")
    def _stray_after_win(self) -> bool:
        """The board's winning move made, and a piece of the person's put down straight after:
        the win must stand, and the stray piece is only something to clear."""
        self._wait(ACCEPT_WAIT / 4)
        label = self.put_stray(1 - self.ai.seat)
        self._wait(ACCEPT_WAIT, until=Illegal)
        events = self._new_events()
        flagged = [e for e in events if isinstance(e, Illegal) and e.remove == (label,)]
        self.tally.win_replies_flagged += label is not None and len(flagged) == 1
        self._unexpected([e for e in events if e not in flagged])
        self._count_result(events)
        return True

    def _put_back(self, before: State, made: Action) -> None:
        """A hand puts the piece of a one-piece move back where it came from."""
        (step,) = self.profile.plan(before, made)
        piece = self.session.take(step.target)
        self._wait(HAND_PAUSE / 2)
        self.session.give(step.source, piece)
        self._wait(HAND_PAUSE / 2)

    # The person's turn.

    def _reply_to(self, action: Action) -> Action | None:
        """No quick reply by the person's hand: the board makes the next move."""
        return None

    def takeback(self) -> bool:
        """The person's last move put back with the board's reply to it, in either order; the
        board must undo both, its reply first, and call nothing on the way a mistake."""
        if self.last_turn is None or self.reply is None:
            return False
        with self._doing("takeback against the board"):
            return self._take_back_both(*self.last_turn, *self.reply)

    def _take_back_both(
        self, start: State, action: Action, board_start: State, board_action: Action
    ) -> bool:
        moves = [(board_start, board_action), (start, action)]
        (board_step,), (own_step,) = (self.profile.plan(*move) for move in moves)
        self.tally.takebacks += 1
        rng = self.rng
        order = moves
        if own_step.target != board_step.target and rng.random() < P_OWN_PIECE_FIRST:
            order = moves[::-1]
        if rng.random() < P_TAKEBACK_BY_LIGHTS:
            self._put_back(*order[0])
            self._wait(ACCEPT_WAIT, until=Note)  # a takeback under way: the rest is lit
            places = [place_label(place) for place in (*self.area, *self.spec.slots)]
            follow_lights(self.session, places)
        else:
            for before, made in order:
                self._put_back(before, made)
        self._wait(ACCEPT_WAIT, until=TakenBack)
        events = self._new_events()
        taken = [(e.player, e.actions) for e in events if isinstance(e, TakenBack)]
        expected = [(before.to_move, (str(made),)) for before, made in moves]
        if taken == expected:
            self.tally.taken_back += 1
        self._unexpected([e for e in events if not isinstance(e, TakenBack)])
        self.state = start
        self.turn_actions = ()
        self.last_turn = self.reply = None
        return True
