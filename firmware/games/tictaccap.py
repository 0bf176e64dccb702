"""Tic-Tac-Cap (rules/tic-tac-cap.md): tic-tac-toe with markers in three sizes; larger caps smaller.

Notation, one action per turn:

- `Sb2`, `Mb2`, `Lb2`: the mover puts a Small, Medium or Large marker from their supply on b2
  (on an empty cell, or capping a strictly smaller top marker). The size letter may be typed in
  either case.
- `pass`: the turn of a player who has no legal placement (and only then).

Players are A (first) and B. Each cell keeps its whole stack, bottom to top, because covered
markers stay physically under the cap even though they never count again.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from magboard.firmware import native
from magboard.firmware.engine.linegames import (
    OWN_TURNS,
    PASS_MOVE,
    PASSES,
    SMALL_BOARD,
    SUPPLY,
    Kind,
    LineRules,
    declare_line_game,
    place_of,
)

from .core import PASS, Action, Game, Option, Outcome, Pass, State
from .grid import Cell, cell_name, draw_grid
from .search import SearchHooks, declare_search
from .sized import (
    LARGE,
    LETTERS,
    NAMES,
    SIZES,
    SMALL,
    Place,
    every_place,
    parse_place,
    places,
    said,
)

SIDE = 3
SHAPE = native.LineShape(SIDE, SIDE, SIDE)
SEATS = ("A", "B")
PLACES = places(SIDE, SIDE)

SUPPLIES = {
    "classic": (3, 3, 3),
    "easy-rider": (4, 4, 4),
    "manager": (3, 2, 1),
    "heist": (4, 0, 1),
    "five-small": (5, 0, 0),
}
"""Markers each player starts with, Small, Medium, Large, by the option `variant`."""

Marker = tuple[int, int]
"""(owner, size) of one marker on the board."""
Stack = tuple[Marker, ...]
"""A cell's markers, bottom to top; the top one decides who owns the cell."""

OWN_TURN_WORDS = ("first", "second")


def largest_allowed(own_turns: int) -> int:
    """The largest size a player may place after `own_turns` turns of their own (passes count):
    a Small on the 1st turn, up to a Medium on the 2nd, any size from the 3rd."""
    return min(own_turns, LARGE)


