"""A whole board in the simulator: world, emulated electronics, real drivers, referee and lights,
in virtual time. Scenarios, the demo, soak runs and the web page all drive one of these.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from magboard.firmware.app import wiring
from magboard.firmware.app.loop import BoardLoop
from magboard.firmware.events import Event
from magboard.firmware.games import Action, State, get_game
from magboard.firmware.journal import Journal
from magboard.firmware.profiles import PieceKind, Profile, Step
from magboard.firmware.referee import Referee
from magboard.hardware.spec import BoardSpec, Cell, Place, Slot, load_board

from .board import SimBoard
from .clock import VirtualClock
from .world import Piece, World
from .world import PieceKind as WorldKind

PLAYER_COLOURS = ((40, 90, 255), (255, 120, 20), (0, 200, 80), (220, 0, 200))
NEUTRAL = (200, 200, 200)
HAND_PAUSE = 0.4
"""Seconds between lifting a piece and putting it down, and after a move, in simulated play."""


class SimSession:
    """One simulated board running one game."""

    def __init__(
        self,
        board: str | BoardSpec,
        game: str,
        options: Mapping[str, Any] | None = None,
        *,
        seed: int = 0,
        takeback: bool = True,
        journal: Path | None = None,
        sinks: Iterable[Callable[[Event], None]] = (),
        clock: VirtualClock | None = None,
        world: World | None = None,
    ) -> None:
        self.spec = board if isinstance(board, BoardSpec) else load_board(board)
        self.game = get_game(game)
        self.options = self.game.resolve_options(options)
        self.random = random.Random(seed)
        self.events: list[Event] = []
        self.journal = Journal(journal) if journal else None
        self.board = SimBoard(self.spec, clock)
        self.clock = self.board.clock
        table = wiring.wire(
            self.board,
            self.game,
            self.options,
            takeback=takeback,
            journal=self.journal,
            sinks=[self.events.append, *sinks],
        )
        self.profile: Profile = table.profile
        self.referee: Referee = table.referee
        self.loop: BoardLoop = table.loop
        self.initial: State = self.referee.initial
        if world is None:
            world = World(self.board, seed)
        else:
            world.connect(self.board)  # a restart: the pieces stay, the electronics are new
        self.world = world
        self.kinds = {kind.name: self._world_kind(kind) for kind in self.profile.kinds}

    def _world_kind(self, kind: PieceKind) -> WorldKind:
        colour = NEUTRAL if kind.owner is None else PLAYER_COLOURS[kind.owner % 4]
        return WorldKind(kind.name, kind.signature, colour)

    # Setting up.

    def lay_out(self, state: State | None = None) -> None:
        """Puts every piece where `state` has it (instantly, as before a game)."""
        layout = self.profile.layout(state or self.initial)
        for cell, stack in layout.cells.items():
            for kind in stack:
                self.world.add(self.kinds[kind.name], cell)
        for supply in self.profile.supplies:
            for slot in supply.slots[: layout.supplies.get(supply.name, 0)]:
                self.world.add(self.kinds[supply.kind.name], slot)

    def start(self, actions: Iterable[str] = ()) -> None:
        self.loop.start(actions)

    @property
    def state(self) -> State:
        return self.referee.position

    # Playing by hand, physically.

    def perform(self, action: Action, pause: float = HAND_PAUSE) -> None:
        """A hand makes `action` on the board, a step at a time, in virtual time."""
        for step in self.profile.plan(self.referee.position, action):
            piece = self.world.lift(self.source_of(step))
            self.run_for(pause / 2)
            self.world.put(self.target_of(step, piece), piece)
            self.run_for(pause / 2)

    def source_of(self, step: Step) -> Place:
        if not isinstance(step.source, str):
            return step.source
        full = [s for s in self._supply_slots(step.source) if self.world.pieces_at(s)]
        if not full:
            raise ValueError(f"supply {step.source} is empty on the board")
        return self.random.choice(full)

    def target_of(self, step: Step, piece: Piece) -> Place:
        if not isinstance(step.target, str):
            return step.target
        empty = [s for s in self._supply_slots(step.target) if not self.world.pieces_at(s)]
        return empty[0]

    def _supply_slots(self, name: str) -> tuple[Slot, ...]:
        for supply in self.profile.supplies:
            if supply.name == name:
                return supply.slots
        raise KeyError(name)

    def board_cell(self, game_cell: Cell) -> Cell:
        return self.profile.to_board(game_cell)

    # Time.

    def run_for(self, seconds: float) -> None:
        self.loop.run_until(self.clock.now() + seconds)

    def run_until(self, at: float) -> None:
        self.loop.run_until(at)

    def settle(self) -> None:
        """Lets the board go still long enough to be judged."""
        self.run_for(self.profile.settle + 0.2)

    def restart(self, **changes: Any) -> SimSession:
        """A power cut: the electronics and the program start again, the pieces stay where
        they are, and the journal (if any) says which game was on."""
        resume = self.journal.load() if self.journal else None
        session = SimSession(
            self.spec,
            resume.game if resume else self.game.name,
            resume.options if resume else self.options,
            takeback=self.referee.takeback,
            journal=self.journal.path if self.journal else None,
            clock=self.clock,
            world=self.world,
            **changes,
        )
        session.board.dead_leds |= self.board.dead_leds  # LEDs are hardware: dead stays dead
        session.start(resume.actions if resume else ())
        return session
