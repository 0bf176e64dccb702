"""`magboard overlay`: a game's board as a PDF to print and lay over the board.

Cheap to import: reportlab and the generator load only when the command runs. The choices are
plain strings checked by the command, so a wrong one gets the CLI's one-line error.
"""

from __future__ import annotations

import argparse


def add(commands: argparse._SubParsersAction) -> None:
    overlay = commands.add_parser(
        "overlay", help="print a game's board to lay over a board (PDF at the true cell pitch)"
    )
    overlay.add_argument("game", help="a game whose board is generated to print")
    overlay.add_argument("--seed", metavar="N", help="the seed the board is generated from")
    overlay.add_argument(
        "--size", default="regular", help="small 6x6 | regular 8x8 | big 10x9 | huge 11x11"
    )
    overlay.add_argument("--set", default="base", help="base | advanced | expert")
    overlay.add_argument("--powers", default="main", help="main | random")
    overlay.add_argument("--board", default="r1", help="board name or file (default r1)")
    overlay.add_argument("--paper", default="a4", help="a4 | a3 | letter (default a4)")
    overlay.add_argument("--out", metavar="FILE.pdf", help="where to write the PDF")
    overlay.set_defaults(run=_overlay)


def _overlay(args: argparse.Namespace) -> int:
    from .command import main

    return main(args)
