"""A whole board in the simulator: world, emulated electronics, real drivers, referee and lights,
in virtual time. Scenarios, the demo, soak runs and the web page all drive one of these.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from magboard.firmware.app import wiring
from magboard.firmware.app.board_player import Thinking, stepped_clock
from magboard.firmware.app.hours import OpeningHours
from magboard.firmware.app.loop import BoardLoop
from magboard.firmware.app.unattended import Unattended
from magboard.firmware.events import Event
from magboard.firmware.games import Action, Game, State, get_game
from magboard.firmware.journal import Journal
from magboard.firmware.profiles import PieceKind, Profile, Spot, Step, TileStep
from magboard.firmware.referee import Referee
from magboard.hardware.spec import BoardSpec, Cell, load_board, place_label

from .board import SimBoard
from .clock import VirtualClock
from .world import Direction, Piece, World
from .world import PieceKind as WorldKind

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat

PLAYER_COLOURS = ((40, 90, 255), (255, 120, 20), (0, 200, 80), (220, 0, 200))
NEUTRAL = (200, 200, 200)
DIRECTIONS: dict[tuple[int, int], Direction] = {
    (1, 0): "right",
    (-1, 0): "left",
    (0, 1): "up",
    (0, -1): "down",
}
SHIFTS: dict[str, Direction] = {"^": "up", "v": "down", "<": "left", ">": "right"}
"""A tile shift's notation and the way a hand pushes it."""
TURNS = ("cw", "ccw")
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
        unattended: Unattended | None = None,
        calendar: float | None = None,
        match: str | None = None,
        ai: AiSeat | None = None,
        thinking: Thinking | None = None,
        hours: OpeningHours | None = None,
        maintenance: Path | None = None,
    ) -> None:
        self.spec = board if isinstance(board, BoardSpec) else load_board(board)
        chosen = get_game(game)
        self.random = random.Random(seed)
        self.events: list[Event] = []
        self.board = SimBoard(self.spec, clock)
        self.clock = self.board.clock
        self.calendar = time.time() - self.clock.now() if calendar is None else calendar
        """The date and time (epoch seconds) at virtual time 0, for the journal's records."""
        self.journal = Journal(journal, wall=self._wall, match=match) if journal else None
        table = wiring.wire(
            self.board,
            chosen,
            chosen.resolve_options(options),
            takeback=takeback,
            journal=self.journal,
            sinks=[self.events.append, *sinks],
            unattended=unattended,
            hours=hours,
            calendar=self.local_time,
            maintenance=maintenance,
        )
        self.loop: BoardLoop = table.loop
        # The board's thinking runs by a stepped clock unless told otherwise: the same run on
        # any machine, however busy.
        self.loop.thinking = thinking or Thinking(clock=stepped_clock(), seed=seed)
        if ai is not None:
            self.loop.set_opponent(ai)
        if world is None:
            world = World(self.board, seed)
        else:
            world.connect(self.board)  # a restart: the pieces stay, the electronics are new
        self.world = world
        self._kinds: tuple[Profile, dict[str, WorldKind]] | None = None

    # The game in play: the loop's, which the LED menu or a command from afar may change.

    @property
    def referee(self) -> Referee:
        return self.loop.referee

    @property
    def profile(self) -> Profile:
        return self.referee.profile

    @property
    def game(self) -> Game:
        return self.referee.game

    @property
    def options(self) -> dict[str, Any]:
        return self.referee.options

    @property
    def initial(self) -> State:
        return self.referee.initial

    @property
    def kinds(self) -> dict[str, WorldKind]:
        """The world's piece kinds of the game in play, by the profile's kind names."""
        profile = self.profile
        if self._kinds is None or self._kinds[0] is not profile:
            kinds = {kind.name: self._world_kind(kind) for kind in profile.kinds}
            self._kinds = (profile, kinds)
        return self._kinds[1]

    def _world_kind(self, kind: PieceKind) -> WorldKind:
        colour = NEUTRAL if kind.owner is None else PLAYER_COLOURS[kind.owner % 4]
        return WorldKind(kind.name, kind.signature, colour)

    # Setting up.

    def lay_out(self, state: State | None = None) -> None:
        """Puts every piece where `state` has it (instantly, as before a game)."""
        layout = self.profile.layout(state or self.initial)
        tile = self.profile.tile
        for spot in layout.tiles:
            assert tile is not None
            self.world.add_tile(spot.origin, tile.signature, tile.key, spot.key)
        for cell, stack in layout.cells.items():
            for kind in stack:
                self.world.add(self.kinds[kind.name], cell)
        for supply in self.profile.supplies:
            for slot in supply.slots[: layout.supplies.get(supply.name, 0)]:
                self.world.add(self.kinds[supply.kinds[0].name], slot)

    def start(self, actions: Iterable[str] = (), reserves: tuple[float, ...] | None = None) -> None:
        self.loop.start(actions, reserves)

    @property
    def state(self) -> State:
        return self.referee.position

    # Playing by hand, physically.

    def perform(
        self, action: Action, pause: float = HAND_PAUSE, state: State | None = None
    ) -> None:
        """A hand makes `action` on the board, a step at a time, in virtual time: pieces lifted
        and put down one by one, then a slid group pushed along together. It is made from the
        referee's position, or from `state` where the hands are ahead of the board."""
        steps = self.profile.plan(state or self.referee.position, action)
        for step in steps:
            if isinstance(step, TileStep):
                self.move_tile(step)
                self.run_for(pause)
                continue
            if step.slide:
                continue
            piece = self.take(step.source)
            self.run_for(pause / 2)
            self.give(step.target, piece)
            self.run_for(pause / 2)
        slid = [step for step in steps if isinstance(step, Step) and step.slide]
        if slid:
            direction, distance = _direction(slid[0])
            end = self.world.slide_group([s.source for s in slid], direction, distance)
            self.run_until(end + pause / 2)

    def move_tile(self, step: TileStep) -> None:
        """A hand shifts or turns the tile whose lower-left corner is on `step.tile`, with the
        pieces on it."""
        tile = self.world.tile_at(step.tile)
        if tile is None or self.world.tile_cells(tile)[0] != step.tile:
            raise ValueError(f"no tile has its lower-left corner on {place_label(step.tile)}")
        if step.way in TURNS:
            self.world.rotate_tile(tile, clockwise=step.way == "cw")
        else:
            self.world.shift_tile(tile, SHIFTS[step.way])

    def take(self, spot: Spot) -> Piece:
        """A hand picks a piece up from a cell or a supply (a random full slot of it)."""
        if not isinstance(spot, str):
            return self.world.lift(spot)
        supply = self.profile.supply(spot)
        if not supply.sensed:  # from the unsensed box: a piece no sensor saw waiting
            return self.world.add(self.kinds[supply.kinds[0].name])
        full = [s for s in supply.slots if self.world.pieces_at(s)]
        if not full:
            raise ValueError(f"supply {spot} is empty on the board")
        return self.world.lift(self.random.choice(full))

    def give(self, spot: Spot, piece: Piece) -> None:
        """A hand puts a held piece on a cell, or back in a supply (its first free slot)."""
        if not isinstance(spot, str):
            self.world.put(spot, piece)
            return
        supply = self.profile.supply(spot)
        if not supply.sensed:
            self.world.put_away(piece)
            return
        empty = [s for s in supply.slots if not self.world.pieces_at(s)]
        self.world.put(empty[0], piece)

    def board_cell(self, game_cell: Cell) -> Cell:
        return self.profile.to_board(game_cell)

    # Time.

    def _wall(self) -> float:
        return self.calendar + self.clock.now()

    def local_time(self) -> datetime:
        """The simulated board's calendar: local time, driven by the virtual clock."""
        return datetime.fromtimestamp(self._wall())

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
        if self.journal:
            self.journal.close()
        session = SimSession(
            self.spec,
            resume.game if resume else self.game.name,
            resume.options if resume else self.options,
            takeback=self.referee.takeback,
            journal=self.journal.path if self.journal else None,
            clock=self.clock,
            world=self.world,
            calendar=self.calendar,
            match=self.journal.match if self.journal else None,
            ai=self.loop.player.seat if self.loop.player else None,
            thinking=self.loop.thinking,
            **{
                "unattended": self.loop.idle.settings if self.loop.idle else None,
                "hours": self.loop.hours.hours if self.loop.hours else None,
                "maintenance": self.loop.maintenance.path if self.loop.maintenance else None,
                **changes,
            },
        )
        session.board.dead_leds |= self.board.dead_leds  # LEDs are hardware: dead stays dead
        session.start(*((resume.actions, resume.reserves) if resume else ()))
        return session


def _direction(step: Step) -> tuple[Direction, int]:
    """The way and the distance a slid piece goes."""
    assert not isinstance(step.source, str) and not isinstance(step.target, str)
    dx, dy = step.target[0] - step.source[0], step.target[1] - step.source[1]
    distance = max(abs(dx), abs(dy))
    return DIRECTIONS[(dx // distance, dy // distance)], distance
