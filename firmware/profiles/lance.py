"""Lance Assembly on r1: tiles told apart by their magnets, waiting in boxes off the board.

A's tiles are north-down and B's south-down (the centre channel), the neutral tile trips the
inner ring: every cell says whose tile is on it, so a slid group is read from the frame alone.
Thirty-seven tiles are more than the trays' sensed slots, so they wait in boxes no sensor sees;
the board learns of a placement from the cell it lands on.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from itertools import combinations
from typing import Any

from magboard.firmware.games import CARRY_OUT, Action, Cell, State, get_game
from magboard.firmware.games.lance import (
    BOXES,
    NEUTRAL,
    SIDE,
    LanceState,
    Place,
    PlaceNeutral,
    Slide,
)
from magboard.hardware.spec import BoardSpec

from .base import Profile
from .parts import Layout, PieceKind, Step, Supply

BOARDS_KEPT = 64
"""Frames whose board `_board_of` remembers."""


class LanceProfile(Profile):
    def draw(self, state: State) -> int:
        """Straight from the board's bytes: the referee draws every position it considers, and
        a turn of Lance Assembly considers many."""
        assert isinstance(state, LanceState)
        bits, frame = self._cell_bits, 0
        for i, v in enumerate(state.board):
            if v:
                frame |= bits[i][v]
        return frame

    def may_become(self, state: State, frame: int) -> bool:
        """What is left of a turn is at most one own tile placed, one slide along a row or a
        column, and the neutral tile: the cells where `frame`'s board differs from the
        position's, but for those placements, must lie on one line, and only while a slide is
        still to come."""
        assert isinstance(state, LanceState)
        target = self._board_of(frame)
        if target is None:
            return False
        board = state.board
        if board == target:
            return True
        own, other = 1 << state.to_move, 2 >> state.to_move
        gained = {
            label: target.count(label) - board.count(label) for label in (own, other, NEUTRAL)
        }
        if gained[other] or gained[own] not in (0, 1) or gained[NEUTRAL] not in (0, 1):
            return False  # counted first: most positions a search weighs fail here, cheaply
        diff = [i for i, (was, now) in enumerate(zip(board, target, strict=True)) if was != now]
        if gained[own] and not state.may_place_own:
            return False
        if gained[NEUTRAL] and not state.may_place_neutral:
            return False
        arrivals = [i for i in diff if not board[i] and gained.get(target[i], 0)]
        if not state.may_slide:
            return len(diff) == len(arrivals) == gained[own] + gained[NEUTRAL]
        placements = gained[own] + gained[NEUTRAL]
        return any(
            _in_a_line([i for i in diff if i not in dropped])
            for size in range(placements + 1)
            for dropped in combinations(arrivals, size)
        )

    def _board_of(self, frame: int) -> bytes | None:
        """The tile on each game cell as `frame` shows it, None if some cell shows what no
        tile makes. A search asks this of the same few frames (the one judged, those passed
        through) for every position it weighs: each is read once."""
        known = self._boards
        if frame in known:
            return known[frame]
        if len(known) >= BOARDS_KEPT:
            known.clear()
        board = bytearray()
        for mask, labels in self._cell_reading:
            label = labels.get(frame & mask)
            if label is None:
                known[frame] = None
                return None
            board.append(label)
        known[frame] = bytes(board)
        return known[frame]

    @cached_property
    def _boards(self) -> dict[int, bytes | None]:
        return {}

    @cached_property
    def _cell_reading(self) -> tuple[tuple[int, dict[int, int]], ...]:
        """Per game cell, row-major: its sensor bits, and the tile label each reading means."""
        return tuple(
            (
                self.sensors.spot_mask(self.to_board((i % SIDE, i // SIDE))),
                {0: 0, **{b: label for label, b in bits.items()}},
            )
            for i, bits in enumerate(self._cell_bits)
        )

    @cached_property
    def _cell_bits(self) -> tuple[dict[int, int], ...]:
        """Per game cell, row-major, the frame bits of each tile label standing there."""
        a, b, neutral = self.kinds
        table = []
        for i in range(SIDE * SIDE):
            cell = self.to_board((i % SIDE, i // SIDE))
            table.append(
                {
                    label: self.frame_of(Layout({cell: (kind,)}, {}))
                    for label, kind in ((1, a), (2, b), (NEUTRAL, neutral))
                }
            )
        return tuple(table)

    def layout(self, state: State) -> Layout:
        assert isinstance(state, LanceState)
        a, b, neutral = self.kinds
        by_label = {1: a, 2: b, NEUTRAL: neutral}
        cells = {
            self.to_board((i % SIDE, i // SIDE)): (by_label[v],)
            for i, v in enumerate(state.board)
            if v
        }
        supplies = {"A": state.supplies[0], "B": state.supplies[1], "N": int(state.neutral_in_hand)}
        return Layout(cells, supplies)

    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        game_cell = self.to_game(cell)
        if game_cell is None:
            return None
        return PlaceNeutral(game_cell) if kind.owner is None else Place(game_cell)

    def plan(self, state: State, action: Action) -> tuple[Step, ...]:
        assert isinstance(state, LanceState)
        if isinstance(action, Place):
            return (Step(BOXES[state.to_move], self.to_board(action.cell)),)
        if isinstance(action, PlaceNeutral):
            return (Step("N", self.to_board(action.cell)),)
        if isinstance(action, Slide):
            return tuple(
                Step(self.to_board(old), self.to_board(new), slide=True)
                for old, new in zip(action.cells, action.moved, strict=True)
            )
        if action == CARRY_OUT:  # between bouts: every tile back to its box
            boxes = {1: BOXES[0], 2: BOXES[1], NEUTRAL: BOXES[2]}
            return tuple(
                Step(self.to_board((i % SIDE, i // SIDE)), boxes[v])
                for i, v in enumerate(state.board)
                if v
            )
        return ()


def _in_a_line(cells: list[int]) -> bool:
    """Whether the cells (row-major indices) lie in one row or one column."""
    return len({i // SIDE for i in cells}) <= 1 or len({i % SIDE for i in cells}) <= 1


def lance_profile(spec: BoardSpec, options: Mapping[str, Any] | None = None) -> LanceProfile:
    a = PieceKind("A", frozenset({"n"}), 0, "A")
    b = PieceKind("B", frozenset({"s"}), 1, "B")
    neutral = PieceKind("N", frozenset({"i"}), None, "N")
    supplies = tuple(Supply(kind.name, (kind,)) for kind in (a, b, neutral))
    origin = ((spec.columns - SIDE) // 2, (spec.rows - SIDE) // 2)
    return LanceProfile(get_game("lance-assembly"), spec, origin, (a, b, neutral), supplies)
