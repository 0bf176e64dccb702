"""What a screen shows of a Magnetmen game besides its tokens: the scores and inventories, who
holds each square collected, and the types' pictures the overlay prints. The tokens alone do not
say it: a token is no one's, and only marks a square collected or destroyed."""

from __future__ import annotations

from collections.abc import Sequence

from ..core import Action, State
from ..grid import Cell
from ..screen import Picture, Standings
from .generator import Printed


def standings(
    scores: tuple[int, ...], kinds: tuple[str, ...], counts: Sequence[Sequence[int]]
) -> Standings:
    """Every seat's score and its icons of each type held, from its count of each type."""
    return Standings(
        scores,
        tuple({kinds[t]: count for t, count in enumerate(held) if count} for held in counts),
    )


def holders(initial: State, collects: frozenset[Action], played: Sequence[str]) -> dict[Cell, int]:
    """Who collected each square still held, by the game's cells: the game keeps how many icons
    a seat holds, not where it took them, so its actions are played again from the start. A
    Police square collected a second time is turned over, and no one's any more."""
    state = initial
    held: dict[Cell, int] = {}
    for text in played:
        action = state.parse_action(text)
        if action in collects:
            (cell,) = action.touches
            if cell in held:
                del held[cell]
            else:
                held[cell] = state.to_move
        state = state.successor(action)
    return held


def pictures(printed: Printed) -> tuple[Picture, ...]:
    """Each type the board prints, with its squares, drawn as `magboard overlay` draws it."""
    # Drawn by reportlab, loaded only here: the board's own program never draws a picture, and
    # starts without it.
    from .traced import traced

    cells: dict[str, list[Cell]] = {}
    for i, name in enumerate(printed.squares):
        cells.setdefault(name, []).append((i % printed.width, i // printed.width))
    return tuple(Picture(name, tuple(where), traced(name)) for name, where in cells.items())
