"""Lance Assembly on r1: tiles told apart by their magnets, waiting in boxes off the board.

A's tiles are north-down and B's south-down (the centre channel), the neutral tile trips the
inner ring: every cell says whose tile is on it, so a slid group is read from the frame alone.
Thirty-seven tiles are more than the trays' sensed slots, so they wait in boxes no sensor sees;
the board learns of a placement from the cell it lands on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from itertools import combinations, product
from typing import Any

from magboard.firmware.games import CARRY_OUT, Action, Cell, State, get_game
from magboard.firmware.games.lance import (
    BOXES,
    CELL_BITS,
    COLUMNS,
    DIRECTIONS,
    NEUTRAL,
    ROWS,
    SIDE,
    SPREAD,
    LanceState,
    Place,
    PlaceNeutral,
    Slide,
)
from magboard.hardware.spec import BoardSpec

from .base import Profile
from .parts import Layout, PieceKind, Step, Supply
from .registry import register_profile

BOARDS_KEPT = 64
"""Frames whose board `_target_of` remembers: a search asks of the same few frames (the one
judged, those passed through) for every position it weighs, so each is read once."""
CHUNK = 3
"""Cells drawn by one table lookup (`_chunk_bits`): 64 ways to fill three cells."""


class LanceProfile(Profile):
    def draw(self, state: State) -> int:
        """Straight from the board's bytes: the referee draws every position it considers, and
        a turn of Lance Assembly considers many."""
        assert isinstance(state, LanceState)
        board, frame = state.board, 0
        for start, bits in self._chunk_bits:
            frame |= bits[board[start : start + CHUNK]]
        return frame

    def may_become(self, state: State, frame: int) -> bool:
        return self.may_become_any(state, (frame,))

    def may_become_any(self, state: State, frames: Iterable[int]) -> bool:
        """What is left of a turn is at most one own tile placed, one slide along a row or a
        column, and the neutral tile: the cells where a frame's board differs from the
        position's, but for those placements, must lie on one line, and only while a slide is
        still to come. The search asks this of every position it weighs, for every frame it
        may be heading for: the position is counted once for them all, and the boards are
        compared as spread masks (`CELL_BITS`), a few integer operations each."""
        assert isinstance(state, LanceState)
        board = state.board
        x = int.from_bytes(board, "little")
        own, other = 1 << state.to_move, 2 >> state.to_move
        others = ((x >> (other - 1)) & SPREAD).bit_count()
        heading = self._targets_by_count(frames)[other].get(others)
        if heading is None:
            return False  # most positions a search weighs fail here, at one look-up
        owns = ((x >> (own - 1)) & SPREAD).bit_count()
        neutrals = ((x >> 2) & SPREAD).bit_count()
        for target, t, counts in heading:
            if board == target:
                return True
            gained_own, gained_neutral = counts[own] - owns, counts[NEUTRAL] - neutrals
            if gained_own not in (0, 1) or gained_neutral not in (0, 1):
                continue
            if gained_own and not state.may_place_own:
                continue
            if gained_neutral and not state.may_place_neutral:
                continue
            if _in_reach(state, x, t, gained_own, gained_neutral):
                return True
        return False

    def _targets_by_count(
        self, frames: Iterable[int]
    ) -> dict[int, dict[int, tuple[tuple[bytes, int, dict[int, int]], ...]]]:
        """The boards of `frames` (`_target_of`) that some tile makes, per label and per how
        many tiles of it they show: a turn never takes the other player's tiles away nor adds
        one, so a position is weighed only against the frames with as many of them. Kept for
        the last few sets of frames asked about, as a search asks of the same ones for every
        position it weighs."""
        key = frames if isinstance(frames, frozenset) else frozenset(frames)
        known = self._grouped
        grouped = known.get(key)
        if grouped is None:
            if len(known) >= BOARDS_KEPT:
                known.clear()
            grouped = known[key] = {1: {}, 2: {}}
            for frame in key:
                seen = self._target_of(frame)
                if seen is None:
                    continue
                for label in (1, 2):
                    by_count = grouped[label]
                    by_count[seen[2][label]] = (*by_count.get(seen[2][label], ()), seen)
        return grouped

    @cached_property
    def _grouped(self) -> dict[frozenset[int], dict[int, dict[int, tuple]]]:
        return {}

    def _target_of(self, frame: int) -> tuple[bytes, int, dict[int, int]] | None:
        """`frame`'s board (`_board_of`), also as an integer, with how many cells hold each
        label; None if some cell shows what no tile makes."""
        known = self._targets
        if frame in known:
            return known[frame]
        if len(known) >= BOARDS_KEPT:
            known.clear()
        board = self._board_of(frame)
        if board is None:
            known[frame] = None
        else:
            known[frame] = (
                board,
                int.from_bytes(board, "little"),
                {label: board.count(label) for label in (1, 2, NEUTRAL)},
            )
        return known[frame]

    @cached_property
    def _targets(self) -> dict[int, tuple[bytes, int, dict[int, int]] | None]:
        return {}

    def _board_of(self, frame: int) -> bytes | None:
        """The tile on each game cell as `frame` shows it, None if some cell shows what no
        tile makes."""
        board = bytearray()
        for mask, labels in self._cell_reading:
            label = labels.get(frame & mask)
            if label is None:
                return None
            board.append(label)
        return bytes(board)

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
    def _chunk_bits(self) -> tuple[tuple[int, dict[bytes, int]], ...]:
        """Per run of `CHUNK` cells, row-major: where it starts, and the frame bits of every way
        its cells may be filled. A board is drawn in twelve lookups instead of a loop over its
        36 cells."""
        table = []
        for start in range(0, SIDE * SIDE, CHUNK):
            bits = {}
            for labels in product((0, 1, 2, NEUTRAL), repeat=CHUNK):
                frame = 0
                for i, label in enumerate(labels, start):
                    if label:
                        frame |= self._cell_bits[i][label]
                bits[bytes(labels)] = frame
            table.append((start, bits))
        return tuple(table)

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

    def moving(self, state: State, source: Cell, target: Cell) -> Action | None:
        """A tile pushed from `source` to `target` along a row or a column: the slide of the
        group of tiles side by side from `source` that way, its leading tile reaching
        `target`."""
        start = self.to_game(source)
        dx, dy = target[0] - source[0], target[1] - source[1]
        if start is None or (dx == 0) == (dy == 0):
            return None
        span = abs(dx) + abs(dy)
        step = (dx // span, dy // span)
        way = next(name for name, delta in DIRECTIONS.items() if delta == step)
        cells = self.layout(state).cells
        length = 1
        while (
            length < span and (source[0] + length * step[0], source[1] + length * step[1]) in cells
        ):
            length += 1
        return Slide(start, length, way, span - length + 1)

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


def _in_reach(state: LanceState, x: int, t: int, gained_own: int, gained_neutral: int) -> bool:
    """Whether the board `x` may still become `t` (both read as integers) by the placements
    counted (each 0 or 1, and allowed) and at most the one slide the turn may still make."""
    d = x ^ t
    diff = (d | d >> 1 | d >> 2) & SPREAD
    own = 1 << state.to_move
    arriving = (t >> (own - 1) if gained_own else 0) | (t >> 2 if gained_neutral else 0)
    arrivals = diff & ~(x | x >> 1 | x >> 2) & arriving  # empty here, a placed label there
    placements = gained_own + gained_neutral
    if not state.may_slide:
        return diff.bit_count() == arrivals.bit_count() == placements
    # Leaving out any `placements` of the arrivals, or all of them if fewer: leaving out fewer
    # never helps, as what lies on a line still does with cells taken away.
    if arrivals.bit_count() <= placements:
        return _in_a_line(diff & ~arrivals)
    bits, rest = [], arrivals
    while rest:
        bits.append(rest & -rest)
        rest ^= bits[-1]
    return any(_in_a_line(diff & ~sum(dropped)) for dropped in combinations(bits, placements))


def _in_a_line(cells: int) -> bool:
    """Whether the cells (a spread mask) lie in one row or one column: those of the lowest."""
    if not cells:
        return True
    first = ((cells & -cells).bit_length() - 1) // CELL_BITS
    return not cells & ~ROWS[first // SIDE] or not cells & ~COLUMNS[first % SIDE]


def lance_profile(spec: BoardSpec, options: Mapping[str, Any] | None = None) -> LanceProfile:
    a = PieceKind("A", frozenset({"n"}), 0, "A")
    b = PieceKind("B", frozenset({"s"}), 1, "B")
    neutral = PieceKind("N", frozenset({"i"}), None, "N", single="neutral tile N")
    supplies = tuple(Supply(kind.name, (kind,)) for kind in (a, b, neutral))
    origin = ((spec.columns - SIDE) // 2, (spec.rows - SIDE) // 2)
    return LanceProfile(get_game("lance-assembly"), spec, origin, (a, b, neutral), supplies)


register_profile(get_game("lance-assembly"), lance_profile)
