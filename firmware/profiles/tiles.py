"""Meep Tac Toe and Meeple Maneuver on r1: meeples on 2x2 grid tiles that shift and turn.

Every cell a tile covers trips the outer ring; one corner of each tile carries a key magnet on
the inner ring, so the board sees which way round a tile lies and reads a quarter turn, and its
direction, even where the meeples on the tile look alike all round. A meeple's type is its
centre pole: north-down for Meep Tac Toe's A and Meeple Maneuver's kittens, south-down for B and
the puppies. Meeple Maneuver's colours are not sensed: who placed a meeple is whose turn it was,
and the tiles carry it from there, so the play says whose meeple is where. Its supplies sit in
the trays: kittens in slots 1-3 of the seat's tray, puppies in 4-6, the captured pile in 7-9.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from magboard.firmware.games import CARRY_OUT, Action, Cell, State, get_game
from magboard.firmware.games.meeplemaneuver import (
    SEATS,
    TILE_ACTIONS,
    TYPES,
    MeepleState,
    Place,
    colour_of,
    pile_name,
    supply_name,
)
from magboard.firmware.games.meeptactoe import MANEUVERS, MeepState, Move
from magboard.firmware.games.tiles import (
    WAYS,
    QuarterTurn,
    Shift,
    TiledState,
    block,
    parse_area,
)
from magboard.firmware.native.selection import load, requested
from magboard.hardware.spec import BoardSpec

from .base import Profile
from .parts import Layout, PieceKind, Spot, Step, Supply, TileKind, TileSpot, TileStep
from .registry import register_profile

_, _frames = load(requested(), "frames")

TILE = TileKind(frozenset({"o"}), frozenset({"i"}))
TRIED_CACHE = 1_000
"""Positions whose forbidden tile actions are kept (`tried`); emptied whole when full."""
POLES = ("n", "s")
"""The centre channel of Meep Tac Toe's A and B, and of a kitten and a puppy."""


