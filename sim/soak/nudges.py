"""The soak's people nudging a tile, and putting a piece from a box no sensor sees where the rules
forbid it."""

from __future__ import annotations

from functools import cached_property, partial

from magboard.firmware.games.tiles import OPPOSITE, WAYS, block
from magboard.firmware.profiles import TileStep
from magboard.hardware.spec import Cell

from ..session import TURNS
from ..world import Tile
from .hands_people import TRIES
from .mishaps import _sees


class Nudges:
    """How the people (PeopleSoak) nudge tiles and misplace a piece from a box no sensor sees."""

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


def _carried(origin: Cell, way: str) -> dict[Cell, Cell]:
    """Where each cell of the tile at `origin` goes, with what stands on it, when the tile moves
    `way` (a shift, or a quarter turn about its centre)."""
    cells = block(origin)  # clockwise from the lower-left
    if way in WAYS:
        dx, dy = WAYS[way]
        return {(x, y): (x + dx, y + dy) for x, y in cells}
    turn = 1 if way == "cw" else -1
    return {cell: cells[(i + turn) % 4] for i, cell in enumerate(cells)}
