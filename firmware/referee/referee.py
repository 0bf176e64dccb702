"""The referee: keeps the game and the pieces on the board in step.

It is fed every debounced frame (what the sensors see), told when the board has settled, and
told of button presses; it answers with events and with a `Status` the lights draw. For a
settled frame: accepted (the turn is over), partial (a legal prefix of a multi-action turn), in
hand (pieces lifted, nothing put down), an obligation (the rules need something done by hand),
illegal (show what differs from the last legal position, accept the board again once it
matches), takeback (the board shows the position before the last turn, where allowed). Between
games it lights what is left to clear. It never dead-ends and never accepts a move the board
did not see made: when in doubt it asks for the position to be put right.

`Referee` owns the state of the game in progress (the position, the turns so far, the frames
the turn has passed through, what was last said and lit) and routes each judgement to the job
that answers it; each job is a class of its own module: reading a still board as turns
(`judging`), pieces in hand and mistakes (`hands`), obligations, turns owed by hand (`owed`)
and the seats played elsewhere (`seats`), takeback, clearing between games, and what people
decide by button, choice or clock (`choices`). They are mixins of `Referee` rather than objects
of their own because every job reads and changes that one state and hands the frame on to
another job in the middle of its answer (a turn owed made, then the board judged as the next
player's move; a turn accepted, then its obligation lit): passing the state along each call
would be a dozen arguments that all mean "the referee".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from magboard.firmware.events import (
    Event,
    GameOver,
    GameStarted,
    Mismatch,
    Partial,
    Restored,
)
from magboard.firmware.games import CARRY_OUT, PASS, Action, State
from magboard.firmware.games import Obligation as Duty
from magboard.firmware.lights import View
from magboard.firmware.profiles import Movement, Profile
from magboard.hardware.spec import Place, place_label

from .announce import moved_event
from .choices import Choices
from .clearing import Clearing
from .differences import Differences
from .hands import Hands
from .history import History, Turn, notation
from .judging import Judging, Told
from .matcher import Matcher, Reading, SearchLimitError
from .obligations import ROUND_WON_SECONDS, Obligations
from .owed import Owed, Owing
from .seats import Seats
from .status import Phase, Status
from .takeback import Held, Takeback

TRAIL_LIMIT = 400
"""Frames kept since a turn began. A board fiddled with for longer than this loses its oldest
frames; a reply that needed them is then refused and the board asks for a put-back."""


class Referee(Choices, Clearing, Hands, Judging, Obligations, Owing, Seats, Takeback):
    def __init__(
        self,
        profile: Profile,
        initial: State,
        emit: Callable[[Event], None],
        *,
        takeback: bool = True,
        options: dict | None = None,
        timer: Callable[[], float] = time.process_time,
    ) -> None:
        self.profile = profile
        self.game = profile.game
        self.initial = initial
        self.options = dict(options or {})
        self.emit = emit
        self.takeback = takeback
        self.matcher = Matcher(profile, timer=timer)
        self._difference = Differences(profile)
        """What to change for the frame judged to show a position, worked out once a frame."""
        self._movements: dict[tuple[State, Action], Movement] = {}
        self._restart(initial)
        self._clearing = False
        self._offered: tuple[Action, ...] = ()
        self._choice = 0
        """The pending choice's options, and the one the seat button points at."""
        self._next_announced = False
        """While clearing: the next game was already announced (by `new`)."""
        self.seats: frozenset[int] | None = None
        """In a remote match, the seats whose pieces are moved on this board (None: all)."""
        self.board_seats: frozenset[int] = frozenset()
        """The seats the board itself plays (`board_plays`): their turns arrive by
        `board_move` and are made by hand like a remote board's; games go on one after another."""
        self._owed: Owed | None = None
        self._duties_shown: tuple[Duty, ...] = ()
        """While an obligation is pending: the part of it last said to be still to do."""
        self._obliged_since = 0.0
        """When the pending obligation was announced: its lights keep that rhythm."""
        self._unread_start = False
        """The board did not show the resumed game on start (noise, a hand): its first still
        frame is looked at again for turns still owed."""
        self.status = Status(Phase.PLAY, 0.0, initial.to_move)

    def _restart(self, state: State) -> None:
        self.position = state
        self.history = History()
        self._partial: tuple[Action, ...] = ()
        self._anchor(state, None)

    def _anchor(self, turn_start: State, frame: int | None) -> None:
        """A turn begins at `turn_start`: what the board passes through is counted from here."""
        self.turn_start = turn_start
        anchor = self.profile.render(turn_start)
        self._trail = [anchor]
        self._touched = 0
        self._seen = 0
        """Frames recorded since the turn began (the trail keeps only the newest)."""
        self._held: Held | None = None
        self._searched: tuple[tuple, Told | SearchLimitError] | None = None
        """The last frame's readings, by what they were asked (`_readings`)."""
        self._unsettled: int | None = None
        """A frame seen since the board was last still, not yet searched (`search_ahead`)."""
        if frame is not None and frame != anchor:
            self._record(frame)
        self._reported: object = None
        self._mistaken = False
        """An illegal board not yet put right (a correction passes through in-hand frames)."""

    def _record(self, frame: int) -> None:
        if frame != self._trail[-1]:
            self._trail.append(frame)
            self._seen += 1
            if len(self._trail) > TRAIL_LIMIT:
                del self._trail[1 : len(self._trail) - TRAIL_LIMIT + 1]
            self._touched |= frame ^ self._trail[0]

    # Starting and resuming.

    def start(self, now: float, actions: Sequence[str] = ()) -> None:
        """Starts the game, replaying `actions` (a journalled game) first."""
        self._restart(self.initial)
        self._clearing = False
        self._owed = None
        self._unread_start = False
        for text in actions:
            self._replay(self.position.parse_action(text))
        self._announce(now, actions)
        self._set_play(now)

    def _announce(self, now: float, actions: Sequence[str] = ()) -> None:
        self.emit(
            GameStarted(
                now,
                self.game.name,
                self.options,
                self.profile.spec.name,
                self.game.seats[: self.initial.players],
                tuple(actions),
                None if self.position.outcome() else self.position.to_move,
            )
        )

    def _replay(self, action: Action) -> None:
        before, player = self.position, self.position.to_move
        self.position = self.position.apply(action)
        self._partial += (action,)
        ended = self.position.turn != before.turn or self.position.outcome() is not None
        if action == CARRY_OUT and self.history:
            last = self.history.pop()
            self.history.append(Turn(last.start, last.player, (*last.actions, action)))
            self._partial = ()
            self._anchor(self.position, None)
        elif ended:
            self.history.append(Turn(self.turn_start, player, self._partial))
            self._partial = ()
            self._anchor(self.position, None)

    def check_board(self, raw: int, now: float) -> None:
        """On start: if the pieces are not where the game says, say what to change."""
        frame = self.profile.canonical(raw)
        self._record(frame)
        if self.position.obligations:
            self._oblige(now, frame)
            return
        if self._show_owed(now, raw):
            return
        self._unread_start = frame != self.profile.render(self.position)
        lifted = self.profile.lifted_from(frame, self.position)
        if lifted is not None:  # the power came back while a hand held a piece
            self._in_hand(lifted, now, raw)
            return
        difference = self._difference(raw, self.position)
        if difference:
            remove, put_back = difference.labels()
            self.emit(Mismatch(now, remove, put_back))
            self.status = self._status(Phase.ILLEGAL, now, difference=difference)
            self._reported = difference

    @property
    def actions_played(self) -> tuple[str, ...]:
        """Every action of the game so far, in order: what a journal needs to resume it."""
        return (*self.history.played(), *notation(self._partial))

    # Judging frames.

    def judge(self, raw: int, now: float, stable: bool) -> None:
        """`raw` is what the sensors see. The loop calls this with every debounced frame (the
        frames passed through tell the order of quick moves), and with `stable` once the board
        has been still for the profile's settle time: only then may a move be concluded."""
        profile = self.profile
        if self.status.phase == Phase.STOPPED:
            return
        self._unsettled = None if stable else raw
        frame = profile.canonical(raw)
        self._record(frame)
        if self._clearing:
            self._judge_clearing(raw, frame, now, stable)
            return
        if self._owed is not None:
            self._judge_owed(raw, frame, now, stable)
            return
        if self._unread_start and stable:
            self._unread_start = False
            if self._show_owed(now, raw):
                return
        if self.status.phase == Phase.OBLIGATION:
            self._judge_obligation(raw, frame, now, stable)
            return
        if frame == profile.render(self.position):
            self._touched = 0  # what the hands did before the board came back is forgotten
            if self.status.phase in (Phase.ILLEGAL, Phase.IN_HAND) or self.status.difference:
                if self.status.phase == Phase.ILLEGAL or self._mistaken:
                    self.emit(Restored(now))
                self._set_play(now)
            return
        if self.position.outcome() is not None:
            if stable:
                self._judge_after_the_end(raw, frame, now)
            return
        lifted = profile.lifted_from(frame, self.position)
        if not self.is_local_seat(self.position.to_move):
            if stable and lifted is None:
                self._illegal(raw, now, f"{self._elsewhere()}: put this back and wait")
            return
        if not stable:
            if lifted is not None:
                self._in_hand(lifted, now, raw)
            return
        self._judge_settled(raw, frame, now, lifted)

    @property
    def wake_at(self) -> float | None:
        """When the board, if it stays as it is, must be judged again though nothing changes:
        the end of a wait for a piece to come back changed in place (`_held_off`), or of the
        time a round's winning line is shown (`ROUND_WON_SECONDS`)."""
        held = self._held
        until = held.until if held is not None and held.seen == self._seen else None
        if self.status.round_won:
            shown = self.status.since + ROUND_WON_SECONDS
            until = shown if until is None else min(until, shown)
        return until

    def wake(self, now: float) -> None:
        """The loop's call at `wake_at`, or later: the board still shows the held frame, judged
        again with the wait over. A hold the judging no longer reaches (the game stopped
        meanwhile) is dropped, so the loop is never woken for it again. A round's winning line
        shown long enough gives way to the obligation that follows it."""
        status = self.status
        if status.round_won and now >= status.since + ROUND_WON_SECONDS:
            self._obliged_since = now
            self.status = replace(status, since=now, round_won=False, win=(), winners=())
        held = self._held
        if held is not None and held.seen == self._seen and now >= held.until:
            self.judge(held.raw, now, stable=True)
            if self._held is held:
                self._held = None

    # Outcomes.

    def _accept(self, found: Reading, now: float, frame: int | None) -> None:
        player = found.start.to_move
        if not found.complete:
            self.position = found.state
            self._partial = found.actions
            self.emit(Partial(now, player, notation(found.actions)))
            self._set_play(now)
            return
        self.history.append(Turn(found.start, player, found.actions))
        self.position = found.state
        self._partial = ()
        self.emit(moved_event(now, player, notation(found.actions), found.state))
        if self.position.obligations:
            self._anchor(self.position, frame)
            self._oblige(now, frame)
            return
        self._pass_while_forced(now)
        self._anchor(self.position, frame)
        self._set_play(now)
        self._announce_end(now)

    def _announce_end(self, now: float) -> None:
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
                    outcome.scores,
                )
            )

    def _pass_while_forced(self, now: float) -> None:
        """A player with no legal placement passes (Tic-Tac-Cap): the board says so and moves
        on without waiting for anyone."""
        while self.position.must_pass:
            before, player = self.position, self.position.to_move
            self.history.append(Turn(before, player, (PASS,)))
            self.position = before.apply(PASS)
            self.emit(moved_event(now, player, ("pass",), self.position))

    # What the lights show.

    def view(self, fault: bool) -> View:
        return self.status.view(self.initial.players, fault)

    def _set_play(self, now: float) -> None:
        self._reported = None
        self._held = None
        self._mistaken = False
        phase = Phase.OVER if self.position.outcome() else Phase.PLAY
        self.status = self._status(phase, now)
        if phase == Phase.PLAY:
            self._ask(now)
            self._offer_choice(now)

    def _status(self, phase: Phase, now: float, **extra) -> Status:
        position, profile = self.position, self.profile
        outcome = position.outcome()
        last_move: frozenset[Place] = frozenset()
        last_mover = None
        after = self.turn_start
        for turn in reversed(self.history):
            layout_after, after = profile.layout(after), turn.start
            change = profile.layout_change(profile.layout(turn.start), layout_after)
            if change.physical:
                last_move = profile.places_of(
                    spot for spot in change.placed if not isinstance(spot, str)
                )
                last_mover = turn.player
                break
        win: tuple[Place, ...] = ()
        if outcome is not None and outcome.cells:
            win = tuple(sorted(profile.to_board(c) for c in outcome.cells))
        if phase == Phase.PLAY and outcome is None and "targets" not in extra:
            extra["due"], extra["targets"] = profile.next_up(position)
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
