"""2x2 grid tiles that shift and turn with the pieces on them (rules/meep-tac-toe.md, items 1 to
5), shared by Meep Tac Toe and Meeple Maneuver.

A board is one byte per lattice cell, row-major from a1 (0: empty, else the game's piece code);
tiles are the lower-left cells of the 2x2 blocks they cover, in a fixed order so each tile keeps
its identity as it moves. The cells that exist are those some tile covers. The rules ignore a
tile's orientation (tiles are unmarked), but a board that keys its tiles with a corner magnet
sees it, so each tile's quarter turns are kept beside the position, never in its key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, fields
from functools import cache, lru_cache
from typing import Any, ClassVar

from .core import Action, OptionError, Outcome, State, match_notation
from .grid import MAX_SIDE, Cell, cell_name, draw_grid, parse_cell

WAYS = {"^": (0, 1), "v": (0, -1), "<": (-1, 0), ">": (1, 0)}
"""A shift's notation and its step."""
OPPOSITE = {"^": "v", "v": "^", "<": ">", ">": "<", "cw": "ccw", "ccw": "cw"}
"""The tile action that undoes each one, which a turn's second action may not be."""
MIN_SIDE = 4


def parse_area(text: str, smallest: int = MIN_SIDE) -> tuple[int, int]:
    """`8x8` -> (8, 8): the columns and rows tiles may use."""
    found = re.fullmatch(r"(\d+)x(\d+)", text.strip().lower())
    if not found:
        raise OptionError(f"option area is COLUMNSxROWS, like 8x8, not {text!r}")
    width, height = int(found[1]), int(found[2])
    if not (smallest <= width <= MAX_SIDE and smallest <= height <= MAX_SIDE):
        raise OptionError(
            f"option area is {smallest} to {MAX_SIDE} cells a side, not {width}x{height}"
        )
    return width, height


