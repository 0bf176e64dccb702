"""The soak's player for games on 2x2 tiles that shift and turn with the meeples on them (Meep Tac
Toe, Meeple Maneuver): everything a player of the other games does (soak.py), and what tiles add.

- A turn of a meeple and its tile actions is made by hand, either action by action with the
  board left still after each (it says `partial`), or in one go: the hand shifts and turns the
  tile straight after the meeple, and the board is still only once the turn is complete.
- A tile is nudged: shifted or turned by a hand that did not mean to, then put back. The board
  must say `illegal`, then `restored`.
- Captured meeples are carried off by hand. Sometimes late: the board waits, accepting nothing.
  Sometimes the next player puts a meeple down first: the board must refuse it until it goes
  back. Sometimes the power goes while a captured meeple is in the hand.
- Between games the board is set up again: meeples go back to their supplies or aside, the tiles
  that moved or turned are taken off and laid back where the game starts them, key corner where
  it was, and the start's meeples go back on. Meeples already on their start cells, on a tile
  lying as it started, stay. The board starts the next game as soon as it shows the start (or
  the start with pieces still in hands), which may be before the hands are done.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property, partial

from magboard.firmware.events import Moved
from magboard.firmware.games import CARRY_OUT, Action
from magboard.firmware.games.tiles import OPPOSITE, WAYS, block
from magboard.firmware.profiles import Layout, Step, TileStep
from magboard.hardware.spec import Cell, Place

from .session import TURNS
from .soak import (
    ACCEPT_WAIT,
    HAND_PAUSE,
    P_POWER_CUT,
    Expected,
    GameSoak,
    _completes,
    _sees,
)
from .world import Piece, Tile

P_WHOLE_TURN = 0.4
"""Of actions that leave their turn unfinished: the rest of the turn made in one go."""
BRISK = 0.15
"""Seconds between the actions of a turn made in one go: shorter than the settle time, so the
board is never still in the middle of it."""
P_NUDGE = 0.06
P_LATE = 0.3
"""Of obligations: carried out only after the board has waited a while."""
LATE = (2.0, 6.0)
"""Seconds the captured meeples stay on the board when carried off late."""
P_FIRST = 0.3
"""Of obligations: the next player puts a meeple down before they are carried off."""


class TileGameSoak(GameSoak):
    """One game on tiles, with trouble mixed in, then the board set up again."""

    # Turns.

    def _trouble(self) -> None:
        super()._trouble()
        if self.rng.random() < P_NUDGE:
            self.nudge()

    def _make(self, action: Action, faulted: bool) -> bool:
        if (
            action != CARRY_OUT
            and not _completes(self.state, action)
            and self.rng.random() < P_WHOLE_TURN
        ):
            return self.whole_turn(action, faulted)
        return super()._make(action, faulted)

    def whole_turn(self, action: Action, faulted: bool) -> bool:
        """`action` and the rest of its turn made in one go: the board must accept the whole
        turn once it is still, having said nothing before."""
        self.tally.whole_turns += 1
        expected: list[Expected] = []
        while not expected:
            hand = self.state
            expected = [answer for answer in self._expect(action) if answer[0] != "partial"]
            self.session.perform(action, pause=BRISK, state=hand)
            if not expected:
                chosen = self._choose()
                assert chosen is not None, "a turn's tile can always turn"
                action = chosen
        self._wait(ACCEPT_WAIT, until=Moved)
        ok = self._check(expected)
        if faulted:
            self.tally.faults_survived += ok and self._fault_seen
        self._fault_seen = False
        self.last_turn = None
        return ok and self._agree()

    # Tiles nudged.

    def nudge(self) -> None:
        """A tile shifted or turned by a hand that did not mean to, and put back."""
        found = self._find_nudge()
        if found is None:
            return
        tile, way = found
        tally = self.tally
        tally.illegal_made += 1
        tally.tiles_nudged += 1
        caught, recovered = self._put_right(
            partial(self._push, tile, way), partial(self._push, tile, OPPOSITE[way])
        )
        tally.illegal_caught += caught
        tally.recovered += recovered

    def _push(self, tile: Tile, way: str) -> None:
        self.session.move_tile(TileStep(self.world.tiles[tile], way))

    def _find_nudge(self) -> tuple[Tile, str] | None:
        """A tile and a way to move it that the board must call illegal; None if none of a few
        tried is (a shift that would overlap a tile, leave the board or push a piece, a legal
        tile action)."""
        tries = [(tile, way) for tile in self.world.tiles for way in (*WAYS, *TURNS)]
        self.rng.shuffle(tries)
        for tile, way in tries[:8]:
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
        may carry the turn's meeple back onto the cell it left, and the frame alone misses it."""
        return super()._cells_to_search(seen) | self.session.referee._changed_cells()

    @cached_property
    def _cells(self) -> frozenset[Cell]:
        return frozenset(self.spec.cells)

    # Obligations.

    def carry_out(self, faulted: bool) -> bool:
        """The captured meeples carried off: perhaps late, perhaps after the next player tried
        to go first, perhaps with a power cut while one is in the hand."""
        rng = self.rng
        if rng.random() < P_LATE:
            self.late()
        if rng.random() < P_FIRST:
            self.move_first()
        if faulted or rng.random() >= P_POWER_CUT:
            return super().carry_out(faulted)
        self.tally.obligations += 1
        return self.power_cut(CARRY_OUT)

    def late(self) -> None:
        """Nobody takes the captured meeples off for a while: the board waits for them."""
        self.tally.late_obligations += 1
        self._wait(self.rng.uniform(*LATE))
        self._unexpected(self._new_events())

    def move_first(self) -> None:
        """The next player puts a meeple down before the captured ones are off; the board must
        refuse it, and take it back in its stride once the meeple goes back."""
        step = self._first_move()
        if step is None:
            return
        self.tally.moved_first += 1
        _, refused = self._put_right(
            partial(self._carry, step.source, step.target),
            partial(self._carry, step.target, step.source),
        )
        self.tally.moved_first_refused += refused

    def _first_move(self) -> Step | None:
        """A piece action the next player could make once the obligation is done, by one hand
        movement, from where a piece is now onto a cell that is free now (a captured meeple
        going back to its supply is not there yet)."""
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

    def _carry(self, source: str | Cell, target: str | Cell) -> None:
        piece = self.session.take(source)
        self._wait(HAND_PAUSE / 2)
        self.session.give(target, piece)

    # Setting the board up again.

    def _clearing(self) -> list[Callable[[], None]]:
        """Meeples off their cells (to their supplies, or aside in the hand) and out of the trays
        where the start has none; tiles that moved taken off; tiles laid where the start has
        them; the start's meeples put back. Each group in a random order."""
        start = self.profile.layout(self.session.initial)
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
        """The tiles lying where the start has one, key corner where it was."""
        spots = {(spot.origin, spot.key) for spot in start.tiles}
        world = self.world
        return {
            tile for tile, origin in world.tiles.items() if (origin, world.key_of(tile)) in spots
        }

    def _stays(self, cell: Cell, start: Layout, right: set[Tile]) -> bool:
        """Whether `cell` already holds what the start has there, on a tile lying as it
        started: a hand leaves it."""
        names = [piece.kind.name for piece in self.world.pieces_at(cell)]
        return self.world.tile_at(cell) in right and names == [k.name for k in start.cells[cell]]

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
            if holds and start.supplies.get(supply.name, 0):
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
        """The start's meeples of `cell` put on it from the hand."""
        for kind in start.cells[cell]:
            piece = next(p for p in self.world.hand if p.kind.name == kind.name)
            self.world.put(cell, piece)
            self._wait(HAND_PAUSE / 2)
        self._wait(HAND_PAUSE / 2)

    def _clear(
        self, acts: Sequence[Callable[[], None]], pressed_at: int | None
    ) -> tuple[int, bool]:
        """Makes `acts`, pressing `new` before act number `pressed_at`, and follows what the
        board must make of each still board on the way: the games it must start, and whether
        it must show what is left to clear."""
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

    def __init__(self, soak: TileGameSoak) -> None:
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
        """`new`: a game starts at once; if the board is not at the start, it shows what is
        left to clear, and starts no other game once it is."""
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
