"""`magboard overlay GAME ...`: checks the request, generates the board, writes the PDF.

Any game that declares its printing (`Game.printing`) has an overlay; the flags of the options
its board is generated from are checked against the game's own choices.

Every choice is checked here rather than by argparse, so a mistake is reported as the one line
the other commands give (the CLI prints a CommandError and exits 2), naming the choices.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from magboard.firmware.app.errors import CommandError
from magboard.firmware.games.core import Printing

from .tiling import PAPERS


class OverlayError(CommandError):
    """A request for an overlay that cannot be printed; reported in one line."""


@dataclass(frozen=True)
class Request:
    printing: Printing
    seed: int
    options: dict[str, Any]
    """The options the board is generated from, by name."""
    paper: str
    board: str
    out: Path


def main(args: argparse.Namespace) -> int:
    from magboard.hardware.spec import load_board

    from .layout import layout
    from .pdf import render
    from .placement import PlacementError
    from .tiling import TilingError

    request = checked(args)
    spec = load_board(request.board)
    printed = request.printing.generate(request.seed, request.options)
    try:
        overlay = layout(printed, request.printing, spec, request.paper)
    except (PlacementError, TilingError) as error:
        raise OverlayError(f"overlay: {error}") from None
    data = render(overlay)
    try:
        request.out.write_bytes(data)
    except OSError as error:
        reason = error.strerror or str(error)
        raise OverlayError(f"overlay: cannot write {request.out}: {reason}") from None
    sheets = len(overlay.plan.tiles)
    print(
        f"{request.out}: {sheets} sheet{'s' if sheets > 1 else ''} of {request.paper} "
        f"and a legend, seed {request.seed}"
    )
    return 0


def checked(args: argparse.Namespace) -> Request:
    """The request, or the OverlayError for its first mistake."""
    from magboard.firmware.games import OptionError, all_games

    printable = {game.name: game for game in all_games() if game.printing}
    if args.game not in printable:
        names = ", ".join(printable)
        raise OverlayError(f"overlay: no overlay for {args.game!r} (games: {names})")
    game = printable[args.game]
    printing = game.printing
    assert printing is not None  # only a game that declares it is printable
    options = {
        name: _choice(f"--{name}", getattr(args, name), game.option(name).choices)
        for name in printing.options
    }
    paper = _choice("--paper", args.paper, tuple(PAPERS))
    if args.seed is None:
        raise OverlayError("overlay: --seed N is required (the seed the board is generated from)")
    try:
        seed = int(args.seed)
    except ValueError:
        raise OverlayError(f"overlay: the seed is a whole number, not {args.seed!r}") from None
    try:  # the game's own range: a seed the board would refuse must not be printed
        game.option("seed").check(seed)
    except OptionError as error:
        raise OverlayError(f"overlay: {error}") from None
    if not args.out:
        raise OverlayError("overlay: --out FILE.pdf is required")
    return Request(printing, seed, options, paper, args.board, Path(args.out))


def _choice(flag: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise OverlayError(f"overlay: {flag} is one of {', '.join(choices)}, not {value!r}")
    return value
