"""`magboard run`: the referee on a board, real or simulated, until stopped.

Events go to stdout as JSON lines (the schema of docs/protocol.md) and the game in progress to
the journal, so a restart resumes it; with `--link URL`, to a host over a serial link too (which
may send commands back: firmware/app/link.py). On a Pi this is what the systemd service runs.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from magboard.firmware.events import Event
from magboard.firmware.games import Game, get_game
from magboard.firmware.journal import Journal, Resume
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import Referee
from magboard.hardware.spec import BoardSpec, load_board

from .errors import CommandError
from .link import POLL as LINK_POLL
from .link import LinkURLError, SerialLink
from .loop import BoardLoop

DEFAULT_JOURNAL = Path(os.environ.get("MAGBOARD_STATE", "~/.local/state/magboard")) / "game.jsonl"


def print_event(event: Event) -> None:
    print(event.to_json(), flush=True)


def resumable(resume: Resume | None, game: Game, spec: BoardSpec, options: dict) -> tuple[str, ...]:
    """The journalled actions, if the journal holds this game on this board with these options."""
    if resume and (resume.game, resume.board, resume.options) == (game.name, spec.name, options):
        return resume.actions
    return ()


def main(args: argparse.Namespace) -> int:
    spec = load_board(args.board)
    game = get_game(args.game)
    options = game.resolve_options(game.parse_options(args.option))
    journal = Journal(Path(args.journal or DEFAULT_JOURNAL).expanduser())
    actions = resumable(journal.load(), game, spec, options)
    if args.sim:
        from magboard.sim.console import run_console

        return run_console(
            spec, game, options, journal, actions, not args.no_takeback, link=args.link
        )
    board = open_pi_board(spec)
    referee = Referee(
        profile_for(game, spec, options),
        game.new_state(options),
        print_event,
        takeback=not args.no_takeback,
        options=options,
    )
    sinks: list[Callable[[Event], None]] = [print_event, journal.record]
    loop = BoardLoop(board, referee, sinks)
    link = None
    try:
        link = open_link(args.link, loop) if args.link else None
        loop.start(actions)
        clock = board.clock
        while True:
            loop.step(until=clock.now() + LINK_POLL if link else None)
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
