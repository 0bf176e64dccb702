"""Meeple Maneuver (rules/meeple-maneuver.md): place a meeple, move its tile twice, sandwich the
others' meeples off the board.

Captures are judged when the mover's turn is over, all at once; the captured meeples stay on the
board until hands take them off (an obligation the next turn waits for), a neutral one to the
mover's captured pile, one of the other player's back to that player's supply. The third neutral
meeple captured wins at once: nothing is left to carry out.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from magboard.firmware.article import with_article

from ..core import CARRY_OUT, Action, Game, Obligation, Option, Outcome, State, match_notation
from ..grid import Cell, cell_name, parse_cell
from ..phrasing import Phrase, put
from ..tiles import (
    QuarterTurn,
    Shift,
    TiledState,
    every_tile_action,
    parse_area,
    parse_tile_action,
)

SEATS = ("A", "B")
NEUTRAL = 2
"""The third colour, after the seats 0 and 1."""
TYPES = ("kitten", "puppy")
LETTERS = "KP"
EACH = 3
"""Meeples of each type in a set."""
TILE_ACTIONS = 2
TO_WIN = 3
"""Neutral meeples a captured pile needs to win."""


def code(colour: int, kind: int) -> int:
    """The board byte of a meeple: 1 + colour * 2 + type (0 kitten, 1 puppy)."""
    return 1 + colour * 2 + kind


def colour_of(piece: int) -> int:
    return (piece - 1) // 2


def kind_of(piece: int) -> int:
    return (piece - 1) % 2


def _indices(board: bytes, piece: int) -> list[int]:
    """Where `piece` stands on `board`, by index."""
    found, at = [], board.find(piece)
    while at >= 0:
        found.append(at)
        at = board.find(piece, at + 1)
    return found


def supply_name(seat: int, kind: int) -> str:
    """Where a seat's meeples of a type wait off the board: "A-kitten"."""
    return f"{SEATS[seat]}-{TYPES[kind]}"


def pile_name(seat: int) -> str:
    """Where a seat's captured neutral meeples go: "A-captured"."""
    return f"{SEATS[seat]}-captured"


def sandwiched(board: bytes, width: int, mover: int) -> list[int]:
    """The board indices of the meeples `mover` sandwiches: along a row or a column, both
    neighbours the mover's and of one type, the type opposite to the meeple's. Found from the
    mover's pairs of one type two cells apart (at most three of a type: a few pairs to look at)."""
    found = []
    for kind in (0, 1):
        spots = _indices(board, code(mover, kind))
        for n, i in enumerate(spots):
            for j in spots[n + 1 :]:
                gap = j - i
                if gap == 2 and i % width < width - 2:
                    middle = i + 1
                elif gap == 2 * width:
                    middle = i + width
                else:
                    continue
                piece = board[middle]
                if piece and colour_of(piece) != mover and kind_of(piece) != kind:
                    found.append(middle)
    return found


@dataclass(frozen=True)
class Place(Action):
    """A meeple of `kind` (0 kitten, 1 puppy) from the mover's supply onto an empty cell."""

    kind: int
    cell: Cell

    def __str__(self) -> str:
        return f"{LETTERS[self.kind]}{cell_name(self.cell)}"

    @property
    def touches(self) -> frozenset[Cell]:
        return frozenset((self.cell,))


_PLACE = re.compile(r"([KP])([a-p](?:1[0-6]|[1-9]))")


def parse_action(text: str) -> Action:
    if text.strip() == "done":
        return CARRY_OUT
    if text.strip().startswith("T"):
        return parse_tile_action(text)
    found = match_notation(
        _PLACE, text, "a placement (Kc5, Pc5), a tile action (Tc5^, Tc5cw) or done"
    )
    return Place(LETTERS.index(found[1]), parse_cell(found[2]))


