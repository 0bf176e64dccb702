"""`magboard run`: the referee on the Pi's board until stopped.

Events go to stdout as JSON lines (the schema of docs/protocol.md) and the game in progress to
the journal, so a restart resumes it; with `--link URL`, to a host over a serial link too (which
may send commands back: firmware/app/link.py). On a Pi this is what the systemd service runs.
`magboard run --sim` reads the same request and runs it on the simulated board instead.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from magboard.firmware.events import Event
from magboard.firmware.games import DEFAULT_GAME, Game, GameError, get_game
from magboard.firmware.journal import Journal, Resume
from magboard.hardware.spec import BoardSpec, BoardSpecError, load_board

from . import opponent_seat, wiring
from .board_player import Thinking
from .config import DEFAULT_JOURNAL, Config, ConfigError, load_config
from .errors import CommandError
from .hours import OpeningHours
from .link import POLL as LINK_POLL
from .link import SerialLink
from .loop import BoardLoop
from .maintenance import maintenance_file
from .mqtt_settings import POLL as MQTT_POLL
from .mqtt_settings import MqttSettingError, MqttSettings, settings
from .notify import Notifier
from .pi_board import open_pi_board
from .ports import LinkURLError
from .selftest import default_button
from .service_report import ServiceReport, stop_on_sigterm
from .unattended import Unattended

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat

    from .mqtt import MqttLink
    from .remote import RemoteMatch

BUTTONS_SETTLE = 0.5
"""Seconds between setting the button lines up and reading whether `new` is held at start-up:
the pull-ups were enabled a moment ago, and on the emulated machine (sim/chardev) the simulated
board puts a held button's level back only after the kernel has applied the pull-up asked for."""


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
    unattended: Unattended | None = None
    mqtt: MqttSettings | None = None
    """Where to report over MQTT (firmware/app/mqtt.py), if anywhere."""
    remote: str | None = None
    """The remote match this board plays a seat of (firmware/app/remote.py), if any."""
    seat: str | None = None
    """The seats played on this board in the remote match, as `--seat` names them."""
    ai: AiSeat | None = None
    """The seat the board plays itself (`--ai`), if any."""
    ai_budget: float | None = None
    """Its thinking time per turn, in seconds (None: the opponent's default)."""
    hours: OpeningHours | None = None
    """When the board referees (`[hours]`); None: always."""


def request_of(args: argparse.Namespace, default_journal: Path = DEFAULT_JOURNAL) -> RunRequest:
    """The request from the command line over the configuration file (`--config`): a flag
    given wins; the file's options go with the file's game only. `default_journal` is where
    the games are kept when neither says (a simulated board passes its own)."""
    config = load_config(Path(args.config)) if args.config else Config()

    def configured(key: str, read: Callable[[Any], Any], value: Any) -> Any:
        """`read(value)`, where a value from the file is refused naming the file and key."""
        try:
            return read(value)
        except (GameError, BoardSpecError) as error:
            raise ConfigError(f"{args.config}: {key}: {error}") from None

    spec = (
        load_board(args.board)
        if args.board
        else configured("board", load_board, config.board or "r1")
    )
    game = (
        get_game(args.game)
        if args.game
        else configured("game", get_game, config.game or DEFAULT_GAME)
    )
    given = game.parse_options(args.option)
    if config.options and game.name == get_game(config.game or DEFAULT_GAME).name:
        options = configured("options", game.resolve_options, {**config.options, **given})
    else:
        options = game.resolve_options(given)
    remote, seat, match = remote_of(args, game, options)
    ai, ai_budget = ai_of(args, config, game, options)
    if ai is not None and remote is not None:
        raise CommandError("--ai and --remote: the board plays a seat, or another board does")
    path = Path(args.journal or config.journal or default_journal).expanduser()
    journal = Journal(path, match=match, limits=config.history)
    resume = resumable(journal.load(), game, spec, options, match)
    # A turn sent to the other board is not undone by hand.
    takeback = not args.no_takeback and config.takeback is not False and remote is None
    return RunRequest(
        spec,
        game,
        options,
        journal,
        resume,
        takeback,
        args.link or config.link,
        config.unattended,
        mqtt=mqtt_of(args, config),
        remote=remote,
        seat=seat,
        ai=ai,
        ai_budget=ai_budget,
        hours=config.hours,
    )


