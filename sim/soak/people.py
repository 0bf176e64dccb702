"""The soak's player for every game: everything careless.py's player does, and what the game's
contract declares besides, so that a new game needs nothing here.

What the player does comes from the contract alone (firmware/games/core.py and the profile):
turns of several actions (`turn_actions`, a turn that does not end with its action), obligations
and `CARRY_OUT`, choices (`chooser`, `choices()`), the seat button (`can_end_turn`, `END_TURN`),
the steps a hand makes for an action (`Profile.plan`), supplies sensed or not, tiles, and where
the game starts (`Profile.layout`). Wherever the rules allow it, the hands make:

- a turn of several actions in one go, the board never still in the middle of it, sometimes
  followed at once by the next player's whole turn (inside the first one's settle window), or,
  after a win, by a stray piece of the loser's;
- an action in an order the rules forbid: one the turn's start allows made after another that
  rules it out, or one the rules allow only after another made first. The board must refuse it
  naming the rule (`why_illegal`), then say `restored` once it is undone;
- obligations carried out at once (within the settle time of the turn that made them), in part
  (the board still between the pieces, each one progress), late, in the wrong place (a captured
  piece in a supply it does not go to, then moved on), or after the next player tried to go first;
- a takeback of the last turn, however many actions it had (a slid group slid back together),
  also while its obligation waits, wherever the board put back is nothing but the takeback;
- a piece changed in place (a token turned over on its square) as soon as the rules allow it,
  at once after the turn that made it possible;
- a fault as a piece lands: an expander reset 0.1 s after it; the board must take the move only
  after a complete scan and the settle time again;
- a tile nudged, a piece from a box no sensor sees put where the rules forbid, a choice made with
  the buttons or over the link (sometimes an option the board is not waiting for sent first);
- between games the board set up again as the game starts: tiles laid back, the start's pieces
  put back, sometimes with `new` pressed halfway.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import magboard.sim.soak.careless as careless
from magboard.firmware.events import (
    ChoiceOffered,
    FaultSurvived,
    GameOver,
    Moved,
    Partial,
    TakenBack,
)
from magboard.firmware.games import CARRY_OUT, END_TURN, Action, Game, State
from magboard.firmware.games.tiles import OPPOSITE, WAYS, block
from magboard.firmware.profiles import Layout, PieceKind, Step, TileStep
from magboard.firmware.referee import Reading, SearchLimitError
from magboard.firmware.referee.carrying import carrying
from magboard.firmware.referee.explain import forbidden
from magboard.hardware.spec import BoardSpec, Cell, Place, Slot, place_label_any

from ..pipeline_bench import every_reading
from ..session import TURNS
from ..world import Piece, Tile, WorldError
from .answers import _EVENT_OF, Expected
from .careless import GameSoak, _completes
from .hands import ACCEPT_WAIT, FAST, HAND_PAUSE, _kind
from .mishaps import _sees
from .tally import Tally

P_WHOLE_TURN = 0.4
"""Of actions that leave their turn unfinished: the rest of the turn made in one go."""
BRISK = 0.15
"""Seconds between the actions of a turn made in one go: shorter than the settle time, so the
board is never still in the middle of it."""
P_OUT_OF_ORDER = 0.12
"""Before an action of a turn of several: one the rules forbid in that order, then undone."""
P_NUDGE = 0.06
P_TAKEBACK_PENDING = 0.2
"""Of the moments the last turn's obligation waits: the turn taken back (more often than
other turns: a turn that leaves an obligation is rarer, and a won bout's the rarest)."""
P_AT_ONCE = 0.3
"""Of turns that leave an obligation: carried out straight after, before the board settled."""
P_LATE = 0.25
"""Of obligations: carried out only after the board has waited a while."""
LATE = (2.0, 6.0)
"""Seconds the captured pieces stay on the board when carried off late."""
P_IN_PART = 0.4
"""Of obligations of several pieces: one carried off, the board left still, then the rest."""
P_WRONG_PLACE = 0.2
"""Of obligations: a piece put in a supply it does not go to, then moved where it goes."""
P_FIRST = 0.25
"""Of obligations: the next player puts a piece down before they are carried out."""
P_IN_PLACE = 0.6
"""Where the rules allow a piece to be changed in place: the hands choose to."""
P_QUICK_IN_PLACE = 0.5
"""Of pieces changed in place: in one quick movement, the cell bare for less than the settle
time (else at a hand's pace)."""
P_LANDING_FAULT = 0.06
"""Of one-piece actions: the expander under the piece resets itself just after it lands."""
LANDING_FAULT = 0.1
"""Seconds after a piece lands that its expander resets."""
P_LINK = 0.3
"""Of choices: made over the link (or the page) rather than with the buttons."""
P_ROUND_AGAIN = 0.15
"""Of choices made with the buttons: the seat button pressed once round all the options too
many before `menu`."""
P_WRONG_CHOICE = 0.15
"""Of choices: an option the board is not waiting for sent over the link first."""
P_BOX_MISTAKE = 0.10
"""Before an action: a piece from a box no sensor sees put where the rules forbid it."""
BOARDS = 10_000
"""Board seeds the games draw from, for games printed from a seed."""
TRIES = 8
"""Candidates tried for a mistake the board must call illegal."""

Move = Step | TileStep


