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
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import magboard.sim.soak.careless as careless
from magboard.firmware.events import (
    GameOver,
)
from magboard.firmware.games import CARRY_OUT, END_TURN, Action, Game, State
from magboard.firmware.games.tiles import OPPOSITE, WAYS
from magboard.firmware.profiles import PieceKind, Step, TileStep
from magboard.firmware.referee import Reading
from magboard.hardware.spec import BoardSpec, Cell

from ..pipeline_bench import every_reading
from .answers import _EVENT_OF, Expected
from .careless import GameSoak, _completes
from .carelessness import Carelessness
from .choices import Choices
from .hands import ACCEPT_WAIT, FAST, _kind
from .hands_people import BRISK, TRIES, Move
from .nudges import Nudges
from .obligations import Obligations
from .setting_up import SettingUp
from .takebacks import Takebacks
from .tally import Tally

P_WHOLE_TURN = 0.4
"""Of actions that leave their turn unfinished: the rest of the turn made in one go."""
P_OUT_OF_ORDER = 0.12
"""Before an action of a turn of several: one the rules forbid in that order, then undone."""
P_NUDGE = 0.06
P_TAKEBACK_PENDING = 0.2
"""Of the moments the last turn's obligation waits: the turn taken back (more often than
other turns: a turn that leaves an obligation is rarer, and a won bout's the rarest)."""
P_AT_ONCE = 0.3
"""Of turns that leave an obligation: carried out straight after, before the board settled."""
P_IN_PLACE = 0.6
"""Where the rules allow a piece to be changed in place: the hands choose to."""
P_QUICK_IN_PLACE = 0.5
"""Of pieces changed in place: in one quick movement, the cell bare for less than the settle
time (else at a hand's pace)."""
P_LANDING_FAULT = 0.06
"""Of one-piece actions: the expander under the piece resets itself just after it lands."""
P_BOX_MISTAKE = 0.10
"""Before an action: a piece from a box no sensor sees put where the rules forbid it."""
BOARDS = 10_000
"""Board seeds the games draw from, for games printed from a seed."""


class PeopleSoak(Carelessness, Obligations, Takebacks, Nudges, Choices, SettingUp, GameSoak):
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


def _slid_way(slid: Sequence[Step]) -> tuple[tuple[int, int], int]:
    """The unit step and the distance of a group slid together (its steps all go alike)."""
    source, target = slid[0].source, slid[0].target
    assert not isinstance(source, str) and not isinstance(target, str)
    dx, dy = target[0] - source[0], target[1] - source[1]
    distance = max(abs(dx), abs(dy))
    return (dx // distance, dy // distance), distance
