"""The soak's player against the board (`magboard soak --ai O`): everything a player of
people.py does on their own turns, in every game, and the board's turns made by hand.

The board chooses its move as soon as its turn comes, accepts it as a `move` and lights it as an
obligation ("the board plays B: ...: make it"). Where every part of the move is a piece taken
from a cell or a tray and put down, the person makes it from the lights alone (red where to take
a piece, the board's colour where to put it). The lights draw pieces, not tiles: where the move
shifts or turns a grid tile, slides a Lance row, takes a token from a box no sensor sees, or
makes a choice, the person reads the move the board announced and makes all of it as the rules
say it is made (`Profile.plan`), as a person reading the board's words would. A choice the rules
give the board in a person's turn is the board's to take: the person waits for it. A board's turn
that hands a person a decision (its Actress) comes in parts: the person makes each part, decides
when asked, and the board plays on. Sometimes carelessly:

- the board's piece on the wrong square first: the board must say `illegal`, then `restored`
  once the piece is back where it came from, and the move is then made as shown;
- with the power going while the board's piece is in the hand: the board comes back owing the
  same move, shows it again, and takes it when it is made, never playing it twice;
- a takeback: the person puts the board's reply and their own turn back. One piece each: in
  either order, quickly or one piece first, and the board must light what is left of the
  takeback (the person puts the other piece back by those lights alone). Turns of tiles, of
  several pieces or of a slid Lance group: undone in one go, the board's reply first, a slid
  group slid back together. Either way the board must never call it a mistake, undo both, and
  the person moves again. Not after a turn that carried off a capture or made a choice (no
  hand puts those back as they were), nor where the board put back could as well be a turn
  of the person's (a group slid back is one);
- a takeback mid-obligation: the person's own turn that won a Lance bout put back before its
  tiles are cleared: the board must take it back alone (the board's own turns carry their
  obligations out with them, made by hand: no takeback comes between);
- the board's capture of several carried off in part: one piece off, the board left still
  (it must not say its move made), then the rest;
- a quick hand: the person's own next piece put down the moment the board's move is made,
  before the board settled; after the board's winning move, a stray piece of the person's (the
  win must stand, the piece only something to clear).

Every move the board announces must be one the rules allow from the game as played, and must be
seen made ("made: the board's move ...") by the person's next move. The board's seat is not
the first: after the game the soak checks that the next game takes the person's first move.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import magboard.sim.soak.careless as careless
from magboard.firmware.app.board_player import Thinking, stepped_clock
from magboard.firmware.app.errors import CommandError
from magboard.firmware.engine.opponent import AiSeat
from magboard.firmware.events import (
    Event,
    Illegal,
    Moved,
    Note,
    Obligation,
    Partial,
)
from magboard.firmware.games import CARRY_OUT, END_TURN, PASS, Action, Game, GameError, State
from magboard.firmware.profiles import Step, TileStep
from magboard.hardware.spec import BoardSpec, Cell, Place, Slot, place_label, place_label_any

from ..following import follow_lights
from .answers import _EVENT_OF, Expected, _answer
from .hands import ACCEPT_WAIT, FAST, HAND_PAUSE, _kind
from .hands_people import Move
from .obligations import P_IN_PART
from .people import PeopleSoak
from .takeback_against_board import TakebackAgainstBoard, Turn
from .tally import Tally

P_WRONG_SQUARE = 0.15
"""Of the board's moves: its piece put on a square it did not light first."""
P_POWER_CUT = 0.08
"""Of the board's moves: the power goes while its piece is in the hand."""
MADE = "made: the board's move"
ASKED = "the board plays"


def check_seat(seat: AiSeat, game: Game) -> None:
    """The seats a soak against the board plays (see the module's docstring): any the board
    can play, but the first, so that the person makes each game's first move."""
    if seat.seat == 0:
        raise CommandError(
            f"a soak against the board has it play a seat after {game.seats[0]}: "
            "the person makes each game's first move"
        )


