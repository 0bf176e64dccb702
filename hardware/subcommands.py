"""The hardware's subcommand of `magboard`: `board show`, what a board file says, for the person
building the board. Imports no driver."""

from __future__ import annotations

import argparse


def add(commands: argparse._SubParsersAction) -> None:
    board = commands.add_parser("board", help="board definitions")
    board_commands = board.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    show = board_commands.add_parser("show", help="pin map, LED map and budgets of a board")
    show.add_argument("board", help="a reference board (r1, mini) or a path to a board file")
    show.set_defaults(run=_show)


def _show(args: argparse.Namespace) -> int:
    from .show import describe
    from .spec import load_board

    print(describe(load_board(args.board)), end="")
    return 0