@dataclass(frozen=True)
class TicTacCapState(State):
    stacks: tuple[Stack, ...] = ((),) * (SIDE * SIDE)
    """Per cell, row-major from a1, the markers on it bottom to top."""
    supplies: tuple[tuple[int, int, int], ...] = (SUPPLIES["classic"],) * 2
    """Per player, the Small, Medium and Large markers still in hand."""
    cover_own: bool = True
    """Whether a player may cap their own marker (the option of the same name)."""
    passes: int = 0
    """Passes in a row just before this position (two end the game)."""
    to_move: int = 0
    turn: int = 0

    def turns_taken(self, player: int) -> int:
        """Turns `player` has completed: players strictly alternate, a pass being a turn."""
        return (self.turn + 1 - player) // 2

    @cached_property
    def tops(self) -> bytes:
        """Per cell the owner bit of its top marker (0 when empty): what the line kernel reads."""
        return bytes(1 << stack[-1][0] if stack else 0 for stack in self.stacks)

    @cached_property
    def placements(self) -> tuple[Place, ...]:
        """The mover's legal placements, Smalls first, cells row-major from a1."""
        mover = self.to_move
        supply = self.supplies[mover]
        found: list[Place] = []
        for size in SIZES[: largest_allowed(self.turns_taken(mover)) + 1]:
            if not supply[size]:
                continue
            for place, stack in zip(PLACES[size], self.stacks, strict=True):
                if not stack or (stack[-1][1] < size and (self.cover_own or stack[-1][0] != mover)):
                    found.append(place)
        return tuple(found)

    def _legal(self) -> tuple[Action, ...]:
        if self.outcome() is not None:
            return ()
        return self.placements or (PASS,)

    def _play(self, action: Action) -> State:
        mover = self.to_move
        if isinstance(action, Pass):
            return replace(self, passes=self.passes + 1, to_move=1 - mover, turn=self.turn + 1)
        assert isinstance(action, Place)
        col, row = action.cell
        i = row * SIDE + col
        stacks = list(self.stacks)
        stacks[i] = (*stacks[i], (mover, action.size))
        supplies = list(self.supplies)
        supply = list(supplies[mover])
        supply[action.size] -= 1
        supplies[mover] = (supply[0], supply[1], supply[2])
        return replace(
            self,
            stacks=tuple(stacks),
            supplies=tuple(supplies),
            passes=0,
            to_move=1 - mover,
            turn=self.turn + 1,
        )

    @cached_property
    def _outcome(self) -> Outcome | None:
        owners = native.winners(SHAPE, self.tops)
        if owners:
            # Only the mover's placement can make a line, and it makes only the mover's.
            winner = owners.bit_length() - 1
            cells = native.find_lines(SHAPE, self.tops).cells(winner)
            return Outcome((winner,), "three in a row", cells)
        if self.passes >= 2:
            return Outcome((), "two passes in a row")
        return None

    def outcome(self) -> Outcome | None:
        return self._outcome

    def key(self) -> Hashable:
        # Own turns matter only up to two (they lift the size limits), and only the rules'
        # counters that the future reads belong here: not the total turn count.
        capped = tuple(min(self.turns_taken(p), 2) for p in range(2))
        return self.stacks, self.supplies, capped, self.passes, self.to_move, self.cover_own

    def why_illegal(self, action: Action) -> str:
        if isinstance(action, Pass):
            if self.placements:
                return "you have a legal placement, so you must place a marker"
        elif isinstance(action, Place):
            reason = self._why_not_place(action)
            if reason:
                return reason
        return super().why_illegal(action)

    def _why_not_place(self, action: Place) -> str | None:
        col, row = action.cell
        name = NAMES[action.size]
        if not (0 <= col < SIDE and 0 <= row < SIDE):
            return f"{cell_name(action.cell)} is off the 3x3 board"
        own_turns = self.turns_taken(self.to_move)
        if action.size > largest_allowed(own_turns):
            allowed = " or ".join(f"a {n}" for n in NAMES[: largest_allowed(own_turns) + 1])
            return f"on your {OWN_TURN_WORDS[own_turns]} turn you may place only {allowed}"
        if not self.supplies[self.to_move][action.size]:
            return f"you have no {name} marker left"
        stack = self.stacks[row * SIDE + col]
        if stack:
            owner, top = stack[-1]
            whose = "your own" if owner == self.to_move else f"{SEATS[owner]}'s"
            if top >= action.size:
                return (
                    f"{cell_name(action.cell)} is capped by {whose} {NAMES[top]}: only a larger "
                    f"marker may cover it"
                )
            if owner == self.to_move and not self.cover_own:
                return (
                    f"{cell_name(action.cell)} is capped by your own {NAMES[top]}, and covering "
                    f"your own markers is off (cover_own=false)"
                )
        return None

    def stack_at(self, cell: Cell) -> Stack:
        """The markers on `cell`, bottom to top."""
        return self.stacks[cell[1] * SIDE + cell[0]]

    def top_at(self, cell: Cell) -> Marker | None:
        stack = self.stack_at(cell)
        return stack[-1] if stack else None

    def __str__(self) -> str:
        """The board as seen from above (each cell's top marker: owner, then size), then the
        markers under the caps (bottom first) and what each player has left."""

        def symbol(cell: Cell) -> str:
            top = self.top_at(cell)
            return f"{SEATS[top[0]]}{LETTERS[top[1]]}" if top else "."

        lines = [draw_grid(SIDE, SIDE, symbol)]
        covered = [
            f"{cell_name((i % SIDE, i // SIDE))} "
            + " ".join(f"{SEATS[o]}{LETTERS[s]}" for o, s in stack[:-1])
            for i, stack in enumerate(self.stacks)
            if len(stack) > 1
        ]
        if covered:
            lines.append("under: " + "; ".join(covered))
        lines.append(
            "   ".join(
                f"{seat}: " + " ".join(f"{LETTERS[s]}{supply[s]}" for s in SIZES)
                for seat, supply in zip(SEATS, self.supplies, strict=True)
            )
        )
        return "\n".join(lines)


