"""`magboard watch URL` and `magboard send URL COMMAND`: a board's serial link at a terminal.

`watch` prints every event the board sends, one line each ("12.48 X played b2") or as the JSON
lines themselves (`--json`); `send` sends one command and prints what comes back within a second.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from magboard.firmware.app.errors import CommandError
from magboard.firmware.events import (
    ButtonPressed,
    Event,
    FaultSurvived,
    GameOver,
    GameStarted,
    Illegal,
    InHand,
    LedFrame,
    Mismatch,
    Moved,
    Note,
    Obligation,
    Partial,
    Restored,
    TakenBack,
)

from .link import BoardLink, LinkError

COMMANDS = {"hello": 0, "state": 0, "new-game": 0, "press": 1}
"""The commands `send` knows and how many words follow each."""


class Describer:
    """Turns events into one line for people; remembers the players' names from the last
    `game-started`."""

    def __init__(self) -> None:
        self.names: tuple[str, ...] = ()

    def name(self, player: int | None) -> str:
        if player is not None and 0 <= player < len(self.names):
            return self.names[player]
        return "nobody" if player is None else f"player {player + 1}"

    def __call__(self, event: Event) -> str:
        return f"{event.t:.2f} {self.text(event)}"

    def text(self, event: Event) -> str:
        match event:
            case GameStarted():
                self.names = event.players
                options = "".join(f" {k}={_word(v)}" for k, v in sorted(event.options.items()))
                text = f"game {event.game}{options} on {event.board}: {', '.join(event.players)}"
                if event.actions:
                    text += f"; so far {' '.join(event.actions)}"
                return text
            case Moved(actions=("pass",)):
                return f"{self.name(event.player)} passed"
            case Moved():
                return f"{self.name(event.player)} played {' '.join(event.actions)}"
            case Partial():
                return f"{self.name(event.player)} is playing {' '.join(event.actions)} ..."
            case InHand():
                where = " ".join(event.targets) if event.targets else "nowhere: put it back"
                return f"{self.name(event.player)} lifted {' '.join(event.lifted)}; may go {where}"
            case Obligation():
                return f"{self.name(event.player)} must: {event.detail} ({' '.join(event.places)})"
            case Illegal():
                return f"illegal: {_changes(event.remove, event.put_back)} ({event.detail})"
            case Restored():
                return "restored: the board matches the game again"
            case TakenBack():
                return f"{self.name(event.player)} took back {' '.join(event.actions)}"
            case GameOver(winners=()):
                return f"draw: {event.reason}"
            case GameOver():
                line = f" ({' '.join(event.line)})" if event.line else ""
                return f"{' and '.join(event.names)} won: {event.reason}{line}"
            case Mismatch():
                return f"pieces differ from the game: {_changes(event.remove, event.put_back)}"
            case LedFrame():
                pixels = [event.pixels[i : i + 6] for i in range(0, len(event.pixels), 6)]
                lit = sum(p != "000000" for p in pixels)
                return f"leds: {lit} of {len(pixels)} lit"
            case FaultSurvived():
                return f"fault {event.kind} at {event.where}: {event.detail}"
            case ButtonPressed():
                return f"button {event.button} {'pressed' if event.pressed else 'released'}"
            case Note():
                return event.text
        return f"{event.TYPE}"


def _changes(remove: tuple[str, ...], put_back: tuple[str, ...]) -> str:
    parts = []
    if remove:
        parts.append(f"take off {' '.join(remove)}")
    if put_back:
        parts.append(f"put back on {' '.join(put_back)}")
    return ", ".join(parts) or "nothing to change"


def _word(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


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
