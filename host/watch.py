"""`magboard watch URL` and `magboard send URL COMMAND`: a board's serial link at a terminal.

`watch` prints every event the board sends, one line each ("12.48 X played b2") or as the JSON
lines themselves (`--json`), and carries on across the board's restarts (host/follow.py); `send`
sends one command and prints what comes back within a second.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from magboard.firmware.app.errors import CommandError
from magboard.firmware.events import REFUSED, LedFrame, Note
from magboard.firmware.words import Describer

from .follow import follow
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


def _print(events, args: argparse.Namespace) -> list[str]:
    """Prints the events; returns the refusals among them (the reasons), for `send`'s status."""
    describe = Describer()
    refusals = []
    for event in events:
        if isinstance(event, Note) and event.text.startswith(REFUSED):
            refusals.append(event.text[len(REFUSED) :])
        if args.json:
            print(event.to_json(), flush=True)
        elif args.leds or not isinstance(event, LedFrame):
            print(describe(event), flush=True)
    return refusals


def _say(text: str) -> None:
    print(f"magboard: {text}", file=sys.stderr, flush=True)


def main(args: argparse.Namespace, sleep: Callable[[float], None] = time.sleep) -> int:
    """`sleep` is how `watch` waits between tries to reopen a lost link."""
    command = command_of(args.command_name, args.args) if args.command == "send" else None
    try:
        if command is None:
            events = follow(args.url, say=_say, on_skip=_skipped, timeout=args.seconds, sleep=sleep)
            _print(events, args)
            return 0
        with BoardLink(args.url, on_skip=_skipped) as link:
            link.send(command)
            refusals = _print(link.events(timeout=args.wait), args)
    except LinkError as error:
        raise CommandError(str(error)) from None
    for reason in refusals:  # a script must not take a refused command for a done one
        print(f"magboard: the board refused the command: {reason}", file=sys.stderr)
    return 1 if refusals else 0
