"""The hardware's subcommands of `magboard`: `board show`, what a board file says, for the person
building the board; `install`, the service on a Pi (the same as `sudo hardware/install.sh`);
`update`, a new version on it, rolled back by itself if the board does not come up healthy.
Imports no driver."""

from __future__ import annotations

import argparse

from . import install, update


def add(commands: argparse._SubParsersAction) -> None:
    board = commands.add_parser("board", help="board definitions")
    board_commands = board.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    show = board_commands.add_parser("show", help="pin map, LED map and budgets of a board")
    show.add_argument("board", help="a reference board (r1, mini) or a path to a board file")
    show.set_defaults(run=_show)
    setup = commands.add_parser("install", help="install the service on a Pi (as root)")
    install.add_arguments(setup)
    setup.set_defaults(run=install.run)
    renew = commands.add_parser(
        "update", help="a new version on a Pi, rolled back if the board is not healthy (as root)"
    )
    update.add_arguments(renew)
    renew.set_defaults(run=update.run)


def _show(args: argparse.Namespace) -> int:
    from .show import describe
    from .spec import load_board

    print(describe(load_board(args.board)), end="")
    return 0
