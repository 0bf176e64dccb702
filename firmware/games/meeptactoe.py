"""Meep Tac Toe (rules/meep-tac-toe.md): three in a line on tiles that shift and turn.

A turn moves one of the mover's meeples a cell; with the `rotate` maneuver the tile it stands on
then turns a quarter, with `advanced` that tile takes two actions (shifts or quarter turns), the
second not undoing the first. Lines are judged once the whole turn is over, the mover first: a
tile action can hand the other player a line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from magboard.firmware import native

from .core import Action, Game, Option, Outcome, State, match_notation
from .grid import Cell, cell_name, parse_cell
from .phrasing import Phrase
from .search import BenchRow, SearchHooks, declare_search
from .tiles import (
    QuarterTurn,
    Shift,
    TiledState,
    every_tile_action,
    parse_area,
    parse_tile_action,
)

SEATS = ("A", "B")
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""A meeple's steps."""
LINE = 3
MANEUVERS = {"none": 0, "rotate": 1, "advanced": 2}
"""Each maneuver and the tile actions it adds to a turn."""


@dataclass(frozen=True)
class Move(Action):
    """One of the mover's meeples one cell up, down, left or right."""

    source: Cell
    target: Cell

    def __str__(self) -> str:
        return f"{cell_name(self.source)}-{cell_name(self.target)}"

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.source, self.target))


_MOVE = re.compile(r"([a-p](?:1[0-6]|[1-9]))-([a-p](?:1[0-6]|[1-9]))")


def parse_action(text: str) -> Action:
    if text.strip().startswith("T"):
        return parse_tile_action(text)
    found = match_notation(_MOVE, text, "a move (c6-c5) or a tile action (Tc5^, Tc5cw)")
    return Move(parse_cell(found[1]), parse_cell(found[2]))


@cache
def _shape(width: int, height: int) -> native.LineShape:
    return native.LineShape(width, height, LINE)


@dataclass(frozen=True)
class MeepState(TiledState):
    """Board codes: 1 a meeple of A, 2 of B (the line detector's labels)."""

    __hash__ = TiledState.__hash__

    maneuver: str = "none"

    def _may_shift(self) -> bool:
        return self.maneuver == "advanced"

    @property
    def tile_actions_per_turn(self) -> int:
        return MANEUVERS[self.maneuver]

    def _legal(self) -> tuple[Action, ...]:
        if self.result is not None:
            return ()
        if self.moving >= 0:
            return tuple(self._tile_actions())
        own, board, area = self.to_move + 1, self.board, self.area
        index = self.lattice.index
        moves: list[Action] = []
        for cell, i in self.lattice.cells_in_order(self.tiles):
            if board[i] != own:
                continue
            for dx, dy in ORTHOGONAL:
                target = (cell[0] + dx, cell[1] + dy)
                if target in area and not board[index(target)]:
                    moves.append(Move(cell, target))
        return tuple(moves)

    def _has_turn(self) -> bool:
        """Some meeple of the mover's has an empty cell of a tile beside it: asked at every
        turn's end, so it stops at the first."""
        own, board, area = self.to_move + 1, self.board, self.area
        width = self.width
        for (x, y), i in self.lattice.cells_in_order(self.tiles):
            if board[i] == own:
                for dx, dy in ORTHOGONAL:
                    if (x + dx, y + dy) in area and not board[i + dy * width + dx]:
                        return True
        return False

    def _piece_actions_within(self, cells: frozenset[Cell]) -> tuple[Action, ...]:
        own, board, area, index = self.to_move + 1, self.board, self.area, self.lattice.index
        moves: list[Action] = []
        for cell in sorted(cells & area):
            if board[index(cell)] == own:
                for dx, dy in ORTHOGONAL:
                    target = (cell[0] + dx, cell[1] + dy)
                    if target in cells and target in area and not board[index(target)]:
                        moves.append(Move(cell, target))
        return tuple(moves)

    def _play(self, action: Action) -> State:
        if isinstance(action, Shift | QuarterTurn):
            return self._play_tile(action)
        assert isinstance(action, Move)
        index = self.lattice.index
        board = bytearray(self.board)
        board[index(action.target)], board[index(action.source)] = board[index(action.source)], 0
        after = self._evolve(board=bytes(board))
        return self._piece_moved(after, action.target, self.tile_actions_per_turn)

    def _judged(self) -> TiledState:
        lines = native.winners(_shape(self.width, self.height), self.board)
        mover = 1 - self.to_move
        for seat in (mover, 1 - mover):
            if lines >> seat & 1:
                cells = native.find_lines(_shape(self.width, self.height), self.board).cells(seat)
                why = f"{SEATS[seat]} has three in a line"
                if seat != mover:
                    why += f", made by {SEATS[mover]}'s turn"
                return self._evolve(result=Outcome((seat,), why, frozenset(cells)))
        return self._settled()

    def why_illegal(self, action: Action) -> str:
        if isinstance(action, Move) and self.moving < 0:
            if self.at(action.source) != self.to_move + 1:
                return f"{cell_name(action.source)} holds no meeple of {self.player_name}"
            dx, dy = action.target[0] - action.source[0], action.target[1] - action.source[1]
            if (dx, dy) not in ORTHOGONAL:
                return "a meeple moves one cell up, down, left or right"
            if action.target not in self.area:
                return f"{cell_name(action.target)} is not on a tile"
            return f"{cell_name(action.target)} is not empty"
        if isinstance(action, Move):
            return f"the meeple has moved: now the tile at {cell_name(self.tiles[self.moving])}"
        return super().why_illegal(action)

    def __str__(self) -> str:
        return self.draw_tiles(lambda piece: SEATS[piece - 1])


