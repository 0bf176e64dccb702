"""`magboard overlay GAME ...`: checks the request, generates the board, writes the PDF.

Every choice is checked here rather than by argparse, so a mistake is reported as the one line
the other commands give (the CLI prints a CommandError and exits 2), naming the choices.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from magboard.firmware.app.errors import CommandError
from magboard.firmware.games.magnetmen.kinds import Set

from .tiling import PAPERS

GAMES = ("magnetmen",)
SETS = tuple(s.value for s in Set)
POWERS = ("main", "random")


class OverlayError(CommandError):
    """A request for an overlay that cannot be printed; reported in one line."""


@dataclass(frozen=True)
class Request:
    seed: int
    size: str
    set: str
    powers: str
    paper: str
    board: str
    out: Path


def main(args: argparse.Namespace) -> int:
    from magboard.firmware.games.magnetmen.generator import generate
    from magboard.hardware.spec import load_board

    from .layout import layout
    from .pdf import render
    from .placement import PlacementError
    from .tiling import TilingError

    request = checked(args)
    spec = load_board(request.board)
    printed = generate(request.seed, size=request.size, set=request.set, powers=request.powers)
    try:
        overlay = layout(printed, spec, request.paper)
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
    from magboard.firmware.games import OptionError, get_game
    from magboard.firmware.games.magnetmen.generator import SIZES

    if args.game not in GAMES:
        raise OverlayError(f"overlay: no overlay for {args.game!r} (games: {', '.join(GAMES)})")
    size = _choice("--size", args.size, tuple(SIZES))
    set_ = _choice("--set", args.set, SETS)
    powers = _choice("--powers", args.powers, POWERS)
    paper = _choice("--paper", args.paper, tuple(PAPERS))
    if args.seed is None:
        raise OverlayError("overlay: --seed N is required (the seed the board is generated from)")
    try:
        seed = int(args.seed)
    except ValueError:
        raise OverlayError(f"overlay: the seed is a whole number, not {args.seed!r}") from None
    try:  # the game's own range: a seed the board would refuse must not be printed
        get_game(args.game).option("seed").check(seed)
    except OptionError as error:
        raise OverlayError(f"overlay: {error}") from None
    if not args.out:
        raise OverlayError("overlay: --out FILE.pdf is required")
    return Request(seed, size, set_, powers, paper, args.board, Path(args.out))


def _choice(flag: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise OverlayError(f"overlay: {flag} is one of {', '.join(choices)}, not {value!r}")
    return value
