"""Magnetmen's board as printed (`magboard overlay`): generated from a seed, each square a type
with its icon, and a legend of the types on the board with the power text in force."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import LegendEntry, PrintedBoard, Printing
from .generator import Printed, generate
from .kinds import BY_NAME

REPEL = (
    "Repel: a square is repelled for you when one of its eight neighbours shows a type you "
    "hold - at least one of it for a neighbour left or right, two above or below, three on a "
    "diagonal. Collected squares still repel, destroyed ones do not."
)


def printed_board(seed: int, options: Mapping[str, Any]) -> PrintedBoard:
    """The board of `seed` and the options `size`, `set` and `powers`, ready to print."""
    printed = generate(seed, size=options["size"], set=options["set"], powers=options["powers"])
    p = printed
    return PrintedBoard(
        width=p.width,
        height=p.height,
        squares=p.squares,
        title=f"Magnetmen overlay, seed {p.seed}, {p.size}, set {p.set}, powers {p.powers}",
        heading=(
            f"Magnetmen - seed {p.seed} - {p.size} {p.width}x{p.height} - set {p.set} - "
            f"powers {p.powers}"
        ),
        legend_title="Magnetmen - the types on this board",
        legend=tuple(_entry(printed, name, count) for name, count in printed.counts.items()),
        legend_note=REPEL,
    )


def _entry(printed: Printed, name: str, count: int) -> LegendEntry:
    """One type: its set and count, and the power text in force."""
    kind = BY_NAME[name]
    alt = name in printed.alternative
    squares = "square" if count == 1 else "squares"
    power = "alternative power" if alt else "main power"
    return LegendEntry(
        name, f"{kind.set} set - {count} {squares} - {power}", _sentence(printed.power(name))
    )


def _sentence(power: str) -> str:
    return power[0].upper() + power[1:] + "."


def draw_icon(canvas: Any, name: str, x: float, y: float, size: float, bg: float = 1.0) -> None:
    """The icon of type `name` (`icons.draw_icon`). The icons load only when a page is drawn:
    they need reportlab, which the board itself, never printing, does not have."""
    from .icons import draw_icon as draw

    draw(canvas, name, x, y, size, bg)


PRINTING = Printing(options=("size", "set", "powers"), generate=printed_board, draw_icon=draw_icon)