class PeopleSoak(GameSoak):
    """One game of any kind, with trouble mixed in, then the board set up again."""

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
        """A game whose board is printed from a seed gets its own each game, unless the soak was
        given one: one board would meet only what is printed on it."""
        if any(o.name == "seed" for o in game.options) and "seed" not in tally.options:
            options = {**options, "seed": random.Random(seed).randrange(BOARDS)}
        super().__init__(spec, game, options, seed, tally, journal, **session)
        self.turn_start: State = self.state
        """Where the turn the hands are making began."""
        self.undoable: tuple[State, tuple[Action, ...]] | None = None
        """The last turn, accepted and not followed by anything: its start and its actions."""
        self.touched: frozenset[Cell] = frozenset()
        """The cells the last complete turn changed."""
        self.turn_made: tuple[Action, ...] = ()
        """The actions of the last complete turn, from `turn_start`."""
        self.pressed_at: dict[str, float] = {}
        """When a hand last pressed each button."""

    # What to do.

    def _choose(self) -> Action | None:
        """A random legal action a hand or a button can make, or a choice the rules wait for;
        a piece changed in place wherever the rules allow it, more often than not."""
        state = self.state
        waiting = state.choices()
        actions = [
            a
            for a in state.legal_actions()
            if a in waiting or a == END_TURN or self.profile.plan(state, a)
        ]
        in_place = [a for a in actions if self._in_place(state, a)]
        if in_place and self.rng.random() < P_IN_PLACE:
            return self.rng.choice(in_place)
        return self.rng.choice(actions) if actions else None

    def _in_place(self, state: State, action: Action) -> bool:
        """Whether `action` changes a piece where it stands: one lifted from a cell and another
        put on the same cell."""
        if not action.seen or action == CARRY_OUT:
            return False
        steps = [s for s in self.profile.plan(state, action) if isinstance(s, Step)]
        return any(a.source == b.target for a in steps for b in steps if not a.slide)

    lost = False
    """The board and the game as played went apart in a way no later move can mend (a takeback
    the board did not carry out): the game stops there."""

    def _turn(self, action: Action) -> bool:
        return super()._turn(action) and not self.lost

    def _takeback_odds(self) -> float:
        return P_TAKEBACK_PENDING if self.state.obligations else careless.P_TAKEBACK

    def _trouble(self) -> None:
        super()._trouble()
        rng = self.rng
        if self.profile.tile is not None and rng.random() < P_NUDGE:
            self.nudge()
        if any(not s.sensed for s in self.profile.supplies) and rng.random() < P_BOX_MISTAKE:
            self.box_mistake()
        if rng.random() < P_OUT_OF_ORDER:
            self.out_of_order()

    def _make(self, action: Action, faulted: bool) -> bool:
        state, rng = self.state, self.rng
        if action in state.choices():
            return self.choice(action, faulted)
        if action == CARRY_OUT:
            return self.carry_out(faulted)
        if self._in_place(state, action):
            kind = "changed in place"
            if self.touched & action.touches:
                kind += " at once"
            self.tally.tokens_turned += 1
            with self._doing(kind):
                return super()._make(action, faulted)
        if action == END_TURN and not state.choices():
            self.tally.turns_ended += 1
        if not action.seen:
            return super()._make(action, faulted)
        if not faulted and rng.random() < P_LANDING_FAULT and self._one_step(action):
            return self.landing_fault(action)
        if not _completes(state, action) and rng.random() < P_WHOLE_TURN:
            rest = self._turn_from(state.apply(action), state.turn)
            if self._read_as_made(state, [action, *rest]):
                return self.whole_turn(action, rest, faulted)
        after = state.apply(action)
        wins = after.outcome() is not None and not self._one_step(action)
        if wins and not faulted and rng.random() < careless.P_FAST_REPLY:
            return self.win_then_stray(action)
        if _completes(state, action) and after.obligations and rng.random() < P_AT_ONCE:
            start = self.turn_start if self.turn_actions else state
            if self._followed_as_made(start, (*self.turn_actions, action)):
                return self.at_once(action, faulted)
        return super()._make(action, faulted)

    def _hand_pause(self, state: State, action: Action) -> float:
        """A piece changed in place is changed in one quick movement, or at a hand's pace, the
        cell left bare for longer than the settle time (the rules' action all the same)."""
        if self._in_place(state, action) and self.rng.random() < P_QUICK_IN_PLACE:
            return FAST
        return super()._hand_pause(state, action)

    def _may_press_end(self) -> bool:
        """While a choice waits the seat button steps through its options instead."""
        return super()._may_press_end() and not self.state.choices()

    # The game as played, and the turn the hands could take back.

    def _expect(self, action: Action) -> list[Expected]:
        before = self.state
        if action != CARRY_OUT and not self.turn_actions:
            self.turn_start = before
        actions = (*self.turn_actions, action)
        expected = super()._expect(action)
        if action == CARRY_OUT:
            self.undoable = None
        elif expected[-1][0] == "move":
            plain = len(expected) == 1 and self.state.outcome() is None
            self.undoable = (self.turn_start, actions) if plain else None
            self.touched = frozenset().union(*(a.touches for a in actions))
            self.turn_made = actions
        return expected

    # Doing it by hand.

    def _moves(self, state: State, actions: Sequence[Action]) -> list[Move]:
        """The hand's movements for `actions` made one after another from `state`."""
        moves: list[Move] = []
        for action in actions:
            moves += self.profile.plan(state, action)
            state = state.apply(action)
        return moves

    def _do(self, moves: Sequence[Move], pause: float) -> None:
        """The hand's movements, a piece or a tile at a time; a slid group pushed together."""
        slid = [m for m in moves if isinstance(m, Step) and m.slide]
        for move in moves:
            if isinstance(move, TileStep):
                self.session.move_tile(move)
                self._wait(pause)
            elif not move.slide:
                piece = self.session.take(move.source)
                self._wait(pause / 2)
                self.session.give(move.target, piece)
                self._wait(pause / 2)
        if slid:
            (dx, dy), distance = _slid_way(slid)
            way = {(1, 0): "right", (-1, 0): "left", (0, 1): "up", (0, -1): "down"}
            end = self.world.slide_group(
                [m.source for m in slid],  # type: ignore[misc]
                way[(dx, dy)],  # type: ignore[arg-type]
                distance,
            )
            self._wait(end - self.clock.now() + pause / 2)

    def _undo(self, moves: Sequence[Move], pause: float) -> None:
        """The hand's movements undone, last first; a slid group pushed back together (the
        movements of one action: a group slid by another action goes back by itself)."""
        slid = [m for m in moves if isinstance(m, Step) and m.slide]
        if slid:
            self._do([Step(m.target, m.source, slide=True) for m in slid], pause)
        for move in reversed(moves):
            if isinstance(move, TileStep):
                x, y = move.tile
                dx, dy = WAYS.get(move.way, (0, 0))
                self._do([TileStep((x + dx, y + dy), OPPOSITE[move.way])], pause)
            elif not move.slide:
                self._do([Step(move.target, move.source)], pause)

    def _undo_turns(self, turns: Sequence[tuple[State, Sequence[Action]]], pause: float) -> None:
        """Turns undone by hand, the last action of the last turn first, each action's
        movements by themselves (`_undo`)."""
        for start, actions in reversed(turns):
            states = [start]
            for action in actions[:-1]:
                states.append(states[-1].apply(action))
            for state, action in reversed(list(zip(states, actions, strict=True))):
                self._undo(self.profile.plan(state, action), pause)

    def _doable(self, moves: Sequence[Move]) -> bool:
        """Whether a hand can make `moves` on the board as it is: pieces where they are taken
        from, room where they go, tiles where they are pushed. Slides are not tried."""
        world = self.world
        for move in moves:
            if isinstance(move, TileStep):
                tile = world.tile_at(move.tile)
                if tile is None or world.tile_cells(tile)[0] != move.tile:
                    return False
                continue
            if move.slide or not self._holds(move.source):
                return False
            if not isinstance(move.target, str) and world.pieces_at(move.target):
                return False
        return True

    # Turns of several actions in one go, and what follows them at once.

    @_kind("whole turn")
    def whole_turn(self, action: Action, rest: Sequence[Action], faulted: bool) -> bool:
        """`action` and the `rest` of its turn made in one go: the board must accept the whole
        turn once it is still, having said nothing before. Sometimes the next player's turn
        follows at once, or a stray piece after a win."""
        self.tally.whole_turns += 1
        expected = self._go_through(action, rest)
        stray = None
        if self._turn_over(expected):
            state = self.state
            if state.outcome() is not None and self.rng.random() < careless.P_WIN_REPLY:
                stray = self._stray_after_turn()
            elif (
                not state.obligations
                and state.outcome() is None
                and self.rng.random() < careless.P_FAST_REPLY
            ):
                expected += self._reply_in_one_go()
            elif (
                state.obligations
                and self.rng.random() < P_AT_ONCE
                and self._followed_as_made(self.turn_start, self.turn_made)
            ):
                expected += self._carry_at_once()
        self._wait(ACCEPT_WAIT, until=GameOver if stray else _EVENT_OF[expected[-1][0]])
        ok = self._check(expected, stray=stray)
        self._survived(faulted, ok)
        self.last_turn = None
        return ok and self._agree()

    def _go_through(self, action: Action, then: Sequence[Action] | None = None) -> list[Expected]:
        """`action`, then the turn's next seen actions (`then`, or chosen as the hand goes),
        briskly, until the turn is over or no hand can go on; what the board must answer once
        still (the last `partial` only if the turn is left unfinished)."""
        answers: list[Expected] = []
        following = None if then is None else list(then)
        while True:
            hand = self.state
            answers += self._expect(action)
            self.session.perform(action, pause=BRISK, state=hand)
            if answers[-1][0] != "partial":
                break
            if following is not None:
                if not following:
                    break
                action = following.pop(0)
                continue
            seen = [a for a in self._seen_actions() if a != CARRY_OUT]
            if not seen:
                break
            action = self.rng.choice(seen)
        final = [a for a in answers if a[0] != "partial"]
        return final if final else answers[-1:]

    def _turn_over(self, expected: list[Expected]) -> bool:
        return expected[-1][0] != "partial"

    def _seen_actions(self, state: State | None = None) -> list[Action]:
        state = self.state if state is None else state
        return [a for a in state.legal_actions() if a.seen and self.profile.plan(state, a)]

    @_kind("fast reply inside a turn's settle window")
    def _reply_in_one_go(self) -> list[Expected]:
        """The next player's whole turn, started before the board settled on the last one, where
        the frames can be read only as the two turns made: a tile slid right, then at once slid
        left past where it began by the next player, shows the same frames as the first
        player's slide left, and the board reads one turn there by design; and a tile put on e5
        and slid two down, at once, reads as well as one put on e4 and slid one (as in a whole
        turn, `_read_as_made`)."""
        self.tally.fast_replies += 1
        for _ in range(TRIES):
            reply = self._turn_from(self.state, self.state.turn)
            readings = self._readings(self.turn_start, [*self.turn_made, *reply], across=True)
            if readings and all(
                r.previous is not None
                and r.previous.state == self.state
                and r.previous.actions == tuple(self.turn_made)
                and r.actions == tuple(reply)
                for r in readings
            ):
                return self._go_through(reply[0], reply[1:])
        return []

    def _turn_from(self, state: State, turn: int) -> list[Action]:
        """The seen actions of `turn` from `state` on, chosen at random, as far as hands go."""
        actions: list[Action] = []
        while state.turn == turn and state.outcome() is None:
            seen = [a for a in self._seen_actions(state) if a != CARRY_OUT]
            if not seen:
                break
            actions.append(self.rng.choice(seen))
            state = state.apply(actions[-1])
        return actions

    def _read_as_made(self, state: State, actions: Sequence[Action]) -> bool:
        """Whether the turn so far and `actions`, made from `state` in one go, can be read only
        as made: a tile put on b3 and slid to b1 in one go, the board having seen it pass b2,
        reads as a tile put on b1 by design (it ends the same)."""
        start = self.turn_start if self.turn_actions else state
        made = (*self.turn_actions, *actions)
        return all(r.actions == made for r in self._readings(start, made))

    def _followed_as_made(self, start: State, made: Sequence[Action]) -> bool:
        """Whether the turn `made` from `start`, followed by more hands before the board
        settled (its obligation carried out, a stray piece after its win), can be read as
        made: not where its last action slides a piece over more than one cell (a bout's
        winning slide over three cells, the tiles cleared at once or a tile put down, reads as
        well as a slide over one or two that wins too: the board asks for the position back,
        by design)."""
        state = start
        for action in made[:-1]:
            state = state.apply(action)
        slid = [s for s in self.profile.plan(state, made[-1]) if isinstance(s, Step) and s.slide]
        return not slid or _slid_way(slid)[1] == 1

    def _readings(
        self, start: State, actions: Sequence[Action], across: bool = False
    ) -> tuple[Reading, ...]:
        """The readings of the board `actions` leave from `start`, through the positions they
        pass: by one turn, or `across` by a turn and a reply too."""
        return every_reading(self.profile, start, self._frames(start, actions), across).exact

    def _frames(self, start: State, actions: Sequence[Action]) -> list[int]:
        """The frames the board shows as the hands make `actions` from `start`."""
        state, frames = start, []
        for action in actions:
            frames += self._slid_through(state, action)
            state = state.apply(action)
            frames.append(self.profile.render(state))
        return frames

    def _slid_through(self, state: State, action: Action) -> list[int]:
        """The frames a slid group shows on its way, one cell at a time as the hand pushes it:
        the board sees a tile put on b3 and slid to b1 pass b2, and so may read it as put on b2
        and slid one (it ends the same)."""
        slid = [s for s in self.profile.plan(state, action) if isinstance(s, Step) and s.slide]
        if not slid:
            return []
        (dx, dy), distance = _slid_way(slid)
        layout = self.profile.layout(state)
        frames = []
        for k in range(1, distance):
            cells = dict(layout.cells)
            for step in slid:
                del cells[step.source]  # type: ignore[arg-type]
            for step in slid:
                x, y = step.source  # type: ignore[misc]
                cells[(x + k * dx, y + k * dy)] = layout.cells[step.source]  # type: ignore[index]
            frames.append(self.profile.frame_of(replace(layout, cells=cells)))
        return frames

    @_kind("reply after a win")
    def win_then_stray(self, action: Action) -> bool:
        """`action` ends the game, made in several movements (a slid group, a meeple and its
        tile), and a piece of the loser's goes down at once where only a stray can be read:
        the win must stand, and the stray piece is only something to clear."""
        expected = self._expect(action)
        self.session.perform(action, pause=FAST)
        stray = self._stray_of_loser()
        self._wait(ACCEPT_WAIT, until=GameOver if stray else _EVENT_OF[expected[-1][0]])
        ok = self._check(expected, stray=stray)
        self.last_turn = None
        return ok and self._agree()

    @_kind("reply after a win")
    def _stray_after_turn(self) -> str | None:
        return self._stray_of_loser()

    def _stray_of_loser(self) -> str | None:
        """A piece of the player who did not make the winning turn, put down where only a
        stray can be read; its label."""
        loser = (self.turn_start.to_move + 1) % self.turn_start.players
        return self.put_stray(loser, self._stray_flagged)

    def _stray_flagged(self, cell: Cell, kind: PieceKind) -> bool:
        """Whether a stray piece of `kind` put on `cell` at once after the winning turn just
        made in one go can be read only as a stray: a neutral tile put down at once after a
        bout's winning slide reads as part of the winning turn, and a tile of the loser's
        after a slide over three cells as well as a shorter slide and the loser's reply (the
        board asks for the position back, by design)."""
        frames = self._frames(self.turn_start, self.turn_made)
        layout = self.profile.layout(self.state)
        cells = dict(layout.cells)
        cells[cell] = (*cells.get(cell, ()), kind)
        frames.append(self.profile.frame_of(replace(layout, cells=cells)))
        found = every_reading(self.profile, self.turn_start, frames, across=True)
        return not found.exact and all(r.actions == self.turn_made for r in found.endings)

    # Actions in an order the rules forbid.

    def out_of_order(self) -> None:
        """An action the rules forbid in this order, made by hand, then undone: the board must
        refuse it naming the rule, then say `restored`."""
        found = self._find_out_of_order()
        if found is None:
            return
        moves, rule = found
        self._mistake_put_right(
            "out of order",
            _moves_made(moves),
            partial(self._do, moves, BRISK),
            partial(self._undo, moves, BRISK),
            rule,
        )

    def _find_out_of_order(self) -> tuple[list[Move], str] | None:
        """An action the turn's start allows that the turn so far rules out, or one the rules
        allow only after another action of the turn: its movements and the rule it breaks."""
        state, start, rng = self.state, self.turn_start, self.rng
        if state.obligations or state.choices() or state.outcome() is not None:
            return None
        candidates: list[tuple[State, Action]] = []
        if self.turn_actions:  # something the turn's start allows, ruled out by now
            candidates += [(start, a) for a in start.legal_actions() if not state.is_legal(a)]
        else:  # something allowed only after another action of this turn
            firsts = [a for a in self._seen_actions() if not _completes(state, a)]
            for first in rng.sample(firsts, min(3, len(firsts))):
                after = state.apply(first)
                candidates += [(after, a) for a in after.legal_actions() if not state.is_legal(a)]
        candidates = [(s, a) for s, a in candidates if a.seen and a != CARRY_OUT]
        rng.shuffle(candidates)
        for where, action in candidates[:TRIES]:
            moves = list(self.profile.plan(where, action))
            if moves and self._doable(moves):
                return moves, state.why_illegal(action)
        return None

    # Faults as a piece lands.

    @_kind("fault as a piece lands")
    def landing_fault(self, action: Action) -> bool:
        """`action`'s piece put down, and its expander reset just after: the board must accept
        the move, and only after a complete scan and the settle time again."""
        (step,) = self.profile.plan(self.state, action)
        assert isinstance(step, Step) and not isinstance(step.target, str)
        expected = self._expect(action)
        piece = self.session.take(step.source)
        self._wait(HAND_PAUSE / 2)
        self.session.give(step.target, piece)
        self._wait(LANDING_FAULT)
        self.world.reset_expander(self._expander_of(step.target))
        self.tally.faults_injected += 1
        faulted_at = self.clock.now()
        seen = len(self.session.events)
        self._wait(ACCEPT_WAIT + 1.0, until=_EVENT_OF[expected[-1][0]])
        self._judge_haste(self.session.events[seen:], faulted_at)
        ok = self._check(expected)
        self._survived(True, ok)
        self.last_turn = None
        return ok and self._agree()

    def _judge_haste(self, events: Sequence[Any], faulted_at: float) -> None:
        """A move accepted sooner than the settle time after the fault was found (or before it
        was) was judged on a board the scan had not seen whole: a false accept."""
        found = [e.t for e in events if isinstance(e, FaultSurvived)]
        since = found[0] if found else faulted_at
        for event in events:
            if isinstance(event, Moved | Partial) and event.t - since < self.profile.settle:
                waited = (event.t - since) * 1000
                self._blame("false_accepts", 1, f"accepted {waited:.0f} ms after the fault")

    def _expander_of(self, cell: Cell) -> int:
        for sensor in self.spec.sensors:
            if sensor.place == cell:
                return sensor.expander
        return 0

    # Obligations.

    def carry_out(self, faulted: bool) -> bool:
        """The obligation carried out by hand: perhaps late, perhaps after the next player tried
        to go first, a piece first in the wrong place, in part, or with a power cut while a
        piece is in the hand."""
        rng = self.rng
        if rng.random() < P_LATE:
            self.late()
        if rng.random() < P_FIRST:
            self.move_first()
        if rng.random() < P_WRONG_PLACE:
            self.wrong_place()
        moves = list(self.profile.plan(self.state, CARRY_OUT))
        if len(moves) > 1 and rng.random() < P_IN_PART:
            return self.in_part(moves, faulted)
        if faulted or rng.random() >= careless.P_POWER_CUT:
            self.tally.obligations += 1
            return self.move(CARRY_OUT, faulted)
        self.tally.obligations += 1
        return self.power_cut(CARRY_OUT)

    @_kind("obligation late")
    def late(self) -> None:
        """Nobody carries the obligation out for a while: the board waits for it."""
        self.tally.late_obligations += 1
        self._wait(self.rng.uniform(*LATE))
        self._unexpected(self._new_events())

    @_kind("obligation in part")
    def in_part(self, moves: list[Move], faulted: bool) -> bool:
        """One piece carried off, the board left still (progress, not a mistake), then the rest:
        the board must say the obligation is done only then."""
        self.tally.obligations += 1
        self._do(moves[:1], HAND_PAUSE)
        self._wait(ACCEPT_WAIT)
        self._unexpected(self._new_events())
        expected = self._expect(CARRY_OUT)
        self._do(moves[1:], HAND_PAUSE)
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        self._survived(faulted, ok)
        return ok and self._agree()

    @_kind("obligation at once")
    def at_once(self, action: Action, faulted: bool) -> bool:
        """`action` ends a turn with something to carry out, and the other hand carries it out
        straight away, before the board settled: both must be accepted, in that order."""
        expected = self._expect(action)
        self.session.perform(action, pause=FAST)
        expected += self._carry_at_once()
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        self._survived(faulted, ok)
        return ok and self._agree()

    def _carry_at_once(self) -> list[Expected]:
        self.tally.obligations += 1
        moves = list(self.profile.plan(self.state, CARRY_OUT))
        expected = self._expect(CARRY_OUT)
        self._do(moves, FAST)
        return expected

    def wrong_place(self) -> None:
        """A piece carried off into a supply it does not go to, then moved where it goes: the
        board must call it a mistake (naming a rule), then say `restored`."""
        found = self._find_wrong_place()
        if found is None:
            return
        cell, wrong = found
        self._carried_and_back("obligation in the wrong place", cell, wrong, rule="")

    def _find_wrong_place(self) -> tuple[Cell, Slot] | None:
        """A cell to carry off and a free slot of a sensed supply that is not where it goes:
        the piece comes back out of that very slot (a supply's other pieces stay)."""
        for step in self.profile.plan(self.state, CARRY_OUT):
            if not isinstance(step, Step) or isinstance(step.source, str):
                continue
            free = [
                slot
                for s in self.profile.supplies
                if s.sensed and s.name != step.target
                for slot in s.slots
                if not self.world.pieces_at(slot)
            ]
            if free:
                return step.source, self.rng.choice(free)
        return None

    def move_first(self) -> None:
        """The next player puts a piece down before the obligation is carried out; the board
        must refuse it, and take it back in its stride once the piece goes back."""
        step = self._first_move()
        if step is None:
            return
        self.tally.moved_first += 1
        with self._doing("moved before the obligation"):
            answer = self._put_right(
                partial(self._carry, step.source, step.target),
                partial(self._carry, step.target, step.source),
            )
        self.tally.moved_first_refused += answer.recovered

    def _first_move(self) -> Step | None:
        """A piece action the next player could make once the obligation is done, by one hand
        movement, from where a piece is now onto a cell that is free now."""
        after = self.state.apply(CARRY_OUT)
        steps = [self.profile.plan(after, action) for action in after.legal_actions()]
        free = [
            step
            for (step,) in (s for s in steps if len(s) == 1)
            if isinstance(step, Step)
            and not step.slide
            and not isinstance(step.target, str)
            and not self.world.pieces_at(step.target)
            and self._holds(step.source)
        ]
        return self.rng.choice(free) if free else None

    def _holds(self, spot: str | Cell) -> bool:
        """Whether a hand can take a piece from `spot` now."""
        if not isinstance(spot, str):
            return bool(self.world.pieces_at(spot))
        supply = self.profile.supply(spot)
        return not supply.sensed or any(map(self.world.pieces_at, supply.slots))

    def _carried_and_back(
        self, kind: str, source: str | Place, target: str | Place, rule: str | None = None
    ) -> None:
        """A mistake of `kind`: a piece carried from `source` to `target`, then back."""
        self._mistake_put_right(
            kind,
            f"{place_label_any(source)} to {place_label_any(target)}",
            partial(self._carry, source, target),
            partial(self._carry, target, source),
            rule,
        )

    def _carry(self, source: str | Place, target: str | Place) -> None:
        piece = self.session.take(source)
        self._wait(HAND_PAUSE / 2)
        self.session.give(target, piece)

    # Takebacks.

    def takeback(self) -> bool:
        """The last turn put back by hand, however many actions it had, also while its
        obligation waits: the board must undo exactly it."""
        if self.undoable is None or self.turn_actions or self.state.choices():
            return False
        start, actions = self.undoable
        moves = self._moves(start, actions)
        pending = bool(self.state.obligations)
        slid = any(isinstance(m, Step) and m.slide for m in moves)
        if (slid or pending) and not self._only_a_takeback(
            start, self._undone_frames(start, actions)
        ):
            return False
        with self._doing("takeback mid-obligation" if pending else "takeback"):
            self.tally.takebacks += 1
            try:
                self._undo_turns([(start, actions)], BRISK)  # in one go: never still half undone
            except (WorldError, ValueError):  # no hand could: nothing for the board to judge
                self.lost = True
                return False
            self._wait(ACCEPT_WAIT, until=TakenBack)
            events = self._new_events()
            taken = [(e.player, e.actions) for e in events if isinstance(e, TakenBack)]
            if taken == [(start.to_move, tuple(map(str, actions)))]:
                self.tally.taken_back += 1
            else:
                self._blame("missed", 1, f"taken back {taken}, not {list(map(str, actions))}")
                self.lost = True
            self._unexpected([e for e in events if not isinstance(e, TakenBack)])
        self.state = start
        self.turn_start = start
        self.turn_actions = ()
        self.undoable = self.last_turn = None
        return True

    def _only_a_takeback(self, before: State, passed: Sequence[int]) -> bool:
        """Whether the board, shown `before` again through the frames `passed`, can read it
        only as the takeback: it shows something else than now (a slide and the reply sliding
        it back leave nothing to take back), no legal turn from the turn's start makes it (a
        group slid back is the next player's slide too, and, where that slide wins a bout, a
        tile then lifted is the board's clearing begun), and, while an obligation waits, it is
        not the obligation done, in part or whole (a placed tile taken off is a tile cleared
        too)."""
        profile, referee = self.profile, self.session.referee
        frame = profile.render(before)
        if frame == profile.render(referee.position):
            return False
        if not self.state.obligations:
            return not self._calls_a_move(frame, passed)
        position = referee.position
        done = position.apply(CARRY_OUT)
        if frame == profile.render(done) or profile.lifted_from(frame, done) is not None:
            return False
        return carrying(profile, position, frame).frame != frame

    def _undone_frames(self, start: State, actions: Sequence[Action]) -> list[int]:
        """The frames the board shows as the hands undo the turn `actions` from `start`, the
        last action first (`_undo_turns`), before it shows `start` again."""
        states = [start]
        for action in actions[:-1]:
            states.append(states[-1].apply(action))
        return [self.profile.render(state) for state in reversed(states[1:])]

    def _calls_a_move(self, frame: int, passed: Sequence[int]) -> bool:
        """Whether some reading of turns from the turn's start, through the frames `passed`,
        gives the board `frame`, or the rules forbid what it shows (both are judged before a
        takeback)."""
        referee = self.session.referee
        if forbidden(self.profile, referee.position, frame) is not None:
            return True
        start = self.profile.render(referee.turn_start)
        cells = referee.matcher.game_cells(self.profile.sensors.spots(frame ^ start))
        trail = (start, *passed, frame)
        try:
            found = referee.matcher.search(
                referee.turn_start, frame, cells, across=referee.matcher.any_reply, passed=trail
            )
        except SearchLimitError:
            return True
        return bool(found.exact or found.endings)

    # Tiles nudged.

    def nudge(self) -> None:
        """A tile shifted or turned by a hand that did not mean to, and put back."""
        found = self._find_nudge()
        if found is None:
            return
        tile, way = found
        self.tally.tiles_nudged += 1
        self._mistake_put_right(
            "tile nudged",
            f"tile {tile.id} pushed {way}",
            partial(self._push, tile, way),
            partial(self._push, tile, OPPOSITE[way]),
        )

    def _push(self, tile: Tile, way: str) -> None:
        self.session.move_tile(TileStep(self.world.tiles[tile], way))

    def _find_nudge(self) -> tuple[Tile, str] | None:
        tries = [(tile, way) for tile in self.world.tiles for way in (*WAYS, *TURNS)]
        self.rng.shuffle(tries)
        for tile, way in tries[:TRIES]:
            frame = self._frame_after(tile, way)
            if frame is not None and self._calls_illegal(frame):
                return tile, way
        return None

    def _frame_after(self, tile: Tile, way: str) -> int | None:
        """The raw frame once `tile` moved `way` with the pieces on it; None where a hand cannot
        move it so."""
        world, bits = self.world, self.spec.sensor_bit
        moved = _carried(world.tiles[tile], way)
        for cell in set(moved.values()) - set(moved):
            if cell not in self._cells or world.tile_at(cell) is not None or world.pieces_at(cell):
                return None
        frame = world.expected_frame()
        arrived = {new: old for old, new in moved.items()}
        key = world.key_of(tile)
        for cell in set(moved) | set(arrived):
            after: set[str] = set()
            if cell in arrived:
                after |= tile.signature
                if key is not None and moved[key] == cell:
                    after |= tile.key
                for piece in world.pieces_at(arrived[cell]):
                    after |= piece.kind.signature
            for channel in _sees(world, cell, world.pieces_at(cell)) ^ after:
                frame ^= 1 << bits[(cell, channel)]
        return frame

    def _cells_to_search(self, seen: int) -> frozenset[Cell]:
        """Also the cells of the turn's accepted part, as the referee tries them: a quarter turn
        may carry the turn's piece back onto the cell it left, and the frame alone misses it."""
        return super()._cells_to_search(seen) | self.session.referee._changed_cells()

    @cached_property
    def _cells(self) -> frozenset[Cell]:
        return frozenset(self.spec.cells)

    # A piece from a box no sensor sees, put where the rules forbid.

    def box_mistake(self) -> None:
        """A piece from a box no sensor sees on a free cell the board must refuse, then back."""
        found = self._find_box_mistake()
        if found is None:
            return
        box, cell = found
        self._carried_and_back("box piece where the rules forbid", box, cell)

    def _find_box_mistake(self) -> tuple[str, Cell] | None:
        world, rng, bits = self.world, self.rng, self.spec.sensor_bit
        boxes = [s for s in self.profile.supplies if not s.sensed]
        free = [c for c in self.area if not world.pieces_at(c)]
        rng.shuffle(free)
        for cell in free[:TRIES]:
            supply = rng.choice(boxes)
            kind = self.session.kinds[supply.kinds[0].name]
            frame = world.expected_frame()
            for channel in kind.signature:
                frame ^= 1 << bits[(cell, channel)]
            if self._calls_illegal(frame):
                return supply.name, cell
        return None

    # Choices.

    def move(self, action: Action, faulted: bool = False) -> bool:
        if action in self.state.choices():
            return self.choice(action, faulted)
        return super().move(action, faulted)

    @_kind("choice")
    def choice(self, action: Action, faulted: bool) -> bool:
        """`action`, one of the options the rules wait for, taken with the buttons or over the
        link; the board must accept it as the turn's next action."""
        tally, rng = self.tally, self.rng
        chooser = self.state.chooser
        assert chooser is not None
        if rng.random() < P_WRONG_CHOICE:
            self.wrong_choice()
        if not faulted and rng.random() < careless.P_POWER_CUT:
            self._power_cut_while_choosing()  # a fault not yet seen dies with the electronics
        options = [str(a) for a in self.state.choices()]
        expected = self._expect(action)
        by_buttons = rng.random() >= P_LINK
        if by_buttons:
            self._step_to(options, options.index(str(action)), chooser)
            self._press("menu")
        else:
            self.session.loop.choose(str(action), self.clock.now())
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        tally.choices += 1
        tally.choices_by_buttons += by_buttons
        self._survived(faulted, ok)
        self.last_turn = None
        return ok and self._agree()

    def _step_to(self, options: list[str], target: int, chooser: int) -> None:
        """The chooser's seat button pressed until it points at option `target`, from where the
        board's last `choice` event says it points."""
        offered = [
            e
            for e in self.session.events
            if isinstance(e, ChoiceOffered) and list(e.options) == options
        ]
        current = offered[-1].current if offered else 0
        presses = (target - current) % len(options)
        if self.rng.random() < P_ROUND_AGAIN:
            presses += len(options)
        for _ in range(presses):
            self._press(f"seat-{chooser + 1}")
            self._wait(HAND_PAUSE)

    def _press(self, button: str) -> None:
        """A button pressed by a hand, never sooner than `HAND_PAUSE` after the last press of
        it: no finger presses a button still held down (the next chooser takes over `menu` only
        once the last one let go), and a press while it is down is no press at all."""
        since = self.clock.now() - self.pressed_at.get(button, -HAND_PAUSE)
        if since < HAND_PAUSE:
            self._wait(HAND_PAUSE - since)
        self.pressed_at[button] = self.clock.now()
        self.world.press(button)

    @_kind("wrong choice")
    def wrong_choice(self) -> None:
        """Something the board is not waiting for, sent as a choice: refused with a reason,
        nothing accepted."""
        state = self.state
        waiting = {str(a) for a in state.choices()}
        texts = [str(a) for a in state.legal_actions() if a.seen]
        texts += ["end", "xa1", "A+Guitarist", "B-Judge"]
        texts = [text for text in texts if text not in waiting]
        self.tally.wrong_choices += 1
        try:
            self.session.loop.choose(self.rng.choice(texts), self.clock.now())
        except ValueError as error:
            refused = bool(str(error))
        else:
            refused = False
        self._wait(HAND_PAUSE)
        events = self._new_events()
        self._unexpected(events)
        accepted = any(isinstance(e, Moved | Partial) for e in events)
        self.tally.wrong_choices_refused += refused and not accepted

    @_kind("power cut while a choice waits")
    def _power_cut_while_choosing(self) -> None:
        """The power goes while the board waits for a choice: it comes back offering it again,
        from its first option."""
        self.tally.power_cuts += 1
        self._restart()
        self._wait(HAND_PAUSE)
        self._unexpected(self._new_events())

    # Setting the board up again.

    def _clearing(self) -> list[Callable[[], None]]:
        """Where the game starts with pieces or tiles on the board: pieces off their cells (to
        their supplies, or aside in the hand) and out of the trays where the start has none;
        tiles that moved taken off; tiles laid where the start has them; the start's pieces put
        back. Each group in a random order. Otherwise every piece back to its supply."""
        start = self.profile.layout(self.session.initial)
        if not start.tiles and not start.cells:
            return super()._clearing()
        right = self._tiles_in_place(start)
        stays = [cell for cell in start.cells if self._stays(cell, start, right)]
        rng, world = self.rng, self.world
        lifts: list[Callable[[], None]] = [
            partial(self._lift_all, cell, start)
            for cell in self.spec.cells
            if world.pieces_at(cell) and cell not in stays
        ]
        lifts += [
            partial(self._lift_all, slot, start)
            for supply in self.profile.supplies
            if not start.supplies.get(supply.name, 0)
            for slot in supply.slots
            if world.pieces_at(slot)
        ]
        taken = [partial(self._take_tile, tile) for tile in world.tiles if tile not in right]
        kept = {(world.tiles[tile], world.key_of(tile)) for tile in right}
        laid = [
            partial(self._lay_tile, spot.origin, spot.key)
            for spot in start.tiles
            if (spot.origin, spot.key) not in kept
        ]
        put = [partial(self._put_back, cell, start) for cell in start.cells if cell not in stays]
        for group in (lifts, taken, laid, put):
            rng.shuffle(group)
        return [*lifts, *taken, *laid, *put]

    def _tiles_in_place(self, start: Layout) -> set[Tile]:
        spots = {(spot.origin, spot.key) for spot in start.tiles}
        world = self.world
        return {
            tile for tile, origin in world.tiles.items() if (origin, world.key_of(tile)) in spots
        }

    def _stays(self, cell: Cell, start: Layout, right: set[Tile]) -> bool:
        """Whether `cell` already holds what the start has there, on a tile lying as it started
        (or on no tile where the game has none): a hand leaves it."""
        names = [piece.kind.name for piece in self.world.pieces_at(cell)]
        on_right_tile = self.profile.tile is None or self.world.tile_at(cell) in right
        return on_right_tile and names == [k.name for k in start.cells[cell]]

    def _lift_all(self, place: Place, start: Layout) -> None:
        """Every piece of a cell or slot lifted: into its supply if the start fills it, else
        kept in the hand for its start cell."""
        while self.world.pieces_at(place):
            piece = self.world.lift(place)
            self._wait(HAND_PAUSE / 2)
            home = self._start_home(piece, start)
            if home is not None:
                self.session.give(home, piece)
            self._wait(HAND_PAUSE)

    def _start_home(self, piece: Piece, start: Layout) -> str | None:
        for supply in self.profile.supplies:
            holds = any(kind.name == piece.kind.name for kind in supply.kinds)
            if holds and (start.supplies.get(supply.name, 0) or not supply.sensed):
                return supply.name
        return None

    def _take_tile(self, tile: Tile) -> None:
        self.world.take_tile(tile)
        self._wait(HAND_PAUSE)

    def _lay_tile(self, origin: Cell, key: Cell) -> None:
        kind = self.profile.tile
        assert kind is not None
        self.world.add_tile(origin, kind.signature, kind.key, key, bounce=True)
        self._wait(HAND_PAUSE)

    def _put_back(self, cell: Cell, start: Layout) -> None:
        """The start's pieces of `cell` put on it from the hand (or a box no sensor sees)."""
        for kind in start.cells[cell]:
            held = [p for p in self.world.hand if p.kind.name == kind.name]
            piece = held[0] if held else self.session.take(self._box_of(kind.name))
            self.world.put(cell, piece)
            self._wait(HAND_PAUSE / 2)
        self._wait(HAND_PAUSE / 2)

    def _box_of(self, kind: str) -> str:
        for supply in self.profile.supplies:
            if any(k.name == kind for k in supply.kinds):
                return supply.name
        raise ValueError(f"no supply holds {kind}")

    def _clear(
        self, acts: Sequence[Callable[[], None]], pressed_at: int | None
    ) -> tuple[int, bool]:
        """Makes `acts`, pressing `new` before act number `pressed_at`, and follows what the
        board must make of each still board on the way."""
        start = self.profile.layout(self.session.initial)
        if not start.tiles and not start.cells:
            return super()._clear(acts, pressed_at)
        watch = _Watch(self)
        for n, act in enumerate(acts):
            if n == pressed_at:
                watch.pressed()
                self.world.press("new")
                self._wait(HAND_PAUSE)
            act()
            watch.still()
        return watch.starts, watch.clear_due