class TileGameProfile(Profile):
    """Pieces drawn by board code, tiles with their keys."""

    @cached_property
    def piece_kinds(self) -> dict[int, PieceKind]:
        """The kind of each board code: the kinds are listed in code order, from 1."""
        return dict(enumerate(self.kinds, 1))

    def layout(self, state: State) -> Layout:
        assert isinstance(state, TiledState)
        kinds, board = self.piece_kinds, state.board
        cells = {}
        for cell, i in state.lattice.cells_in_order(state.tiles):
            if board[i]:
                cells[self.to_board(cell)] = (kinds[board[i]],)
        tiles = tuple(
            TileSpot(self.to_board(origin), self.to_board(block(origin)[quarter]))
            for origin, quarter in zip(state.tiles, state.quarters, strict=True)
        )
        return Layout(cells, self._supplies(state), tiles)

    def _supplies(self, state: State) -> dict[str, int]:
        return {}

    def draw(self, state: State) -> int:
        """From tables of each cell's piece bits and each tile's bits by where it lies and
        which way round: the referee draws every position its search weighs."""
        assert isinstance(state, TiledState)
        tiles = self._tile_bits
        frame = _frames.pieces(state.board, self._piece_table)
        for placed in zip(state.tiles, state.quarters, strict=True):
            bits = tiles.get(placed)
            if bits is None:
                bits = tiles[placed] = self._tile_frame(*placed)
            frame |= bits
        return frame | self._supply_bits(state)

    def _supply_bits(self, state: State) -> int:
        return 0

    @cached_property
    def _piece_bits(self) -> list[list[int]]:
        """Per lattice index, the frame bits of each piece code standing there."""
        assert self.extent is not None
        width, height = self.extent
        found = []
        for i in range(width * height):
            cell = self.to_board((i % width, i // width))
            bits = [0] * (1 + len(self.piece_kinds))
            for code, kind in self.piece_kinds.items():
                bits[code] = self.frame_of(Layout({cell: (kind,)}, {}))
            found.append(bits)
        return found

    @cached_property
    def _piece_table(self) -> Any:
        """`_piece_bits` as the piece-bits kernel reads it."""
        return _frames.table(self._piece_bits)

    @cached_property
    def _tile_bits(self) -> dict[tuple[Cell, int], int]:
        """Frame bits of a tile by its lower-left game cell and quarter turns, as met."""
        return {}

    def _tile_frame(self, origin: Cell, quarter: int) -> int:
        spot = TileSpot(self.to_board(origin), self.to_board(block(origin)[quarter]))
        return self.frame_of(Layout({}, {}, (spot,)))

    def may_become_any(self, state: State, frames: Iterable[int]) -> bool:
        """Once the turn's meeple is down, only its tile moves, carrying what stands on it:
        a frame the rest of the turn may show is this position with that tile, rigidly, at
        most the actions left away, and nothing else changed. Exact but for the rules' finer
        points (touching, the undo), so the search expands only the ways the hands went."""
        assert isinstance(state, TiledState)
        if state.moving < 0:
            return True
        drawn, moving, left = self.render(state), state.moving, state.left
        reach = self._reach(state.tiles[moving], left, state._may_shift())
        beyond = self.sensors.needed & ~reach.cover  # as `_moved_shows` first asks, once
        return any(
            self._moved_shows(state, moving, state.board, drawn, left, frame)
            for frame in frames
            if not (frame ^ drawn) & beyond
        )

    def _moved_shows(
        self, state: TiledState, moving: int, board: bytes, drawn: int, left: int, frame: int
    ) -> bool:
        """Whether `frame` is `drawn` (the frame of `board` on `state`'s tiles) with tile number
        `moving` carried rigidly, with what stands on it, by at most `left` actions."""
        origin, quarter = state.tiles[moving], state.quarters[moving]
        reach = self._reach(origin, left, state._may_shift())
        changed = (frame ^ drawn) & self.sensors.needed
        if changed & ~reach.cover:
            return False  # a change where the tile can never be: the usual answer, found at once
        stays = frame & reach.old
        pieces = None
        for target, new, outside, turns in reach.targets:
            if changed & outside or stays & ~new:
                continue
            if pieces is None:
                pieces = [board[i] for i in _indices(origin, state.width)]
            shown = frame & new
            for turn in turns:
                quarters = (quarter + turn) % 4
                if shown == self._carried(target, state.width, pieces, quarters, turn):
                    return True
        return False

    def _reach(self, origin: Cell, left: int, shifts: bool) -> _Reach:
        """Where the tile at `origin` may end with at most `left` actions, worked out once per
        tile place: the search asks it for every position it weighs."""
        known = self._reaches.get((origin, left, shifts))
        if known is None:
            old = self._block_mask(origin)
            targets = []
            cover = old
            for (dx, dy), turns in (_MOVES if shifts else _TURNS)[left]:
                target = (origin[0] + dx, origin[1] + dy)
                new = self._block_mask(target)
                if new:
                    targets.append((target, new, ~(old | new), turns))
                    cover |= new
            known = self._reaches[(origin, left, shifts)] = _Reach(old, cover, tuple(targets))
        return known

    @cached_property
    def _reaches(self) -> dict[tuple[Cell, int, bool], _Reach]:
        return {}

    def lifted_from(self, observed: int, state: State) -> frozenset[Spot] | None:
        """Pieces taken away, as for every game; or, at a turn's start, the turn's meeple in
        the hand while its tile is already being shifted or turned (a hand free to do it in
        either order), which is no mistake until the meeple comes down."""
        found = super().lifted_from(observed, state)
        if found is not None or not isinstance(state, TiledState) or state.moving >= 0:
            return found
        left = self._tile_actions_of(state)
        if not left:
            return None
        drawn = self.render(state)
        for spot, board, without in self._held(state, drawn):
            for moving in range(len(state.tiles)):
                if self._moved_shows(state, moving, board, without, left, observed):
                    return frozenset((spot,))
        return None

    def _tile_actions_of(self, state: TiledState) -> int:
        """The tile actions a turn makes after its meeple."""
        return 0

    def _held(self, state: TiledState, drawn: int) -> Iterator[tuple[Spot, bytes, int]]:
        """Where the mover's meeple may have been taken from, with the board and the frame
        without it."""
        return iter(())

    def _carried(self, target: Cell, width: int, pieces: list[int], quarter: int, turn: int) -> int:
        """The bits of a tile at `target`, a `quarter` round, holding `pieces` (as they stood
        on its cells in `block` order) turned `turn` quarters clockwise."""
        bits = self._tile_bits.get((target, quarter))
        if bits is None:
            bits = self._tile_bits[(target, quarter)] = self._tile_frame(target, quarter)
        table = self._piece_bits
        cells = _indices(target, width)
        for k, piece in enumerate(pieces):
            if piece:
                bits |= table[cells[(k + turn) % 4]][piece]
        return bits

    def _block_mask(self, origin: Cell) -> int:
        """Every bit the game reads under the block at game cell `origin`; 0 for a block that
        leaves the game's area."""
        known = self._block_masks.get(origin)
        if known is None:
            assert self.extent is not None
            width, height = self.extent
            x, y = origin
            known = 0
            if 0 <= x <= width - 2 and 0 <= y <= height - 2:
                for cell in block(origin):
                    known |= self.sensors.spot_mask(self.to_board(cell))
            self._block_masks[origin] = known
        return known

    @cached_property
    def _block_masks(self) -> dict[Cell, int]:
        return {}

    def next_up(self, state: State) -> tuple[frozenset[Cell], frozenset[Cell]]:
        """After the turn's meeple: its tile, and the cells the tile may shift onto."""
        assert isinstance(state, TiledState)
        if state.moving < 0:
            return frozenset(), frozenset()
        tile = block(state.tiles[state.moving])
        onto = {
            cell
            for action in state.legal_actions()
            if isinstance(action, Shift)
            for cell in block(action.target)
            if cell not in tile
        }
        return frozenset(map(self.to_board, tile)), frozenset(map(self.to_board, onto))

    def tried(self, state: State) -> tuple[Action, ...]:
        """The tiles shifted or turned as the rules forbid, where a hand can: any, before the
        turn's piece is down; once it is, its tile's action undoing the first, parting the
        tiles, shifting where only turns are allowed, or shifting it (half) out of the area
        onto cells of the board the game does not use; or another tile shifted or turned. (A
        tile cannot be pushed over another.)"""
        assert isinstance(state, TiledState)
        if state.moving < 0 and not state.tile_actions_per_turn:
            return ()
        known = self._tried.get(state)
        if known is not None:
            return known
        found: list[Action] = []
        for number, origin in enumerate(state.tiles):
            others = state.tiles[:number] + state.tiles[number + 1 :]
            found += [QuarterTurn(origin, clockwise) for clockwise in (True, False)]
            for way in WAYS:
                shift = Shift(origin, way)
                x, y = shift.target
                if all(abs(ox - x) >= 2 or abs(oy - y) >= 2 for ox, oy in others):
                    found.append(shift)
        if len(self._tried) > TRIED_CACHE:
            self._tried.clear()
        known = self._tried[state] = tuple(a for a in found if not state.is_legal(a))
        return known

    @cached_property
    def _tried(self) -> dict[State, tuple[Action, ...]]:
        """`tried` by position: a turn's settled frames all ask it of the same one."""
        return {}

    def tried_shown(self, state: State, frame: int) -> Action | None:
        """Only tile actions whose tile's cells, where it lay and where it went, hold all the
        change are drawn; one that reaches no position of the game (another tile than the
        turn's, or a shift out of the area) is drawn on the board as the hand leaves it, the
        tile and what stands on it moved."""
        tried = self.tried(state)
        if not tried:
            return None
        assert isinstance(state, TiledState)
        changed = frame ^ self.render(state)
        width, height = state.extent
        turn_tile = state.tiles[state.moving] if state.moving >= 0 else None
        for action in tried:
            assert isinstance(action, Shift | QuarterTurn)
            target = action.target if isinstance(action, Shift) else action.tile
            if changed & ~(self._footprint_mask(action.tile) | self._footprint_mask(target)):
                continue
            x, y = target
            inside = 0 <= x <= width - 2 and 0 <= y <= height - 2
            if inside and action.tile == turn_tile:
                shown = self.render(state.advance(action))
            else:
                shown = self._tile_moved(state, action)
            if shown == frame:
                return action
        return None

    def _footprint_mask(self, origin: Cell) -> int:
        """Every bit under the block at game cell `origin`, on the board's lattice whether or
        not the game's area covers it."""
        known = self._footprints.get(origin)
        if known is None:
            known = 0
            for cell in block(origin):
                known |= self.sensors.spot_mask(self.to_board(cell))
            self._footprints[origin] = known
        return known

    @cached_property
    def _footprints(self) -> dict[Cell, int]:
        return {}

    def _tile_moved(self, state: TiledState, action: Shift | QuarterTurn) -> int | None:
        """The frame of `state` with the tile at `action.tile` shifted or turned, what stands
        on it riding along, drawn whatever the rules say; None where it would leave the board's
        sensed lattice."""
        layout = self.layout(state)
        number = state.tiles.index(action.tile)
        cells = [self.to_board(cell) for cell in block(action.tile)]
        if isinstance(action, Shift):
            dx, dy = WAYS[action.way]
            carried = {cell: (cell[0] + dx, cell[1] + dy) for cell in cells}
        else:
            step = 1 if action.clockwise else 3
            carried = {cell: cells[(k + step) % 4] for k, cell in enumerate(cells)}
        pieces = {cell: kinds for cell, kinds in layout.cells.items() if cell not in carried}
        for cell, kinds in layout.cells.items():
            if cell in carried:
                pieces[carried[cell]] = kinds
        tiles = list(layout.tiles)
        spot = tiles[number]
        origin = carried[spot.origin] if isinstance(action, Shift) else spot.origin
        tiles[number] = TileSpot(origin, carried[spot.key])
        try:
            return self.frame_of(Layout(pieces, layout.supplies, tuple(tiles)))
        except KeyError:  # a cell the board has no sensor for
            return None

    def plan(self, state: State, action: Action) -> tuple[Step | TileStep, ...]:
        if isinstance(action, Shift | QuarterTurn):
            return (TileStep(self.to_board(action.tile), action.way),)
        if isinstance(action, Move):
            return (Step(self.to_board(action.source), self.to_board(action.target)),)
        if isinstance(action, Place):
            supply = supply_name(state.to_move, action.kind)
            return (Step(supply, self.to_board(action.cell)),)
        if action == CARRY_OUT:
            return tuple(
                Step(self.to_board(cell), target)
                for duty in state.obligations
                for cell in duty.sources
                for target in duty.targets
                if not isinstance(cell, str) and isinstance(target, str)
            )
        return ()


class MeepProfile(TileGameProfile):
    def moving(self, state: State, source: Cell, target: Cell) -> Action | None:
        """A meeple carried from `source` to `target`: a move, whatever the rules say of it."""
        start = self.to_game(source)
        if start is None:
            return None
        return Move(start, (target[0] - self.origin[0], target[1] - self.origin[1]))

    def _tile_actions_of(self, state: TiledState) -> int:
        assert isinstance(state, MeepState)
        return MANEUVERS[state.maneuver]

    def _held(self, state: TiledState, drawn: int) -> Iterator[tuple[Spot, bytes, int]]:
        """One of the mover's meeples, from its cell."""
        own, board = state.to_move + 1, state.board
        for cell, i in state.lattice.cells_in_order(state.tiles):
            if board[i] == own:
                without = board[:i] + b"\0" + board[i + 1 :]
                yield self.to_board(cell), without, drawn & ~self._piece_bits[i][own]


class MeepleProfile(TileGameProfile):
    def _tile_actions_of(self, state: TiledState) -> int:
        return TILE_ACTIONS

    def _held(self, state: TiledState, drawn: int) -> Iterator[tuple[Spot, bytes, int]]:
        """A meeple from one of the mover's supplies, one slot emptier."""
        assert isinstance(state, MeepleState)
        for kind in (0, 1):
            count = state.supplies[state.to_move][kind]
            if count:
                name = supply_name(state.to_move, kind)
                fill = self.sensors.fills[name]
                yield name, state.board, drawn & ~fill[count] | fill[count - 1]

    def _supplies(self, state: State) -> dict[str, int]:
        assert isinstance(state, MeepleState)
        found = {}
        for seat in (0, 1):
            for kind in (0, 1):
                found[supply_name(seat, kind)] = state.supplies[seat][kind]
            found[pile_name(seat)] = state.piles[seat]
        return found

    def _supply_bits(self, state: State) -> int:
        """The trays' bits for the supplies and piles, drawn once for each way they are met."""
        assert isinstance(state, MeepleState)
        held = (state.supplies, state.piles)
        bits = self._tray_frames.get(held)
        if bits is None:
            bits = self._tray_frames[held] = self.frame_of(Layout({}, self._supplies(state)))
        return bits

    @cached_property
    def _tray_frames(self) -> dict[tuple, int]:
        return {}

    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        game_cell = self.to_game(cell)
        if game_cell is None or kind.owner is None:
            return None
        return Place(POLES.index(next(iter(kind.signature))), game_cell)


@dataclass(frozen=True)
class _Reach:
    """The places a grid tile may reach from one place within a number of actions."""

    old: int
    """The bits under the tile where it lies."""
    cover: int
    """The bits under every place it may reach, its own included."""
    targets: tuple[tuple[Cell, int, int, tuple[int, ...]], ...]
    """Each place it may reach inside the area: its origin, the bits under it, every bit
    under neither it nor the tile's place now, and the quarter turns it may have taken."""


def _indices(origin: Cell, width: int) -> tuple[int, int, int, int]:
    """The board indices of a block's cells, in `block` order."""
    ll = origin[1] * width + origin[0]
    return ll, ll + width, ll + width + 1, ll + 1


def _ways(left: int, shifts: bool) -> tuple[tuple[Cell, tuple[int, ...]], ...]:
    """Where a tile may end up with at most `left` actions: each shift of its origin, with the
    clockwise quarter turns it may have taken on the way (three is one counter-clockwise)."""
    found: dict[Cell, set[int]] = {}
    for dx in range(-left, left + 1):
        for dy in range(-left, left + 1):
            steps = abs(dx) + abs(dy)
            if steps and not shifts:
                continue
            for turn, cost in ((0, 0), (1, 1), (3, 1), (2, 2)):
                if steps + cost <= left:
                    found.setdefault((dx, dy), set()).add(turn)
    return tuple((shift, tuple(sorted(turns))) for shift, turns in found.items())


_MOVES = {left: _ways(left, True) for left in range(3)}
_TURNS = {left: _ways(left, False) for left in range(3)}


def _origin(spec: BoardSpec, extent: tuple[int, int]) -> Cell:
    return (spec.columns - extent[0]) // 2, (spec.rows - extent[1]) // 2


def meeptactoe_profile(spec: BoardSpec, options: Mapping[str, Any] | None = None) -> MeepProfile:
    game = get_game("meep-tac-toe")
    extent = parse_area(game.resolve_options(options)["area"])
    kinds = tuple(PieceKind(seat, frozenset({POLES[i]}), i, seat) for i, seat in enumerate("AB"))
    return MeepProfile(game, spec, _origin(spec, extent), kinds, (), extent=extent, tile=TILE)


def meeplemaneuver_profile(
    spec: BoardSpec, options: Mapping[str, Any] | None = None
) -> MeepleProfile:
    game = get_game("meeple-maneuver")
    extent = parse_area(game.resolve_options(options)["area"], smallest=6)
    by_code: dict[int, PieceKind] = {}
    for colour, who in enumerate((*SEATS, "N")):
        for kind, name in enumerate(TYPES):
            owner = colour if colour < len(SEATS) else None
            made = PieceKind(f"{who}-{name}", frozenset({POLES[kind]}), owner, name[0].upper())
            by_code[1 + colour * 2 + kind] = made
    kinds = tuple(by_code.values())
    supplies = []
    for seat, tray in enumerate(SEATS):
        slots = spec.tray(tray).slots
        for kind in (0, 1):
            own = by_code[1 + seat * 2 + kind]
            supplies.append(Supply(own.name, (own,), slots[kind * 3 : kind * 3 + 3]))
        neutral = tuple(k for c, k in by_code.items() if colour_of(c) == 2)
        supplies.append(Supply(pile_name(seat), neutral, slots[6:9], keeper=seat))
    return MeepleProfile(
        game, spec, _origin(spec, extent), kinds, tuple(supplies), extent=extent, tile=TILE
    )


register_profile(get_game("meep-tac-toe"), meeptactoe_profile)
register_profile(get_game("meeple-maneuver"), meeplemaneuver_profile)
