"""After the game: the board cleared for the next, piece by piece or with `new` pressed while
pieces are still on it, and the next game's first move."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from magboard.firmware.events import (
    Clear,
    GameStarted,
    Illegal,
    Moved,
    Partial,
    TakenBack,
)
from magboard.hardware.spec import Cell

from .answers import _EVENT_OF, _answer
from .hands import ACCEPT_WAIT, HAND_PAUSE

P_NEW_WITH_PIECES = 0.5
"""Of cleared boards: `new` pressed while pieces are still on the board."""


class Clearing:
    """How the soak's careless player (careless.py's `GameSoak`) clears the board."""

    def clear_board(self) -> None:
        """The players clear the board for the next game: piece by piece, or pressing `new`
        with pieces still on it. The next game must start only once the board is clear, and
        take its first move."""
        with_new = self.rng.random() < P_NEW_WITH_PIECES
        with self._doing("`new` with pieces left" if with_new else "board cleared"):
            self._clear_board(with_new)

    def _clear_board(self, with_new: bool) -> None:
        tally = self.tally
        tally.boards_cleared += 1
        self._wait(0.5)
        self._new_events()
        acts = self._clearing()
        pressed_at = self.rng.randrange(len(acts)) if with_new and acts else None
        if pressed_at is not None:
            tally.new_with_pieces += 1
        starts, clear_due = self._clear(acts, pressed_at)
        self._wait(ACCEPT_WAIT)
        events = self._new_events()
        started = [e for e in events if isinstance(e, GameStarted)]
        problems = sum(1 for e in events if isinstance(e, Moved | Partial | Illegal | TakenBack))
        if clear_due and not any(isinstance(e, Clear) for e in events):
            problems += 1
        if len(started) != starts or self.session.state != self.session.initial:
            problems += 1
        for event in events:
            if isinstance(event, Moved | Partial):
                self._blame("false_accepts", 1, event)
        # The next game's first move.
        self.state = self.session.initial
        self.turn_actions = ()
        first = self._choose()
        if first is not None and not problems:
            expected = self._expect(first)
            self.session.perform(first, pause=HAND_PAUSE)
            self._wait(ACCEPT_WAIT, until=_EVENT_OF[expected[-1][0]])
            events = self._new_events()
            answers = [_answer(e) for e in events if isinstance(e, Moved | Partial)]
            problems += answers != expected
        tally.clears_ok += not problems

    def _clearing(self) -> list[Callable[[], None]]:
        """The hands' movements that clear the board, in the order they are made: every piece
        of a cell back to its supply, cell by cell."""
        cells = [c for c in self.spec.cells if self.world.pieces_at(c)]
        self.rng.shuffle(cells)
        return [partial(self._clear_cell, cell) for cell in cells]

    def _clear_cell(self, cell: Cell) -> None:
        while self.world.pieces_at(cell):
            piece = self.world.lift(cell)
            self._wait(HAND_PAUSE / 2)
            self.session.give(self._home_of(piece), piece)
            self._wait(HAND_PAUSE)

    def _clear(
        self, acts: Sequence[Callable[[], None]], pressed_at: int | None
    ) -> tuple[int, bool]:
        """Makes `acts`, pressing `new` before act number `pressed_at`. Returns how many games
        the board must start meanwhile, and whether it must show what is left to clear: here
        the board is clear only after the last act, so one game, and a `clear` if there was
        anything to take off."""
        for n, act in enumerate(acts):
            if n == pressed_at:
                self.world.press("new")
                self._wait(HAND_PAUSE)
            act()
        return 1, bool(acts)

    def _home_of(self, piece: Any) -> str:
        """The supply a piece goes back to: the one holding its kind."""
        for supply in self.profile.supplies:
            if any(kind.name == piece.kind.name for kind in supply.kinds):
                return supply.name
        raise ValueError(f"no supply holds {piece.kind.name}")
