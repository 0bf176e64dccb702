"""`magboard run`: the referee on the Pi's board until stopped.

Events go to stdout as JSON lines (the schema of docs/protocol.md) and the game in progress to
the journal, so a restart resumes it; with `--link URL`, to a host over a serial link too (which
may send commands back: firmware/app/link.py). On a Pi this is what the systemd service runs.
`magboard run --sim` reads the same request and runs it on the simulated board instead.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from magboard.firmware.events import Event
from magboard.firmware.games import Game, get_game
from magboard.firmware.journal import Journal, Resume
from magboard.hardware.spec import BoardSpec, load_board

from . import wiring
from .errors import CommandError
from .link import POLL as LINK_POLL
from .link import LinkURLError, SerialLink
from .loop import BoardLoop

DEFAULT_JOURNAL = Path(os.environ.get("MAGBOARD_STATE", "~/.local/state/magboard")) / "magboard.db"


@dataclass(frozen=True)
class RunRequest:
    """What `magboard run` was asked to referee, read once whichever board it runs on."""

    spec: BoardSpec
    game: Game
    options: dict[str, Any]
    journal: Journal
    resume: Resume | None
    """The journalled game to resume, if it is this one."""
    takeback: bool
    link: str | None


def request_of(args: argparse.Namespace) -> RunRequest:
    spec = load_board(args.board)
    game = get_game(args.game)
    options = game.resolve_options(game.parse_options(args.option))
    journal = Journal(Path(args.journal or DEFAULT_JOURNAL).expanduser())
    resume = resumable(journal.load(), game, spec, options)
    return RunRequest(spec, game, options, journal, resume, not args.no_takeback, args.link)


def print_event(event: Event) -> None:
    print(event.to_json(), flush=True)


def resumable(resume: Resume | None, game: Game, spec: BoardSpec, options: dict) -> Resume | None:
    """The journalled game, if it is this game on this board with these options."""
    if resume and (resume.game, resume.board, resume.options) == (game.name, spec.name, options):
        return resume
    return None


def main(args: argparse.Namespace) -> int:
    request = request_of(args)
    board = open_pi_board(request.spec)
    link = None
    try:
        table = wiring.wire(
            board,
            request.game,
            request.options,
            takeback=request.takeback,
            journal=request.journal,
            sinks=[print_event],
        )
        link = open_link(request.link, table.loop) if request.link else None
        resume = request.resume
        table.loop.start(*((resume.actions, resume.reserves) if resume else ()))
        table.loop.run_until(math.inf, look_every=LINK_POLL if link else None)
    except KeyboardInterrupt:
        return 0
    finally:
        if link is not None:
            link.close()
        board.close()


def open_link(url: str, loop: BoardLoop) -> SerialLink:
    """The serial link to a host; a URL that can never open is the person's mistake."""
    try:
        return SerialLink(url, loop)
    except LinkURLError as error:
        raise CommandError(str(error)) from None


def open_pi_board(spec: BoardSpec):
    from magboard.hardware.real import HardwareUnavailableError, PiBoard

    try:
        return PiBoard(spec)
    except HardwareUnavailableError as error:
        raise CommandError(str(error)) from None
    except (OSError, ValueError) as error:
        raise CommandError(f"cannot start board {spec.name}: {error}") from None
