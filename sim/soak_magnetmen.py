"""The soak's player for Magnetmen: everything a player of the other games does (soak.py), and
what tokens, powers and choices add.

- Tokens come from boxes no sensor sees, one for each way up, and go back there when the board
  is cleared; a destroyed square's token goes down the other way up, and a Police square's
  second collection turns its token over.
- A choice the rules leave to a player (the Actress's icon, the Singer's) is made with the
  buttons, the chooser's seat button stepping to the option and `menu` taking it, sometimes
  going round the options once too often; or over the link, as the page does. Sometimes an
  option the board is not waiting for is sent first: it must be refused, and nothing accepted.
  Sometimes the power goes while a choice waits: the board must offer it again.
- A turn that may go on (the Firefighter's) is ended with the mover's seat button.
- A token from the box is put down where the rules forbid (a repelled square, a square the
  wrong way up), then taken back to the box: `illegal`, then `restored`.
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path
from typing import Any

from magboard.firmware.events import ChoiceOffered, Moved, Partial
from magboard.firmware.games import END_TURN, Action, Game, State
from magboard.firmware.games.magnetmen import Collect, Destroy
from magboard.hardware.spec import BoardSpec, Cell

from .soak import _EVENT_OF, ACCEPT_WAIT, FAST, HAND_PAUSE, P_POWER_CUT, GameSoak, Tally

P_LINK = 0.3
"""Of choices: made over the link (or the page) rather than with the buttons."""
P_ROUND_AGAIN = 0.15
"""Of choices made with the buttons: the seat button pressed once round all the options too
many before `menu`."""
P_WRONG_CHOICE = 0.15
"""Of choices: an option the board is not waiting for sent over the link first."""
P_TOKEN_MISTAKE = 0.10
"""Before an action: a token from a box put down where the rules forbid it, then put back."""
BOARDS = 10_000
"""Board seeds the games draw from."""
TRIES = 8
"""Free squares tried for a token mistake the board must call illegal."""


class MagnetmenSoak(GameSoak):
    """One game of Magnetmen, with trouble mixed in, then the board cleared."""

    def __init__(
        self,
        spec: BoardSpec,
        game: Game,
        options: dict[str, Any],
        seed: int,
        tally: Tally,
        journal: Path,
    ) -> None:
        """Each game on a board printed from its own seed, unless the soak was given one: one
        board would meet only the few types printed on it, and their powers."""
        if "seed" not in tally.options:
            options = {**options, "seed": random.Random(seed).randrange(BOARDS)}
        super().__init__(spec, game, options, seed, tally, journal)

    # What to do.

    def _choose(self) -> Action | None:
        """A random legal action: a token by hand, a button, or a choice the rules wait for."""
        state = self.state
        waiting = state.choices()
        actions = [
            a
            for a in state.legal_actions()
            if a in waiting or a == END_TURN or self.profile.plan(state, a)
        ]
        return self.rng.choice(actions) if actions else None

    def _make(self, action: Action, faulted: bool) -> bool:
        self._count(action)
        return super()._make(action, faulted)

    def _count(self, action: Action) -> None:
        tally, state = self.tally, self.state
        if isinstance(action, Destroy):
            tally.destroyed += 1
        elif isinstance(action, Collect) and len(self.profile.plan(state, action)) == 2:
            tally.tokens_turned += 1
        elif action == END_TURN and action not in state.choices():
            tally.turns_ended += 1

    def _hand_pause(self, state: State, action: Action) -> float:
        """A token turned over is turned in one quick movement: a square left empty for the
        settle time, just after the collection before it, is that collection taken back."""
        if len(self.profile.plan(state, action)) == 2:
            return FAST
        return super()._hand_pause(state, action)

    def _may_press_end(self) -> bool:
        """While a choice waits the seat button steps through its options instead."""
        return super()._may_press_end() and not self.state.choices()

    def move(self, action: Action, faulted: bool = False) -> bool:
        if action in self.state.choices():
            return self.choice(action, faulted)
        return super().move(action, faulted)

    # Choices.

    def choice(self, action: Action, faulted: bool) -> bool:
        """`action`, one of the options the rules wait for, taken with the buttons or over the
        link; the board must accept it as the turn's next action."""
        tally, rng = self.tally, self.rng
        chooser = self.state.chooser
        assert chooser is not None
        if rng.random() < P_WRONG_CHOICE:
            self.wrong_choice()
        if rng.random() < P_POWER_CUT:
            self._power_cut_while_choosing()
        options = [str(a) for a in self.state.choices()]
        expected = self._expect(action)
        by_buttons = rng.random() >= P_LINK
        if by_buttons:
            self._step_to(options, options.index(str(action)), chooser)
            self.world.press("menu")
        else:
            self.session.loop.choose(str(action), self.clock.now())
        self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
        ok = self._check(expected)
        tally.choices += 1
        tally.choices_by_buttons += by_buttons
        if faulted:
            tally.faults_survived += ok and self._fault_seen
        self._fault_seen = False
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
            self.world.press(f"seat-{chooser + 1}")
            self._wait(HAND_PAUSE)

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

    def _power_cut_while_choosing(self) -> None:
        """The power goes while the board waits for a choice: it comes back offering it
        again, from its first option."""
        self.tally.power_cuts += 1
        self._new_events()
        self.session = self.session.restart(seed=self.seed)
        self._cursor = 0
        self._wait(HAND_PAUSE)
        self._unexpected(self._new_events())

    # Tokens put down where the rules forbid.

    def _trouble(self) -> None:
        super()._trouble()
        if self.rng.random() < P_TOKEN_MISTAKE:
            self.token_mistake()

    def token_mistake(self) -> None:
        """A token from a box on a free square the board must refuse, then back in its box."""
        found = self._find_token_mistake()
        if found is None:
            return
        box, cell = found
        tally = self.tally
        tally.illegal_made += 1
        caught, recovered = self._put_right(
            partial(self._from_box, box, cell), partial(self._to_box, cell, box)
        )
        tally.illegal_caught += caught
        tally.recovered += recovered

    def _find_token_mistake(self) -> tuple[str, Cell] | None:
        world, rng, bits = self.world, self.rng, self.spec.sensor_bit
        free = [c for c in self.area if not world.pieces_at(c)]
        rng.shuffle(free)
        for cell in free[:TRIES]:
            supply = rng.choice(self.profile.supplies)
            kind = self.session.kinds[supply.kinds[0].name]
            frame = world.expected_frame()
            for channel in kind.signature:
                frame ^= 1 << bits[(cell, channel)]
            if self._calls_illegal(frame):
                return supply.name, cell
        return None

    def _from_box(self, box: str, cell: Cell) -> None:
        piece = self.session.take(box)
        self._wait(HAND_PAUSE / 2)
        self.world.put(cell, piece)

    def _to_box(self, cell: Cell, box: str) -> None:
        piece = self.world.lift(cell)
        self._wait(HAND_PAUSE / 2)
        self.session.give(box, piece)