def _start(options: Mapping[str, Any]) -> TicTacCapState:
    supply = SUPPLIES[options["variant"]]
    return TicTacCapState(supplies=(supply, supply), cover_own=options["cover_own"])


def parse_action(text: str) -> Action:
    if text.strip().lower() == "pass":
        return PASS
    return parse_place(text)


GAME = Game(
    name="tic-tac-cap",
    title="Tic-Tac-Cap",
    summary=(
        "Three in a row on a 3x3 board with Small, Medium and Large markers; a larger marker "
        "caps a smaller one and takes the cell. A moves first."
    ),
    seats=SEATS,
    board=(SIDE, SIDE),
    options=(
        Option(
            "variant",
            "classic",
            "markers each player gets (Small/Medium/Large): classic 3/3/3, easy-rider 4/4/4, "
            "manager 3/2/1, heist 4/0/1, five-small 5/0/0",
            choices=tuple(SUPPLIES),
        ),
        Option("cover_own", True, "whether a player may cap their own marker"),
    ),
    start=_start,
    parse_action=parse_action,
    aliases=("tictaccap", "ttc"),
    rules_file="tic-tac-cap.md",
    bench_families=(
        {"variant": "easy-rider"},
        {"variant": "manager"},
        {"variant": "heist"},
        {"variant": "five-small"},
        {"cover_own": False},
    ),
    universe=lambda state: every_place(state.extent),
    phrase=said,
)
TicTacCapState.game = GAME

__all__ = ["GAME", "SMALL", "SUPPLIES", "Place", "TicTacCapState", "parse_action"]

declare_search(
    GAME,
    SearchHooks(
        # The variants whose whole solve takes more than a moment ship an opening table; heist
        # and five-small solve from the start in milliseconds.
        tabled=tuple(
            {"variant": variant, "cover_own": cover_own}
            for variant in ("classic", "easy-rider", "manager")
            for cover_own in (True, False)
        ),
        perft=(({"variant": "classic"}, 5),),
    ),
)


def _fill(state: TicTacCapState, position: bytearray) -> None:
    """The board as the compact engine keeps it: each cell's top marker, the supplies, each
    player's own turns (up to the two that lift the size limits) and the passes in a row."""
    for i, stack in zip(SMALL_BOARD, state.stacks, strict=True):
        if stack:
            owner, size = stack[-1]
            position[i] = 1 + 3 * owner + size
    position[SUPPLY : SUPPLY + 6] = bytes(state.supplies[0] + state.supplies[1])
    for player in range(2):
        position[OWN_TURNS + player] = min(2, state.turns_taken(player))
    position[PASSES] = min(state.passes, 2)


def _options(state: TicTacCapState) -> tuple[tuple[int, int, int], bool]:
    """Each player's supplies at the start and whether they may cover their own markers."""
    # The supplies at the start are not in a State; what is left plus what is on the board
    # gives them back.
    used = [[0, 0, 0], [0, 0, 0]]
    for stack in state.stacks:
        for owner, size in stack:
            used[owner][size] += 1
    start = tuple(state.supplies[0][s] + used[0][s] for s in range(3))
    return start, state.cover_own  # type: ignore[return-value]


def _action(move: int) -> Action:
    return PASS if move == PASS_MOVE else Place(*place_of(move))


declare_line_game(GAME, LineRules(Kind.TIC_TAC_CAP, fill=_fill, action=_action, options=_options))
