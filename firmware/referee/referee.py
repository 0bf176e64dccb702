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
    Partial,
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
from .owed import Owed, Owing
from .seats import Seats
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


def spot_label(spot: Spot) -> str:
    """A board cell, or a supply (any of its slots): "supply:X"."""
    return f"supply:{spot}" if isinstance(spot, str) else place_label(spot)


class Referee(Choices, Clearing, Obligations, Owing, Seats, Takeback):
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

    # The board as a player: its turns come as a remote board's do, and hands make them.

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
