"""The one place where a board and a game become a running table: the game's profile on that
board, a referee, the loop that drives it, and where its events go.

The Pi's `magboard run`, the simulator (its console, the web page, scenarios, the demo and soak
runs) and the benchmarks all wire a table here, so what is tested and measured is what the board
runs: swap the board, not the app.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from magboard.firmware.clocks import GameClock, clock_for
from magboard.firmware.events import Event
from magboard.firmware.games import Game
from magboard.firmware.journal import Journal
from magboard.firmware.profiles import Profile, profile_for
from magboard.firmware.referee import Referee
from magboard.hardware.interface import Board
from magboard.hardware.spec import BoardSpec

from .closing import Schedule
from .hours import OpeningHours
from .loop import BoardLoop
from .maintenance import MaintenanceWatch
from .unattended import Unattended


@dataclass(frozen=True)
class Table:
    """A game set up on a board, ready for `loop.start`."""

    board: Board
    profile: Profile
    referee: Referee
    loop: BoardLoop


def wire(
    board: Board,
    game: Game,
    options: Mapping[str, Any] | None = None,
    *,
    takeback: bool = True,
    journal: Journal | None = None,
    sinks: Iterable[Callable[[Event], None]] = (),
    unattended: Unattended | None = None,
    hours: OpeningHours | None = None,
    calendar: Callable[[], datetime] = datetime.now,
    maintenance: Path | None = None,
) -> Table:
    """Sets `game` (with `options`; missing ones take their defaults) up on `board`.

    Events go to the journal first, when there is one, so the game is on disk before anyone
    hears of a move; then to each of `sinks`, in order. ProfileError if the game has no profile
    for the board. `hours` are kept by `calendar`'s local time; `maintenance` is the file
    that says the board is out of order (firmware/app/maintenance.py).
    """
    referee, game_clock = referee_for(board.spec, game, options, takeback)
    now = board.clock.now()
    loop = BoardLoop(
        board,
        referee,
        sinks,
        game_clock=game_clock,
        journal=journal,
        unattended=unattended,
        hours=Schedule(hours, calendar, now) if hours is not None else None,
        maintenance=MaintenanceWatch(maintenance, now) if maintenance is not None else None,
        referee_for=referee_for,
    )
    return Table(board, referee.profile, referee, loop)


def change_game(
    loop: BoardLoop, game: Game, options: Mapping[str, Any] | None, now: float
) -> Referee:
    """Sets `game` up on a running loop's board in place of the one it referees (the loop's
    `set_game`)."""
    return loop.set_game(game, options, now)


def referee_for(
    spec: BoardSpec, game: Game, options: Mapping[str, Any] | None, takeback: bool
) -> tuple[Referee, GameClock | None]:
    """A referee for `game` (with `options`) on the board `spec` describes, and its game clock."""
    options = game.resolve_options(options)
    profile = profile_for(game, spec, options)
    # The loop takes the referee's events over as it is built: nothing is emitted before.
    initial = game.new_state(options)
    referee = Referee(profile, initial, _unheard, takeback=takeback, options=options)
    return referee, clock_for(options, initial.players)


def _unheard(event: Event) -> None:
    pass
