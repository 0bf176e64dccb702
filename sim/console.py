"""`magboard run --sim`: the referee on a simulated board in real time, driven by typed commands
(sim/commands.py), events printed as JSON lines (LED frames only with `--leds`: they come many a
second and drown the rest). For hardware-in-the-loop testers who want the firmware's exact
behaviour without the board. `help` prints the commands as text. At the end of input (a script
piped in) or on `quit`, the board is left to settle and judge what was done last, so a script's
last move is never lost.

With `--link URL` the simulated board has a serial link as a real one does: `--link pty` opens a
pseudo-terminal and says its path in a `note` (`magboard watch /dev/pts/N` connects to it); `--link
tcp://HOST:PORT` connects out to a host listening there; `--link listen://HOST:PORT` listens for any
number of hosts (`magboard watch` and `magboard send` at once). With `--mqtt URL` it reports to an
MQTT broker as a real board does (firmware/app/mqtt.py). With `--remote URL --seat SEAT` it plays
one seat of a remote match (firmware/app/remote.py): the other board's moves are lit, and made here
by typed commands. With `--ai SEAT[:LEVEL]` the board plays that seat: its turns are lit, and
made by typed commands as a person at the board would."""

from __future__ import annotations

import argparse
import os
import select
import sys
import time
from collections.abc import Callable

from magboard.firmware.app.board_player import Thinking
from magboard.firmware.app.config import SIM_JOURNAL
from magboard.firmware.app.maintenance import maintenance_file
from magboard.firmware.app.notify import Notifier
from magboard.firmware.app.run import Links, RunRequest, print_event, request_of
from magboard.firmware.app.service_report import ServiceReport, stop_on_sigterm
from magboard.firmware.events import Event, LedFrame, Note
from magboard.firmware.journal import Resume

from .commands import HELP, CommandRefused, Hands, parse_line
from .session import SimSession

TICK = 0.02


def main(args: argparse.Namespace) -> int:
    """`magboard run --sim`: the request `magboard run` reads, on a simulated board, its games
    kept apart from the real board's unless a journal is given."""
    return run_console(request_of(args, SIM_JOURNAL), leds=getattr(args, "leds", False))


def printer(leds: bool) -> Callable[[Event], None]:
    """Prints events as JSON lines; LED frames only if asked for."""

    def show(event: Event) -> None:
        if leds or not isinstance(event, LedFrame):
            print_event(event)

    return show


def run_console(request: RunRequest, *, leds: bool = False) -> int:
    session = SimSession(
        request.spec,
        request.game.name,
        request.options,
        takeback=request.takeback,
        journal=request.journal.path,
        sinks=[printer(leds)],
        unattended=request.unattended,
        hours=request.hours,
        maintenance=maintenance_file(request.journal.path),
        match=request.journal.match,
        ai=request.ai,
        thinking=Thinking(budget=request.ai_budget),  # real time: the real clock
    )
    links = Links()
    # Under a service manager (systemd, or a test standing in for it), as `magboard run` is.
    report = ServiceReport.from_environ(os.environ, session.loop)
    notifier = Notifier.from_environ(os.environ)
    if report is not None:
        stop_on_sigterm()
    try:
        links.open(request, session.loop)
        return _console(session, request.resume, report, notifier)
    finally:
        if report is not None and session.loop.journal is not None:
            report.stopped(session.loop.journal)
        if notifier is not None:
            notifier.stopping()
            notifier.close()
        links.close()


def _console(
    session: SimSession,
    resume: Resume | None,
    report: ServiceReport | None = None,
    notifier: Notifier | None = None,
) -> int:
    actions = resume.actions if resume else ()
    position = session.initial
    for text in actions:  # a resumed game: the simulated pieces start where the journal says
        position = position.apply(position.parse_action(text))
    session.lay_out(position)
    session.start(actions, resume.reserves if resume else None)
    hands = Hands(session)
    if report is not None:
        report.ready(resume)
    if notifier is not None:
        notifier.ready()
    print_event(Note(session.clock.now(), "simulated board ready: type 'help' for the commands"))
    started = time.monotonic()
    try:
        while True:
            ready, _, _ = select.select([sys.stdin], [], [], TICK)
            if ready:
                line = sys.stdin.readline()
                if not line or line.strip() in ("quit", "exit"):
                    settle(session, hands)
                    return 0
                if line.strip() == "help":
                    print(HELP, flush=True)
                elif line.strip():
                    try:
                        hands.run(parse_line(line))
                    except CommandRefused as error:
                        print_event(Note(session.clock.now(), f"refused: {error}"))
            session.run_until(time.monotonic() - started)
    except KeyboardInterrupt:
        return 0


def settle(session: SimSession, hands: Hands) -> None:
    """Lets what the hands did last come to rest and be judged, at once in virtual time: the
    end of a script is not the end of its last move."""
    session.run_until(max(session.clock.now(), hands.hands_free_at))
    session.settle()