class _Watch:
    """What the board must do while the hands set it up again, judged on each still board: once
    the game is over, the first board that is not the end position with things added shows what
    is left to clear; the first at the start (pieces in hands aside) starts the next game,
    unless `new` already started it."""

    def __init__(self, soak: PeopleSoak) -> None:
        self.soak = soak
        profile = soak.profile
        self.start = profile.render(soak.session.initial)
        self.final = profile.render(soak.session.referee.position) & profile.sensors.cells_mask
        self.phase = "over"
        self.starts = 0
        self.clear_due = False

    def _frame(self) -> int:
        return self.soak.profile.canonical(self.soak.world.expected_frame())

    def _at_start(self, frame: int) -> bool:
        sensors = self.soak.profile.sensors
        return frame == self.start or sensors.lifted_from(frame, self.start) is not None

    def pressed(self) -> None:
        self.starts += 1
        at_start = self._at_start(self._frame())
        self.clear_due |= not at_start
        self.phase = "play" if at_start else "new"

    def still(self) -> None:
        frame = self._frame()
        at_start = self._at_start(frame)
        if self.phase == "over" and not at_start and (frame & self.final) != self.final:
            self.clear_due = True
            self.phase = "clearing"
        if self.phase in ("over", "clearing", "new") and at_start:
            self.starts += self.phase != "new"
            self.phase = "play"


