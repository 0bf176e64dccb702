"""A compact engine for the three line games (tic-tac-toe, Tic-Tac-Cap, Tic Tac Doh!): what the
searches walk instead of the referee's States.

A position is `POSITION_SIZE` bytes with one layout for all three games, so the C kernel reads the
same bytes as this module (its pure-Python twin and reference):

- `CELLS` bytes, row-major from a1 (tic-tac-toe and Tic-Tac-Cap use the first nine as their 3x3
  board): tic-tac-toe the owner bit (1 X, 2 O); Tic-Tac-Cap the top marker only, 1 + 3*owner +
  size (covered markers never count again, so the future never reads them); Tic Tac Doh! the
  stack's index in its rules' list of stacks;
- six supply counts: Tic-Tac-Cap each player's Small, Medium, Large; Tic Tac Doh! the shared
  stash in the first three;
- Tic-Tac-Cap's own turns of each player capped at 2 (they only lift the size limits), its passes
  in a row, then the player to move, then the status (0 on, 1 the mover has lost, 2 a draw), kept
  so that a finished game is known without looking for lines again.

Moves are ints: `size * CELLS + cell`, or `PASS_MOVE`. Moves are generated from the rules
directly, with no legality re-check: the referee's States stay the judge of the board.

Each game tells the engine what it needs of the game at the bottom of the game's own module
(`declare_line_game`): its kernel code, its options, how its States are written as positions and
moves read back as its actions, and the tables of its stacks; the engine finds them by the game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache, cached_property
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the games import this module to declare themselves: it never imports them
    from magboard.firmware.games.core import Action, Game, State
    from magboard.firmware.games.grid import Cell

CELLS = 25
SIDE = 5
SUPPLY = CELLS
OWN_TURNS = SUPPLY + 6
PASSES = OWN_TURNS + 2
MOVER = PASSES + 1
STATUS = MOVER + 1
POSITION_SIZE = STATUS + 1

ON, LOST, DRAWN = 0, 1, 2
"""Status byte: the game goes on; the player to move has lost (every win is made by the player
who just moved, or by the mover being stuck in Tic Tac Doh!); a draw."""

PASS_MOVE = -1

MEMO_LIMIT = 1_000_000
"""Most (position, depth) counts perft keeps: past it counts are worked out again."""


class Kind(IntEnum):
    """Which game; the value is what the C kernel is told."""

    TIC_TAC_TOE = 0
    TIC_TAC_CAP = 1
    TIC_TAC_DOH = 2


def _lines_through(width: int, height: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per cell of a `width` x `height` board, the other two cells of every line of three through
    it; cells are indexed on the 5-wide layout."""
    through: list[list[tuple[int, int]]] = [[] for _ in range(CELLS)]
    for row in range(height):
        for col in range(width):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(col + k * dc, row + k * dr) for k in range(3)]
                if all(0 <= c < width and 0 <= r < height for c, r in cells):
                    ids = [r * SIDE + c for c, r in cells]
                    for i in ids:
                        through[i].append(tuple(j for j in ids if j != i))
    return tuple(tuple(lines) for lines in through)


LINES_3X3 = _lines_through(3, 3)
LINES_5X5 = _lines_through(5, 5)
SMALL_BOARD = tuple(r * SIDE + c for r in range(3) for c in range(3))
"""The nine cells of a 3x3 game on the layout (a1, b1, c1, a2, ...)."""
ALL_CELLS = tuple(range(CELLS))

