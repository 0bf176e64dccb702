"""Pieces in three sizes on the boards: Tic-Tac-Cap's markers and Tic Tac Doh!'s pyramids.

Each size's magnet sits at its own radius (mini: channels s, m, l; r1: the centre for a Small,
the inner ring for a Medium, the outer ring for a Large), so a stack shows which sizes it holds.
Which order they are stacked in, and who owns a covered marker, is history the referee already
knows: one piece goes down at a time. A supply of one size sits in one row of a tray, so the row
that loses a piece says which size was taken, and the tray says whose.

On r1 a Small of seat A is north-down and a Small of seat B south-down, so the owner of a Small
is sensed as well; on mini only the trays tell the owners apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from magboard.firmware.games import Action, Cell, State, get_game
from magboard.firmware.games.sized import LETTERS, SIZES, Place
from magboard.firmware.games.tictaccap import TicTacCapState
from magboard.firmware.games.tictacdoh import TicTacDohState
from magboard.hardware.spec import BoardSpec, Slot

from .base import Layout, PieceKind, Profile, ProfileError, Supply
from .registry import register_profile

RING_CHANNELS = {"mini": ("s", "m", "l"), "r1": (None, "i", "o")}
"""Per board, the channel of each size's magnet (None: the centre, by the owner's pole)."""
SMALL_POLE = ("n", "s")
"""On r1, the centre channel of a Small of seat A and of seat B."""


def _signature(spec: BoardSpec, size: int, owner: int | None) -> frozenset[str]:
    channel = RING_CHANNELS[spec.name][size]
    if channel is None:
        channel = SMALL_POLE[owner or 0]
    return frozenset({channel})


def _kind(spec: BoardSpec, size: int, owner: int | None, seats: str) -> PieceKind:
    prefix = f"{seats[owner]}-" if owner is not None else ""
    return PieceKind(
        f"{prefix}{LETTERS[size]}", _signature(spec, size, owner), owner, LETTERS[size], size + 1
    )


def _rows(spec: BoardSpec, tray: str) -> list[tuple[Slot, ...]]:
    """A tray's slots, row by row."""
    found, slots = [], list(spec.tray(tray).slots)
    for length in spec.tray(tray).rows:
        found.append(tuple(slots[:length]))
        slots = slots[length:]
    return found


def _check_fits(profile: Profile, counts: dict[str, int]) -> None:
    for supply in profile.supplies:
        if counts.get(supply.name, 0) > len(supply.slots):
            raise ProfileError(
                f"{profile.game.name} needs {counts[supply.name]} {supply.name} pieces; board "
                f"{profile.spec.name} has {len(supply.slots)} slots for them"
            )


class SizedProfile(Profile):
    """A game whose pieces go down one at a time from supplies of one size each."""

    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        game_cell = self.to_game(cell)
        return None if game_cell is None else Place(kind.size - 1, game_cell)


class TicTacCapProfile(SizedProfile):
    def layout(self, state: State) -> Layout:
        assert isinstance(state, TicTacCapState)
        kinds = self._kinds
        cells = {}
        for i, stack in enumerate(state.stacks):
            if stack:
                cells[self.to_board((i % 3, i // 3))] = tuple(kinds[m] for m in stack)
        supplies = {
            kinds[(owner, size)].name: state.supplies[owner][size]
            for owner in (0, 1)
            for size in SIZES
        }
        return Layout(cells, supplies)

    @property
    def _kinds(self) -> dict[tuple[int, int], PieceKind]:
        return {(kind.owner, kind.size - 1): kind for kind in self.kinds}


def tictaccap_profile(
    spec: BoardSpec, options: Mapping[str, Any] | None = None
) -> TicTacCapProfile:
    game = get_game("tic-tac-cap")
    kinds = tuple(_kind(spec, size, owner, "AB") for owner in (0, 1) for size in SIZES)
    supplies = []
    for owner, tray in ((0, "A"), (1, "B")):
        for size, row in zip(SIZES, _rows(spec, tray), strict=False):
            kind = kinds[owner * 3 + size]
            supplies.append(Supply(kind.name, (kind,), row))
    origin = ((spec.columns - 3) // 2, (spec.rows - 3) // 2)
    profile = TicTacCapProfile(game, spec, origin, kinds, tuple(supplies))
    start = game.new_state(options)
    _check_fits(profile, dict(profile.layout(start).supplies))
    return profile


class TicTacDohProfile(SizedProfile):
    def layout(self, state: State) -> Layout:
        assert isinstance(state, TicTacDohState)
        side = state.game.board[0]
        cells = {}
        for row in range(side):
            for col in range(side):
                stack = state.stack_at((col, row))
                if stack:
                    cells[self.to_board((col, row))] = tuple(self.kinds[s] for s in stack)
        stash = zip(self.kinds, state.stash, strict=True)
        return Layout(cells, {kind.name: count for kind, count in stash})


def tictacdoh_profile(
    spec: BoardSpec, options: Mapping[str, Any] | None = None
) -> TicTacDohProfile:
    """The shared stash sits in tray A, a row per size; the pieces have no owner."""
    game = get_game("tic-tac-doh")
    kinds = tuple(_kind(spec, size, None, "") for size in SIZES)
    supplies = tuple(
        Supply(kind.name, (kind,), row) for kind, row in zip(kinds, _rows(spec, "A"), strict=False)
    )
    side = game.board[0]
    origin = ((spec.columns - side) // 2, (spec.rows - side) // 2)
    profile = TicTacDohProfile(game, spec, origin, kinds, supplies)
    _check_fits(profile, dict(profile.layout(game.new_state()).supplies))
    return profile


register_profile(get_game("tic-tac-cap"), tictaccap_profile)
register_profile(get_game("tic-tac-doh"), tictacdoh_profile)
