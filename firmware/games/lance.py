"""Lance Assembly, sliding tic-tac-toe (rules/lance-assembly.md): one bout.

A turn is a place, a slide, or a place then a slide, and B may put the neutral tile down at any
moment of its turn; lances (five or more in a line) are judged once the whole turn is over, the
mover first. The board cannot see a turn end that could go on, so the player ends it (END_TURN,
the seat button); a turn with nothing left to do ends by itself.

The position, for repetition and perft, is the board, the player to move and whether the
neutral tile is still in hand; the turn counter is kept beside it for `max_turns`.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from magboard.firmware import native

from .core import END_TURN, Action, Game, Option, Outcome, State, match_notation
from .grid import Cell, cell_name, draw_grid, parse_cell

SIDE = 6
CELLS = SIDE * SIDE
TILES = 18
LANCE = 5
SHAPE = native.LineShape(SIDE, SIDE, LANCE)
NEUTRAL = 4
"""The neutral tile's label bit: never part of a player's line."""
MIN_EMPTY_TO_PLACE = 5
"""Placing (a tile or the neutral) needs more than four empty cells."""
DIRECTIONS = {">": (1, 0), "<": (-1, 0), "^": (0, 1), "v": (0, -1)}
SEATS = ("A", "B")


def _index(cell: Cell) -> int:
    return cell[1] * SIDE + cell[0]


def _cell(i: int) -> Cell:
    return i % SIDE, i // SIDE


@dataclass(frozen=True)
class Place(Action):
    """One of the mover's own tiles from their supply onto an empty cell."""

    cell: Cell

    def __str__(self) -> str:
        return cell_name(self.cell)

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


@dataclass(frozen=True)
class PlaceNeutral(Action):
    """B's neutral tile onto an empty cell, at any moment of B's turn."""

    cell: Cell

    def __str__(self) -> str:
        return f"N{cell_name(self.cell)}"

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


@dataclass(frozen=True)
class Slide(Action):
    """`length` tiles side by side from `cell` (the group's rear) moved `distance` cells in
    `way` (one of > < ^ v), all together."""

    cell: Cell
    length: int
    way: str
    distance: int

    def __str__(self) -> str:
        return f"{cell_name(self.cell)}{self.way}{self.length}:{self.distance}"

    @property
    def cells(self) -> tuple[Cell, ...]:
        dx, dy = DIRECTIONS[self.way]
        col, row = self.cell
        return tuple((col + k * dx, row + k * dy) for k in range(self.length))

    @cached_property
    def moved(self) -> tuple[Cell, ...]:
        dx, dy = DIRECTIONS[self.way]
        return tuple((c + self.distance * dx, r + self.distance * dy) for c, r in self.cells)

    @cached_property
    def touches(self) -> frozenset[Cell]:
        return frozenset(set(self.cells) ^ set(self.moved))


_NOTATION = re.compile(r"(N)?([a-f][1-6])|([a-f][1-6])([<>^v])([1-6]):([1-5])")


def parse_action(text: str) -> Action:
    if text.strip() == "end":
        return END_TURN
    found = match_notation(
        _NOTATION, text, "a placement (c3), the neutral tile (Nc3), a slide (b2>3:1) or end"
    )
    if found[3]:
        return Slide(parse_cell(found[3]), int(found[5]), found[4], int(found[6]))
    cell = parse_cell(found[2])
    return PlaceNeutral(cell) if found[1] else Place(cell)


