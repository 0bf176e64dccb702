"""`magboard watch URL` and `magboard send URL COMMAND`: a board's serial link at a terminal.

`watch` prints every event the board sends, one line each ("12.48 X played b2") or as the JSON
lines themselves (`--json`); `send` sends one command and prints what comes back within a second.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from magboard.firmware.app.errors import CommandError
from magboard.firmware.events import LedFrame
from magboard.firmware.words import Describer

from .link import BoardLink, LinkError

COMMANDS = {"hello": 0, "state": 0, "new-game": 0, "press": 1}
"""The commands `send` knows and how many words follow each."""


def command_of(name: str, args: list[str]) -> dict[str, Any]:
    """The command for `magboard send`'s words: `press seat-1` -> {"do": "press", ...}."""
    if name not in COMMANDS:
        raise CommandError(f"no command {name!r} (commands: hello, state, new-game, press BUTTON)")
    if len(args) != COMMANDS[name]:
        usage = "press BUTTON" if name == "press" else name
        raise CommandError(f"usage: magboard send URL {usage}")
    if name == "press":
        return {"do": "press", "button": args[0]}
    return {"do": name}


def _skipped(reason: str, line: bytes) -> None:
    print(f"skipped a line that is not an event ({reason}): {line!r}", file=sys.stderr)


def _print(events, args: argparse.Namespace) -> None:
    describe = Describer()
    for event in events:
        if args.json:
            print(event.to_json(), flush=True)
        elif args.leds or not isinstance(event, LedFrame):
            print(describe(event), flush=True)


def main(args: argparse.Namespace) -> int:
    command = command_of(args.command_name, args.args) if args.command == "send" else None
    try:
        with BoardLink(args.url, on_skip=_skipped) as link:
            if command is None:
                _print(link.events(timeout=args.seconds), args)
            else:
                link.send(command)
                _print(link.events(timeout=args.wait), args)
    except LinkError as error:
        raise CommandError(str(error)) from None
    return 0
