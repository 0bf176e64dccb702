"""The referee: keeps the game and the pieces on the board in step.

It is fed frames (what the sensors see) and button presses, and answers with events and with a
`Status` the lights draw. Outcomes for a frame: accepted (the turn is over), partial (a legal
prefix of a multi-action turn), in hand (pieces lifted, nothing put down), illegal or unknown
(show what differs from the last legal position, accept the board again once it matches), and
takeback (the board shows the position before the last turn, where allowed). It never dead-ends:
whatever the board shows, there is a way back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from magboard.firmware.events import (
    Event,
    GameOver,
    GameStarted,
    Illegal,
    InHand,
    Mismatch,
    Moved,
    Partial,
    Restored,
    TakenBack,
)
from magboard.firmware.games import END_TURN, PASS, Action, Cell, State
from magboard.firmware.profiles import Difference, Movement, Profile
from magboard.hardware.spec import Place, Slot, place_label

from .inference import AmbiguousFrameError, Continuation, TurnCandidates

PLAY, IN_HAND, ILLEGAL, OVER = "play", "in-hand", "illegal", "over"


@dataclass(frozen=True)
class _Turn:
    start: State
    player: int
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class Status:
    """What the board should show now; the lights layer draws it."""

    phase: str
    since: float
    to_move: int | None
    targets: frozenset[Place] = frozenset()
    last_move: frozenset[Place] = frozenset()
    last_mover: int | None = None
    difference: Difference = field(default_factory=Difference)
    win: tuple[Place, ...] = ()
    winners: tuple[int, ...] = ()
    draw: bool = False


def spot_label(spot: Cell | str) -> str:
    """A board cell, or a supply (any of its slots): "supply:X"."""
    return f"supply:{spot}" if isinstance(spot, str) else place_label(spot)


def notation(actions: Sequence[Action]) -> tuple[str, ...]:
    return tuple(str(a) for a in actions)


class Referee:
    def __init__(
        self,
        profile: Profile,
        initial: State,
        emit: Callable[[Event], None],
        *,
        takeback: bool = True,
        options: dict | None = None,
    ) -> None:
        self.profile = profile
        self.game = profile.game
        self.initial = initial
        self.options = dict(options or {})
        self.emit = emit
        self.takeback = takeback
        self._movements: dict[tuple[State, Action], Movement] = {}
        self._restart(initial)
        self.status = Status(PLAY, 0.0, initial.to_move)

    def _restart(self, state: State) -> None:
        self.turn_start = self.position = state
        self.history: list[_Turn] = []
        self.candidates = TurnCandidates(self.profile, state)
        self._partial: tuple[Action, ...] = ()
        self._reported: object = None
        self._mistaken = False
        """An illegal board not yet put right (a correction passes through in-hand frames)."""

    # Starting and resuming.

    def start(self, now: float, actions: Sequence[str] = ()) -> None:
        """Starts the game, replaying `actions` (a journalled game) first."""
        self._restart(self.initial)
        for text in actions:
            self._replay(self.position.parse_action(text))
        self.emit(
            GameStarted(
                now,
                self.game.name,
                self.options,
                self.profile.spec.name,
                self.game.seats[: self.initial.players],
                tuple(actions),
            )
        )
        self._set_play(now)

    def _replay(self, action: Action) -> None:
        before, player = self.position, self.position.to_move
        self.position = self.position.apply(action)
        self._partial += (action,)
        if self.position.turn != before.turn or self.position.outcome() is not None:
            self.history.append(_Turn(self.turn_start, player, self._partial))
            self.turn_start = self.position
            self.candidates = TurnCandidates(self.profile, self.position)
            self._partial = ()

    def check_board(self, raw: int, now: float) -> None:
        """On start: if the pieces are not where the game says, say what to change."""
        difference = self.profile.difference(raw, self.position)
        if difference:
            remove, put_back = difference.labels()
            self.emit(Mismatch(now, remove, put_back))
            self.status = self._status(ILLEGAL, now, difference=difference)
            self._reported = difference

    def new_game(self, now: float) -> None:
        self.start(now)

    @property
    def played(self) -> tuple[str, ...]:
        """Every action of the game so far, in order: what a journal needs to resume it."""
        done = [str(a) for turn in self.history for a in turn.actions]
        return (*done, *notation(self._partial))

    # Judging frames.

    def judge(self, raw: int, now: float, stable: bool, trail: Sequence[int] = ()) -> None:
        """`raw` is what the sensors see; `stable` says the board has been still for the
        profile's settle time (only then may a move be concluded). `trail` lists the debounced
        frames seen since the last stable one, oldest first: it tells the order of two turns
        made without a pause."""
        frame = self.profile.canonical(raw)
        if frame == self.profile.render(self.position):
            if self.status.phase in (ILLEGAL, IN_HAND):
                if self.status.phase == ILLEGAL or self._mistaken:
                    self.emit(Restored(now))
                self._set_play(now)
            return
        if self.position.outcome() is not None:
            if stable:
                self._judge_after_the_end(frame, now)
            return
        lifted = self.profile.lifted_from(frame, self.position)
        if not stable:
            if lifted is not None:
                self._in_hand(lifted, now, raw)
            return
        try:
            found = self.candidates.match(frame)
        except AmbiguousFrameError as error:
            self._illegal(raw, now, f"the board cannot tell these apart: {error}")
            return
        if found is not None:
            self._accept(found, now)
        elif self._is_takeback(frame):
            self._take_back(frame, now)
        elif (reply := self._fast_reply(frame, trail)) is not None:
            assert reply.previous is not None
            self._accept(reply.previous, now)
            self._accept(reply, now)
        elif lifted is not None:
            self._in_hand(lifted, now, raw)
        else:
            self._illegal(raw, now)

    def _fast_reply(self, frame: int, trail: Sequence[int]) -> Continuation | None:
        """Two turns made before the board settled. Where two orders of play would leave the
        same board (pieces that look alike), the frames passed through say which turn came
        first; if they cannot, nothing is concluded."""
        pairs = self.candidates.match_two_turns(frame)
        if not pairs:
            return None
        seen = {self.profile.canonical(f) for f in trail}
        witnessed = [
            p for p in pairs if p.previous and self.profile.render(p.previous.state) in seen
        ]
        finals = {p.state.key() for p in pairs}
        if len(finals) == 1:
            return (witnessed or pairs)[0]
        if len({p.state.key() for p in witnessed}) == 1:
            return witnessed[0]
        return None

    def _judge_after_the_end(self, frame: int, now: float) -> None:
        """After a game, a board reset to the start begins the next one; restoring the position
        before the last move takes it back."""
        if frame == self.profile.render(self.initial):
            self.new_game(now)
        elif self._is_takeback(frame):
            self._take_back(frame, now)

    def press(self, button: str, now: float) -> None:
        """A seat's button ends that seat's turn where it may go on; `new` starts again."""
        if button == "new":
            self.new_game(now)
            return
        seat = self._seat_of(button)
        if (
            seat == self.position.to_move
            and self.status.phase == PLAY
            and self.position.can_end_turn
            and self.position.is_legal(END_TURN)
        ):
            after = self.position.apply(END_TURN)
            self._accept(Continuation(after, (*self._partial, END_TURN), True), now)

    @staticmethod
    def _seat_of(button: str) -> int | None:
        name, _, number = button.rpartition("-")
        return int(number) - 1 if name == "seat" and number.isdigit() else None

    # Outcomes.

    def _accept(self, found: Continuation, now: float) -> None:
        player = self.turn_start.to_move
        if not found.complete:
            self.position = found.state
            self._partial = found.actions
            self.emit(Partial(now, player, notation(found.actions)))
            self._set_play(now)
            return
        before = self.turn_start
        self.history.append(_Turn(before, player, found.actions))
        self.turn_start = self.position = found.state
        self._partial = ()
        self.emit(Moved(now, player, notation(found.actions), found.state.turn))
        self._pass_while_forced(now)
        self.candidates = TurnCandidates(self.profile, self.position)
        self._set_play(now)
        outcome = self.position.outcome()
        if outcome is not None:
            seats = self.game.seats
            line = tuple(place_label(p) for p in self.status.win)
            self.emit(
                GameOver(
                    now,
                    outcome.winners,
                    tuple(seats[p] for p in outcome.winners),
                    outcome.reason,
                    line,
                )
            )

    def _pass_while_forced(self, now: float) -> None:
        """A player with no legal placement passes (Tic-Tac-Cap): the board says so and moves
        on without waiting for anyone."""
        while self.position.outcome() is None and self.position.legal_actions() == (PASS,):
            before, player = self.position, self.position.to_move
            self.history.append(_Turn(before, player, (PASS,)))
            self.turn_start = self.position = before.apply(PASS)
            self.emit(Moved(now, player, ("pass",), self.position.turn))

    def _is_takeback(self, frame: int) -> bool:
        return self.takeback and self._takeback_depth(frame) > 0

    def _takeback_depth(self, frame: int) -> int:
        """How many turns back the board is: one move, plus any forced passes after it (they
        show nothing on the board)."""
        render = self.profile.render
        current = render(self.position)
        for depth, turn in enumerate(reversed(self.history), start=1):
            shown = render(turn.start)
            if shown != current:
                return depth if shown == frame else 0
        return 0

    def _take_back(self, frame: int, now: float) -> None:
        for _ in range(self._takeback_depth(frame)):
            turn = self.history.pop()
            self.emit(TakenBack(now, turn.player, notation(turn.actions)))
            self.turn_start = self.position = turn.start
        self._partial = ()
        self.candidates = TurnCandidates(self.profile, self.position)
        self._set_play(now)

    def _in_hand(self, lifted: frozenset, now: float, raw: int) -> None:
        """Pieces lifted: light where they may legally go, or, if nowhere (a size not allowed
        yet, the other player's piece), where they must go back."""
        targets: set = set()
        for action in self.position.legal_actions():
            movement = self._movement(action)
            if lifted <= movement.lifted:
                targets |= movement.placed
        places = self.profile.places_of(targets)
        report = (IN_HAND, lifted, self.position)
        if self._reported == report and self.status.phase == IN_HAND:
            return  # the same piece still in the hand: the lights keep their rhythm
        if self._reported != report:
            self._reported = report
            self.emit(
                InHand(
                    now,
                    self.position.to_move,
                    tuple(sorted(spot_label(spot) for spot in lifted)),
                    tuple(sorted(place_label(p) for p in places)),
                )
            )
        difference = Difference() if places else self.profile.difference(raw, self.position)
        self.status = self._status(IN_HAND, now, targets=places, difference=difference)

    def _movement(self, action: Action) -> Movement:
        key = (self.position, action)
        found = self._movements.get(key)
        if found is None:
            if len(self._movements) > 10_000:
                self._movements.clear()
            found = self._movements[key] = self.profile.movement(self.position, action)
        return found

    def _illegal(self, raw: int, now: float, detail: str = "") -> None:
        difference = self.profile.difference(raw, self.position)
        if difference == self._reported and self.status.phase == ILLEGAL:
            return
        self._reported = difference
        self._mistaken = True
        remove, put_back = difference.labels()
        detail = detail or self._explain(difference)
        self.emit(Illegal(now, self.position.to_move, remove, put_back, detail))
        self.status = self._status(ILLEGAL, now, difference=difference)

    def _explain(self, difference: Difference) -> str:
        """Why, in the game's words, when the board shows one piece taken from a supply and
        put on one cell: the placement the hand tried, refused by the rules."""
        cells = [p for p in difference.remove if not isinstance(p, Slot)]
        emptied = {p for p, _ in difference.put_back if isinstance(p, Slot)}
        supplies = [s for s in self.profile.supplies if emptied & set(s.slots)]
        if len(cells) == 1 and len(supplies) == 1 and len(difference.put_back) == 1:
            kind, mover = supplies[0].kind, self.position.to_move
            if kind.owner is not None and kind.owner != mover:
                seats = self.game.seats
                return f"that is {seats[kind.owner]}'s piece, and {seats[mover]} is to move"
            tried = self.profile.placement(self.position, kind, cells[0])
            if tried is None:
                return f"{place_label(cells[0])} is outside the game's area"
            if not self.position.is_legal(tried):
                return self.position.why_illegal(tried)
        return "no legal move gives this board"

    # What the lights show.

    def _set_play(self, now: float) -> None:
        self._reported = None
        self._mistaken = False
        self.status = self._status(OVER if self.position.outcome() else PLAY, now)

    def _status(self, phase: str, now: float, **extra) -> Status:
        position = self.position
        outcome = position.outcome()
        last_move: frozenset[Place] = frozenset()
        last_mover = None
        after = self.turn_start
        for turn in reversed(self.history):
            layout_after, after = self.profile.layout(after), turn.start
            change = self.profile.layout_change(self.profile.layout(turn.start), layout_after)
            if change.physical:
                last_move = self.profile.places_of(
                    spot for spot in change.placed if not isinstance(spot, str)
                )
                last_mover = turn.player
                break
        win: tuple[Place, ...] = ()
        if outcome is not None and outcome.cells:
            win = tuple(sorted(self.profile.to_board(c) for c in outcome.cells))
        return Status(
            phase=phase,
            since=now,
            to_move=None if outcome is not None else position.to_move,
            last_move=last_move,
            last_mover=last_mover,
            win=win,
            winners=outcome.winners if outcome else (),
            draw=bool(outcome and outcome.draw),
            **extra,
        )
