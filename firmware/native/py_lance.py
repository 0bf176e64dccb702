"""Lance Assembly's compact bout engine in plain Python: the twin of the C kernel (lance.c).

A bout in progress as a handful of integers (`Position`): one 36-bit mask of cells per owner
(seat A, seat B, the neutral tile), the supplies, the turn's phase, and what the repetition and
`max_turns` rules need. Actions are small integer codes (`PLACE`, `NEUTRAL`, `END`, slides from
`SLIDE`), listed in the order of the rules' legal actions, generated without any
legality re-check. `playout` plays uniformly random actions to the end of the bout with one
integer generator (splitmix64) that the C kernel also implements, so both give the same bout,
action for action, for the same seed: that is what the tests compare.

Cells are row-major from a1 (cell i is column i % 6, row i // 6), bit i of each mask.
"""

from __future__ import annotations

from typing import NamedTuple

SIDE = 6
CELLS = SIDE * SIDE
ALL = (1 << CELLS) - 1
LANCE = 5
MIN_EMPTY_TO_PLACE = 5
"""Placing (a tile or the neutral) needs more than four empty cells."""

PLACE = 0
"""`PLACE + cell`: one of the mover's tiles onto an empty cell."""
NEUTRAL = 36
"""`NEUTRAL + cell`: the neutral tile onto an empty cell."""
END = 72
"""Ends a turn that could go on."""
SLIDE = 256
"""`SLIDE + ((rear * 4 + way) * 6 + length) * 6 + distance`: the group of `length` tiles from
`rear` moved `distance` cells `way` (0 >, 1 <, 2 ^, 3 v: `lance.DIRECTIONS`' order)."""
CODES = SLIDE + CELLS * 4 * 36
"""Every code is below this."""
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""Column and row step of each way, in code order."""

ONGOING = -2
STALEMATE = -1
"""`Position.result` while the bout goes on, and for a bout no one won; else the winning seat."""

M64 = (1 << 64) - 1


class Position(NamedTuple):
    """A Lance Assembly bout in progress, or just ended (`result`)."""

    a: int
    """Mask of seat A's tiles."""
    b: int
    """Mask of seat B's tiles."""
    neutral: int
    """Mask of the neutral tile (0 while it is in hand)."""
    to_move: int
    starter: int
    """The bout's starter (the rules' A); the other seat holds the neutral tile."""
    supply_a: int
    supply_b: int
    in_hand: bool
    """The neutral tile is still in hand."""
    placed: bool
    slid: bool
    bout_turn: int
    """Turns completed in this bout."""
    max_turns: int
    seen: tuple[tuple[int, int], ...]
    """(repetition key, times seen) of the positions turns have ended in since the last tile
    was placed, sorted: only those can come up again."""
    result: int = ONGOING


def repetition_key(a: int, b: int, neutral: int, to_move: int, in_hand: bool) -> int:
    """What the repetition rule compares, as one integer (the C kernel's two words of it)."""
    return a | b << 36 | neutral << 72 | to_move << 108 | int(in_hand) << 109


def _rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per cell, per way: the cells from it (itself first) to the board's edge."""
    rays = []
    for i in range(CELLS):
        per_way = []
        for dx, dy in STEPS:
            col, row, ray = i % SIDE, i // SIDE, []
            while 0 <= col < SIDE and 0 <= row < SIDE:
                ray.append(row * SIDE + col)
                col, row = col + dx, row + dy
            per_way.append(tuple(ray))
        rays.append(tuple(per_way))
    return tuple(rays)


RAYS = _rays()


def _slide_moves() -> list[tuple[int, int] | None]:
    """Per code, a slide's group mask and the shift that moves it (None for other codes)."""
    moves: list[tuple[int, int] | None] = [None] * CODES
    for rear in range(CELLS):
        for way, (dx, dy) in enumerate(STEPS):
            ray = RAYS[rear][way]
            for length in range(1, len(ray)):
                group = sum(1 << c for c in ray[:length])
                for distance in range(1, len(ray) - length + 1):
                    code = SLIDE + ((rear * 4 + way) * 6 + length) * 6 + distance
                    moves[code] = (group, distance * (dx + SIDE * dy))
    return moves


