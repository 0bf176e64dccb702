"""Lance Assembly, sliding tic-tac-toe (rules/lance-assembly.md): a match of bouts.

A turn is a place, a slide, or a place then a slide, and the bout's second player may put the
neutral tile down at any moment of its turn; lances (five or more in a line) are judged once the
whole turn is over, the mover first. The board cannot see a turn end that could go on, so the
player ends it (END_TURN, the seat button); a turn with nothing left to do ends by itself.

Seats A and B keep their colours all match long; the rules' "A" and "B" are roles, the bout's
starter and the other player, and the starter alternates between bouts (a stalemated bout is
replayed with the same starter). A bout that ends without ending the match leaves its tiles on
the board: clearing them is the obligation that opens the next bout, so the match, its score and
its bouts are one game the journal replays. A clock is not the rules' business, but what happens
when it runs out is: `FlagFell`, which the clock reports and no player can choose.

The position, for repetition, is the board, the player to move and whether the neutral tile is
still in hand; the key adds the bout's turn count (for `max_turns`), the positions that may still
come up again with how often they already have, and the match around it: two states that look
alike but are nearer a stalemate have different futures, and perft and the referee memoise by
key and by equality.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from operator import itemgetter
from typing import Any

from magboard.firmware import native

from ..core import (
    CARRY_OUT,
    END_TURN,
    Action,
    ClockRules,
    Game,
    Obligation,
    Option,
    Outcome,
    State,
)
from ..grid import Cell, cell_name, draw_grid
from .actions import (
    BOUTS_TO_WIN,
    BOXES,
    CELL_BITS,
    CELLS,
    DIRECTIONS,
    FIRST_COLUMN,
    LAST_COLUMN,
    MIN_EMPTY_TO_PLACE,
    NEUTRAL,
    NO_POSITIONS,
    ROW_BITS,
    SEATS,
    SHAPE,
    SIDE,
    SPREAD,
    TILES,
    FlagFell,
    Place,
    PlaceNeutral,
    Seen,
    Slide,
    _cell,
    _index,
    occupied,
    parse_action,
    phrase,
    undo_phrase,
    universe,
)


@dataclass(frozen=True)
class BoutResult:
    """How a bout ended: its winner (None for a stalemate), why, and the lance that won it."""

    winner: int | None
    reason: str
    cells: frozenset[Cell] = frozenset()


@dataclass(frozen=True)
class LanceState(State):
    board: bytes = bytes(CELLS)
    """Per cell, row-major from a1: 0 empty, 1 seat A's tile, 2 seat B's tile, 4 the neutral."""
    to_move: int = 0
    turn: int = 0
    supplies: tuple[int, int] = (TILES, TILES)
    """Tiles each seat still has off the board."""
    neutral_in_hand: bool = True
    placed: bool = False
    """This turn has placed a tile."""
    slid: bool = False
    """This turn has slid a group (after which only the neutral tile may follow)."""
    seen_once: frozenset[Seen] = field(default=NO_POSITIONS, repr=False)
    """Positions this bout's turns have ended in once, of those that can still come up again.
    Tiles never leave the board during a bout, so once a turn places a tile (its own or the
    neutral) no earlier position can recur: placing forgets them all, which keeps this small
    and lets states that differ only in such a past compare (and key) equal."""
    seen_twice: frozenset[Seen] = field(default=NO_POSITIONS, repr=False)
    """Positions the turns have ended in twice, of those that can still come up again: the next
    time is the third, a stalemate, so no position needs a higher count."""
    max_turns: int = 300
    starter: int = 0
    """The seat that started this bout (the rules' A); the other holds the neutral tile."""
    opened: int = 0
    """`turn` when this bout began."""
    bouts: tuple[BoutResult, ...] = ()
    """Every finished bout of the match, this one included once it is over."""
    over: bool = False
    """This bout is over (its result is the last of `bouts`): its tiles are still to clear."""
    flag: int | None = None
    """The seat whose time ran out in this bout."""

    @property
    def can_end_turn(self) -> bool:
        return (self.placed or self.slid) and not self.over

    def _evolve(self, **changes: Any) -> LanceState:
        """This state with `changes`: `dataclasses.replace` without its per-call checks, as the
        referee's search makes thousands of states for one judged frame."""
        after = object.__new__(LanceState)
        values = after.__dict__
        for name in _FIELDS:
            values[name] = self.__dict__[name]
        values.update(changes)
        return after

    def __hash__(self) -> int:
        """The dataclass's hash (all fields, in order), worked out once: the referee's search
        looks each position it makes up in its render cache and its set of expanded positions,
        and a tuple of fifteen fields is not cheap to hash each time. Only the fields are
        copied to a new state (`_evolve`), never this."""
        known = self.__dict__.get("_hash")
        if known is None:
            known = self.__dict__["_hash"] = hash(_field_values(self.__dict__))
        return known

    @property
    def must_pass(self) -> bool:
        return False  # a tile can always slide, and the first turn always places

    @property
    def bout(self) -> int:
        """This bout's number, from 1 (a replayed stalemate is a bout of its own)."""
        return len(self.bouts) + (0 if self.over else 1)

    @property
    def bout_turn(self) -> int:
        return self.turn - self.opened

    @property
    def _position(self) -> Hashable:
        return self.board, self.to_move, self.neutral_in_hand

    def key(self) -> Hashable:
        return (
            *self._position,
            self.bout_turn,
            self.placed,
            self.slid,
            self.starter,
            self.bouts,
            self.over,
            self.seen_once,
            self.seen_twice,
        )

    @property
    def _empty(self) -> int:
        """Counted each time: cheaper than a cached property's lookup in the search."""
        return self.board.count(0)

    def _may_place(self) -> bool:
        return self._empty >= MIN_EMPTY_TO_PLACE

    @property
    def may_place_neutral(self) -> bool:
        return self.to_move != self.starter and self.neutral_in_hand and self._may_place()

    @property
    def may_place_own(self) -> bool:
        return (
            not self.placed and not self.slid and self._may_place() and self.supplies[self.to_move]
        )

    @property
    def may_slide(self) -> bool:
        return not self.over and self.bout_turn > 0 and not self.slid

    def _legal(self) -> tuple[Action, ...]:
        if self.over:
            return () if self.outcome() is not None else (CARRY_OUT,)
        empty = [_cell(i) for i, v in enumerate(self.board) if not v]
        actions: list[Action] = []
        if self.may_place_own:
            actions += [Place(c) for c in empty]
        if self.may_slide:
            actions += self._slides()
        if self.may_place_neutral:
            actions += [PlaceNeutral(c) for c in empty]
        if self.can_end_turn:
            actions.append(END_TURN)
        return tuple(actions)

    def on_time_up(self) -> Action | None:
        return None if self.over else FlagFell(self.to_move)

    def is_legal(self, action: Action) -> bool:
        """A placement or a slide is looked for among the legal actions on the cells it
        touches, unless every legal action is listed already: listing every slide of the board
        to check one made replaying a journalled match slow."""
        if isinstance(action, FlagFell):
            return not self.over and action.seat == self.to_move
        if isinstance(action, Place | PlaceNeutral | Slide) and "_legal_cache" not in self.__dict__:
            return action in self.actions_within(action.touches)
        return super().is_legal(action)

    def actions_within(self, cells: frozenset[Cell]) -> tuple[Action, ...]:
        """Only placements on `cells` and slides whose changed cells lie in `cells`: the
        referee's candidates, without listing every slide of the board."""
        if self.over:
            return ()
        board = self.board
        empty = [
            _index(c)
            for c in cells
            if 0 <= c[0] < SIDE and 0 <= c[1] < SIDE and not board[_index(c)]
        ]
        actions: list[Action] = []
        if self.may_place_own:
            actions += [_PLACES[i] for i in empty]
        if self.may_slide:
            actions += self._slides_within(cells)
        if self.may_place_neutral:
            actions += [_NEUTRALS[i] for i in empty]
        return tuple(actions)

    def _slides_within(self, cells: frozenset[Cell]) -> list[Slide]:
        """The legal slides whose emptied and filled cells all lie in `cells`, found without
        listing the others: the rear cell is always emptied, so only groups starting there."""
        board = self.board
        inside = {_index(c) for c in cells if 0 <= c[0] < SIDE and 0 <= c[1] < SIDE}
        outside = ~sum(1 << i for i in inside)
        slides = []
        for rear in inside:
            if not board[rear]:
                continue
            for line, options in _SLIDES_FROM[rear]:
                for length in range(1, len(line)):
                    if not board[line[length - 1]]:
                        break
                    for distance in range(1, len(line) - length + 1):
                        if board[line[length + distance - 1]]:
                            break
                        touched, slide = options[length - 1][distance - 1]
                        if not touched & outside:
                            slides.append(slide)
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
        kind = type(action)  # the search's actions first, without an ABC's instance check
        if kind is not Place and kind is not PlaceNeutral and kind is not Slide:
            if action == CARRY_OUT:
                return self._next_bout()
            if isinstance(action, FlagFell):
                after = self._evolve(flag=action.seat, turn=self.turn + 1, to_move=1 - self.to_move)
                return after._close_bout(after._judge_bout())
            assert action == END_TURN
            return self._end_turn(self.board)
        board = bytearray(self.board)
        supplies, neutral = self.supplies, self.neutral_in_hand
        placed, slid = self.placed, self.slid
        once, twice = self.seen_once, self.seen_twice
        if kind is Place:
            board[_index(action.cell)] = 1 << self.to_move
            a, b = supplies
            supplies, placed = ((a - 1, b) if self.to_move == 0 else (a, b - 1)), True
            once = twice = NO_POSITIONS  # one tile more than every position seen: none recurs
        elif kind is PlaceNeutral:
            board[_index(action.cell)] = NEUTRAL
            neutral = False
            once = twice = NO_POSITIONS
        else:
            emptied, filled = action.steps
            tiles = [board[i] for i in emptied]
            for i in emptied:
                board[i] = 0
            for i, tile in zip(filled, tiles, strict=True):
                board[i] = tile
            slid = True
        after = self._evolve(
            board=bytes(board),
            supplies=supplies,
            neutral_in_hand=neutral,
            placed=placed,
            slid=slid,
            seen_once=once,
            seen_twice=twice,
        )
        if self.bout_turn == 0 or after._nothing_left():
            return after._end_turn(after.board)
        return after

    def _nothing_left(self) -> bool:
        """The turn has done its part and no action but ending it remains."""
        if not self.can_end_turn:
            return False
        if self.may_place_neutral:
            return False
        return self.slid or not self._slide_exists()

    def _slide_exists(self) -> bool:
        """A tile beside an empty cell can always slide one cell into it."""
        full = occupied(self.board)
        empty = ~full & SPREAD
        beside_empty = (
            (empty << CELL_BITS & ~FIRST_COLUMN)  # the cell to the left is empty
            | (empty >> CELL_BITS & ~LAST_COLUMN)  # to the right
            | (empty << ROW_BITS)  # below
            | (empty >> ROW_BITS)  # above
        )
        return bool(full & beside_empty)

    def _end_turn(self, board: bytes) -> LanceState:
        reached = (board, 1 - self.to_move, self.neutral_in_hand)
        once, twice = self.seen_once, self.seen_twice
        third = False
        if not once and not twice:  # most turns place a tile, which forgot them all
            once = frozenset((reached,))
        elif reached in once:
            once, twice = once - {reached}, twice | {reached}
        elif reached in twice:
            third = True
        else:
            once = once | {reached}
        after = self._evolve(
            board=board,
            to_move=1 - self.to_move,
            turn=self.turn + 1,
            placed=False,
            slid=False,
            seen_once=once,
            seen_twice=twice,
        )
        result = after._judge_bout(third)
        return after if result is None else after._close_bout(result)

    def _judge_bout(self, third: bool = False) -> BoutResult | None:
        """The bout's end, judged when a turn is over: lances (the mover's first), then
        stalemates. `third`: the turn's position came up a third time, which the caller sees
        as it counts (the history keeps counts up to two only)."""
        if self.flag is not None:
            return BoutResult(1 - self.flag, f"{SEATS[self.flag]}'s time ran out")
        lances = native.winners(SHAPE, self.board)
        mover = 1 - self.to_move
        for seat in (mover, 1 - mover):
            if lances >> seat & 1:
                cells = native.find_lines(SHAPE, self.board).cells(seat)
                return BoutResult(seat, f"{SEATS[seat]} made a lance of five", frozenset(cells))
        if third:
            return BoutResult(None, "stalemate: the position came up a third time")
        if self.bout_turn >= self.max_turns:
            return BoutResult(None, f"stalemate: {self.max_turns} turns without a lance")
        return None

    def _close_bout(self, result: BoutResult | None) -> LanceState:
        """The bout is over: its result joins the match (the tiles stay until cleared)."""
        assert result is not None
        return self._evolve(bouts=(*self.bouts, result), placed=False, slid=False, over=True)

    @property
    def score(self) -> tuple[int, int]:
        """Bouts won by each seat so far."""
        won = [b.winner for b in self.bouts]
        return won.count(0), won.count(1)

    @cached_property
    def _outcome(self) -> Outcome | None:
        if not self.over or max(self.score) < BOUTS_TO_WIN:
            return None
        last = self.bouts[-1]
        assert last.winner is not None
        a, b = self.score
        return Outcome(
            (last.winner,),
            f"{last.reason}: {SEATS[last.winner]} wins the match {max(a, b)}-{min(a, b)}",
            last.cells,
            self.score,
        )

    def outcome(self) -> Outcome | None:
        return self._outcome if self.over else None  # most states: no cached property to reach

    def round_outcome(self) -> Outcome | None:
        if not self.over or self.outcome() is not None:
            return None
        last = self.bouts[-1]
        winners = () if last.winner is None else (last.winner,)
        return Outcome(winners, last.reason, last.cells, self.score)

    @property
    def obligations(self) -> tuple[Obligation, ...]:
        if not self.over or self.outcome() is not None:
            return ()
        last = self.bouts[-1]
        a, b = self.score
        starter = self._next_starter()
        tiles = frozenset(_cell(i) for i, v in enumerate(self.board) if v)
        return (
            Obligation(
                f"bout {len(self.bouts)}: {last.reason} (A {a}, B {b}); clear the board for"
                f" bout {len(self.bouts) + 1}, {SEATS[starter]} starts",
                tiles,
                frozenset(BOXES),
                f"{last.reason} (A {a}, B {b}): clear the board for bout"
                f" {len(self.bouts) + 1}, which {SEATS[starter]} starts",
            ),
        )

    def _next_starter(self) -> int:
        last = self.bouts[-1]
        return self.starter if last.winner is None else 1 - self.starter

    def _next_bout(self) -> LanceState:
        """The board is clear: the next bout begins, its starter to move."""
        starter = self._next_starter()
        return LanceState(
            to_move=starter,
            turn=self.turn,
            max_turns=self.max_turns,
            starter=starter,
            opened=self.turn,
            bouts=self.bouts,
        )

    def why_illegal(self, action: Action) -> str:
        if self.over:
            return "the bout is over: clear the board for the next one"
        if isinstance(action, Place | PlaceNeutral):
            if self.board[_index(action.cell)]:
                return f"{cell_name(action.cell)} is not empty"
            if not self._may_place():
                return "only four cells are empty: no more placing, only slides"
        if isinstance(action, PlaceNeutral) and self.to_move == self.starter:
            return "the neutral tile is the second player's"
        if isinstance(action, Slide) and self.bout_turn == 0:
            return "the first turn of a bout is one placement, nothing else"
        if isinstance(action, Place) and (self.placed or self.slid):
            return "one placement a turn, and never after a slide"
        return super().why_illegal(action)

    def __str__(self) -> str:
        marks = {0: ".", 1: "A", 2: "B", NEUTRAL: "N"}
        grid = draw_grid(SIDE, SIDE, lambda c: marks[self.board[_index(c)]])
        a, b = self.score
        neutral = "  neutral in hand" if self.neutral_in_hand else ""
        return (
            f"{grid}\nbout {self.bout}, A {a} - B {b}; {SEATS[self.starter]} started"
            f"\ntiles off the board: A {self.supplies[0]}  B {self.supplies[1]}{neutral}"
        )


def _start(options: Mapping[str, Any]) -> LanceState:
    starter = SEATS.index(options["starter"])
    return LanceState(max_turns=options["max_turns"], to_move=starter, starter=starter)


GAME = Game(
    name="lance-assembly",
    title="Lance Assembly",
    summary="Sliding tic-tac-toe on 6x6: place, slide groups; five in a line wins a bout, two"
    " bouts the match.",
    seats=SEATS,
    board=(SIDE, SIDE),
    options=(
        Option("starter", "A", "who starts the first bout (then the starter alternates)", SEATS),
        Option(
            "clock",
            "lance",
            "lance: 60 s a turn, then a 5-minute reserve; classic: 120 s a turn and the"
            " reserve; none: no clocks",
            ("lance", "classic", "none"),
        ),
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
    bench_families=({"clock": "classic"}, {"clock": "none"}),
    clocks={
        "lance": ClockRules(per_turn=60.0, reserve=300.0),
        "classic": ClockRules(per_turn=120.0, reserve=300.0),
    },
    universe=universe,
    searched_with={"clock": "none"},
    rounds_bound=10,
    held_back=PlaceNeutral,
    phrase=phrase,
    undo_phrase=undo_phrase,
)
LanceState.game = GAME
_FIELDS = tuple(f.name for f in fields(LanceState))
_field_values = itemgetter(*_FIELDS)
"""A state's fields, in order, from its `__dict__`: what the dataclass hashes."""

_PLACES = tuple(Place(_cell(i)) for i in range(CELLS))
_NEUTRALS = tuple(PlaceNeutral(_cell(i)) for i in range(CELLS))
"""Each cell's placements, made once: the referee's search lists them for every position."""


_Way = tuple[tuple[int, ...], list[list[tuple[int, Slide]]]]
"""The cells along one way from a rear cell, and the slides that way by length and distance."""


def _slide_table() -> tuple[tuple[_Way, ...], ...]:
    """Per rear cell, per way (in `DIRECTIONS` order): the cells along the way from the rear
    while on the board, and per length and distance (from 1) the mask (bit i for cell i) of
    the cells the slide empties and fills, with the slide itself. Every slide the board allows
    is made once here, so `_slides_within` only looks them up."""
    table = []
    for rear in range(CELLS):
        col, row = _cell(rear)
        ways: list[_Way] = []
        for way, (dx, dy) in DIRECTIONS.items():
            line = []
            c, r = col, row
            while 0 <= c < SIDE and 0 <= r < SIDE:
                line.append(r * SIDE + c)
                c, r = c + dx, r + dy
            options = []
            for length in range(1, len(line)):
                by_distance = []
                for distance in range(1, len(line) - length + 1):
                    emptied = line[: min(length, distance)]
                    filled = line[max(length, distance) : length + distance]
                    touched = sum(1 << i for i in (*emptied, *filled))
                    slide = Slide((col, row), length, way, distance)
                    slide.steps  # noqa: B018 (worked out now, read as an attribute in play)
                    by_distance.append((touched, slide))
                options.append(by_distance)
            ways.append((tuple(line), options))
        table.append(tuple(ways))
    return tuple(table)


_SLIDES_FROM = _slide_table()