def _start(options: Mapping[str, Any]) -> MeepState:
    width, height = parse_area(options["area"])
    x, y = (width - 4) // 2, (height - 4) // 2
    tiles = ((x, y), (x + 2, y), (x, y + 2), (x + 2, y + 2))
    a = ((0, 3), (2, 3), (1, 0), (3, 0))
    b = ((1, 3), (3, 3), (0, 0), (2, 0))
    pieces = {(x + c, y + r): 1 for c, r in a} | {(x + c, y + r): 2 for c, r in b}
    return MeepState.laid_out(
        width,
        height,
        tiles,
        pieces,
        max_turns=options["max_turns"],
        maneuver=options["maneuver"],
    )


def _universe(state: State) -> tuple[Action, ...]:
    width, height = state.extent
    cells = [(x, y) for y in range(height) for x in range(width)]
    moves = [
        Move(cell, (cell[0] + dx, cell[1] + dy))
        for cell in cells
        for dx, dy in ORTHOGONAL
        if 0 <= cell[0] + dx < width and 0 <= cell[1] + dy < height
    ]
    return (*moves, *every_tile_action(state.extent))


def _phrase(action: Action, state: State | None) -> Phrase | None:
    if not isinstance(action, Move):
        return None
    where = f"the meeple on {cell_name(action.source)} to {cell_name(action.target)}"
    return Phrase(f"move {where}", f"moved {where}")


GAME = Game(
    name="meep-tac-toe",
    title="Meep Tac Toe",
    summary="Four meeples each on four 2x2 tiles: move a meeple a cell, then shift or turn its"
    " tile; three in a line wins.",
    seats=SEATS,
    board=(8, 8),
    options=(
        Option(
            "maneuver",
            "none",
            "none: a move is the turn; rotate: then turn its tile a quarter; advanced: then two"
            " tile actions, shifts or quarter turns",
            tuple(MANEUVERS),
        ),
        Option("area", "8x8", "the columns and rows the tiles may use (COLUMNSxROWS)"),
        Option(
            "setup", "square", "the start: four tiles in a 4x4 block in the middle", ("square",)
        ),
        Option("max_turns", 200, "a game this many turns long is a draw", (), 10, 10_000),
    ),
    start=_start,
    parse_action=parse_action,
    rules_file="meep-tac-toe.md",
    turn_option="maneuver",
    ends_at_max_turns=True,
    universe=_universe,
    phrase=_phrase,
)
MeepState.game = GAME

# The AI bench times the advanced maneuver for every variant: the most actions a turn.
declare_search(GAME, SearchHooks(bench=(BenchRow((("maneuver", "advanced"),)),)))