@dataclass(frozen=True)
class LanceState(State):
    board: bytes = bytes(CELLS)
    """Per cell, row-major from a1: 0 empty, 1 A's tile, 2 B's tile, 4 the neutral tile."""
    to_move: int = 0
    turn: int = 0
    supplies: tuple[int, int] = (TILES, TILES)
    neutral_in_hand: bool = True
    placed: bool = False
    """This turn has placed a tile."""
    slid: bool = False
    """This turn has slid a group (after which only the neutral tile may follow)."""
    seen: tuple[Hashable, ...] = field(default=(), compare=False, repr=False)
    """The position after every turn so far (this one's last), for the repetition rule."""
    max_turns: int = 300

    @property
    def can_end_turn(self) -> bool:
        return self.placed or self.slid

    @property
    def _position(self) -> Hashable:
        return self.board, self.to_move, self.neutral_in_hand

    def key(self) -> Hashable:
        return (*self._position, self.turn, self.placed, self.slid)

    @cached_property
    def _empty(self) -> int:
        return self.board.count(0)

    def _may_place(self) -> bool:
        return self._empty >= MIN_EMPTY_TO_PLACE

    def _neutral_allowed(self) -> bool:
        return self.to_move == 1 and self.neutral_in_hand and self._may_place()

    def _legal(self) -> tuple[Action, ...]:
        if self.outcome() is not None:
            return ()
        empty = [_cell(i) for i, v in enumerate(self.board) if not v]
        actions: list[Action] = []
        if not self.placed and not self.slid and self._may_place() and self.supplies[self.to_move]:
            actions += [Place(c) for c in empty]
        if self.turn > 0 and not self.slid:
            actions += self._slides()
        if self._neutral_allowed():
            actions += [PlaceNeutral(c) for c in empty]
        if self.can_end_turn:
            actions.append(END_TURN)
        return tuple(actions)

    def actions_within(self, cells: frozenset[Cell]) -> tuple[Action, ...]:
        """Only placements on `cells` and slides whose changed cells lie in `cells`: the
        referee's candidates, without listing every slide of the board."""
        if self.outcome() is not None:
            return ()
        board = self.board
        empty = [c for c in cells if 0 <= c[0] < SIDE and 0 <= c[1] < SIDE and not board[_index(c)]]
        actions: list[Action] = []
        if not self.placed and not self.slid and self._may_place() and self.supplies[self.to_move]:
            actions += [Place(c) for c in empty]
        if self.turn > 0 and not self.slid:
            actions += self._slides_within(cells)
        if self._neutral_allowed():
            actions += [PlaceNeutral(c) for c in empty]
        return tuple(actions)

    def _slides_within(self, cells: frozenset[Cell]) -> list[Slide]:
        """The legal slides whose emptied and filled cells all lie in `cells`, found without
        listing the others: the rear cell is always emptied, so only groups starting there."""
        board = self.board
        inside = {_index(c) for c in cells if 0 <= c[0] < SIDE and 0 <= c[1] < SIDE}
        slides = []
        for rear in inside:
            if not board[rear]:
                continue
            col, row = _cell(rear)
            for way, (dx, dy) in DIRECTIONS.items():
                line = []  # indices along the way from the rear, while on the board
                c, r = col, row
                while 0 <= c < SIDE and 0 <= r < SIDE:
                    line.append(r * SIDE + c)
                    c, r = c + dx, r + dy
                for length in range(1, len(line)):
                    if not board[line[length - 1]]:
                        break
                    for distance in range(1, len(line) - length + 1):
                        if board[line[length + distance - 1]]:
                            break
                        emptied = line[: min(length, distance)]
                        filled = line[max(length, distance) : length + distance]
                        if inside.issuperset(emptied) and inside.issuperset(filled):
                            slides.append(Slide(_cell(rear), length, way, distance))
        return slides

    def _slides(self) -> list[Slide]:
        """Every legal slide."""
        board = self.board
        slides = []
        for way, (dx, dy) in DIRECTIONS.items():
            for i in range(CELLS):
                if not board[i]:
                    continue
                rear = _cell(i)
                col, row = rear
                length = 0
                while True:
                    c, r = col + length * dx, row + length * dy
                    if not (0 <= c < SIDE and 0 <= r < SIDE) or not board[r * SIDE + c]:
                        break
                    length += 1
                    distance = 0
                    fc, fr = c + dx, r + dy
                    while 0 <= fc < SIDE and 0 <= fr < SIDE and not board[fr * SIDE + fc]:
                        distance += 1
                        slides.append(Slide(rear, length, way, distance))
                        fc, fr = fc + dx, fr + dy
        return slides

    def _play(self, action: Action) -> State:
        board = bytearray(self.board)
        if action == END_TURN:
            return self._end_turn(bytes(board))
        supplies, neutral = self.supplies, self.neutral_in_hand
        placed, slid = self.placed, self.slid
        if isinstance(action, Place):
            board[_index(action.cell)] = 1 << self.to_move
            left = list(supplies)
            left[self.to_move] -= 1
            supplies, placed = (left[0], left[1]), True
        elif isinstance(action, PlaceNeutral):
            board[_index(action.cell)] = NEUTRAL
            neutral = False
        else:
            assert isinstance(action, Slide)
            tiles = [board[_index(c)] for c in action.cells]
            for c in action.cells:
                board[_index(c)] = 0
            for c, tile in zip(action.moved, tiles, strict=True):
                board[_index(c)] = tile
            slid = True
        after = LanceState(
            bytes(board),
            self.to_move,
            self.turn,
            supplies,
            neutral,
            placed,
            slid,
            self.seen,
            self.max_turns,
        )
        if self.turn == 0 or after._nothing_left():
            return after._end_turn(after.board)
        return after

    def _nothing_left(self) -> bool:
        """The turn has done its part and no action but ending it remains."""
        if not self.can_end_turn:
            return False
        if self._neutral_allowed():
            return False
        return self.slid or not self._slide_exists()

    def _slide_exists(self) -> bool:
        """A tile beside an empty cell can always slide one cell into it."""
        board = self.board
        for i, v in enumerate(board):
            if v:
                col, row = i % SIDE, i // SIDE
                if (
                    (col > 0 and not board[i - 1])
                    or (col < SIDE - 1 and not board[i + 1])
                    or (row > 0 and not board[i - SIDE])
                    or (row < SIDE - 1 and not board[i + SIDE])
                ):
                    return True
        return False

    def _end_turn(self, board: bytes) -> LanceState:
        reached = (board, 1 - self.to_move, self.neutral_in_hand)
        return LanceState(
            board,
            1 - self.to_move,
            self.turn + 1,
            self.supplies,
            self.neutral_in_hand,
            False,
            False,
            (*self.seen, reached),
            self.max_turns,
        )

    @cached_property
    def _outcome(self) -> Outcome | None:
        if self.placed or self.slid or self.turn == 0:
            return None
        lances = native.winners(SHAPE, self.board)
        mover = 1 - self.to_move
        for seat in (mover, 1 - mover):
            if lances >> seat & 1:
                cells = native.find_lines(SHAPE, self.board).cells(seat)
                return Outcome((seat,), "a lance of five", cells)
        if self.seen.count(self._position) >= 3:
            return Outcome((), "stalemate: the position came up a third time")
        if self.turn >= self.max_turns:
            return Outcome((), f"stalemate: {self.max_turns} turns without a lance")
        return None

    def outcome(self) -> Outcome | None:
        return self._outcome

    def why_illegal(self, action: Action) -> str:
        if isinstance(action, Place | PlaceNeutral):
            if self.board[_index(action.cell)]:
                return f"{cell_name(action.cell)} is not empty"
            if not self._may_place():
                return "only four cells are empty: no more placing, only slides"
        if isinstance(action, PlaceNeutral) and self.to_move == 0:
            return "the neutral tile is B's"
        if isinstance(action, Slide) and self.turn == 0:
            return "A's first turn is one placement, nothing else"
        return super().why_illegal(action)

    def __str__(self) -> str:
        marks = {0: ".", 1: "A", 2: "B", NEUTRAL: "N"}
        grid = draw_grid(SIDE, SIDE, lambda c: marks[self.board[_index(c)]])
        return f"{grid}\nA: {self.supplies[0]}  B: {self.supplies[1]}" + (
            "  neutral in hand" if self.neutral_in_hand else ""
        )


def _start(options: Mapping[str, Any]) -> LanceState:
    return LanceState(max_turns=options["max_turns"])


GAME = Game(
    name="lance-assembly",
    title="Lance Assembly",
    summary="Sliding tic-tac-toe on 6x6: place, slide groups, five in a line wins a bout.",
    seats=SEATS,
    board=(SIDE, SIDE),
    options=(
        Option(
            "max_turns",
            300,
            "a bout with this many turns and no lance is a stalemate",
            (),
            10,
            10_000,
        ),
    ),
    start=_start,
    parse_action=parse_action,
    aliases=("sliding-tic-tac-toe",),
    rules_file="lance-assembly.md",
)
LanceState.game = GAME
