"""`magboard soak`: many random games in the simulator, played as quick, careless people play.

Every game is played physically on a fresh simulated board (world, emulated electronics, the real
drivers, referee and lights), in virtual time, with a journal. Before most legal moves something
else may happen first, drawn from one seeded random so a run repeats exactly:

- a mistake, then its correction: a piece from the wrong tray onto a free cell, a piece put on an
  occupied cell, a placed piece moved to another cell, a piece put down outside the game's area.
  Only mistakes the sensors can see are made. The board must say `illegal` once it settles, then
  `restored` once the piece is back where it came from;
- a knock: a placed piece slid onto a free neighbouring square and left there: `illegal`, then
  slid back: `restored`;
- a bump: a piece nudged to a neighbouring cell and straight back, within the settle time: the
  board must neither accept a move nor call it a mistake;
- a burst of sensor noise, a burst of I2C errors, an expander that resets itself;
- a fast reply: the next player moves before the board has settled on the move before (also
  right after a winning move: then the win stands and the reply is only something to clear);
- a takeback: the move just accepted is put back by hand, and another is made;
- a power cut while a piece is in the hand: the board restarts from its journal, and the piece
  goes down as the move;
- a quick press: the seat button pressed the moment the piece lands, before the board settles.

Then the legal move is made by hand, and the board must accept exactly that move (compared by
player and actions in notation) before the next thing happens. After the game the board is
cleared, piece by piece or with `new` pressed while pieces are still on it, and the board must
start the next game only once it is clear, and accept its first move.

Every game is played by one player (people.py) that also makes whatever the game's contract
declares (turns of several actions, obligations, choices, the seat button, tiles, pieces changed
in place) and the trouble that goes with it, and the report counts per kind of trouble what went
wrong while the hands made it: false accepts, missed moves, false alarms and refusals with the
wrong reason.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from magboard.firmware.events import (
    Event,
    FaultSurvived,
    Fulfilled,
    GameOver,
    Illegal,
    LedFrame,
    Moved,
    Partial,
    TakenBack,
)
from magboard.firmware.games import CARRY_OUT, END_TURN, PASS, Action, Game, State
from magboard.firmware.profiles import PieceKind, Profile, Step
from magboard.firmware.referee import OBLIGATION_FIRST
from magboard.hardware.spec import BoardSpec, Cell, place_label

from ..session import SimSession
from .answers import _EVENT_OF, Expected, _answer
from .clearing import Clearing
from .hands import ACCEPT_WAIT, FAST, GENERAL_REFUSAL, HAND_PAUSE, RULES_APART, _kind
from .mishaps import Mishaps
from .tally import Tally

P_MISTAKE = 0.12
P_KNOCK = 0.06
P_BUMP = 0.12
P_NOISE = 0.10
P_I2C = 0.08
P_RESET = 0.05
P_FAST_REPLY = 0.15
P_WIN_REPLY = 0.6
"""Of winning moves: the other player puts a piece down before the board settled."""
P_TAKEBACK = 0.06
P_POWER_CUT = 0.04
P_QUICK_PRESS = 0.5
"""Of turns that may end with the seat button: ended by a press as the last piece lands."""
EXAMPLES = 12
"""Failures kept with what replays them."""


class GameSoak(Clearing, Mishaps):
    """One game on a fresh simulated board, with trouble mixed in, then the board cleared."""

    def __init__(
        self,
        spec: BoardSpec,
        game: Game,
        options: dict[str, Any],
        seed: int,
        tally: Tally,
        journal: Path,
        **session: Any,
    ) -> None:
        self.rng = random.Random(seed)
        self.tally = tally
        self.seed = seed
        calendar = tally.calendar + tally.virtual_seconds  # the soak's games one after another
        self.session = self._timed(
            SimSession(
                spec, game.name, options, seed=seed, journal=journal, calendar=calendar, **session
            )
        )
        self.profile: Profile = self.session.profile
        self.world = self.session.world
        self.clock = self.session.clock
        self.spec = spec
        self.state: State = self.session.initial
        """The game as played by hand: what the board should agree with."""
        self.turn_actions: tuple[Action, ...] = ()
        self.last_turn: tuple[State, Action] | None = None
        """The last complete turn, where a hand can undo it: its start and its one action."""
        self._cursor = 0
        self.area = sorted(self.profile.area)
        self.outside = [cell for cell in spec.cells if cell not in self.profile.area]

    # Events.

    def _new_events(self) -> list[Event]:
        events = self.session.events
        new = events[self._cursor :]
        self._cursor = len(events)
        self.tally.led_frames += sum(1 for e in new if isinstance(e, LedFrame))
        faults = sum(1 for e in new if isinstance(e, FaultSurvived))
        self.tally.fault_events += faults
        self._fault_seen = self._fault_seen or faults > 0
        return [e for e in new if not isinstance(e, LedFrame)]

    def _wait(self, seconds: float, until: type[Event] | None = None) -> None:
        """Lets the board run for `seconds`, or until an event of type `until` arrives."""
        clock = self.clock
        deadline = clock.now() + seconds
        seen = len(self.session.events)
        while clock.now() < deadline:
            self.session.loop.step(until=deadline)
            if until is not None:
                events = self.session.events
                if any(isinstance(e, until) for e in events[seen:]):
                    return
                seen = len(events)

    def _unexpected(self, events: Sequence[Event]) -> None:
        """Outside a legal move: any accepted move is false, any `illegal` a false alarm."""
        for event in events:
            if isinstance(event, Moved | Partial | TakenBack | Fulfilled):
                self._blame("false_accepts", 1, event)
            elif isinstance(event, Illegal):
                self._blame("false_alarms", 1, event)

    # What the hands are doing, and what went wrong meanwhile.

    at_turn = 0
    """The number of the turn the hands were at when the trouble began (turns completed)."""
    doing = "legal move"
    """The kind of trouble the hands are making now: what goes wrong meanwhile is its."""

    @contextmanager
    def _doing(self, kind: str) -> Iterator[None]:
        """The hands make trouble of `kind` (once more) until the block ends."""
        outer, self.doing = self.doing, kind
        self.tally.count(kind, "made")
        try:
            yield
        finally:
            self.doing = outer

    def _blame(self, figure: str, n: int = 1, event: Event | str | None = None) -> None:
        """Counts `n` of a figure (`FIGURES`) against the soak and the kind being made, and
        keeps the first few with what replays them."""
        if n <= 0:
            return
        tally = self.tally
        setattr(tally, figure, getattr(tally, figure) + n)
        tally.count(self.doing, figure, n)
        self._keep_example(figure, event)

    def _keep_example(self, figure: str, event: Event | str | None) -> None:
        """Keeps a failure with the game's number, seed, turn and virtual time, while fewer
        than `EXAMPLES` are kept: what `soak --seed` needs to replay it."""
        tally = self.tally
        if len(tally.examples) < EXAMPLES:
            tally.examples.append(
                {
                    "figure": figure,
                    "kind": self.doing,
                    "game": tally.games + 1,
                    "game_seed": self.seed,
                    "turn": self.at_turn,
                    "virtual_time": round(self.clock.now(), 3),
                    "event": event if isinstance(event, str | None) else event.to_dict(),
                }
            )

    def _judge_reason(self, event: Illegal, rule: str | None) -> None:
        """A refusal must name the rule the hands broke, where the soak knows its words (`rule`;
        "" where it knows only that some rule is broken): the general word, or another rule, is
        the wrong reason. Unjudged where `rule` is None; while an obligation waits, the board
        names it first."""
        if rule is None:
            return
        if self.state.obligations and event.detail.startswith(OBLIGATION_FIRST):
            return  # what the obligation asks comes first, whatever else is wrong
        named = any(r in event.detail for r in rule.split(RULES_APART) if r)
        if event.detail == GENERAL_REFUSAL or not (named or rule == ""):
            self._blame("wrong_reasons", 1, f"{event.detail!r}; the rule broken: {rule!r}")

    def _timed(self, session: SimSession) -> SimSession:
        """`session`, its referee's judgements of still boards timed (the judge latency)."""
        judge = session.referee.judge
        times = self.tally.judge_ms

        def timed(raw: int, now: float, stable: bool) -> None:
            if not stable:
                judge(raw, now, stable)
                return
            started = time.perf_counter()
            judge(raw, now, stable)
            times.append((time.perf_counter() - started) * 1000)

        session.referee.judge = timed  # type: ignore[method-assign]
        return session

    def _restart(self) -> None:
        """A power cut: the board starts again from its journal, the pieces where they are."""
        self._new_events()
        self.session = self._timed(self.session.restart(seed=self.seed))
        self._cursor = 0

    # A game.

    def play(self) -> None:
        session = self.session
        session.lay_out()
        session.start()
        self._wait(0.1)
        self._unexpected(self._new_events())
        while self.state.outcome() is None:
            action = self._choose()
            if action is None:
                self.tally.aborted += 1
                break
            if not self._turn(action):
                self.tally.aborted += 1
                break
        else:
            self.clear_board()
        self.tally.virtual_seconds += self.clock.now()

    def _turn(self, action: Action) -> bool:
        """Trouble, then `action` made by hand (perhaps quickly followed by the reply)."""
        rng = self.rng
        self.at_turn = self.state.turn
        self._trouble()
        if rng.random() < self._takeback_odds() and self.takeback():
            action = self._choose()
            if action is None:
                return False
        noise = rng.random() < P_NOISE
        fault = rng.random()
        if fault >= P_I2C + P_RESET:
            if noise:
                self.noise()
            return self._make(action, False)
        with self._doing("I2C errors" if fault < P_I2C else "expander reset"):
            faulted = self.fault(i2c=fault < P_I2C)
            if noise:
                self.noise()
            return self._make(action, faulted)

    def _takeback_odds(self) -> float:
        """How likely the hands are to take the last turn back before the next action."""
        return P_TAKEBACK

    def _trouble(self) -> None:
        """What happens on the board before a legal action: a mistake, a knock, a bump."""
        rng = self.rng
        if rng.random() < P_MISTAKE:
            self.mistake()
        if rng.random() < P_KNOCK:
            self.mistake(knock=True)
        if rng.random() < P_BUMP:
            self.bump()

    def _make(self, action: Action, faulted: bool) -> bool:
        """`action` made by hand: perhaps with a power cut in the middle, or quickly followed by
        the reply."""
        rng = self.rng
        if action == CARRY_OUT:
            return self.carry_out(faulted)
        if not faulted and rng.random() < P_POWER_CUT and self._one_step(action):
            return self.power_cut(action)
        wins = self.state.apply(action).outcome() is not None
        if not faulted and wins and action == END_TURN:
            return self.win_reply(action)  # the winner's button, and a stray piece at once
        if not faulted and rng.random() < P_FAST_REPLY and self._one_step(action):
            if wins:
                return self.win_reply(action)
            reply = self._reply_to(action)
            if reply is not None:
                return self.fast_reply(action, reply)
        return self.move(action, faulted)

    def _choose(self) -> Action | None:
        """A random legal action a hand or a button can make (passes are the board's own)."""
        state = self.state
        actions = [a for a in state.legal_actions() if a == END_TURN or self.profile.plan(state, a)]
        return self.rng.choice(actions) if actions else None

    def _one_step(self, action: Action) -> bool:
        steps = self.profile.plan(self.state, action)
        return len(steps) == 1 and isinstance(steps[0], Step) and not steps[0].slide

    def carry_out(self, faulted: bool) -> bool:
        """An obligation done by hand: the board follows the hands, no more."""
        self.tally.obligations += 1
        return self.move(CARRY_OUT, faulted)

    # The legal move.

    def move(self, action: Action, faulted: bool = False) -> bool:
        """Performs `action` by hand (or its button) and checks the board accepts exactly it;
        False if the board and the game went apart."""
        before = self.state
        expected = self._expect(action)
        if action == END_TURN:
            self._press_end()
            self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
            ok = self._check(expected)
        elif (
            expected[0][0] == "partial"
            and self._may_press_end()
            and self.rng.random() < P_QUICK_PRESS / 2
        ):
            self.session.perform(action, pause=self._hand_pause(before, action) / 2)
            ok = self._quick_press(expected)
        else:
            self.session.perform(action, pause=self._hand_pause(before, action))
            self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
            ok = self._check(expected)
        self._survived(faulted, ok)
        self._remember(before, action, expected)
        return ok and self._agree()

    def _hand_pause(self, state: State, action: Action) -> float:
        """The pause of a hand making `action` from `state` (see `SimSession.perform`)."""
        return HAND_PAUSE

    def _may_press_end(self) -> bool:
        """Whether the seat button now ends the turn the hands are making."""
        return self.state.can_end_turn

    def _press_end(self) -> None:
        self.world.press(f"seat-{self._mover + 1}")

    @property
    def _mover(self) -> int:
        return self.session.referee.turn_start.to_move

    @_kind("quick press")
    def _quick_press(self, partial: list[Expected]) -> bool:
        """The seat button pressed as the piece lands, before the board settled."""
        self.tally.quick_presses += 1
        self.world.press(f"seat-{self._mover + 1}")
        ended = self._expect(END_TURN)
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[ended[-1][0]])
        return self._check(partial + ended)

    def _check(self, expected: list[Expected], stray: str | None = None) -> bool:
        """Counts what the board answered against what was made. The one `illegal` that asks
        for `stray` (a piece put down after the game's end) to be taken off is no false alarm."""
        tally = self.tally
        tally.moves += 1
        if self.doing == GameSoak.doing:
            tally.count(self.doing, "made")
        events = self._new_events()
        flagged = [e for e in events if isinstance(e, Illegal) and e.remove == (stray,)]
        if stray is not None and len(flagged) == 1:
            tally.win_replies_flagged += 1
            events = [e for e in events if e is not flagged[0]]
        answers = [_answer(e) for e in events if isinstance(e, Moved | Partial | Fulfilled)]
        remaining = list(expected)
        for item in answers:
            if remaining and item == remaining[0]:
                remaining.pop(0)
            else:
                self._blame("false_accepts", 1, f"{item}; expected {remaining[:1]}")
        if remaining:
            self._blame("missed", 1, f"expected {remaining}, the board said {answers}")
        elif len(answers) == len(expected):
            tally.accepted += 1
        for event in events:
            if isinstance(event, Illegal):
                self._blame("false_alarms", 1, event)
            elif isinstance(event, TakenBack):
                self._blame("false_accepts", 1, event)
        self._count_result(events)
        return not remaining and len(answers) == len(expected)

    def _count_result(self, events: Sequence[Event]) -> None:
        over = self.state.outcome()
        if over is None:
            return
        ends = [e for e in events if isinstance(e, GameOver)]
        if ends and ends[-1].winners == over.winners:
            self.tally.finished += 1
            if over.winners:
                name = self.profile.game.seats[over.winners[0]]
                self.tally.wins[name] = self.tally.wins.get(name, 0) + 1
            else:
                self.tally.draws += 1

    def _agree(self) -> bool:
        return self.session.state == self.state

    def _remember(self, before: State, action: Action, expected: list[Expected]) -> None:
        """A one-action turn with nothing after it can be taken back by hand."""
        simple = (
            len(expected) == 1
            and expected[0][0] == "move"
            and expected[0][2] == (str(action),)
            and self._one_step_from(before, action)
            and not self.state.obligations
            and self.state.outcome() is None
        )
        self.last_turn = (before, action) if simple else None

    def _one_step_from(self, state: State, action: Action) -> bool:
        steps = self.profile.plan(state, action)
        return len(steps) == 1 and isinstance(steps[0], Step) and not steps[0].slide

    def _expect(self, action: Action) -> list[Expected]:
        """The referee's answers to `action`, and the game as played advances by it."""
        state, player = self.state, self.state.to_move
        after = state.apply(action)
        if action == CARRY_OUT:
            expected: list[Expected] = [("fulfilled", self._last_mover, ())]
        else:
            self.turn_actions += (action,)
            notation = tuple(str(a) for a in self.turn_actions)
            if after.turn == state.turn and after.outcome() is None:
                self.state = after
                return [("partial", player, notation)]
            expected = [("move", player, notation)]
            self._last_mover = player
            self.turn_actions = ()
        while after.must_pass:
            expected.append(("move", after.to_move, ("pass",)))
            after = after.apply(PASS)
        self.state = after
        return expected

    _last_mover = 0

    # Quick hands.

    def _reply_to(self, action: Action) -> Action | None:
        """The next player's move, if `action` completes a turn with nothing to carry out and
        both are made by one hand movement each; None otherwise."""
        after = self.state.apply(action)
        if not _completes(self.state, action) or after.obligations:
            return None
        while after.must_pass:
            after = after.apply(PASS)
        replies = [
            a
            for a in after.legal_actions()
            if self._one_step_from(after, a) and _completes(after, a)
        ]
        return self.rng.choice(replies) if replies else None

    @_kind("fast reply")
    def fast_reply(self, action: Action, reply: Action) -> bool:
        """`action`, then the next player's `reply` before the board settled."""
        self.tally.fast_replies += 1
        expected = self._expect(action)
        self.session.perform(action, pause=FAST)
        between = self.state
        expected += self._expect(reply)
        self.session.perform(reply, pause=FAST, state=between)
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        self.last_turn = None
        return self._check(expected) and self._agree()

    def win_reply(self, action: Action) -> bool:
        """A winning move (or the seat button that ends a winning turn), and a stray piece of
        the loser's put down before the board settled: the win must stand, and the stray piece
        is only something to clear."""
        if self.rng.random() >= P_WIN_REPLY:
            return self.move(action)
        loser = (self.state.to_move + 1) % self.state.players
        with self._doing("reply after a win"):
            expected = self._expect(action)
            if action == END_TURN:
                self._press_end()
            else:
                self.session.perform(action, pause=FAST)
            label = self.put_stray(loser)
            # The button ends the game at once, the stray is called once still: wait for both.
            self._wait(ACCEPT_WAIT, until=Illegal if action == END_TURN else GameOver)
            return self._check(expected, stray=label) and self._agree()

    def put_stray(
        self, seat: int, flagged: Callable[[Cell, PieceKind], bool] | None = None
    ) -> str | None:
        """A piece of `seat`'s put down on a free cell after the game's end (one where the
        board must flag it, if `flagged` says which); its label."""
        stray = self._stray_piece(seat, flagged)
        if stray is None:
            return None
        self.tally.win_replies += 1
        piece, cell = stray
        self.world.put(cell, piece)
        return place_label(cell)

    def _stray_piece(
        self, seat: int, flagged: Callable[[Cell, PieceKind], bool] | None
    ) -> tuple[Any, Cell] | None:
        """A piece of `seat` (or from a supply both share) in the hand, and a free cell of the
        game's area for it (a few tried, where `flagged` must hold)."""
        free = [c for c in self.area if not self.world.pieces_at(c)]
        supplies = [s for s in self.profile.supplies if s.owner in (seat, None)]
        supplies = [s for s in supplies if not s.sensed or any(map(self.world.pieces_at, s.slots))]
        if not free or not supplies:
            return None
        supply = self.rng.choice(supplies)
        cells = self.rng.sample(free, min(len(free), 5)) if flagged else [self.rng.choice(free)]
        for cell in cells:
            if flagged is None or flagged(cell, supply.kinds[0]):
                return self.session.take(supply.name), cell
        return None

    def takeback(self) -> bool:
        """The last move put back where it came from: the board must undo exactly it."""
        if self.last_turn is None:
            return False
        with self._doing("takeback"):
            return self._take_back(*self.last_turn)

    def _take_back(self, start: State, action: Action) -> bool:
        (step,) = self.profile.plan(start, action)
        self.tally.takebacks += 1
        piece = self.session.take(step.target)
        self._wait(HAND_PAUSE / 2)
        self.session.give(step.source, piece)
        self._wait(ACCEPT_WAIT, until=TakenBack)
        events = self._new_events()
        taken = [e for e in events if isinstance(e, TakenBack)]
        player = start.to_move
        if [(e.player, e.actions) for e in taken] == [(player, (str(action),))]:
            self.tally.taken_back += 1
        self._unexpected([e for e in events if not isinstance(e, TakenBack)])
        self.state = start
        self.turn_actions = ()
        self.last_turn = None
        return True

    @_kind("power cut mid-action")
    def power_cut(self, action: Action) -> bool:
        """The power goes while the first piece is in the hand; it goes down once the board is
        back, and the rest of the action's pieces follow."""
        self.tally.power_cuts += 1
        first, *rest = self.profile.plan(self.state, action)
        assert isinstance(first, Step) and all(isinstance(step, Step) for step in rest)
        before = self.state
        expected = self._expect(action)
        piece = self.session.take(first.source)
        self._wait(HAND_PAUSE / 2)
        self._restart()
        self._wait(HAND_PAUSE / 2)
        self.session.give(first.target, piece)
        for step in rest:
            self._wait(HAND_PAUSE / 2)
            piece = self.session.take(step.source)
            self._wait(HAND_PAUSE / 2)
            self.session.give(step.target, piece)
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        self._remember(before, action, expected)
        return ok and self._agree()

    # Trouble.


def _completes(state: State, action: Action) -> bool:
    after = state.apply(action)
    return after.turn != state.turn or after.outcome() is not None
