"""`magboard selftest`: the self-test on the Pi's board, its report printed for the operator.

`run_selftest_command` gives the report and `main` prints it, so whatever else is done with a
report (keeping it) goes between the two, once, for the real board and the simulated one alike
(`--sim` passes its own `open_board`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from magboard.firmware.journal import Journal
from magboard.hardware.interface import Board
from magboard.hardware.spec import BoardSpec, load_board

from .config import state_database
from .errors import CommandError
from .pi_board import open_pi_board
from .selftest import (
    SelfTestError,
    SelfTestOptions,
    check_options,
    instructions,
    run_selftest,
)
from .selftest_report import SelfTestReport

OpenBoard = Callable[[BoardSpec], Board]


def options_of(args: argparse.Namespace) -> SelfTestOptions:
    given = {
        "square_seconds": args.square_seconds,
        "clear_seconds": args.clear_seconds,
        "channels": frozenset(args.channels) if args.channels else None,
    }
    return SelfTestOptions(**{k: v for k, v in given.items() if v is not None})


def run_selftest_command(
    args: argparse.Namespace, open_board: OpenBoard | None = None
) -> SelfTestReport:
    """The report of one self-test on the board `args` names; the Pi's board unless
    `open_board` gives another."""
    spec = load_board(args.board)
    options = options_of(args)
    try:
        check_options(spec, options)
    except SelfTestError as error:
        raise CommandError(str(error)) from None
    if open_board is None:
        board = open_pi_board(spec)
        print(instructions(spec), file=sys.stderr, flush=True)
    else:
        board = open_board(spec)
    try:
        return run_selftest(board, options)
    finally:
        board.close()


def print_report(report: SelfTestReport, as_json: bool) -> int:
    """Prints the report; the exit status: 0 when everything passed, 1 when something failed."""
    if as_json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print("\n".join(report.lines()))
    return 0 if report.passed else 1


def main(args: argparse.Namespace, open_board: OpenBoard | None = None) -> int:
    report = run_selftest_command(args, open_board)
    if open_board is None or args.journal:  # a simulated board's report only where asked
        keep(report, Journal(state_database(args.journal)))
    return print_report(report, args.json)


def keep(report: SelfTestReport, journal: Journal) -> None:
    """Keeps the report for `magboard stats`; a disk that refuses is said, not fatal."""
    journal.keep_selftest(report.to_dict())
    for news in journal.news():
        print(f"magboard: {news}", file=sys.stderr)
    journal.close()
