"""The soak's people making the choices the rules give them: with the buttons, over the link, the
wrong one first, or with the power going meanwhile."""

from __future__ import annotations

import magboard.sim.soak.careless as careless
from magboard.firmware.events import (
    ChoiceOffered,
    Moved,
    Partial,
)
from magboard.firmware.games import Action

from .answers import _EVENT_OF
from .hands import ACCEPT_WAIT, HAND_PAUSE, _kind

P_LINK = 0.3
"""Of choices: made over the link (or the page) rather than with the buttons."""
P_ROUND_AGAIN = 0.15
"""Of choices made with the buttons: the seat button pressed once round all the options too
many before `menu`."""
P_WRONG_CHOICE = 0.15
"""Of choices: an option the board is not waiting for sent over the link first."""


class Choices:
    """How the people (PeopleSoak) make the rules' choices, by the buttons or over the link."""

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
