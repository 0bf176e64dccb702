"""`magboard run --sim`: the referee on a simulated board in real time, driven by typed
commands (sim/commands.py), events printed as JSON lines. For hardware-in-the-loop testers who
want the firmware's exact behaviour without the board."""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Sequence
from typing import Any

from magboard.firmware.events import Event, Note
from magboard.firmware.games import Game
from magboard.firmware.journal import Journal
from magboard.hardware.spec import BoardSpec

from .commands import HELP, CommandRefused, Hands, parse_line
from .session import SimSession

TICK = 0.02


def print_event(event: Event) -> None:
    print(event.to_json(), flush=True)


def run_console(
    spec: BoardSpec,
    game: Game,
    options: dict[str, Any],
    journal: Journal,
    actions: Sequence[str],
    takeback: bool,
) -> int:
    session = SimSession(
        spec, game.name, options, takeback=takeback, journal=journal.path, sinks=[print_event]
    )
    position = session.initial
    for text in actions:  # a resumed game: the simulated pieces start where the journal says
        position = position.apply(position.parse_action(text))
    session.lay_out(position)
    session.start(actions)
    hands = Hands(session)
    print_event(Note(session.clock.now(), "simulated board ready: type 'help' for the commands"))
    started = time.monotonic()
    try:
        while True:
            ready, _, _ = select.select([sys.stdin], [], [], TICK)
            if ready:
                line = sys.stdin.readline()
                if not line:
                    return 0
                if line.strip() in ("quit", "exit"):
                    return 0
                if line.strip() == "help":
                    print_event(Note(session.clock.now(), HELP))
                elif line.strip():
                    try:
                        hands.run(parse_line(line))
                    except CommandRefused as error:
                        print_event(Note(session.clock.now(), f"refused: {error}"))
            session.run_until(time.monotonic() - started)
    except KeyboardInterrupt:
        return 0