class BoardSoak(TakebackAgainstBoard, PeopleSoak):
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
        self.owed: Turn | None = None
        """The board's turn, accepted and shown, not yet made: where it starts, its actions."""
        self.asked: tuple[str, ...] = ()
        """The places the board's latest obligation lights."""
        self.reply: Turn | None = None
        """The board's last turn, made by hand, if a hand can put it back with the person's
        last turn, which it answered."""
        self.made = 0
        """The board's moves it said it saw made."""
        self.in_parts = False
        """The board's turn in play, or its last, was made in parts around a person's choice:
        no hand puts it back."""
        self.answers_due: list[Expected] = []
        """What the board must answer to a person's choice in the board's turn: the board's
        seat names it, but it is the person's, for `_check`."""
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
                # The board's replies to the next game's first move, made (nothing after them):
                # more than one where the person takes no more turns (a Magnetmen King).
                while self.owed is not None:
                    if not self._board_turn(quick=False):
                        self.tally.aborted += 1
                        break
                break
            elif self._board_decides():
                ok = self._await_board()
            else:
                action = self._choose()
                ok = action is not None and self._turn(action)
            if not ok:
                self.tally.aborted += 1
                break
        self.tally.virtual_seconds += self.clock.now()

    # What the board says.

    def _new_events(self) -> list[Event]:
        """The events since the last look, the board's own decisions taken out: each is checked
        against the rules and the game as played goes on by it (and by the passes the rules
        force on the others after it)."""
        kept = []
        for event in super()._new_events():
            passing = isinstance(event, Moved) and event.actions == (str(PASS),)
            said = isinstance(event, Moved | Partial) and not passing
            if said and _answer(event) in self.answers_due:
                self.answers_due.remove(_answer(event))
                kept.append(event)  # a person's choice in the board's turn, for `_check`
            elif said and self._board_chooses(event):
                self._board_chose(event)
            elif said and event.player == self.ai.seat:
                self._board_moved(event)
            elif passing and self.passes_due:
                self.passes_due -= 1
            elif passing and self.owed is not None:
                self.state = self.state.apply(PASS)
            elif isinstance(event, Obligation) and event.detail.startswith(ASKED):
                self.asked = event.places
            else:
                if isinstance(event, Note) and event.text.startswith(MADE):
                    self.made += 1
                kept.append(event)
        return kept

    passes_due = 0
    """Passes the rules force after a turn the board's choice ended: already in the game as
    played, still to be announced."""

    def _board_moved(self, event: Moved | Partial) -> None:
        """The board's turn, or the part of it up to a person's decision (a `partial`), or the
        rest after that: owed until the hands make it."""
        state = self.state
        self.tally.board_moves += 1
        start, actions = state, []
        known = tuple(map(str, self.turn_actions))
        try:
            if self.owed is not None or state.to_move != self.ai.seat or state.choices():
                raise GameError("a move while one is still owed, or not the board's to make")
            if event.actions[: len(known)] != known:
                raise GameError("not the turn so far")
            for text in event.actions[len(known) :]:
                action = state.parse_action(text)
                state = state.apply(action)
                actions.append(action)
            ended = state.turn != start.turn or state.outcome() is not None
            if not actions or ended != isinstance(event, Moved):
                raise GameError("a move that does not end the turn, or a part that does")
        except GameError:
            self._blame("false_accepts", 1, event)
            return
        self.owed = (start, tuple(actions))
        if not known:
            self.turn_start = start
        self.turn_actions = () if ended else (*self.turn_actions, *actions)
        self.in_parts = self.in_parts or not ended or bool(known)
        self.state = state

    # The board's decisions in a person's turn, or its turn awaited.

    def _board_chooses(self, event: Moved | Partial | None = None) -> bool:
        """Whether the rules wait for the board to choose in a person's turn (and `event`
        goes past the turn so far: the board's choice, not the person's action before it)."""
        state = self.state
        if event is not None and len(event.actions) <= len(self.turn_actions):
            return False
        return bool(state.choices()) and state.chooser == self.ai.seat

    def _board_chose(self, event: Moved | Partial) -> None:
        """The board took the choice the rules gave it in a person's turn: the person reads
        it from what the board accepts, which must be one of the options, after the turn so
        far."""
        said = event.actions
        options = {str(a): a for a in self.state.choices()}
        if said[:-1] != tuple(map(str, self.turn_actions)) or said[-1] not in options:
            self._blame("false_accepts", 1, event)
            return
        with self._doing("the board's choice"):
            expected = self._expect(options[said[-1]])
        self.passes_due += len(expected) - 1
        self.tally.moves += 1
        self.tally.accepted += _answer(event) == expected[0]

    def _board_decides(self) -> bool:
        """Whether the game waits for the board: its turn, or its choice (not what the
        person's turn left to carry out, a Lance bout's board to clear, say)."""
        state = self.state
        if state.outcome() is not None or state.obligations:
            return False
        return self._board_chooses() or (state.to_move == self.ai.seat and not state.choices())

    def _await_board(self) -> bool:
        """The board's turn or choice is due and not announced yet (it came after the
        person's move was taken, say, after a fault): the person waits for it."""
        self._wait(ACCEPT_WAIT, until=Moved | Partial)
        self._unexpected(self._new_events())
        if self.owed is None and self._board_decides():
            self._blame("missed", 1, "the board never played its turn or took its choice")
            return False
        return True

    # The board's turn, made by hand.

    def _board_turn(self, quick: bool = True) -> bool:
        """The board's move made from its lights or from its words: perhaps on the wrong
        square first, perhaps with a power cut while its piece is in the hand, perhaps (if
        `quick`) followed at once by the person's next piece."""
        assert self.owed is not None
        rng = self.rng
        if not self.asked:
            self._wait(ACCEPT_WAIT, until=Obligation)
            self._new_events()
        held = False
        roll = rng.random()
        if roll < P_WRONG_SQUARE:
            self._wrong_square()
        elif roll < P_WRONG_SQUARE + P_POWER_CUT:
            held = self._cut_with_piece_in_hand()
        return self._follow(quick, held)

    @property
    def _owed_moves(self) -> list[Move]:
        assert self.owed is not None
        return self._moves(*self.owed)

    @property
    def _by_lights(self) -> bool:
        """Whether the lights draw every part of the board's move: pieces only, each taken
        from a cell or a tray and put down by hand, and no choice (a choice moves nothing)."""
        assert self.owed is not None
        start, actions = self.owed
        moves, state = [], start
        for action in actions:
            steps = self.profile.plan(state, action)
            if not steps:
                return False
            moves += steps
            state = state.apply(action)
        return all(isinstance(m, Step) and not m.slide and self._sensed(m.source) for m in moves)

    def _sensed(self, spot: str | Cell) -> bool:
        return not isinstance(spot, str) or self.profile.supply(spot).sensed

    def _board_piece(self) -> Place | str | None:
        """Where the hand takes the board's first piece from: a tray slot the lights show, or
        the first step of its move, if that is a piece a hand lifts."""
        if self._by_lights:
            slots = [s for s in self._lit(tray=True) if self.world.pieces_at(s)]
            if slots:
                return slots[0]
        moves = self._owed_moves
        first = moves[0] if moves else None
        if isinstance(first, Step) and not first.slide and self._holds(first.source):
            return first.source
        return None

    def _lit(self, tray: bool) -> list[Place]:
        """The places the board's obligation lights: its tray slots, or its cells."""
        spec = self.spec
        places = [*spec.slots, *spec.cells]
        return [p for p in places if place_label(p) in self.asked and isinstance(p, Slot) == tray]

    def _spared(self) -> set[Cell]:
        """The cells the board's move touches, or lights: no wrong square for its piece."""
        assert self.owed is not None
        actions = self.owed[1]
        spared = {c for c in self._lit(tray=False) if not isinstance(c, Slot)}
        spared |= {c for a in actions for c in a.touches}
        for move in self._owed_moves:
            if isinstance(move, TileStep):
                spared |= _block_around(move.tile)
            else:
                spared |= {s for s in (move.source, move.target) if not isinstance(s, str)}
        return spared  # type: ignore[return-value]

    def _wrong_square(self) -> None:
        """The board's piece put on a free square its move does not touch, then back where it
        came from."""
        world, source = self.world, self._board_piece()
        spared = self._spared()
        free = [c for c in self.area if not world.pieces_at(c) and c not in spared]
        if source is None or not free:
            return
        wrong = self.rng.choice(free)
        self.tally.board_wrong_squares += 1
        self._mistake_put_right(
            "the board's piece on a square not lit",
            f"the board's piece from {place_label_any(source)} to {place_label(wrong)}",
            lambda: self._carry(source, wrong),
            lambda: self._carry(wrong, source),
        )

    def _cut_with_piece_in_hand(self) -> bool:
        """The power goes with the board's piece lifted; the board comes back. True if the
        piece is still in the hand."""
        source = self._board_piece()
        if source is None:
            return False
        with self._doing("power cut with the board's piece in the hand"):
            self.tally.power_cuts += 1
            self.tally.board_power_cuts += 1
            self.session.take(source)  # in the hand
            self._wait(HAND_PAUSE / 2)
            self._restart()
            self.asked = ()
            # The board shows its move again once it reads the board, which a burst of sensor
            # noise at the restart delays: the person waits for it.
            self._wait(3 * ACCEPT_WAIT, until=Obligation)
            self._unexpected(self._new_events())
        return True

    def _make_owed(self, pause: float, held: bool) -> None:
        """The board's move made: from the lights where they draw all of it, else from its
        words (a piece in the hand since a power cut put where the move's first step puts
        it); the pieces it captured perhaps carried off in part."""
        assert self.owed is not None
        if not held and self._carried_in_part(*self.owed):
            self._make_owed_in_part(pause)
        elif self._by_lights:
            slots = [place_label(slot) for slot in self.spec.slots]
            follow_lights(self.session, [*self.asked, *slots], pause=pause)
        else:
            self._make_owed_by_words(pause, held)

    def _make_owed_by_words(self, pause: float, held: bool) -> None:
        assert self.owed is not None
        state, actions = self.owed
        for action in actions:  # an action at a time: a slid group is pushed together
            moves = list(self.profile.plan(state, action))
            if held and moves:
                first, held = moves.pop(0), False
                assert isinstance(first, Step)
                self.session.give(first.target, self.world.hand[-1])
                self._wait(pause / 2)
            self._do(moves, pause)
            state = state.apply(action)

    def _carried_in_part(self, state: State, actions: tuple[Action, ...]) -> bool:
        """Whether the board's turn captures several pieces and the hands carry one off, leave
        the board still, then the rest."""
        for action in actions:
            if action == CARRY_OUT and len(self.profile.plan(state, action)) > 1:
                return self.rng.random() < P_IN_PART
            state = state.apply(action)
        return False

    @_kind("obligation in part")
    def _make_owed_in_part(self, pause: float) -> None:
        """The board's move made up to the first captured piece carried off, the board left
        still (progress: the board must not say its move is made), then the rest."""
        assert self.owed is not None
        state, actions = self.owed
        made = self.made
        for action in actions:
            moves = list(self.profile.plan(state, action))
            if action == CARRY_OUT:
                self._do(moves[:1], pause)
                self._wait(ACCEPT_WAIT)
                self._unexpected(self._new_events())
                if self.made != made:
                    self._blame("false_accepts", 1, "made with its captures still on the board")
                moves = moves[1:]
            self._do(moves, pause)
            state = state.apply(action)

    def _follow(self, quick: bool, held: bool = False) -> bool:
        """The person makes the board's move, perhaps putting their own next piece down at
        once (or, after the board's winning move, a stray one); the board must say it saw its
        move made, take the person's, and agree."""
        assert self.owed is not None
        made, rng = self.made, self.rng
        after_win = self.state.outcome() is not None
        quick = quick and rng.random() < (
            careless.P_WIN_REPLY if after_win else careless.P_FAST_REPLY
        )
        self._make_owed(FAST if quick else HAND_PAUSE, held)
        board_move, reply = self.owed, None
        self.owed, self.asked = None, ()  # made: what the board says next is about the next move
        # What a takeback puts back with the person's last turn: the board's reply to it (after
        # a quick reply, nothing: the person's turn is the last).
        whole = not self.in_parts
        self.reply = board_move if whole and self._can_put_back(board_move) else None
        if self.reply is None:
            self.undoable = None  # the person's last turn is under a reply no hand puts back
        self.in_parts = bool(self.turn_actions)  # the board's turn still in parts goes on
        if quick and after_win:
            ok = self._stray_after_win()
        elif quick and (reply := self._quick_reply()) is not None:
            several = sum(action.seen for action in board_move[1]) > 1
            kind = "fast reply inside a turn's settle window" if several else "fast reply"
            with self._doing(kind):
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
        return ok and self._agree()

    def _can_put_back(self, turn: Turn) -> bool:
        """Whether a hand can put `turn` back as it was: no capture carried off, no choice
        (the seat button that ended it needs no undoing), nothing left to carry out, and the
        game not over by it. A slid group goes back as it came."""
        start, actions = turn
        state = start
        for action in actions:
            steps = self.profile.plan(state, action)
            if action == CARRY_OUT or not (steps or action == END_TURN):
                return False
            state = state.apply(action)
        return state.outcome() is None and not state.obligations

    def _quick_reply(self) -> Action | None:
        """A move of the person's made with one hand movement, from the game as played."""
        state = self.state
        if state.choices() or state.to_move == self.ai.seat:
            return None
        replies = [a for a in state.legal_actions() if self._one_step_from(state, a)]
        return self.rng.choice(replies) if replies else None

    def _fast_reply(self, reply: Action) -> bool:
        """The person's move put down as soon as the board's is made, before the board settled
        (inside the settle window of the board's turn, where that turn has several actions):
        the board must see its own made and take the person's."""
        self.tally.fast_replies += 1
        before = self.state
        expected = self._expect(reply)
        self.session.perform(reply, pause=FAST, state=before)
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        self._remember(before, reply, expected)
        return ok

    @_kind("reply after a win")
    def _stray_after_win(self) -> bool:
        """The board's winning move made, and a piece of the person's put down straight after:
        the win must stand, and the stray piece is only something to clear."""
        self._wait(ACCEPT_WAIT / 4)
        label = self.put_stray((self.ai.seat + 1) % self.state.players)
        self._wait(ACCEPT_WAIT, until=Illegal)
        events = self._new_events()
        flagged = [e for e in events if isinstance(e, Illegal) and e.remove == (label,)]
        self.tally.win_replies_flagged += label is not None and len(flagged) == 1
        self._unexpected([e for e in events if e not in flagged])
        self._count_result(events)
        return True

    def _put_back_move(self, before: State, made: Action) -> None:
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

    def _reply_in_one_go(self) -> list[Expected]:
        """No next turn made by the person's hand inside a whole turn's settle window where
        the board plays next: its move is shown, not made yet."""
        if self.state.to_move == self.ai.seat:
            return []
        return super()._reply_in_one_go()

    def _expect(self, action: Action) -> list[Expected]:
        """The person's turn done: the board's reply before it is no longer the last turn. A
        person's choice in the board's turn is answered in the board's seat's name."""
        in_board_turn = self.state.to_move == self.ai.seat and self.state.chooser != self.ai.seat
        expected = super()._expect(action)
        if in_board_turn:
            self.answers_due += [e for e in expected if e[1] == self.ai.seat]
        if expected[-1][0] == "move":
            self.reply = None
        return expected


def _block_around(origin: Cell) -> set[Cell]:
    """The cells a 2x2 tile with its lower-left corner on `origin` may cover as it moves."""
    x, y = origin
    return {(x + dx, y + dy) for dx in range(-1, 3) for dy in range(-1, 3)}