def ai_of(
    args: argparse.Namespace, config: Config, game: Game, options: dict[str, Any]
) -> tuple[AiSeat | None, float | None]:
    """`--ai` and `--ai-budget` over the file's `ai` and `ai_budget` (a mistake in the file is
    refused naming the file and the key)."""
    seat, budget = opponent_seat.from_args(args, game, options)
    if getattr(args, "ai", None) is None and config.ai is not None:
        seat = opponent_seat.seat_of(config.ai, game, f"{args.config}: ai", options)
    if getattr(args, "ai_budget", None) is None and config.ai_budget is not None:
        budget = config.ai_budget
    opponent_seat.needs_seat(seat, budget)
    return seat, budget


def remote_of(
    args: argparse.Namespace, game: Game, options: dict[str, Any]
) -> tuple[str | None, str | None, str | None]:
    """`--remote URL` and `--seat SEAT`, checked before anything opens (paho-mqtt is loaded
    only for a board that plays a remote match)."""
    remote, seat = getattr(args, "remote", None), getattr(args, "seat", None)
    if remote is None and seat is None:
        return None, None, None
    if remote is None or seat is None:
        raise CommandError("--remote URL and --seat SEAT go together (a remote match)")
    from .remote import RemoteURL, RemoteURLError, SeatError, seats_of

    try:
        match = RemoteURL.parse(remote).match
        seats_of(game, game.new_state(options).players, seat)
    except (RemoteURLError, SeatError) as error:
        raise CommandError(str(error)) from None
    return remote, seat, match


def mqtt_of(args: argparse.Namespace, config: Config) -> MqttSettings | None:
    """`--mqtt URL` and `--board-id ID` over the file's `[mqtt]` table; None: no MQTT."""
    table = config.mqtt
    url = getattr(args, "mqtt", None) or (table.url if table else None)
    board_id = getattr(args, "board_id", None) or (table.board_id if table else None)
    if url is None:
        if board_id is not None and getattr(args, "board_id", None):
            raise CommandError("--board-id names the board on MQTT: give --mqtt URL too")
        return None
    ca_file = table.ca_file if table else None
    shown = {}
    if table is not None:
        shown = {"name": table.name, "area": table.area, "support_url": table.support_url}
        if table.discovery_prefix is not None:
            shown["discovery_prefix"] = table.discovery_prefix
    try:
        return settings(url, board_id, ca_file, **shown)
    except MqttSettingError as error:
        raise CommandError(f"mqtt: {error}") from None


def print_event(event: Event) -> None:
    print(event.to_json(), flush=True)


def resumable(
    resume: Resume | None, game: Game, spec: BoardSpec, options: dict, match: str | None = None
) -> Resume | None:
    """The journalled game, if it is this game on this board with these options, in this
    remote match (or none): a match's game never resumes into another match."""
    if resume is None:
        return None
    wanted = (game.name, spec.name, options, match)
    return resume if (resume.game, resume.board, resume.options, resume.match) == wanted else None


