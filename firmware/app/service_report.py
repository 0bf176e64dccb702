"""The service's word on itself, in its state directory (hardware/service_health.py): written as
it becomes ready and as it stops, so that `magboard update` keeps a new version only on what the
board itself found, not on a guess from outside.

The start-up check is what a board can find with nobody at it: the expanders that do not answer
and the faults survived while the board was opened and the game set up (the self-test that
needs a person's hand stays `magboard selftest`). Only a service told where its state lives
(MAGBOARD_STATE, as the unit sets it) reports; one run by hand does not.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from pathlib import Path

from magboard.firmware.events import Note
from magboard.firmware.journal import Journal, Resume
from magboard.hardware import service_health
from magboard.hardware.service_health import GameInPlay, ServiceHealth, ServiceState
from magboard.hardware.spec import INPUT_PINS

from .loop import BoardLoop
from .mqtt_discovery import software_version
from .mqtt_health import HealthWatch


class ServiceReport:
    """Follows the loop's faults from before its start; `ready` and `stopped` write the file."""

    def __init__(self, state_dir: Path, loop: BoardLoop) -> None:
        self.state_dir = state_dir
        self.loop = loop
        self.watch = HealthWatch(loop)
        loop.sinks.append(self.watch.hear)
        self._found: tuple[str, ...] = ()

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], loop: BoardLoop) -> ServiceReport | None:
        state = environ.get("MAGBOARD_STATE")
        return cls(Path(state), loop) if state else None

    def start_check(self) -> tuple[str, ...]:
        """What is wrong with the board as it came up, a line each (none: all is well): the
        expanders a fresh scan finds not answering (the loop's first look at the board, made
        to set up the game, keeps no faults), and the faults the loop survived so far."""
        board = self.loop.board
        try:
            scan = board.scan()
        except Exception as error:  # a driver that cannot scan is the finding itself
            return (f"the board cannot be scanned ({type(error).__name__}: {error})",)
        width = len(INPUT_PINS)
        mask = (1 << width) - 1
        missing = [
            f"expander {expander.label} does not answer"
            for expander in board.spec.expanders
            if scan.blind >> (expander.index * width) & mask
        ]
        kinds = set(self.watch.read(board.clock.now()).fault_kinds)
        kinds |= {fault.kind for fault in scan.faults if fault.kind != "expander-lost"}
        return (*missing, *(f"{kind} fault survived" for kind in sorted(kinds)))

    def ready(self, resume: Resume | None) -> None:
        """Before READY=1: the version, the game resumed (None: a new game) and the check."""
        game = None if resume is None else GameInPlay.of(resume.game, resume.actions)
        self._found = self.start_check()
        self._write(ServiceState.READY, game, self._found)

    def stopped(self, journal: Journal) -> None:
        """On a clean stop, before the journal closes: the game in progress left in it (and
        the start-up check's findings again, which a new version is compared with)."""
        left = journal.load()
        game = None if left is None else GameInPlay.of(left.game, left.actions)
        self._write(ServiceState.STOPPED, game, self._found)

    def _write(self, state: ServiceState, game: GameInPlay | None, faults: tuple[str, ...]) -> None:
        health = ServiceHealth(state, software_version(), os.getpid(), game, faults)
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            service_health.write(self.state_dir, health)
        except OSError as error:  # the board referees on; an update then finds no report
            where = self.state_dir / service_health.FILE
            self.loop.emit(Note(self.loop.board.clock.now(), f"cannot write {where}: {error}"))


def stop_on_sigterm() -> None:
    """systemd stops a service with SIGTERM: taken as Ctrl-C is, so the loop ends and the
    report of what the journal holds is written (without it the process just dies, which the
    journal survives, but nothing would say which game it left)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