@dataclass(frozen=True)
class MeepleState(TiledState):
    __hash__ = TiledState.__hash__

    supplies: tuple[tuple[int, int], tuple[int, int]] = ((EACH, EACH), (EACH, EACH))
    """Per seat, kittens and puppies still off the board."""
    piles: tuple[int, int] = (0, 0)
    """Neutral meeples each seat has captured."""
    pending: frozenset[Cell] = frozenset()
    """Captured meeples still on the board, taken by the player who just moved."""

    def _holdings(self) -> tuple[Hashable, ...]:
        return self.supplies, self.piles, self.pending

    @property
    def capturer(self) -> int:
        return 1 - self.to_move

    def _legal(self) -> tuple[Action, ...]:
        if self.result is not None:
            return ()
        if self.pending:
            return (CARRY_OUT,)
        if self.moving >= 0:
            return tuple(self._tile_actions())
        board = self.board
        empty = [c for c, i in self.lattice.cells_in_order(self.tiles) if not board[i]]
        return tuple(
            Place(kind, cell)
            for kind in (0, 1)
            if self.supplies[self.to_move][kind]
            for cell in empty
        )

    def _pending(self) -> bool:
        return bool(self.pending)

    def _piece_actions_within(self, cells: frozenset[Cell]) -> tuple[Action, ...]:
        board, index, area = self.board, self.lattice.index, self.area
        kinds = [kind for kind in (0, 1) if self.supplies[self.to_move][kind]]
        empty = sorted(c for c in cells if c in area and not board[index(c)])
        return tuple(Place(kind, cell) for kind in kinds for cell in empty)

    @property
    def tile_actions_per_turn(self) -> int:
        return TILE_ACTIONS

    def _has_turn(self) -> bool:
        """A meeple to place and an empty cell to place it on (pieces stand only on tiles)."""
        filled = len(self.board) - self.board.count(0)
        return any(self.supplies[self.to_move]) and filled < 4 * len(self.tiles)

    def _play(self, action: Action) -> State:
        if isinstance(action, Shift | QuarterTurn):
            return self._play_tile(action)
        if action == CARRY_OUT:
            return self._carried_out()
        assert isinstance(action, Place)
        board = bytearray(self.board)
        board[self.lattice.index(action.cell)] = code(self.to_move, action.kind)
        supplies = list(self.supplies)
        kittens, puppies = supplies[self.to_move]
        supplies[self.to_move] = (
            (kittens - 1, puppies) if action.kind == 0 else (kittens, puppies - 1)
        )
        after = self._evolve(board=bytes(board), supplies=(supplies[0], supplies[1]))
        return self._piece_moved(after, action.cell, self.tile_actions_per_turn)

    def captured(self) -> frozenset[Cell]:
        """The meeples the player who just moved sandwiches (see `sandwiched`)."""
        width = self.width
        return frozenset(
            (i % width, i // width) for i in sandwiched(self.board, width, self.capturer)
        )

    def _judged(self) -> TiledState:
        taken = self.captured()
        if not taken:
            return self._settled()
        mover = self.capturer
        neutrals = sum(colour_of(self.at(c)) == NEUTRAL for c in taken)
        after = self._evolve(pending=taken)
        if self.piles[mover] + neutrals >= TO_WIN:
            why = f"{SEATS[mover]} captured a third neutral meeple"
            return after._evolve(result=Outcome((mover,), why, taken))
        return after

    def _carried_out(self) -> TiledState:
        """The captured meeples are off the board: the rules' bookkeeping follows the hands."""
        board = bytearray(self.board)
        piles = list(self.piles)
        supplies = [list(s) for s in self.supplies]
        for cell in self.pending:
            i = self.lattice.index(cell)
            piece, board[i] = board[i], 0
            if colour_of(piece) == NEUTRAL:
                piles[self.capturer] += 1
            else:
                supplies[colour_of(piece)][kind_of(piece)] += 1
        after = self._evolve(
            board=bytes(board),
            piles=(piles[0], piles[1]),
            supplies=(
                (supplies[0][0], supplies[0][1]),
                (supplies[1][0], supplies[1][1]),
            ),
            pending=frozenset(),
        )
        return after._settled()

    @property
    def obligations(self) -> tuple[Obligation, ...]:
        if not self.pending or self.result is not None:
            return ()
        found = []
        for cell in sorted(self.pending):
            piece = self.at(cell)
            colour, kind = colour_of(piece), kind_of(piece)
            if colour == NEUTRAL:
                target, whose = pile_name(self.capturer), f"{SEATS[self.capturer]}'s captured pile"
                what, to = f"the neutral {TYPES[kind]}", "to your captured pile"
            else:
                target, whose = supply_name(colour, kind), f"{SEATS[colour]}'s supply"
                what, to = f"{SEATS[colour]}'s {TYPES[kind]}", f"back to {whose}"
            where = cell_name(cell)
            detail = f"captured: {what} on {where} goes to {whose}"
            todo = f"carry {what} on {where} {to}"
            found.append(Obligation(detail, frozenset((cell,)), frozenset((target,)), todo))
        return tuple(found)

    def why_illegal(self, action: Action) -> str:
        if self.pending:
            return "first take the captured meeples off the board"
        if isinstance(action, Place) and self.moving < 0:
            if not self.supplies[self.to_move][action.kind]:
                return f"{self.player_name} has no {TYPES[action.kind]} left"
            if action.cell not in self.area:
                return f"{cell_name(action.cell)} is not on a tile"
            return f"{cell_name(action.cell)} is not empty"
        if isinstance(action, Place):
            return f"the meeple is placed: now the tile at {cell_name(self.tiles[self.moving])}"
        return super().why_illegal(action)

    def __str__(self) -> str:
        marks = {
            code(c, k): f"{'abn'[c] if c == NEUTRAL else 'AB'[c]}{'kp'[k]}"
            for c in (0, 1, 2)
            for k in (0, 1)
        }
        grid = self.draw_tiles(lambda piece: marks[piece])
        (ak, ap), (bk, bp) = self.supplies
        return (
            f"{grid}\nsupplies A {ak}K {ap}P, B {bk}K {bp}P;"
            f" captured A {self.piles[0]}, B {self.piles[1]}"
        )


def _start(options: Mapping[str, Any]) -> MeepleState:
    width, height = parse_area(options["area"], smallest=6)
    x, y = (width - 2) // 2, (height - 2) // 2
    tiles = ((x, y), (x, y + 2), (x, y - 2), (x - 2, y), (x + 2, y))
    kitten, puppy = code(NEUTRAL, 0), code(NEUTRAL, 1)
    # For 10x10: kitten e8, puppy g6, kitten f3, puppy d5, puppy e6, kitten f5.
    neutrals = {
        (0, 3): kitten,
        (2, 1): puppy,
        (1, -2): kitten,
        (-1, 0): puppy,
        (0, 1): puppy,
        (1, 0): kitten,
    }
    pieces = {(x + dx, y + dy): piece for (dx, dy), piece in neutrals.items()}
    return MeepleState.laid_out(width, height, tiles, pieces, max_turns=options["max_turns"])


def _universe(state: State) -> tuple[Action, ...]:
    width, height = state.extent
    cells = [(x, y) for y in range(height) for x in range(width)]
    places = (Place(kind, cell) for kind in (0, 1) for cell in cells)
    return (*places, *every_tile_action(state.extent))


def _phrase(action: Action, state: State | None) -> Phrase | None:
    if not isinstance(action, Place):
        return None
    return put(f"{with_article(TYPES[action.kind])} on {cell_name(action.cell)}")


GAME = Game(
    name="meeple-maneuver",
    title="Meeple Maneuver",
    summary="Five 2x2 tiles: place a meeple, move its tile twice; kittens sandwich puppies and"
    " puppies kittens; three neutral captures win.",
    seats=SEATS,
    board=(10, 10),
    options=(
        Option("area", "10x10", "the columns and rows the tiles may use (COLUMNSxROWS)"),
        Option("setup", "plus", "the start: five tiles in a plus in the middle", ("plus",)),
        Option("max_turns", 200, "a game this many turns long is a draw", (), 10, 10_000),
    ),
    start=_start,
    parse_action=parse_action,
    rules_file="meeple-maneuver.md",
    ends_at_max_turns=True,
    universe=_universe,
    phrase=_phrase,
)
MeepleState.game = GAME