SLIDE_MOVES = _slide_moves()


def _lance_windows() -> tuple[tuple[int, int], ...]:
    """Per line direction, its step in cells and the mask of cells a five-cell window in that
    direction may start from (it stays on the board, so shifting never wraps a row)."""
    windows = []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        starts = 0
        for i in range(CELLS):
            col, row = i % SIDE, i // SIDE
            end_col, end_row = col + (LANCE - 1) * dx, row + (LANCE - 1) * dy
            if 0 <= end_col < SIDE and 0 <= end_row < SIDE:
                starts |= 1 << i
        windows.append((dx + SIDE * dy, starts))
    return tuple(windows)


LANCE_WINDOWS = _lance_windows()
FIRST_COLUMN = sum(1 << (r * SIDE) for r in range(SIDE))
LAST_COLUMN = FIRST_COLUMN << (SIDE - 1)


def has_lance(tiles: int) -> bool:
    """Five or more of these tiles in consecutive cells of a row, a column or a diagonal."""
    for step, starts in LANCE_WINDOWS:
        run = tiles & starts
        for k in range(1, LANCE):
            run &= tiles >> (k * step)
        if run:
            return True
    return False


def slide_exists(occupied: int) -> bool:
    """A tile beside an empty cell can always slide one cell into it."""
    empty = ~occupied & ALL
    beside_empty = (
        (empty << 1 & ~FIRST_COLUMN)  # the cell to the left is empty
        | (empty >> 1 & ~LAST_COLUMN)  # to the right
        | empty << SIDE  # below
        | empty >> SIDE  # above
    )
    return bool(occupied & beside_empty)