def block(origin: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    """The cells a tile at `origin` covers: lower-left, upper-left, upper-right, lower-right,
    the order a clockwise quarter turn carries each to the next."""
    x, y = origin
    return (x, y), (x, y + 1), (x + 1, y + 1), (x + 1, y)


@dataclass(frozen=True)
class Shift(Action):
    """The tile at `tile` (its lower-left cell) moved one cell `way` (^ v < >)."""

    tile: Cell
    way: str

    def __str__(self) -> str:
        return f"T{cell_name(self.tile)}{self.way}"

    @property
    def target(self) -> Cell:
        dx, dy = WAYS[self.way]
        return self.tile[0] + dx, self.tile[1] + dy

    @property
    def touches(self) -> frozenset[Cell]:
        """The two cells the tile leaves and the two it comes to cover."""
        return _shift_touches(self.tile, self.way)


@dataclass(frozen=True)
class QuarterTurn(Action):
    """The tile at `tile` turned a quarter about its own centre. No cell always changes: a
    tile whose pieces look alike all round turns unseen but for its key."""

    tile: Cell
    clockwise: bool

    @property
    def way(self) -> str:
        return "cw" if self.clockwise else "ccw"

    def __str__(self) -> str:
        return f"T{cell_name(self.tile)}{self.way}"


TileAction = Shift | QuarterTurn
_TILE_NOTATION = re.compile(r"T([a-p](?:1[0-6]|[1-9]))([<>^v]|cw|ccw)")


def parse_tile_action(text: str) -> TileAction:
    found = match_notation(_TILE_NOTATION, text, "a tile action (Tc3^, Tc3cw, Tc3ccw)")
    tile = parse_cell(found[1])
    if found[2] in WAYS:
        return Shift(tile, found[2])
    return QuarterTurn(tile, found[2] == "cw")


@dataclass(frozen=True)
class Lattice:
    """The area tiles may use: turns cells into board indices and says which tile moves the
    rules allow."""

    width: int
    height: int

    def index(self, cell: Cell) -> int:
        return cell[1] * self.width + cell[0]

    def covered(self, tiles: tuple[Cell, ...]) -> frozenset[Cell]:
        """The cells that exist: those some tile covers."""
        return _covered(tiles)

    def cells_in_order(self, tiles: tuple[Cell, ...]) -> tuple[tuple[Cell, int], ...]:
        """The cells that exist with their board indices, in board order."""
        return _indexed(self.width, tiles)

    def may_lie(self, tiles: tuple[Cell, ...], moving: int, origin: Cell) -> bool:
        """Whether tile number `moving` may lie at `origin`, the others staying: inside the
        area, over no other tile, and all of them still one group touching by edges or
        corners."""
        x, y = origin
        if not (0 <= x <= self.width - 2 and 0 <= y <= self.height - 2):
            return False
        placed = (*tiles[:moving], origin, *tiles[moving + 1 :])
        for i, (ox, oy) in enumerate(placed):
            if i != moving and abs(ox - x) < 2 and abs(oy - y) < 2:
                return False
        return _connected(placed)

    def tile_actions(
        self, tiles: tuple[Cell, ...], moving: int, shifts: bool, last: str
    ) -> list[TileAction]:
        """The actions tile number `moving` may take now: quarter turns always (a tile turns
        in its own footprint), shifts where they are allowed and it may lie; never the undoing
        of `last`. Worked out once per place of the tiles: the positions a search weighs share
        them (the meeple placed anywhere, the same tile to move)."""
        return list(_tile_actions(self, tiles, moving, shifts, last))

    def _listed_tile_actions(
        self, tiles: tuple[Cell, ...], moving: int, shifts: bool, last: str
    ) -> tuple[TileAction, ...]:
        origin = tiles[moving]
        undo = OPPOSITE.get(last)
        found: list[TileAction] = []
        if shifts:
            for way, (dx, dy) in WAYS.items():
                if way != undo and self.may_lie(tiles, moving, (origin[0] + dx, origin[1] + dy)):
                    found.append(Shift(origin, way))
        for clockwise in (True, False):
            if ("cw" if clockwise else "ccw") != undo:
                found.append(QuarterTurn(origin, clockwise))
        return tuple(found)

    def carried(self, board: bytes, origin: Cell, action: TileAction) -> bytes:
        """`board` with the pieces on the tile at `origin` carried by `action`."""
        width = self.width
        ll = origin[1] * width + origin[0]
        cells = (ll, ll + width, ll + width + 1, ll + 1)  # the order of `block`
        if isinstance(action, Shift):
            dx, dy = WAYS[action.way]
            step = dy * width + dx
            targets: tuple[int, ...] = tuple(i + step for i in cells)
        elif action.clockwise:
            targets = cells[1:] + cells[:1]
        else:
            targets = cells[-1:] + cells[:-1]
        moved = bytearray(board)
        pieces = [board[i] for i in cells]
        for i in cells:
            moved[i] = 0
        for i, piece in zip(targets, pieces, strict=True):
            moved[i] = piece
        return bytes(moved)


@lru_cache(maxsize=1 << 14)
def _tile_actions(
    lattice: Lattice, tiles: tuple[Cell, ...], moving: int, shifts: bool, last: str
) -> tuple[TileAction, ...]:
    return lattice._listed_tile_actions(tiles, moving, shifts, last)


@cache
def _shift_touches(tile: Cell, way: str) -> frozenset[Cell]:
    """`Shift.touches`, worked out once per tile place and way: the referee's search asks it
    of every shift it weighs, to keep to the cells the board saw change."""
    dx, dy = WAYS[way]
    return frozenset(set(block(tile)) ^ set(block((tile[0] + dx, tile[1] + dy))))


@lru_cache(maxsize=1 << 14)
def _covered(tiles: tuple[Cell, ...]) -> frozenset[Cell]:
    return frozenset(c for origin in tiles for c in block(origin))


@lru_cache(maxsize=1 << 14)
def _indexed(width: int, tiles: tuple[Cell, ...]) -> tuple[tuple[Cell, int], ...]:
    return tuple(sorted(((c, c[1] * width + c[0]) for c in _covered(tiles)), key=lambda p: p[1]))


def tile_of(tiles: tuple[Cell, ...], cell: Cell) -> int | None:
    """The number of the tile covering `cell`, if any."""
    for i, (x, y) in enumerate(tiles):
        if 0 <= cell[0] - x < 2 and 0 <= cell[1] - y < 2:
            return i
    return None


@lru_cache(maxsize=1 << 16)
def _connected(tiles: tuple[Cell, ...]) -> bool:
    """Whether the tiles form one group, two touching when they share an edge or a corner
    (non-overlapping 2x2 blocks touch when both offsets are at most 2)."""
    reached, pending = {0}, [0]
    while pending:
        x, y = tiles[pending.pop()]
        for j, (ox, oy) in enumerate(tiles):
            if j not in reached and abs(ox - x) <= 2 and abs(oy - y) <= 2:
                reached.add(j)
                pending.append(j)
    return len(reached) == len(tiles)


def turned(quarters: tuple[int, ...], moving: int, action: TileAction) -> tuple[int, ...]:
    """Each tile's quarter turns (clockwise, mod 4) after `action` on tile number `moving`."""
    if isinstance(action, Shift):
        return quarters
    step = 1 if action.clockwise else 3
    return (*quarters[:moving], (quarters[moving] + step) % 4, *quarters[moving + 1 :])


def moved_tiles(tiles: tuple[Cell, ...], moving: int, action: TileAction) -> tuple[Cell, ...]:
    if isinstance(action, QuarterTurn):
        return tiles
    return (*tiles[:moving], action.target, *tiles[moving + 1 :])


@cache
def lattice(width: int, height: int) -> Lattice:
    return Lattice(width, height)


Seen = tuple[Hashable, ...]
"""What the repetition rule compares: pieces by cell, tile footprints, supplies, whose turn."""
NO_POSITIONS: frozenset[Seen] = frozenset()


@dataclass(frozen=True)
class TiledState(State):
    """What both tile games share: the board and the tiles, the tile actions of a turn on the
    tile its piece went to, repetition and the turn limit. A game adds its piece action, what
    more its position holds, and its judgement of a finished turn."""

    board: bytes = b""
    """A piece code per lattice cell, row-major from a1; 0 is empty (or a hole)."""
    tiles: tuple[Cell, ...] = ()
    """Each tile's lower-left cell, tile by tile."""
    quarters: tuple[int, ...] = ()
    """Each tile's clockwise quarter turns since the start, mod 4: not the rules' business
    (tiles are unmarked), kept so a board that keys its tiles can draw them."""
    to_move: int = 0
    turn: int = 0
    width: int = 8
    height: int = 8
    moving: int = -1
    """The tile this turn's tile actions move (the one its piece went to); -1 before that."""
    left: int = 0
    """Tile actions this turn still owes."""
    last: str = ""
    """The way of this turn's previous tile action, which the next may not undo."""
    seen_once: frozenset[Seen] = field(default=NO_POSITIONS, repr=False)
    seen_twice: frozenset[Seen] = field(default=NO_POSITIONS, repr=False)
    """Positions met once and twice so far (the start among them): the third time draws."""
    max_turns: int = 200
    result: Outcome | None = None

    shifts: ClassVar[bool] = True
    """Whether a tile action may be a shift (Meep Tac Toe's `rotate` turns only)."""

    @classmethod
    def laid_out(
        cls,
        width: int,
        height: int,
        tiles: tuple[Cell, ...],
        pieces: dict[Cell, int],
        **fields: Any,
    ) -> Any:
        """A position before its first turn: `pieces` (board codes by cell) on the tiles, each
        tile as it lies at the start, the position met once."""
        board = bytearray(width * height)
        for (col, row), piece in pieces.items():
            board[row * width + col] = piece
        state = cls(
            board=bytes(board),
            tiles=tiles,
            quarters=(0,) * len(tiles),
            width=width,
            height=height,
            **fields,
        )
        return state._evolve(seen_once=frozenset((state.position,)))

    @property
    def lattice(self) -> Lattice:
        return lattice(self.width, self.height)

    def _evolve(self, **changes: Any) -> Any:
        """This state with `changes`: `dataclasses.replace` without its per-call checks, as
        perft and the referee's search make millions of states."""
        after = object.__new__(type(self))
        values = after.__dict__
        values.update(self.__dict__)
        for worked_out in _WORKED_OUT:  # what belongs to this state alone, not its fields
            values.pop(worked_out, None)
        values.update(changes)
        return after

    def __hash__(self) -> int:
        """The fields' hash, worked out once: the referee's search looks each position up in
        its render cache and its set of expanded positions. Each game's state class names this
        as its own, or its dataclass would make a fresh one."""
        known = self.__dict__.get("_hash")
        if known is None:
            mine = self.__dict__
            known = mine["_hash"] = hash(tuple(mine[name] for name in _fields_of(type(self))))
        return known

    @property
    def extent(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def area(self) -> frozenset[Cell]:
        return self.lattice.covered(self.tiles)

    def at(self, cell: Cell) -> int:
        return self.board[self.lattice.index(cell)]

    def outcome(self) -> Outcome | None:
        return self.result

    @property
    def must_pass(self) -> bool:
        return False  # a game with no turn to make is lost, never passed

    def _may_shift(self) -> bool:
        return self.shifts

    @property
    def tile_actions_per_turn(self) -> int:
        """The tile actions that follow the turn's piece action."""
        raise NotImplementedError

    def _has_turn(self) -> bool:
        """Whether the player to move can make a whole turn. A tile can always turn twice the
        same way, so a game asks only whether its piece action can be made."""
        return bool(self._legal())

    def _tile_actions(self) -> list[TileAction]:
        return self.lattice.tile_actions(self.tiles, self.moving, self._may_shift(), self.last)

    def actions_within(self, cells: frozenset[Cell]) -> tuple[Action, ...]:
        """The referee's candidates without listing every action: the piece actions on
        `cells`, or the tile's actions whose cells changed (a quarter turn always, as the
        cells it changes depend on what stands on the tile)."""
        if self.result is not None or self._pending():
            return ()
        if self.moving < 0:
            return self._piece_actions_within(cells)
        return tuple(a for a in self._tile_actions() if a.touches <= cells)

    def _pending(self) -> bool:
        """Obligations hold the turn (Meeple Maneuver's captures)."""
        return False

    def _piece_actions_within(self, cells: frozenset[Cell]) -> tuple[Action, ...]:
        return tuple(a for a in self.legal_actions() if a.touches <= cells)

    @property
    def position(self) -> Seen:
        return (self.board, frozenset(self.tiles), self.to_move, *self._holdings())

    def _holdings(self) -> tuple[Hashable, ...]:
        """What a game's position holds besides the board and tiles (supplies, piles)."""
        return ()

    def key(self) -> Hashable:
        tile = self.tiles[self.moving] if self.moving >= 0 else None
        return (
            self.position,
            self.turn,
            tile,
            self.left,
            self.last,
            self.seen_once,
            self.seen_twice,
            self.result,
        )

    def _piece_moved(self, after: TiledState, cell: Cell, actions: int) -> TiledState:
        """`after` (this state with the turn's piece action made) owing `actions` tile actions
        on the tile under `cell`, or with its turn over if it owes none."""
        if not actions:
            return after._turn_over()
        moving = tile_of(after.tiles, cell)
        assert moving is not None
        return after._evolve(moving=moving, left=actions, last="")

    def _play_tile(self, action: TileAction) -> TiledState:
        moved = {
            "board": self.lattice.carried(self.board, self.tiles[self.moving], action),
            "tiles": moved_tiles(self.tiles, self.moving, action),
            "quarters": turned(self.quarters, self.moving, action),
        }
        if self.left > 1:
            return self._evolve(**moved, left=self.left - 1, last=action.way)
        return self._turn_over(**moved)

    def _turn_over(self, **changes: Any) -> TiledState:
        """The mover's turn is done (with `changes`): the other player's begins, and the game
        judges it."""
        return self._evolve(
            **changes, to_move=1 - self.to_move, turn=self.turn + 1, moving=-1, left=0, last=""
        )._judged()

    def _judged(self) -> TiledState:
        """A finished turn judged by the game (lines, captures); `_settled` follows."""
        return self._settled()

    def _settled(self) -> TiledState:
        """The board as the next player will find it: repetition and the turn limit judged,
        and a player with no turn to make losing. Only ever called on a state its turn's end
        has just made, which no one holds yet: it is finished in place, as the referee's
        search ends thousands of turns for one frame."""
        once, twice = self.seen_once, self.seen_twice
        reached = self.position
        result = None
        if reached in twice:
            result = Outcome((), "draw: the position came up a third time")
        else:
            if reached in once:
                once, twice = once - {reached}, twice | {reached}
            else:
                once = once | {reached}
            if self.turn >= self.max_turns:
                result = Outcome((), f"draw: {self.max_turns} turns played")
            elif not self._has_turn():
                blocked = self.game.seats[self.to_move]
                result = Outcome((1 - self.to_move,), f"{blocked} cannot make a turn and loses")
        assert "_hash" not in self.__dict__
        self.__dict__.update(seen_once=once, seen_twice=twice, result=result)
        return self

    def why_illegal(self, action: Action) -> str:
        if isinstance(action, Shift | QuarterTurn):
            if self.moving < 0:
                return "first the turn's piece, then its tile actions"
            origin = self.tiles[self.moving]
            if action.tile != origin:
                return f"this turn moves the tile at {cell_name(origin)}, the piece's tile"
            if action.way == OPPOSITE.get(self.last):
                return "the second tile action may not undo the first"
            if isinstance(action, Shift):
                if not self._may_shift():
                    return "this game turns its tiles, it does not shift them"
                x, y = action.target
                if not (0 <= x <= self.width - 2 and 0 <= y <= self.height - 2):
                    return "a tile may not leave the area"
                if any(
                    abs(ox - x) < 2 and abs(oy - y) < 2
                    for i, (ox, oy) in enumerate(self.tiles)
                    if i != self.moving
                ):
                    return "a tile may not cover another"
                return "the tiles must keep touching (an edge or a corner)"
        elif self.moving >= 0:
            return f"the tile at {cell_name(self.tiles[self.moving])} must move or turn first"
        return super().why_illegal(action)

    def draw_tiles(self, symbol: Callable[[int], str]) -> str:
        """The board as text: each cell's piece by `symbol`, '.' for an empty cell, ' ' for a
        hole, with the tile the turn moves noted below."""
        area = self.area

        def mark(cell: Cell) -> str:
            if cell not in area:
                return " "
            piece = self.at(cell)
            return symbol(piece) if piece else "."

        text = draw_grid(self.width, self.height, mark)
        if self.moving >= 0:
            text += f"\ntile at {cell_name(self.tiles[self.moving])}: {self.left} action(s) to go"
        return text


_WORKED_OUT = ("_hash", "_legal_cache")
"""What a state keeps of its own in its `__dict__` besides its fields: its hash and its legal
actions, never to be copied to a changed state."""


@cache
def _fields_of(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def every_tile_action(extent: tuple[int, int]) -> tuple[TileAction, ...]:
    """Every shift and quarter turn of a tile lying anywhere in `extent`: a tiled game's tile
    actions for a search that numbers them."""
    width, height = extent
    origins = [(x, y) for y in range(height - 1) for x in range(width - 1)]
    return (
        *(Shift(origin, way) for origin in origins for way in WAYS),
        *(QuarterTurn(origin, clockwise) for origin in origins for clockwise in (True, False)),
    )
