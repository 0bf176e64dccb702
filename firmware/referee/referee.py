"""The referee: keeps the game and the pieces on the board in step.

It is fed every debounced frame (what the sensors see), told when the board has settled, and
told of button presses; it answers with events and with a `Status` the lights draw. For a
settled frame: accepted (the turn is over), partial (a legal prefix of a multi-action turn), in
hand (pieces lifted, nothing put down), an obligation (the rules need something done by hand),
illegal (show what differs from the last legal position, accept the board again once it
matches), takeback (the board shows the position before the last turn, where allowed). Between
games it lights what is left to clear. It never dead-ends and never accepts a move the board
did not see made: when in doubt it asks for the position to be put right.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from magboard.firmware.events import (
    Event,
    GameOver,
    GameStarted,
    Illegal,
    InHand,
    Mismatch,
    Note,
    Obligation,
    Partial,
    RemoteMade,
    Restored,
)
from magboard.firmware.games import CARRY_OUT, PASS, Action, State
from magboard.firmware.games import Obligation as Duty
from magboard.firmware.lights import View
from magboard.firmware.profiles import Difference, Movement, Profile, Spot
from magboard.hardware.spec import Place, place_label

from .announce import labels, moved_event
from .choices import Choices
from .clearing import Clearing
from .evidence import Refused, best_explained, in_frame_order, in_order, reply_cells, witness
from .explain import NO_RULE, explain, forbidden, misordered, tried_move
from .history import History, Turn, notation
from .matcher import Matcher, Reading, SearchLimitError
from .obligations import ROUND_WON_SECONDS, Obligations
from .remote_log import RemoteError, Turns, follow
from .status import Phase, Status
from .takeback import Held, Takeback

TRAIL_LIMIT = 400
"""Frames kept since a turn began. A board fiddled with for longer than this loses its oldest
frames; a reply that needed them is then refused and the board asks for a put-back."""
MOVEMENT_CACHE = 10_000


@dataclass(frozen=True)
class Told:
    """The readings of a frame, each turn's actions in the order the frames show them made
    (`in_frame_order`), and the first reading that order breaks a rule of."""

    exact: tuple[Reading, ...]
    endings: tuple[Reading, ...]
    refused: Refused | None


@dataclass(frozen=True)
class Owed:
    """Turns played on the other board of a remote match, accepted here and not yet made by
    hand: the board shows what to take and where to put it until it matches."""

    since: State
    """The position the hands make them from."""
    turns: tuple[Turn, ...]
    places: frozenset[Place]
    """The places they change (every slot of a supply they take from or fill): what the
    hands may touch in making them."""
    again: bool = False
    """Owed again after a restart: the board may have missed them made while it was off."""


def spot_label(spot: Spot) -> str:
    """A board cell, or a supply (any of its slots): "supply:X"."""
    return f"supply:{spot}" if isinstance(spot, str) else place_label(spot)


class Referee(Choices, Clearing, Obligations, Takeback):
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
        """The seats the board itself plays (`play_against`): their turns arrive by
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
        difference = self.profile.difference(raw, self.position)
        if difference:
            remove, put_back = difference.labels()
            self.emit(Mismatch(now, remove, put_back))
            self.status = self._status(Phase.ILLEGAL, now, difference=difference)
            self._reported = difference

    @property
    def played(self) -> tuple[str, ...]:
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
        if not self.plays_here(self.position.to_move):
            if stable and lifted is None:
                self._illegal(raw, now, f"{self._elsewhere()}: put this back and wait")
            return
        if not stable:
            if lifted is not None:
                self._in_hand(lifted, now, raw)
            return
        self._judge_settled(raw, frame, now, lifted)

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
        if not self.plays_here(position.to_move):
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
        refused: Refused | None,
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

    def _why_misordered(self, raw: int, frame: int, refused: Refused | None) -> str:
        """Why the rules refuse the turn the frames show (`refused`, if any; else the general
        word). Where that turn is not the accepted part extended, but one action from the
        accepted part is what the board shows and the rules name why they refuse it, that is
        the reason: the lights ask for that action undone, and a meeple stepped again after
        its tile moved shows the frames of the tile moved before the step."""
        if refused is None:
            return ""
        if refused.rewrites:
            difference = self.profile.difference(raw, self.position)
            tried = explain(self.profile, self.position, difference, frame)
            if tried != NO_RULE:
                return tried
        return misordered(refused)

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

    def _in_frame_order(self, readings: Iterable[Reading]) -> tuple[list[Reading], Refused | None]:
        """The readings with each turn's actions in the order the frames show them made, and
        the first that order breaks a rule of, if any (a slide before the turn's placement):
        a reading that reorders what the frames showed is never accepted."""
        told: list[Reading] = []
        refused = None
        for reading in readings:
            fixed = self._accepted_prefix(reading)
            result = in_frame_order(self.profile, self._trail, reading, fixed)
            if isinstance(result, Refused):
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

    # Between games.

    # Buttons.

    # Choices the rules leave to a player.

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

    # Obligations.

    # A remote match: one game on two boards, each seat's pieces moved on its own board.

    def play_here(
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

    def plays_here(self, seat: int | None) -> bool:
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

    # The board as a player: its turns come as a remote board's do, and hands make them.

    def play_against(
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

    def board_move(self, actions: Sequence[str], now: float, raw: int) -> None:
        """The board's turn for the seat `board_to_play` names, as `Opponent.choose` gives it:
        a choice in another seat's turn is taken at once (nothing moves on the board); a whole
        turn is accepted (a `move`) and owed until hands make it, as a remote board's is; a
        turn that hands a decision to a person is made in parts (`_board_part`)."""
        seat = self.board_to_play
        if seat is None:
            raise RemoteError("the board has no turn to play now")
        if self.position.to_move != seat:  # a choice the rules give it in a person's turn
            for text in actions:
                action = self.position.parse_action(text)
                if action not in self.position.choices():
                    raise RemoteError(f"{text} is not a choice open to the board")
                self._take_choice(action, now)
            return
        if self._partial or not _ends_turn(self.position, actions):
            self._board_part(actions, now, raw)
            return
        self.remote_move([tuple(actions)], now, raw)

    def _board_part(self, actions: Sequence[str], now: float, raw: int) -> None:
        """A part of the board's turn: up to where the rules hand a decision to a person (the
        Actress has the leading players destroy an icon each), or the rest after it. It is
        accepted at once (a `partial`, or the `move` that ends the turn) and owed until hands
        make it; then the person decides, and the board plays on from there."""
        start, seat = self.position, self.position.to_move
        state, part = start, []
        for text in actions:
            action = state.parse_action(text)
            if action == CARRY_OUT:
                raise RemoteError(f"{text}: the board's turn in parts leaves nothing to carry out")
            state = state.apply(action)
            part.append(action)
        if not part:
            raise RemoteError("the board's part of its turn is empty")
        turn = (*self._partial, *part)
        self.position = state
        if _ends_turn(start, actions):
            self.history.append(Turn(self.turn_start, seat, turn))
            self._partial = ()
            self.emit(moved_event(now, seat, notation(turn), state))
            self._pass_while_forced(now)
        else:
            self._partial = turn
            self.emit(Partial(now, seat, notation(turn)))
        self._owe(now, raw, start, (Turn(start, seat, tuple(part)),))

    @property
    def log(self) -> Turns:
        """The settled turns, in notation, seq 1 first: what the other board must agree with.
        A turn whose obligation is still pending, or half made, is not settled yet."""
        turns = [notation(turn.actions) for turn in self.history]
        if turns and self.position.obligations:
            turns.pop()
        return tuple(turns)

    @property
    def owed(self) -> Owed | None:
        """The other board's turns accepted here and not yet made by hand."""
        return self._owed

    def remote_move(self, turns: Sequence[Sequence[str]], now: float, raw: int) -> None:
        """The next turns of the log, played on the other board: accepted at once (a `move`
        each, journalled like any), then owed: the board shows what to take and where to put
        it (`raw` is the board as it is now) until it matches, and the next turn waits.
        RemoteError, with nothing changed, if they cannot follow this position."""
        if self.status.phase == Phase.STOPPED:
            raise RemoteError("the match is stopped on this board")
        first = len(self.history) + 1
        if self._partial or self.position.obligations:
            raise RemoteError(f"move {first} is being made on this board")
        state, followed = self.position, []
        for seq, turn in enumerate(turns, start=first):
            step = follow(state, turn, seq)
            followed.append(step)
            state = step.after
        if not followed:
            return
        owed = self._owed
        since = owed.since if owed is not None else self.position
        made = []
        for step in followed:
            made.append(Turn(step.start, step.player, step.actions))
            self.history.append(made[-1])
            self.position = step.after
            self.emit(moved_event(now, step.player, notation(step.actions), step.after))
        self._pass_while_forced(now)
        earlier = owed.turns if owed is not None else ()
        self._owe(now, raw, since, (*earlier, *made))

    def halt(self, now: float) -> None:
        """A remote match stopped: nothing more is judged or accepted here. The game's area
        flashes red, and the alert stays lit."""
        self._owed = None
        self._clearing = False
        self.status = Status(Phase.STOPPED, now, None, alarm=self.profile.area)

    def _show_owed(self, now: float, raw: int) -> bool:
        """After a restart: the other board's last turns, if the board does not show them yet,
        are owed again. True if they are."""
        profile = self.profile
        if self.seats is None or self.position.obligations or self._clearing:
            return False
        frame = profile.canonical(raw)
        if frame == profile.render(self.position):
            return False
        held = profile.lifted_from(frame, self.position)
        if held is not None and all(isinstance(spot, str) for spot in held):
            # Every cell shows the turns made; only a supply is short: a hand holds a piece for
            # the next move (from a stash both players draw on, a supply those turns also took
            # from), which is no reason to owe them again.
            return False
        turns = self._board_part_made() if self._partial else self._turns_made_elsewhere()
        if not turns:
            return False
        difference = profile.difference(raw, self.position)
        changed = {*difference.remove, *(place for place, _ in difference.put_back)}
        if not changed <= self._changed_by(turns):
            return False  # not (only) their turns: a mismatch, or a hand with the next move
        self._owe(now, raw, turns[0].start, tuple(turns), again=True)
        return True

    def _turns_made_elsewhere(self) -> list[Turn]:
        """The last turns not played here (the other board's, or the board's own), in order."""
        turns: list[Turn] = []
        for turn in reversed(self.history):
            if self.plays_here(turn.player) and turn.actions != (PASS,):
                break
            turns.append(turn)
        while turns and turns[-1].actions == (PASS,):
            turns.pop()  # the local seat's forced passes before them are no one's to make
        return turns[::-1]

    def _board_part_made(self) -> list[Turn]:
        """In the middle of the board's turn made in parts: its last part (the actions since a
        person last decided), as a turn owed; nothing if a person decided last."""
        state, part, since = self.turn_start, [], self.turn_start
        for action in self._partial:
            actor = state.to_move if state.chooser is None else state.chooser
            if actor not in self.board_seats:
                part, since = [], state.apply(action)
            else:
                part.append(action)
            state = state.apply(action)
        return [Turn(since, since.to_move, tuple(part))] if part else []

    def _owe(
        self, now: float, raw: int, since: State, turns: tuple[Turn, ...], again: bool = False
    ) -> None:
        profile = self.profile
        frame = profile.canonical(raw)
        self._anchor(self._turn_began(), frame)  # what the hands bring from here on is seen arrive
        self._owed = Owed(since, turns, self._changed_by(turns), again)
        if frame == profile.render(self.position):
            self._made(now, frame)
            return
        shown = self._owing(now, profile.difference(raw, self.position))
        places = frozenset((*shown.remove, *(place for place, _ in shown.put_back)))
        owed = tuple(
            {"player": turn.player, "actions": list(notation(turn.actions))}
            for turn in turns
            if turn.actions != (PASS,)
        )
        detail, lit = self._owed_detail(), tuple(labels(places))
        self.emit(Obligation(now, turns[-1].player, detail, lit, owed, bool(self.board_seats)))
        self._judge_owed(raw, frame, now, stable=True)  # anything else already wrong is said

    def _turn_began(self) -> State:
        """Where the turn in play began: the position, or, in the middle of the board's turn
        made in parts, the start of that turn (a person's choice in it is judged from there)."""
        return self.turn_start if self._partial else self.position

    def _changed_by(self, turns: Sequence[Turn]) -> frozenset[Place]:
        """The places the turns change, one action after another: where pieces leave or land
        (every slot of a supply), and the cells a tile covers on its way."""
        profile, places = self.profile, set()
        for turn in turns:
            state = turn.start
            for action in turn.actions:
                before, state = profile.layout(state), state.apply(action)
                after = profile.layout(state)
                moved = profile.layout_change(before, after)
                places |= profile.places_of(moved.lifted | moved.placed)
                for spot in set(before.tiles) ^ set(after.tiles):
                    places.update((*spot.cells, spot.key))
        return frozenset(places)

    def _owing(self, now: float, difference: Difference) -> Difference:
        """Lights what is left to make of the owed turns (not what a hand holds for later)."""
        assert self._owed is not None
        places = self._owed.places
        shown = Difference(
            tuple(place for place in difference.remove if place in places),
            tuple((place, owner) for place, owner in difference.put_back if place in places),
        )
        if self.status.phase != Phase.OBLIGATION or shown != self.status.difference:
            lit = frozenset((*shown.remove, *(place for place, _ in shown.put_back)))
            self.status = self._status(Phase.OBLIGATION, now, obligation=lit, difference=shown)
        return shown

    def _owed_detail(self) -> str:
        assert self._owed is not None
        seats = self.game.seats
        if self.board_seats:
            return f"{self._board_played()}: make it"
        played = [
            f"{seats[turn.player]} played {' '.join(notation(turn.actions))}"
            for turn in self._owed.turns
            if turn.actions != (PASS,)
        ]
        return f"{', then '.join(played)} on the other board: make it here"

    def _board_played(self) -> str:
        """The board's own owed turns: "the board plays O: Sb2" (and "then ..." for more)."""
        assert self._owed is not None
        seats = self.game.seats
        played = [
            f"{seats[turn.player]}: {' '.join(notation(turn.actions))}"
            for turn in self._owed.turns
            if turn.actions != (PASS,)
        ]
        return f"the board plays {', then '.join(played)}"

    def _judge_owed(self, raw: int, frame: int, now: float, stable: bool) -> None:
        """Waiting for the hands to make the other board's turns. Anything within the places
        they change is on the way; once the board settles, anything else is a mistake."""
        owed, profile = self._owed, self.profile
        assert owed is not None
        if frame == profile.render(self.position):
            self._made(now, frame)
            return
        early = profile.lifted_from(frame, self.position)
        if early is not None and not profile.places_of(early) & owed.places:
            # Made, while the next player already holds a piece for the next turn.
            self._made(now, frame)
            if self.plays_here(self.position.to_move) and self.position.outcome() is None:
                self._in_hand(early, now, raw)
            return
        if stable and owed.again and self._moved_on(frame):
            self._made(now, frame)
            self._judge_settled(raw, frame, now, profile.lifted_from(frame, self.position))
            return
        difference = profile.difference(raw, self.position)
        changed = {*difference.remove, *(place for place, _ in difference.put_back)}
        if changed <= owed.places:
            if self._mistaken:
                self.emit(Restored(now))
                self._mistaken = False
                self._reported = None
            self._owing(now, difference)
            return
        if not stable or early is not None or profile.lifted_from(frame, owed.since) is not None:
            if not self._mistaken:
                self._owing(now, difference)
            return  # pieces in hands
        if difference != self._reported:
            self._reported = difference
            self._mistaken = True
            remove, put_back = difference.labels()
            if self.board_seats:
                detail = f"first make the board's move as shown: {self._board_played()}"
            else:
                detail = f"first {self._owed_detail().replace(': make it here', '', 1)}, as shown"
            self.emit(Illegal(now, self.position.to_move, remove, put_back, detail))
            lit = self.status.obligation
            self.status = self._status(Phase.OBLIGATION, now, obligation=lit, difference=difference)

    def _moved_on(self, frame: int) -> bool:
        """Whether the still `frame`, with turns owed again after a restart, shows them made
        and the next player's turn (or its first part) made after them, and no position on
        the owed turns' way: the power went with a piece of the next player's in the hand, so
        the board, back, never saw the owed turns made alone, and the piece came down as that
        player's move. Only where the board saw what that move puts down arrive: a Lance tile
        not yet cleared off, on a cell the next player may place on, is the clearing under way.
        Never while the board is on (a piece put past where the lights ask is a mistake)."""
        owed, position, profile = self._owed, self.position, self.profile
        assert owed is not None
        if position.obligations or position.outcome() is not None:
            return False
        if not self.plays_here(position.to_move):
            return False
        placed = frame & ~profile.render(position)
        arrived = 0
        for seen in self._trail[1:]:
            arrived |= placed & ~seen
        if not placed or arrived != placed:
            return False
        for turn in owed.turns:
            state = turn.start
            for action in turn.actions:
                if frame == profile.render(state):
                    return False
                state = state.apply(action)
        cells = self.matcher.game_cells(profile.sensors.spots(frame ^ profile.render(position)))
        try:
            found = self.matcher.search(position, frame, cells)
        except SearchLimitError:
            return False
        return bool(found.exact)

    def _made(self, now: float, frame: int) -> None:
        owed = self._owed
        assert owed is not None
        self._owed = None
        actions = [a for turn in owed.turns if turn.actions != (PASS,) for a in turn.actions]
        player = owed.turns[-1].player
        if self.board_seats:
            played = " ".join(notation(actions))
            self.emit(Note(now, f"made: the board's move {self.game.seats[player]} {played}"))
        else:
            self.emit(RemoteMade(now, player, notation(actions), len(self.history)))
        self._anchor(self._turn_began(), frame)
        self._set_play(now)
        self._announce_end(now)

    # Takeback.

    # Pieces in hand and mistakes.

    def _in_hand(self, lifted: frozenset[Spot], now: float, raw: int) -> None:
        """Pieces lifted: light where they may legally go, or, if nowhere (a size not allowed
        yet, the other player's piece), where they must go back."""
        places = self.profile.places_of(self._targets(lifted))
        report = (Phase.IN_HAND, lifted, self.position)
        if self._reported == report and self.status.phase == Phase.IN_HAND:
            return  # the same piece still in the hand: the lights keep their rhythm
        if self._reported != report:
            self._reported = report
            self.emit(
                InHand(
                    now,
                    self.position.to_move,
                    tuple(sorted(spot_label(spot) for spot in lifted)),
                    tuple(labels(places)),
                )
            )
        difference = Difference() if places else self.profile.difference(raw, self.position)
        self.status = self._status(Phase.IN_HAND, now, targets=places, difference=difference)

    def _targets(self, lifted: frozenset[Spot]) -> set[Spot]:
        """Where the mover's legal actions that lift `lifted` put pieces."""
        targets: set[Spot] = set()
        for action in self.position.legal_actions():
            if not action.seen:
                continue
            movement = self._movement(action)
            if lifted <= movement.lifted:
                targets |= movement.placed
        return targets

    def _movement(self, action: Action) -> Movement:
        key = (self.position, action)
        found = self._movements.get(key)
        if found is None:
            if len(self._movements) > MOVEMENT_CACHE:
                self._movements.clear()
            found = self._movements[key] = self.profile.movement(self.position, action)
        return found

    def _illegal(self, raw: int, now: float, detail: str = "", tried: str = "") -> None:
        difference = self.profile.difference(raw, self.position)
        if difference == self._reported and self.status.phase == Phase.ILLEGAL:
            return
        self._reported = difference
        self._mistaken = True
        remove, put_back = difference.labels()
        detail = detail or explain(
            self.profile, self.position, difference, self.profile.canonical(raw)
        )
        moved = None if tried else tried_move(self.profile, self.position, difference)
        tried = tried or (str(moved) if moved is not None else "")
        self.emit(Illegal(now, self.position.to_move, remove, put_back, detail, tried))
        self.status = self._status(Phase.ILLEGAL, now, difference=difference)

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


def _ends_turn(state: State, actions: Sequence[str]) -> bool:
    """Whether `actions`, in notation, end the turn in play at `state` (an illegal one, or a
    turn that goes on, does not)."""
    after = state
    for text in actions:
        action = after.parse_action(text)
        if not after.is_legal(action):
            return False
        after = after.apply(action)
    return after.turn != state.turn or after.outcome() is not None


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