class _Bout:
    """A position being played: the mutable working copy of a `Position`."""

    __slots__ = (
        "a",
        "b",
        "bout_turn",
        "in_hand",
        "max_turns",
        "neutral",
        "placed",
        "result",
        "seen",
        "slid",
        "starter",
        "supply",
        "to_move",
    )

    def __init__(self, p: Position) -> None:
        self.a, self.b, self.neutral = p.a, p.b, p.neutral
        self.to_move, self.starter = p.to_move, p.starter
        self.supply = [p.supply_a, p.supply_b]
        self.in_hand, self.placed, self.slid = p.in_hand, p.placed, p.slid
        self.bout_turn, self.max_turns = p.bout_turn, p.max_turns
        self.seen = dict(p.seen)
        self.result = p.result

    def position(self) -> Position:
        return Position(
            self.a,
            self.b,
            self.neutral,
            self.to_move,
            self.starter,
            self.supply[0],
            self.supply[1],
            self.in_hand,
            self.placed,
            self.slid,
            self.bout_turn,
            self.max_turns,
            tuple(sorted(self.seen.items())),
            self.result,
        )

    def may_place_neutral(self, empty_cells: int) -> bool:
        return self.to_move != self.starter and self.in_hand and empty_cells >= MIN_EMPTY_TO_PLACE

    def legal(self) -> list[int]:
        """The legal codes, in the rules' order: own placements, slides, the neutral tile's
        placements, ending the turn."""
        if self.result != ONGOING:
            return []
        occupied = self.a | self.b | self.neutral
        empty_cells = CELLS - occupied.bit_count()
        empties = [i for i in range(CELLS) if not occupied >> i & 1]
        codes: list[int] = []
        placed, slid = self.placed, self.slid
        if (
            not placed
            and not slid
            and empty_cells >= MIN_EMPTY_TO_PLACE
            and self.supply[self.to_move]
        ):
            codes += empties
        if self.bout_turn > 0 and not slid:
            append = codes.append
            tiles = [i for i in range(CELLS) if occupied >> i & 1]
            for way in range(4):
                for rear in tiles:
                    # The group runs from the rear to the last tile in a row: a shorter one
                    # has a tile right in front of it, so only the whole run can move.
                    ray = RAYS[rear][way]
                    reach = len(ray)
                    length = 1
                    while length < reach and occupied >> ray[length] & 1:
                        length += 1
                    code = SLIDE + ((rear * 4 + way) * 6 + length) * 6
                    for cell in ray[length:]:
                        if occupied >> cell & 1:
                            break
                        code += 1
                        append(code)
        if self.may_place_neutral(empty_cells):
            codes += [NEUTRAL + i for i in empties]
        if placed or slid:
            codes.append(END)
        return codes

    def play(self, code: int) -> None:
        """Plays a code that `legal` listed."""
        if code == END:
            self.end_turn()
            return
        if code < NEUTRAL:
            if self.to_move == 0:
                self.a |= 1 << code
            else:
                self.b |= 1 << code
            self.supply[self.to_move] -= 1
            self.placed = True
            self.seen = {}  # one tile more than every position seen: none can recur
        elif code < END:
            self.neutral = 1 << (code - NEUTRAL)
            self.in_hand = False
            self.seen = {}
        else:
            move = SLIDE_MOVES[code]
            assert move is not None
            group, shift = move
            self.a, self.b, self.neutral = (
                _slid(self.a, group, shift),
                _slid(self.b, group, shift),
                _slid(self.neutral, group, shift),
            )
            self.slid = True
        if self.bout_turn == 0 or self.nothing_left():
            self.end_turn()

    def nothing_left(self) -> bool:
        """The turn has done its part and no action but ending it remains."""
        if not (self.placed or self.slid):
            return False
        occupied = self.a | self.b | self.neutral
        if self.may_place_neutral(CELLS - occupied.bit_count()):
            return False
        return self.slid or not slide_exists(occupied)

    def end_turn(self) -> None:
        mover = self.to_move
        self.to_move = 1 - mover
        self.bout_turn += 1
        self.placed = self.slid = False
        key = repetition_key(self.a, self.b, self.neutral, self.to_move, self.in_hand)
        times = self.seen.get(key, 0)
        if times < 2:  # a third time ends the bout: no count above two is ever needed
            self.seen[key] = times + 1
        lances = (self.a, self.b)
        if has_lance(lances[mover]):
            self.result = mover
        elif has_lance(lances[1 - mover]):
            self.result = 1 - mover
        elif times >= 2 or self.bout_turn >= self.max_turns:
            self.result = STALEMATE


def _slid(tiles: int, group: int, shift: int) -> int:
    moving = tiles & group
    if not moving:
        return tiles
    moved = moving << shift if shift > 0 else moving >> -shift
    return tiles & ~group | moved


def legal(position: Position) -> list[int]:
    """The legal action codes of `position`, in the rules' order (none once the bout is over)."""
    return _Bout(position).legal()


def play(position: Position, code: int) -> Position:
    """The position after a code that `legal(position)` listed (not checked again)."""
    bout = _Bout(position)
    bout.play(code)
    return bout.position()


def next_random(state: int) -> tuple[int, int]:
    """splitmix64: the generator's next state and its output, both 64-bit."""
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def playout(position: Position, seed: int, trace: list[int] | None = None) -> tuple[int, int]:
    """Uniformly random legal actions (the generator's output modulo their number) to the end of
    the bout: its result (the winning seat or STALEMATE) and the number of actions played.
    `trace`, if given, receives the codes played."""
    bout = _Bout(position)
    state = seed & M64
    steps = 0
    while bout.result == ONGOING:
        codes = bout.legal()
        if not codes:  # no reachable bout gets here: a tile can always slide somewhere
            raise ValueError(f"no legal action in {position}")
        state, drawn = next_random(state)
        code = codes[drawn % len(codes)]
        if trace is not None:
            trace.append(code)
        bout.play(code)
        steps += 1
    return bout.result, steps
