"""Tic-tac-toe on the reference boards.

mini: the cells sense no pole, so whose piece went down is read from the tray it left (X's in
tray A, O's in tray B). r1: X pieces are north-down and O pieces south-down, so a wrong piece on
the board is seen at once, wherever it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from magboard.firmware.games import Action, Cell, State, get_game
from magboard.firmware.games.tictactoe import SIZE, Place, TicTacToeState
from magboard.hardware.spec import BoardSpec, Slot

from .base import Layout, PieceKind, Profile, Supply
from .registry import register_profile

PIECES_EACH = 5


class TicTacToeProfile(Profile):
    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        game_cell = self.to_game(cell)
        return None if game_cell is None else Place(game_cell)

    def layout(self, state: State) -> Layout:
        assert isinstance(state, TicTacToeState)
        cells = {}
        placed = [0, 0]
        for i, mark in enumerate(state.board):
            if mark:
                player = mark.bit_length() - 1
                cells[self.to_board((i % SIZE, i // SIZE))] = (self.kinds[player],)
                placed[player] += 1
        return Layout(
            cells,
            {supply.name: PIECES_EACH - placed[p] for p, supply in enumerate(self.supplies)},
        )


def tictactoe_profile(
    spec: BoardSpec, options: Mapping[str, Any] | None = None
) -> TicTacToeProfile:
    if spec.name == "mini":
        x = PieceKind("X", frozenset({"s"}), 0, "X")
        o = PieceKind("O", frozenset({"s"}), 1, "O")
        origin = (0, 0)
    else:
        x = PieceKind("X", frozenset({"n"}), 0, "X")
        o = PieceKind("O", frozenset({"s"}), 1, "O")
        origin = ((spec.columns - SIZE) // 2, (spec.rows - SIZE) // 2)
    supplies = tuple(
        Supply(kind.name, (kind,), tuple(Slot(tray, n) for n in range(1, PIECES_EACH + 1)))
        for kind, tray in ((x, "A"), (o, "B"))
    )
    return TicTacToeProfile(get_game("tic-tac-toe"), spec, origin, (x, o), supplies)


register_profile(get_game("tic-tac-toe"), tictactoe_profile)
