"""The simulated physical world: pieces, stacks, tray slots, 2x2 tiles, hands, and faults.

The world knows where everything is and what each Hall switch would see, and tells the simulated
electronics below it which sensors see a magnet. It enforces physics only, never game rules:
scenarios make illegal moves on purpose to exercise the referee, so a piece may be put anywhere a
hand can put it, but a tile cannot overlap another tile or leave the lattice.

What a sensor sees:
- under a cell, the union of the signatures of every piece stacked there, plus the magnets of
  the tile covering it, plus nothing else;
- under a tray slot, its single sensor trips when any piece sits there.

Each place's contribution is recomputed only when something at that place changes, and only the
bits that changed are sent, so a soak test of thousands of moves on a 600-sensor board stays
cheap.

Motion takes time where the sensing pipeline cares: a slide trips every cell it passes, one cell
a step on the virtual clock, so the debouncer must not commit the squares a hand dragged a piece
across. Lifting and putting are instant; a scenario waits between them if it wants a gap.

Faults are drawn from one `random.Random(seed)` so a run repeats exactly:
- contact bounce (`World.bounce`): a sensor whose level changes because a magnet arrived or left
  flickers back and forth a few times within a few milliseconds before settling;
- noise (`World.noise`): short single-sensor blips at random times on random sensors;
- stuck sensors (`World.stick`): a sensor reports one level whatever is over it;
- I2C error bursts, expanders that reset themselves, dead LEDs: passed to the electronics, so a
  scenario asks the world for every fault in one place.
A new real change of a sensor cancels any flicker still pending on it, so a glitch never outlives
the level it disturbed.

The world assumes the electronics start with every sensor seeing nothing.

The world's values (piece kinds, pieces, tiles, bounce, `WorldError`) are in `world_pieces`, the
levels and faults sent down to the electronics in `world_sensors`; both are importable from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from magboard.hardware.spec import Cell, Place, Slot, place_label

from .world_pieces import (
    RGB,
    STEPS,
    Bounce,
    Direction,
    Electronics,
    Piece,
    PieceKind,
    SensorRef,
    Tile,
    WorldError,
    block,
    step_of,
)
from .world_sensors import SensorFeed

__all__ = [
    "RGB",
    "STEPS",
    "Bounce",
    "Direction",
    "Electronics",
    "Piece",
    "PieceKind",
    "SensorRef",
    "Tile",
    "World",
    "WorldError",
]


class World(SensorFeed):
    """Everything above the board's surface, and the sensor levels it causes (sent down, with
    their faults, by `SensorFeed`)."""

    def __init__(self, board: Electronics, seed: int = 0) -> None:
        super().__init__(board, seed)
        spec = self.spec
        self._cells = frozenset(spec.cells)
        self._slots = frozenset(spec.slots)
        self._channels = frozenset(c.name for c in spec.channels)
        self._buttons = frozenset(b.name for b in spec.buttons)
        self._checked_kinds: set[PieceKind] = set()

        self._stacks: dict[Place, list[Piece]] = {}
        self._where: dict[Piece, Place] = {}
        self._hand: list[Piece] = []
        self._next_id = 1
        self._next_tile = 1
        self._tiles: dict[Tile, Cell] = {}
        self._tile_at: dict[Cell, Tile] = {}
        self._keys: dict[Tile, Cell] = {}
        """The cell over each keyed tile's key corner."""
        self._seen: dict[Place, frozenset[str]] = {}

    # -- what is where ---------------------------------------------------------------------

    @property
    def hand(self) -> tuple[Piece, ...]:
        """Pieces held off the board, in the order they were picked up."""
        return tuple(self._hand)

    @property
    def tiles(self) -> Mapping[Tile, Cell]:
        """Each tile and the lower-left cell of the 2x2 block it covers."""
        return MappingProxyType(self._tiles)

    def pieces_at(self, place: Place) -> tuple[Piece, ...]:
        """The stack on a cell, bottom to top, or the piece in a slot."""
        return tuple(self._stacks.get(self._check_place(place), ()))

    def occupied(self) -> dict[Place, tuple[Piece, ...]]:
        return {place: tuple(stack) for place, stack in self._stacks.items()}

    def place_of(self, piece: Piece) -> Place | None:
        """Where a piece stands; None while it is in the hand."""
        if piece in self._where:
            return self._where[piece]
        if piece in self._hand:
            return None
        raise WorldError(f"piece {piece} is not in this world")

    def tile_at(self, cell: Cell) -> Tile | None:
        return self._tile_at.get(cell)

    def key_of(self, tile: Tile) -> Cell | None:
        """The cell over the tile's key magnet (None for a tile without one)."""
        return self._keys.get(tile)

    def tile_cells(self, tile: Tile) -> tuple[Cell, ...]:
        """Cells a tile covers: lower-left, lower-right, upper-left, upper-right."""
        return block(self._tile_origin(tile))

    # -- hands -----------------------------------------------------------------------------

    def add(self, kind: PieceKind, place: Place | None = None) -> Piece:
        """A new piece, set up instantly (no bounce) at `place`, or in the hand if None."""
        self._check_kind(kind)
        piece = Piece(self._next_id, kind)
        self._next_id += 1
        if place is None:
            self._hand.append(piece)
            return piece
        self._check_room(self._check_place(place))
        self._push(piece, place)
        self._update([place], bounce=False)
        return piece

    def lift(self, place: Place) -> Piece:
        """Takes the top piece of a stack (or the piece in a slot) into the hand."""
        piece = self._top(self._check_place(place))
        self._pop(piece)
        self._hand.append(piece)
        self._update([place])
        return piece

    def put(self, place: Place, piece: Piece | None = None) -> Piece:
        """Puts a held piece (by default the one picked up last) on top of `place`."""
        self._check_room(self._check_place(place))
        if piece is None:
            if not self._hand:
                raise WorldError(f"nothing in the hand to put on {place_label(place)}")
            piece = self._hand[-1]
        elif piece not in self._hand:
            raise WorldError(f"piece {piece} is not in the hand")
        self._hand.remove(piece)
        self._push(piece, place)
        self._update([place])
        return piece

    def put_away(self, piece: Piece | None = None) -> Piece:
        """Puts a held piece (by default the one picked up last) into a box off the board,
        where no sensor sees it: it leaves the world."""
        if piece is None:
            if not self._hand:
                raise WorldError("nothing in the hand to put away")
            piece = self._hand[-1]
        elif piece not in self._hand:
            raise WorldError(f"piece {piece} is not in the hand")
        self._hand.remove(piece)
        return piece

    def move(self, src: Place, dst: Place) -> Piece:
        """Lift then put, at one instant."""
        if dst != src:
            self._check_room(self._check_place(dst))
        piece = self.lift(src)
        return self.put(dst, piece)

    def slide(self, src: Cell, path: Sequence[Cell], step: float = 0.12) -> float:
        """Drags the top piece of `src` across `path`, one neighbouring cell per `step` seconds
        of virtual time, tripping each cell in passing; it ends on the last cell.

        Returns the time the slide ends. The piece must not be lifted while it slides.
        """
        if not path:
            raise WorldError("a slide needs at least one cell to go to")
        self._check_step(step)
        piece = self._top(self._check_cell(src))
        previous = src
        for cell in path:
            self._check_cell(cell)
            if max(abs(cell[0] - previous[0]), abs(cell[1] - previous[1])) != 1:
                raise WorldError(
                    f"a slide goes from cell to neighbouring cell, not "
                    f"{place_label(previous)} to {place_label(cell)}"
                )
            previous = cell
        start = self.clock.now()
        for k, cell in enumerate(path, 1):
            self.clock.call_at(start + k * step, lambda cell=cell: self._glide([(piece, cell)]))
        return start + len(path) * step

    def slide_group(
        self, cells: Sequence[Cell], direction: Direction, distance: int = 1, step: float = 0.12
    ) -> float:
        """Pushes the top pieces of `cells`, which lie in one row (left/right) or one column
        (up/down), together by `distance` cells, one cell per `step`, as a hand moves a group
        of blocks in Lance Assembly. Returns the time the slide ends."""
        dx, dy = step_of(direction)
        if not cells or len(set(cells)) != len(cells):
            raise WorldError("a group slide needs one or more distinct cells")
        if distance < 1:
            raise WorldError(f"a group slide moves 1 cell or more, not {distance}")
        self._check_step(step)
        line = {c[1] if dx else c[0] for c in cells}
        if len(line) != 1:
            along = "row" if dx else "column"
            raise WorldError(f"a group sliding {direction} must lie in one {along}")
        for cell in cells:
            self._check_cell(cell)
            self._top(cell)
            for k in range(1, distance + 1):
                self._check_cell((cell[0] + k * dx, cell[1] + k * dy))
        # The leading piece moves first, so no piece lands on one that has not left yet.
        order = sorted(cells, key=lambda c: -(c[0] * dx + c[1] * dy))
        pieces = [self._top(cell) for cell in order]
        start = self.clock.now()
        for k in range(1, distance + 1):
            moves = [
                (piece, (cell[0] + k * dx, cell[1] + k * dy))
                for piece, cell in zip(pieces, order, strict=True)
            ]
            self.clock.call_at(start + k * step, lambda moves=moves: self._glide(moves))
        return start + distance * step

    def press(self, button: str, hold: float = 0.1) -> None:
        """Presses a button now and lets go `hold` seconds later."""
        if button not in self._buttons:
            raise WorldError(f"board {self.spec.name} has no button {button!r}")
        self.board.press(button)
        self.clock.call_later(hold, lambda: self.board.release(button))

    # -- tiles -----------------------------------------------------------------------------

    def add_tile(
        self,
        lower_left: Cell,
        signature: Iterable[str],
        key: Iterable[str] = (),
        key_at: Cell | None = None,
        bounce: bool = False,
    ) -> Tile:
        """A 2x2 tile laid down before pieces go on its cells: set up instantly, or put down by
        a hand (`bounce`). A `key` magnet sits under its corner over `key_at` (by default the
        lower-left)."""
        signature, key = frozenset(signature), frozenset(key)
        if not signature:
            raise WorldError("a tile needs magnets the board can see")
        self._check_channels(signature | key, "a tile")
        footprint = block(lower_left)
        self._check_footprint(footprint, "a new tile")
        for cell in footprint:
            if self._stacks.get(cell):
                raise WorldError(f"cannot lay a tile over the pieces on {place_label(cell)}")
        key_at = lower_left if key_at is None else key_at
        if key and key_at not in footprint:
            raise WorldError(f"a tile's key is under one of its cells, not {place_label(key_at)}")
        tile = Tile(self._next_tile, signature, key)
        self._next_tile += 1
        self._tiles[tile] = lower_left
        if key:
            self._keys[tile] = key_at
        for cell in footprint:
            self._tile_at[cell] = tile
        self._update(footprint, bounce=bounce)
        return tile

    def take_tile(self, tile: Tile) -> None:
        """A hand takes an empty tile off the board (to clear it, or lay it elsewhere)."""
        cells = block(self._tile_origin(tile))
        for cell in cells:
            if self._stacks.get(cell):
                raise WorldError(f"take the pieces off tile {tile.id} first ({place_label(cell)})")
        for cell in cells:
            del self._tile_at[cell]
        del self._tiles[tile]
        self._keys.pop(tile, None)
        self._update(cells)

    def shift_tile(self, tile: Tile, direction: Direction) -> Cell:
        """Slides a tile one cell, with the pieces on it; returns its new lower-left cell."""
        dx, dy = step_of(direction)
        old = self._tile_origin(tile)
        new = (old[0] + dx, old[1] + dy)
        before, after = block(old), block(new)
        self._check_footprint(after, f"tile {tile.id} shifted {direction}", tile)
        for cell in set(after) - set(before):
            if self._stacks.get(cell):
                raise WorldError(
                    f"tile {tile.id} cannot shift {direction}: pieces stand on "
                    f"{place_label(cell)} in its way"
                )
        self._carry(tile, {c: (c[0] + dx, c[1] + dy) for c in before})
        self._tiles[tile] = new
        return new

    def rotate_tile(self, tile: Tile, clockwise: bool = True) -> None:
        """Turns a tile a quarter about its centre, with the pieces on it."""
        ll, lr, ul, ur = block(self._tile_origin(tile))
        turn = {ll: ul, ul: ur, ur: lr, lr: ll} if clockwise else {ll: lr, lr: ur, ur: ul, ul: ll}
        self._carry(tile, turn)

    # -- faults ----------------------------------------------------------------------------

    # -- inside ----------------------------------------------------------------------------

    def _check_place(self, place: Place) -> Place:
        if isinstance(place, Slot):
            if place not in self._slots:
                raise WorldError(f"board {self.spec.name} has no tray slot {place}")
            return place
        return self._check_cell(place)

    def _check_cell(self, cell: Cell) -> Cell:
        if cell not in self._cells:
            raise WorldError(f"{cell!r} is not a cell of the board {self.spec.name}")
        return cell

    def _check_room(self, place: Place) -> None:
        if isinstance(place, Slot) and self._stacks.get(place):
            raise WorldError(f"slot {place} already holds {self._stacks[place][0]}")

    def _check_kind(self, kind: PieceKind) -> None:
        if kind not in self._checked_kinds:
            self._check_channels(kind.signature, f"piece kind {kind.name!r}")
            self._checked_kinds.add(kind)

    def _check_channels(self, signature: frozenset[str], what: str) -> None:
        unknown = signature - self._channels
        if unknown:
            raise WorldError(
                f"{what} trips {', '.join(sorted(unknown))}, not a channel of board "
                f"{self.spec.name} ({', '.join(sorted(self._channels))})"
            )

    def _check_footprint(
        self, footprint: Sequence[Cell], what: str, moving: Tile | None = None
    ) -> None:
        for cell in footprint:
            if cell not in self._cells:
                raise WorldError(f"{what} would leave the lattice at {cell!r}")
            other = self._tile_at.get(cell)
            if other is not None and other is not moving:
                raise WorldError(f"{what} would overlap tile {other.id} on {place_label(cell)}")

    @staticmethod
    def _check_step(step: float) -> None:
        if step <= 0:
            raise WorldError(f"a slide step takes some time, not {step}")

    def _tile_origin(self, tile: Tile) -> Cell:
        if tile not in self._tiles:
            raise WorldError(f"tile {tile.id} is not on this board")
        return self._tiles[tile]

    def _top(self, place: Place) -> Piece:
        stack = self._stacks.get(place)
        if not stack:
            raise WorldError(f"no piece on {place_label(place)}")
        return stack[-1]

    def _push(self, piece: Piece, place: Place) -> None:
        self._stacks.setdefault(place, []).append(piece)
        self._where[piece] = place

    def _pop(self, piece: Piece) -> Place:
        place = self._where.pop(piece)
        stack = self._stacks[place]
        stack.remove(piece)
        if not stack:
            del self._stacks[place]
        return place

    def _glide(self, moves: Sequence[tuple[Piece, Cell]]) -> None:
        """One step of a slide: each piece leaves its cell for the next, all at one instant."""
        touched: list[Place] = []
        for piece, cell in moves:
            if piece not in self._where:
                raise WorldError(f"piece {piece} was picked up while it slid")
            touched.append(self._pop(piece))
            self._push(piece, cell)
            touched.append(cell)
        self._update(touched)

    def _carry(self, tile: Tile, moved: Mapping[Cell, Cell]) -> None:
        """Moves a tile's cells, and the stacks on them, to their new cells at one instant."""
        stacks = {moved[c]: self._stacks.pop(c) for c in moved if c in self._stacks}
        for cell in moved:
            del self._tile_at[cell]
        for cell in moved.values():
            self._tile_at[cell] = tile
        if tile in self._keys:
            self._keys[tile] = moved[self._keys[tile]]
        for cell, stack in stacks.items():
            self._stacks[cell] = stack
            for piece in stack:
                self._where[piece] = cell
        self._update({*moved, *moved.values()})

    def _update(self, places: Iterable[Place], bounce: bool = True) -> None:
        """Recomputes what the sensors of `places` see, and reports the bits that changed."""
        changed: list[int] = []
        for place in places:
            seen = self._sees(place)
            before = self._seen.get(place, frozenset())
            if seen == before:
                continue
            if seen:
                self._seen[place] = seen
            else:
                self._seen.pop(place, None)
            bits = self._bits_of[place]
            changed.extend(bits[channel] for channel in seen ^ before)
        self._change(changed, bounce)

    def _sees(self, place: Place) -> frozenset[str]:
        stack = self._stacks.get(place)
        if isinstance(place, Slot):
            return frozenset({""}) if stack else frozenset()
        tile = self._tile_at.get(place)
        seen = frozenset()
        if tile is not None:
            seen = tile.signature | tile.key if self._keys.get(tile) == place else tile.signature
        for piece in stack or ():
            seen |= piece.kind.signature
        return seen