def _carried(origin: Cell, way: str) -> dict[Cell, Cell]:
    """Where each cell of the tile at `origin` goes, with what stands on it, when the tile moves
    `way` (a shift, or a quarter turn about its centre)."""
    cells = block(origin)  # clockwise from the lower-left
    if way in WAYS:
        dx, dy = WAYS[way]
        return {(x, y): (x + dx, y + dy) for x, y in cells}
    turn = 1 if way == "cw" else -1
    return {cell: cells[(i + turn) % 4] for i, cell in enumerate(cells)}


def _slid_way(slid: Sequence[Step]) -> tuple[tuple[int, int], int]:
    """The unit step and the distance of a group slid together (its steps all go alike)."""
    source, target = slid[0].source, slid[0].target
    assert not isinstance(source, str) and not isinstance(target, str)
    dx, dy = target[0] - source[0], target[1] - source[1]
    distance = max(abs(dx), abs(dy))
    return (dx // distance, dy // distance), distance


def _moves_made(moves: Sequence[Move]) -> str:
    """A hand's movements in words, for an example of what went wrong."""
    return ", ".join(map(_move_made, moves))


def _move_made(move: Move) -> str:
    if isinstance(move, TileStep):
        return f"the tile at {place_label_any(move.tile)} {move.way}"
    how = "slid" if move.slide else "carried"
    return f"{place_label_any(move.source)} {how} to {place_label_any(move.target)}"
