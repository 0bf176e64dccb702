"""Magnetmen on r1: tokens on a printed overlay, one way up for a collection, the other for a
destruction.

The overlay (`magboard overlay`) is printed at the board's pitch and laid over the game's area,
centred on the lattice. A token's centre magnet shows north for a collected square and south for
a destroyed one; the second collection of a Police square turns its token over, as the square is
then destroyed. Tokens wait in boxes no sensor sees, so the board learns of a turn from the cell
it lands on; who collected what, and every inventory, follow from whose turn it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from magboard.firmware.games import Action, Cell, State, get_game
from magboard.firmware.games.magnetmen.generator import SIZES
from magboard.firmware.games.magnetmen.rules import Collect, Destroy, Duty, MagnetmenState
from magboard.hardware.spec import BoardSpec, Place

from .base import Profile
from .parts import Asked, Layout, PieceKind, Step, Supply
from .registry import register_profile

COLLECTED = PieceKind("collected", frozenset({"n"}), None, "o")
DESTROYED = PieceKind("destroyed", frozenset({"s"}), None, "x")
BOXES = {COLLECTED: "tokens", DESTROYED: "tokens-turned"}
"""The boxes the tokens are taken from, by the way up they go down (one box of tokens in the
hand; two for the simulator, whose hands pick a kind)."""


EXPLORER_DETAIL = "destroy one unused square: put a token on it turned over"


class MagnetmenProfile(Profile):
    def layout(self, state: State) -> Layout:
        assert isinstance(state, MagnetmenState)
        width = state.setup.width
        cells = {}
        used = state.collected | state.destroyed
        while used:
            low = used & -used
            i = low.bit_length() - 1
            used ^= low
            kind = DESTROYED if state.destroyed & low else COLLECTED
            cells[self.to_board((i % width, i // width))] = (kind,)
        return Layout(cells, {})

    def choice_places(self, state: State, action: Action) -> frozenset[Place]:
        """The squares of the type an icon choice names."""
        assert isinstance(state, MagnetmenState)
        kind = getattr(action, "kind", None)
        width = state.setup.width
        return frozenset(
            self.to_board((i % width, i // width))
            for i, name in enumerate(state.printed.squares)
            if name == kind
        )

    def next_up(self, state: State) -> tuple[frozenset[Place], frozenset[Place]]:
        """At a turn's start and between its collections, the squares the mover may collect,
        dim in their colour."""
        assert isinstance(state, MagnetmenState)
        cells = {
            self.to_board(action.cell)
            for action in state.legal_actions()
            if isinstance(action, Collect)
        }
        return frozenset(), frozenset(cells)

    def asked(self, state: State) -> Asked | None:
        """After an Explorer, the square it destroys: any unused one the rules let go, which
        the player shows by putting a token on it turned over."""
        assert isinstance(state, MagnetmenState)
        if state.duty is not Duty.EXPLORE:
            return None
        places = frozenset(
            self.to_board(action.cell)
            for action in state.legal_actions()
            if isinstance(action, Destroy)
        )
        return Asked(EXPLORER_DETAIL, places)

    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        game_cell = self.to_game(cell)
        if game_cell is None:
            return None
        return Destroy(game_cell) if kind == DESTROYED else Collect(game_cell)

    def plan(self, state: State, action: Action) -> tuple[Step, ...]:
        assert isinstance(state, MagnetmenState)
        if isinstance(action, Destroy):
            return (Step(BOXES[DESTROYED], self.to_board(action.cell)),)
        if isinstance(action, Collect):
            cell = self.to_board(action.cell)
            i = action.cell[1] * state.setup.width + action.cell[0]
            if state.collected & 1 << i:  # a Police square's second collection: turned over
                return (Step(cell, BOXES[COLLECTED]), Step(BOXES[DESTROYED], cell))
            return (Step(BOXES[COLLECTED], cell),)
        return ()


def magnetmen_profile(
    spec: BoardSpec, options: Mapping[str, Any] | None = None
) -> MagnetmenProfile:
    game = get_game("magnetmen")
    columns, rows, _ = SIZES[game.resolve_options(options)["size"]]
    origin = ((spec.columns - columns) // 2, (spec.rows - rows) // 2)
    supplies = tuple(Supply(name, (kind,)) for kind, name in BOXES.items())
    return MagnetmenProfile(
        game, spec, origin, (COLLECTED, DESTROYED), supplies, extent=(columns, rows)
    )


register_profile(get_game("magnetmen"), magnetmen_profile)