DOH_CENTRE = (SIDE // 2) * SIDE + SIDE // 2
OCCUPIED = bytes(1 if code else 0 for code in range(256))
"""A `bytes.translate` table: 1 for an occupied cell."""
COLUMN = tuple(i % SIDE for i in range(CELLS))
ROW = tuple(i // SIDE for i in range(CELLS))


@dataclass(frozen=True, eq=False)
class StackTables:
    """A stacking game's tables, as the engine reads them: stacks are indices into the game's own
    list of stacks (0 the empty cell). One per game, compared as the object it is; it keeps the
    open cells it has worked out."""

    on_top: tuple[tuple[int, ...], ...]
    """Per stack, per size, the stack after a piece of that size goes on it; 0 where it may not."""
    counts_as: bytes
    """Per stack, the mask of sizes it counts as in a line."""
    neighbours: tuple[tuple[int, ...], ...]
    """Per cell of the 5-wide layout, the cells touching it."""
    _open: dict[bytes, tuple[int, ...]] = field(default_factory=dict, init=False, repr=False)

    @cached_property
    def counts_table(self) -> bytes:
        """Per stack index, the mask of sizes it counts as, as a `bytes.translate` table."""
        return self.counts_as.ljust(256, b"\0")

    @cached_property
    def takes(self) -> tuple[bytes, ...]:
        """Per size, per stack index, 1 where a piece of that size may go on the stack (a table
        for `bytes.translate`)."""
        on_top = self.on_top
        return tuple(
            bytes(1 if 0 < code < len(on_top) and on_top[code][size] else 0 for code in range(256))
            for size in range(3)
        )

    def open_cells(self, occupancy: bytes) -> tuple[int, ...]:
        """The open cells for a pattern of occupied cells (1 occupied, 0 empty): a few thousand
        patterns occur, so each is worked out once."""
        found = self._open.get(occupancy)
        if found is None:
            found = self._open[occupancy] = _open_cells(occupancy, self.neighbours)
        return found


def _no_options(state: State) -> tuple[tuple[int, int, int], bool]:
    return (0, 0, 0), True


@dataclass(frozen=True, eq=False)
class LineRules:
    """What a line game tells the engine of itself (`declare_line_game`); one per game, so two
    are the same rules only when they are the same object."""

    kind: Kind
    fill: Callable[[State, bytearray], None] = field(repr=False)
    """Writes a State's cells and supplies (and what else of the layout its game keeps) into a
    position; the engine writes the player to move and the status."""
    action: Callable[[int], Action] = field(repr=False)
    """The referee's action for a move (`place_of` reads a placement's size and square)."""
    options: Callable[[State], tuple[tuple[int, int, int], bool]] = field(
        default=_no_options, repr=False
    )
    """The options of a State's game that the engine plays by: the supplies at the start (see
    `LineGame.supplies`) and whether a player may cover their own markers."""
    stacks: StackTables | None = field(default=None, repr=False)
    """The tables of a game whose pieces stack, where its kernel reads them."""


_RULES: dict[str, LineRules] = {}


def declare_line_game(game: Game, rules: LineRules) -> LineRules:
    """Files `rules` as `game`'s: what its module calls once, at its bottom."""
    if game.name in _RULES:
        raise ValueError(f"the line rules of {game.name!r} are declared twice")
    _RULES[game.name] = rules
    return rules


def place_of(move: int) -> tuple[int, Cell]:
    """A placement's size and square (column, row)."""
    size, cell = divmod(move, CELLS)
    return size, (cell % SIDE, cell // SIDE)


@dataclass(frozen=True)
class LineGame:
    """One of the three games with its options: the rules the engine plays by."""

    rules: LineRules
    """The game's own declaration: its kernel code, its positions, its actions, its tables."""
    supplies: tuple[int, int, int] = (0, 0, 0)
    """Tic-Tac-Cap: each player's markers at the start; Tic Tac Doh!: the shared stash."""
    cover_own: bool = True

    @property
    def kind(self) -> Kind:
        return self.rules.kind

    def start(self) -> bytes:
        position = bytearray(POSITION_SIZE)
        if self.kind is Kind.TIC_TAC_CAP:
            position[SUPPLY : SUPPLY + 6] = bytes(self.supplies * 2)
        elif self.kind is Kind.TIC_TAC_DOH:
            position[SUPPLY : SUPPLY + 3] = bytes(self.supplies)
        return bytes(position)

    def moves(self, position: bytes) -> list[int]:
        """The legal moves in the referee's order; empty once the game is over."""
        if position[STATUS]:
            return []
        if self.kind is Kind.TIC_TAC_TOE:
            return [i for i in SMALL_BOARD if not position[i]]
        if self.kind is Kind.TIC_TAC_CAP:
            return _cap_moves(position, self.cover_own)
        return _doh_moves(position, self.rules.stacks)  # type: ignore[arg-type]

    def count_moves(self, position: bytes) -> int:
        """len(moves(position)), the cheapest way the game allows."""
        if self.kind is Kind.TIC_TAC_DOH:
            return _doh_count(position, self.rules.stacks)  # type: ignore[arg-type]
        return len(self.moves(position))

    def play(self, position: bytes, move: int) -> bytes:
        """The position after a move that `moves` gave for it."""
        if self.kind is Kind.TIC_TAC_TOE:
            return _ttt_play(position, move)
        if self.kind is Kind.TIC_TAC_CAP:
            return _cap_play(position, move)
        return _doh_play(position, move, self.rules.stacks)  # type: ignore[arg-type]

    def result(self, position: bytes) -> int | None:
        """For the player to move: -1 lost, 0 drawn, None while the game goes on."""
        status = position[STATUS]
        if status == LOST:
            return -1
        if status == DRAWN:
            return 0
        if self.kind is Kind.TIC_TAC_DOH and not self.moves(position):
            return -1  # pieces left but nowhere to put one
        return None

    def action(self, move: int) -> Action:
        """The referee's action for a move."""
        return self.rules.action(move)


def _ttt_play(position: bytes, move: int) -> bytes:
    mover = position[MOVER]
    mark = 1 << mover
    board = bytearray(position)
    board[move] = mark
    board[MOVER] = 1 - mover
    if any(board[a] == mark and board[b] == mark for a, b in LINES_3X3[move]):
        board[STATUS] = LOST
    elif all(board[i] for i in SMALL_BOARD):
        board[STATUS] = DRAWN
    return bytes(board)


def _cap_moves(position: bytes, cover_own: bool) -> list[int]:
    mover = position[MOVER]
    base = SUPPLY + 3 * mover
    largest = position[OWN_TURNS + mover]
    found = []
    for size in range(largest + 1):
        if not position[base + size]:
            continue
        offset = size * CELLS
        for i in SMALL_BOARD:
            top = position[i]
            if not top:
                found.append(offset + i)
                continue
            owner, top_size = divmod(top - 1, 3)
            if top_size < size and (cover_own or owner != mover):
                found.append(offset + i)
    return found or [PASS_MOVE]


def _cap_owner(code: int) -> int:
    return -1 if not code else (code - 1) // 3


def _cap_play(position: bytes, move: int) -> bytes:
    mover = position[MOVER]
    after = bytearray(position)
    after[OWN_TURNS + mover] = min(2, position[OWN_TURNS + mover] + 1)
    after[MOVER] = 1 - mover
    if move == PASS_MOVE:
        after[PASSES] += 1
        if after[PASSES] >= 2:
            after[STATUS] = DRAWN
        return bytes(after)
    size, cell = divmod(move, CELLS)
    after[cell] = 1 + 3 * mover + size
    after[SUPPLY + 3 * mover + size] -= 1
    after[PASSES] = 0
    if any(
        _cap_owner(after[a]) == mover and _cap_owner(after[b]) == mover for a, b in LINES_3X3[cell]
    ):
        after[STATUS] = LOST
    return bytes(after)


def _doh_open(position: bytes, stacks: StackTables) -> tuple[int, ...]:
    """The empty cells a piece may go on, in order."""
    return stacks.open_cells(position[:CELLS].translate(OCCUPIED))


def _open_cells(occupancy: bytes, neighbours: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """The open cells for a pattern of occupied cells (1 occupied, 0 empty)."""
    occupied = [i for i, taken in enumerate(occupancy) if taken]
    if not occupied:
        return (DOH_CENTRE,)
    cols = [COLUMN[i] for i in occupied]
    rows = [ROW[i] for i in occupied]
    low_col, high_col = max(cols) - 2, min(cols) + 2
    low_row, high_row = max(rows) - 2, min(rows) + 2
    touching = set().union(*(neighbours[i] for i in occupied))
    return tuple(
        sorted(
            i
            for i in touching
            if not occupancy[i]
            and low_col <= COLUMN[i] <= high_col
            and low_row <= ROW[i] <= high_row
        )
    )


def _doh_moves(position: bytes, stacks: StackTables) -> list[int]:
    open_cells = _doh_open(position, stacks)
    found = []
    for size in range(3):
        if not position[SUPPLY + size]:
            continue
        offset = size * CELLS
        takes = stacks.takes[size]
        found.extend(
            sorted(
                [offset + i for i in open_cells]
                + [offset + i for i, code in enumerate(position[:CELLS]) if takes[code]]
            )
        )
    return found


def _doh_count(position: bytes, stacks: StackTables) -> int:
    """How many moves `_doh_moves` gives, without listing them: perft's last level."""
    if position[STATUS]:
        return 0
    cells = position[:CELLS]
    open_count = len(_doh_open(position, stacks))
    takes = stacks.takes
    return sum(
        open_count + cells.translate(takes[size]).count(1)
        for size in range(3)
        if position[SUPPLY + size]
    )


def _doh_play(position: bytes, move: int, stacks: StackTables) -> bytes:
    size, cell = divmod(move, CELLS)
    after = bytearray(position)
    after[cell] = stacks.on_top[position[cell]][size]
    after[SUPPLY + size] -= 1
    after[MOVER] = 1 - position[MOVER]
    masks = after[:CELLS].translate(stacks.counts_table)
    counts = masks[cell]
    if any(counts & masks[a] & masks[b] for a, b in LINES_5X5[cell]):
        after[STATUS] = LOST
    elif not any(after[SUPPLY : SUPPLY + 3]):
        after[STATUS] = DRAWN
    return bytes(after)


def game_of(state: State) -> LineGame | None:
    """The engine's rules for a referee State, or None for a game that declared none."""
    rules = _RULES.get(state.game.name)
    if rules is None:
        return None
    supplies, cover_own = rules.options(state)
    return LineGame(rules, supplies, cover_own)


def encode(state: State) -> bytes:
    """The engine's position for a referee State of any of the three games (any reachable
    position, any options)."""
    rules = _RULES.get(state.game.name)
    if rules is None:
        raise TypeError(f"the line-game engine does not play {type(state).__name__}")
    position = bytearray(POSITION_SIZE)
    rules.fill(state, position)
    position[MOVER] = state.to_move
    outcome = state.outcome()
    if outcome is not None:
        position[STATUS] = DRAWN if outcome.draw else LOST
        if not outcome.draw and not outcome.cells:
            # A loss no line made (no cells to light) is the mover stuck, which `result` finds,
            # as after `play`.
            position[STATUS] = ON
    return bytes(position)


def perft(game: LineGame, position: bytes, depth: int) -> int:
    """Leaves of the turn tree `depth` turns deep, as the referee's perft counts them: one turn is
    one move here, and distinct moves reach distinct referee keys (a placement adds a different
    marker or cell; covered markers stay in the referee's stacks, so no two paths merge within a
    turn). The last level counts moves without making them; equal positions met again at the same
    depth are counted once and reused, which the number of leaf paths below them allows."""
    if depth < 0:
        raise ValueError("perft depth is 0 or more")
    memo: dict[tuple[bytes, int], int] = {}
    moves, play, count_moves = game.moves, game.play, game.count_moves

    def count(node: bytes, left: int) -> int:
        if left == 1:
            return count_moves(node)
        found = memo.get((node, left))
        if found is None:
            found = sum(count(play(node, move), left - 1) for move in moves(node))
            if len(memo) < MEMO_LIMIT:
                memo[(node, left)] = found
        return found

    return 1 if depth == 0 else count(position, depth)


def _transform(t: int, side: int, col: int, row: int) -> tuple[int, int]:
    """One of the eight symmetries of a square of `side` cells."""
    last = side - 1
    if t & 4:
        col, row = row, col
    if t & 1:
        col = last - col
    if t & 2:
        row = last - row
    return col, row


def _swap_owner(kind: Kind, code: int) -> int:
    if not code:
        return 0
    if kind is Kind.TIC_TAC_TOE:
        return 3 - code
    return code - 3 if code > 3 else code + 3


def solver_key(kind: Kind, position: bytes) -> int:
    """The key a position's value is filed under, equal for positions with the same value by the
    rules' symmetries: tic-tac-toe and Tic-Tac-Cap seen by the mover (owners swapped when B
    moves), least over the eight symmetries of the board; Tic Tac Doh! with its pieces moved to
    the corner of their box (only their arrangement matters: a 3x3 box that holds the centre
    never leaves the 5x5 area), least over the eight symmetries."""
    if kind is Kind.TIC_TAC_DOH:
        stash = position[SUPPLY] | position[SUPPLY + 1] << 3 | position[SUPPLY + 2] << 6
        pieces = [(i % SIDE, i // SIDE, position[i]) for i in ALL_CELLS if position[i]]
        best = None
        for t in range(8):
            moved = [(*_transform(t, SIDE, col, row), code) for col, row, code in pieces]
            low_col = min((c for c, _, _ in moved), default=0)
            low_row = min((r for _, r, _ in moved), default=0)
            key = stash << 36
            for col, row, code in moved:
                key |= code << (4 * ((row - low_row) * 3 + col - low_col))
            best = key if best is None or key < best else best
        return best  # type: ignore[return-value]
    mover = position[MOVER]
    cells = [position[i] for i in SMALL_BOARD]
    if mover:
        cells = [_swap_owner(kind, code) for code in cells]
    rest = 0
    if kind is Kind.TIC_TAC_CAP:
        me, them = SUPPLY + 3 * mover, SUPPLY + 3 * (1 - mover)
        rest = (
            position[me]
            | position[me + 1] << 3
            | position[me + 2] << 6
            | position[them] << 9
            | position[them + 1] << 12
            | position[them + 2] << 15
            | (position[OWN_TURNS + mover] | position[OWN_TURNS + 1 - mover] << 2) << 18
            | (position[PASSES] & 3) << 22
        )
    best = None
    for t in range(8):
        key = rest << 27
        for k, code in enumerate(cells):
            col, row = _transform(t, 3, k % 3, k // 3)
            key |= code << (3 * (row * 3 + col))
        best = key if best is None or key < best else best
    return best  # type: ignore[return-value]


def pack_value(result: int, plies: int) -> int:
    """A value as one byte, as the C solver keeps it."""
    return (result + 1) << 6 | plies


def unpack_value(packed: int) -> tuple[int, int]:
    return (packed >> 6) - 1, packed & 63


def _better(result: int, plies: int, best_result: int, best_plies: int) -> bool:
    """Better for the mover: a higher result; then among wins and draws fewer plies (the game
    ends as soon as it can), among losses more."""
    if result != best_result:
        return result > best_result
    return plies > best_plies if result < 0 else plies < best_plies


class ValueTable:
    """A solver for one game and options: every value it works out is kept under its position's
    `solver_key`, so later values of the same game cost a lookup."""

    def __init__(self, game: LineGame) -> None:
        self.game = game
        self.values: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self.values)

    def load(self, words: list[int]) -> None:
        """Takes values worked out before: `key << 8 | packed value` words."""
        self.values.update((word >> 8, word & 0xFF) for word in words)

    def dump(self) -> list[int]:
        """Every value kept, as `key << 8 | packed value` words, sorted."""
        return sorted(key << 8 | packed for key, packed in self.values.items())

    def solve(self, position: bytes) -> int:
        """The packed value of `position` for the player to move."""
        game = self.game
        status = position[STATUS]
        if status:
            return pack_value(-1 if status == LOST else 0, 0)
        moves = game.moves(position)
        if not moves:
            return pack_value(-1, 0)
        key = solver_key(game.kind, position)
        found = self.values.get(key)
        if found is not None:
            return found
        children = [game.play(position, move) for move in moves]
        # A line made at once is the best there is, found without any search (and not kept:
        # it is found again as fast).
        if any(child[STATUS] == LOST for child in children):
            return pack_value(1, 1)
        best_result, best_plies = -2, 0
        for child in children:
            child_result, child_plies = unpack_value(self.solve(child))
            if _better(-child_result, child_plies + 1, best_result, best_plies):
                best_result, best_plies = -child_result, child_plies + 1
                # Every win of the mover ends on one of their placements, an odd number of
                # turns away, and none is one turn away: a win in three cannot be bettered.
                if best_result > 0 and best_plies <= 3:
                    break
        packed = pack_value(best_result, best_plies)
        self.values[key] = packed
        return packed


@cache
def kernel() -> ModuleType:
    """The engine's kernel (`moves`, `play`, `result`, `perft`, `new_solver`): the C one or its
    pure-Python twin, as MAGBOARD_NATIVE asks."""
    from magboard.firmware.native.selection import load, requested

    return load(requested(), "linegames")[1]
