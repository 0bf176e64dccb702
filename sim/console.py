"""`magboard run --sim`: the referee on a simulated board in real time, driven by typed
commands (sim/commands.py), events printed as JSON lines. For hardware-in-the-loop testers who
want the firmware's exact behaviour without the board.

With `--link URL` the simulated board has a serial link as a real one does: `--link pty` opens a
pseudo-terminal and says its path in a `note` (`magboard watch /dev/pts/N` connects to it);
`--link socket://HOST:PORT` connects out to a host listening there. With `--mqtt URL` it reports
to an MQTT broker as a real board does (firmware/app/mqtt.py). With `--remote URL --seat SEAT`
it plays one seat of a remote match (firmware/app/remote.py): the other board's moves are lit,
and made here by typed commands."""

from __future__ import annotations

import argparse
import select
import sys
import time

from magboard.firmware.app.run import (
    RunRequest,
    open_link,
    open_mqtt,
    open_remote,
    print_event,
    request_of,
)
from magboard.firmware.events import Note
from magboard.firmware.journal import Resume

from .commands import HELP, CommandRefused, Hands, parse_line
from .session import SimSession

TICK = 0.02


def main(args: argparse.Namespace) -> int:
    """`magboard run --sim`: the request `magboard run` reads, on a simulated board."""
    return run_console(request_of(args))


def run_console(request: RunRequest) -> int:
    session = SimSession(
        request.spec,
        request.game.name,
        request.options,
        takeback=request.takeback,
        journal=request.journal.path,
        sinks=[print_event],
        unattended=request.unattended,
        match=request.journal.match,
    )
    serial_link = open_link(request.link, session.loop) if request.link else None
    mqtt = remote = None
    try:
        mqtt = open_mqtt(request.mqtt, session.loop) if request.mqtt else None
        remote = open_remote(request, session.loop) if request.remote else None
        return _console(session, request.resume)
    finally:
        if serial_link is not None:
            serial_link.close()
        if mqtt is not None:
            mqtt.close()
        if remote is not None:
            remote.close()


def _console(session: SimSession, resume: Resume | None) -> int:
    actions = resume.actions if resume else ()
    position = session.initial
    for text in actions:  # a resumed game: the simulated pieces start where the journal says
        position = position.apply(position.parse_action(text))
    session.lay_out(position)
    session.start(actions, resume.reserves if resume else None)
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