def main(args: argparse.Namespace) -> int:
    request = request_of(args)
    board = open_pi_board(request.spec)
    notifier = Notifier.from_environ(os.environ)
    links = Links()
    report = None
    try:
        board.clock.sleep(BUTTONS_SETTLE)
        selftest_asked = default_button(request.spec) in board.held_buttons()
        table = wiring.wire(
            board,
            request.game,
            request.options,
            takeback=request.takeback,
            journal=request.journal,
            sinks=[print_event],
            unattended=request.unattended,
            hours=request.hours,
            maintenance=maintenance_file(request.journal.path),
        )
        links.open(request, table.loop)
        _set_opponent(table.loop, request)
        report = ServiceReport.from_environ(os.environ, table.loop)
        if report is not None:
            stop_on_sigterm()
        resume = request.resume
        table.loop.start(*((resume.actions, resume.reserves) if resume else ()))
        # What is made by now (drivers, tables, the rules' caches) lives as long as the board:
        # the collector leaves it alone, so a collection in play walks only what play made.
        gc.freeze()
        if report is not None:  # what `magboard update` keeps a new version on
            report.ready(resume)
        if notifier is not None:  # set up and lit: systemd may count the board as started
            table.loop.watchdog = notifier
            notifier.status(f"refereeing {request.game.title} on {request.spec.name}")
            notifier.ready()
        if selftest_asked:
            table.loop.selftest()
        look_every = _look_every(links.serial, notifier, links.mqtt)
        if links.remote is not None:
            look_every = min(look_every or links.remote.look_every, links.remote.look_every)
        table.loop.run_until(math.inf, look_every=look_every)
    except KeyboardInterrupt:
        pass
    finally:
        if notifier is not None:
            notifier.stopping()
            notifier.close()
        links.close()
        if report is not None:
            report.stopped(request.journal)
        request.journal.close()
        board.close()
    return 0


def _set_opponent(loop: BoardLoop, request: RunRequest) -> None:
    """The board plays the seat asked for, thinking by the real clock (the menu may choose
    one later, thinking alike)."""
    loop.thinking = Thinking(budget=request.ai_budget)
    if request.ai is not None:
        loop.set_opponent(request.ai)


def _look_every(
    link: SerialLink | None, notifier: Notifier | None, mqtt: MqttLink | None = None
) -> float | None:
    """How often the loop must wake with nothing to do: for the link's and the broker's
    commands, and often enough for systemd's watchdog."""
    wakes = [LINK_POLL] if link else []
    if mqtt is not None:
        wakes.append(MQTT_POLL)
    if notifier is not None and notifier.watchdog_interval is not None:
        wakes.append(notifier.watchdog_interval / 4)
    return min(wakes, default=None)


@dataclass
class Links:
    """The links a running board is reached by: the serial link, MQTT and a remote match, each
    if the request names it. Opened once and closed once, in that order, by `magboard run` and
    the simulator's console alike."""

    serial: SerialLink | None = None
    mqtt: MqttLink | None = None
    remote: RemoteMatch | None = None

    def open(self, request: RunRequest, loop: BoardLoop) -> None:
        """Opens each link `request` names, in turn; those already open stay here to be
        closed when a later one cannot be opened."""
        if request.link:
            self.serial = open_link(request.link, loop)
        if request.mqtt:
            self.mqtt = open_mqtt(request.mqtt, loop)
        if request.remote:
            self.remote = open_remote(request, loop)

    def close(self) -> None:
        for link in (self.serial, self.mqtt, self.remote):
            if link is not None:
                link.close()


def open_link(url: str, loop: BoardLoop) -> SerialLink:
    """The serial link to a host; a URL that can never open is the person's mistake."""
    try:
        return SerialLink(url, loop)
    except LinkURLError as error:
        raise CommandError(str(error)) from None


def open_mqtt(mqtt: MqttSettings, loop: BoardLoop) -> MqttLink:
    """The board on MQTT (paho-mqtt is loaded only for a board that reports there)."""
    from .mqtt import open_mqtt as opened

    return opened(mqtt, loop)


def open_remote(request: RunRequest, loop: BoardLoop) -> RemoteMatch:
    """Joins the remote match `--remote` names, as the seats `--seat` names (both checked by
    `remote_of`); the journal is marked as this match's."""
    from .remote import open_match

    assert request.remote is not None and request.seat is not None
    return open_match(request.remote, request.seat, loop)
