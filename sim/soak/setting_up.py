"""The soak's people setting the board up again after a game: pieces and tiles back to where the
next game starts, watched until the board is still."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from magboard.firmware.profiles import Layout
from magboard.hardware.spec import Cell, Place

from ..world import Piece, Tile
from .careless import GameSoak
from .hands import HAND_PAUSE


class SettingUp:
    """How the people (PeopleSoak) set the board up again for the next game."""

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

    def __init__(self, soak: GameSoak) -> None:
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
