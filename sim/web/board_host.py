"""One simulated board as the web page's server runs it: the session, the pages connected to it
and what each is sent, the commands pages send, and the task that keeps the board's virtual
clock in step with the wall clock. The web application around it is server.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from starlette.websockets import WebSocket

from magboard.firmware.app.board_player import Thinking
from magboard.firmware.app.commands import Link, Refused, checked, new_game_of
from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.hours import OpeningHours
from magboard.firmware.app.opponent_seat import seat_of
from magboard.firmware.events import (
    ClockChanged,
    Event,
    Fulfilled,
    GameOver,
    HoursChanged,
    LedFrame,
    MaintenanceChanged,
    Note,
    Obligation,
)
from magboard.firmware.games import DEFAULT_GAME, Game, GameError, get_game
from magboard.firmware.profiles import ProfileError
from magboard.firmware.words import Describer, Words
from magboard.hardware.spec import BoardSpec, board_names, load_board

from ..commands import CommandRefused, Hands
from ..session import SimSession
from .events import SimBoardInfo
from .snapshot import (
    PieceDrawing,
    board_info,
    hosted_games,
    leds,
    pieces,
    standings,
)

log = logging.getLogger("magboard.sim.web")

TICK = 0.015
"""Wall seconds between steps of the board."""
MAX_STEP = 1.0
"""Most virtual seconds one tick may advance; a host too slow to keep up lets time slip."""
MAX_MESSAGE = 4096
"""Longest command a page may send, in bytes."""
QUEUE = 2000
"""Messages waiting for one page; a page that falls this far behind is disconnected."""
HISTORY = 100
"""Past events (not LED frames) a page is sent when it connects, for its log."""
STANDING = (ClockChanged, Obligation, Fulfilled, GameOver, HoursChanged, MaintenanceChanged)
"""Events whose latest a page is sent when it connects even if older than that history: where
the clocks and the match stand, and whether the board is closed or out of order."""
KEEP_EVENTS = 2000
"""Events (and LED frames on the wire) the session keeps in memory."""


class Client:
    """One connected page: a queue of outgoing messages and the task that sends them."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE)
        self.overflowed = False

    def send(self, text: str) -> None:
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.overflowed = True
            log.warning("a page fell %d messages behind: disconnecting it", QUEUE)

    async def pump(self) -> None:
        while True:
            if self.overflowed:
                await self.websocket.close(code=1013)  # try again later
                return
            text = await self.queue.get()
            if text is None:
                return
            await self.websocket.send_text(text)


class BoardHost:
    """The simulated board and the pages watching it. Every method runs on the event loop's
    thread; `advance` is called every tick."""

    def __init__(
        self,
        board: str | BoardSpec,
        game: str = DEFAULT_GAME,
        options: Mapping[str, Any] | None = None,
        *,
        speed: float = 1.0,
        seed: int = 0,
        ai: str | None = None,
        ai_budget: float | None = None,
        hours: OpeningHours | None = None,
        maintenance: Path | None = None,
        calendar: float | None = None,
    ) -> None:
        if speed <= 0:
            raise CommandError(f"--speed is above 0, not {speed}")
        self.spec = board if isinstance(board, BoardSpec) else load_board(board)
        self.games = hosted_games(self.spec)
        self.speed = speed
        self.seed = seed
        self.clients: set[Client] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop running the board, once the server has started."""
        self._pending: list[Event] = []
        self.ai: str | None = None
        """The seat the board plays, as `--ai` names it (None: people play every seat)."""
        self.ai_budget = ai_budget
        self.hours = hours
        """Opening hours the board keeps by its calendar (`--config`), if any."""
        self.maintenance = maintenance
        """The file that says the board is out of order (`--config`'s state directory)."""
        self._calendar = calendar
        self._build(game, options or {}, ai)

    # The board.

    def _build(self, game: str, options: Mapping[str, Any], ai: str | None = None) -> None:
        seat = seat_of(ai, get_game(game), options=options)
        # The board thinks by the real clock: a page is played in real time.
        thinking = Thinking(budget=self.ai_budget, seed=self.seed)
        old = getattr(self, "session", None)
        self.describer = Describer()
        """The words for this game's events, and its banner (firmware/words)."""
        self._words: dict[int, Words] = {}
        """The words of each event sent, by the event's identity."""
        # Another game goes on with the same calendar: its clock starts again from 0.
        calendar = old.calendar + old.clock.now() if old is not None else self._calendar
        session = SimSession(
            self.spec,
            game,
            options,
            seed=self.seed,
            sinks=[self._pending.append],
            ai=seat,
            thinking=thinking,
            hours=self.hours,
            maintenance=self.maintenance,
            calendar=calendar,
        )
        self.ai = ai if seat is not None else None
        if seat is not None:  # the page's banner says so, and its picker starts from it
            name = session.game.seats[seat.seat]
            session.loop.emit(
                Note(session.clock.now(), f"the board plays {name} ({seat.level.value})")
            )
        session.lay_out()
        session.start()
        self.session = session
        self.hands = Hands(session)
        self.drawing = PieceDrawing(session)
        self._origin = time.monotonic()
        self._base = session.clock.now()
        self._shown_pieces: Any = None
        self._shown_scores: Any = None
        self._shown_leds: str | None = None
        self._shown_menu: tuple[dict[str, Any], ...] = ()
        self._standing: dict[type[Event], Event] = {}
        """The latest event of each STANDING type."""

    def virtual_now(self) -> float:
        """Where the board's clock should be: wall time since the start, times the speed."""
        return self._base + (time.monotonic() - self._origin) * self.speed

    def _keep_pace(self) -> None:
        """After a command that ran the board ahead (`play` takes a hand's time), let wall time
        catch up rather than jump."""
        ahead = self.session.clock.now() - self.virtual_now()
        if ahead > 0:
            self._base += ahead

    def advance(self) -> None:
        """Runs the board up to now and tells the pages what changed."""
        clock = self.session.clock
        target = self.virtual_now()
        if target - clock.now() > MAX_STEP:
            self._base -= target - clock.now() - MAX_STEP
            target = clock.now() + MAX_STEP
        self.session.run_until(target)
        self._keep_pace()
        # It runs for days: keep what the session and the captured wire remember bounded (in
        # place, as the session's sinks and the wire hold these very lists).
        for kept in (self.session.events, self.session.board.led_wire.frames):
            if len(kept) > 2 * KEEP_EVENTS:
                del kept[:-KEEP_EVENTS]
                # Words are kept by the event's identity: only while the event is.
                alive = {id(e) for e in (*self.session.events, *self._standing.values())}
                self._words = {key: w for key, w in self._words.items() if key in alive}
        self.flush()

    # Telling the pages.

    def broadcast(self, events: Iterable[Event]) -> None:
        lines = [self._line(event) for event in events]
        for client in list(self.clients):
            for line in lines:
                client.send(line)

    def _line(self, event: Event) -> str:
        """The event as the page is sent it: with its words, made once, as it happened (a
        page that connects later is sent the same words), and the banner then."""
        data = event.to_dict()
        words = self._words.get(id(event))
        if words is not None:
            data["words"] = words.to_dict()
        elif isinstance(event, SimBoardInfo):  # the banner as it stands, whatever came before
            data["words"] = Words(None, banner=self.describer.banner()).to_dict()
        elif isinstance(event, Note):  # said to one page only: nothing changes
            data["words"] = Words(event.text).to_dict()
        return json.dumps(data, separators=(",", ":"))

    def flush(self) -> None:
        """Sends the events emitted since the last flush, then the pieces and LEDs if they
        changed. LED frames sent in one tick are coalesced to the last."""
        pending, self._pending[:] = list(self._pending), []
        for event in pending:
            if not isinstance(event, LedFrame):
                self._words[id(event)] = self.describer.words(event)
        self._standing.update((type(e), e) for e in pending if isinstance(e, STANDING))
        last_frame = max((i for i, e in enumerate(pending) if isinstance(e, LedFrame)), default=-1)
        out = [e for i, e in enumerate(pending) if not isinstance(e, LedFrame) or i == last_frame]
        shown = pieces(self.session, self.drawing)
        if (shown.places, shown.hand, shown.tiles) != self._shown_pieces:
            self._shown_pieces = (shown.places, shown.hand, shown.tiles)
            out.append(shown)
            banner = None if shown.hand else self.describer.hands_empty()
            if banner is not None:
                self._words[id(shown)] = Words(None, banner=banner)
        scores = standings(self.session)
        standing = None if scores is None else (scores.scores, scores.inventories, scores.holders)
        if scores is not None and standing != self._shown_scores:
            self._shown_scores = standing
            out.append(scores)
        lit = leds(self.session)
        if lit.pixels != self._shown_leds or lit.menu != self._shown_menu:
            self._shown_leds, self._shown_menu = lit.pixels, lit.menu
            out.append(lit)
        if out:
            self.broadcast(out)
        self._words.pop(id(shown), None)  # said once: the drawing is not kept

    def greeting(self) -> list[Event]:
        """What a page is sent when it connects: the board, the recent events (and the latest
        STANDING ones before them, if older), the pieces, the scores (in a game that keeps
        them) and the LEDs."""
        history = [e for e in self.session.events if not isinstance(e, LedFrame)][-HISTORY:]
        recent = {type(e) for e in history}
        older = [e for kind, e in self._standing.items() if kind not in recent]
        scores = standings(self.session)
        return [
            board_info(self.session, self.games),
            *sorted(older, key=lambda e: e.t),
            *history,
            pieces(self.session, self.drawing),
            *([scores] if scores is not None else []),
            leds(self.session),
        ]

    def connect(self, client: Client) -> None:
        self.flush()  # so that the greeting and the next flush neither repeat nor miss
        for event in self.greeting():
            client.send(self._line(event))
        self.clients.add(client)

    def disconnect(self, client: Client) -> None:
        self.clients.discard(client)
        with contextlib.suppress(asyncio.QueueFull):
            client.queue.put_nowait(None)

    # What pages ask.

    def note(self, client: Client | None, text: str) -> None:
        event = Note(self.session.clock.now(), text)
        if client is None:
            self.broadcast([event])
        else:
            client.send(self._line(event))

    def handle(self, text: str | bytes | None, client: Client | None = None) -> None:
        """Carries out one message from a page; a refusal goes back to that page as a note."""
        try:
            self._handle(text)
        except CommandRefused as error:
            self.note(client, f"refused: {error}")
        except Exception as error:  # a bug must not take the board down for everyone
            log.error("command failed: %s", "".join(traceback.format_exception(error)))
            self.note(client, f"refused: the board could not do that ({type(error).__name__})")
        self._keep_pace()
        self.flush()

    def _handle(self, text: str | bytes | None) -> None:
        if not isinstance(text, str):
            raise CommandRefused("commands are JSON text, not binary")
        if len(text.encode()) > MAX_MESSAGE:
            raise CommandRefused(f"a command is at most {MAX_MESSAGE} bytes")
        try:
            command = json.loads(text)
        except ValueError as error:
            raise CommandRefused(f"not JSON ({error})") from None
        if not isinstance(command, dict):
            raise CommandRefused(
                f"a command is a JSON object with 'do' and 'args', not {type(command).__name__}"
            )
        if command.get("do") == "new-game":
            self._new_game(command)
            return
        unknown = set(command) - {"do", "args"}
        if unknown:
            raise CommandRefused(f"unknown field {sorted(unknown)[0]!r} (a command has do, args)")
        self.hands.run(command)

    def _new_game(self, command: Mapping[str, Any]) -> None:
        """`new-game` as on every link (firmware/app/commands.py): the game again with no
        `game` nor `options`, else `game` (the one being played if not given) with `options`
        over its defaults; here the board is set up afresh, on `board` if given."""
        try:
            asked = new_game_of(checked(dict(command), Link.PAGE))
        except Refused as error:
            raise CommandRefused(str(error)) from None
        name = asked.game if asked.game is not None else self.session.game.name
        if asked.game is None and asked.options is None:
            given: Mapping[str, Any] = self.session.options
        else:
            given = asked.options or {}
        board = command.get("board", self.spec.name)
        if not isinstance(board, str) or board not in board_names():
            raise CommandRefused(
                f"new-game: board is one of {', '.join(board_names())}, not {board!r}"
            )
        spec = self.spec if board == self.spec.name else load_board(board)
        games = self.games if spec is self.spec else hosted_games(spec)
        try:
            game = get_game(name)
            if game.name not in {g.name for g in games}:
                hosted = ", ".join(g.name for g in games)
                raise CommandRefused(
                    f"new-game: {game.name} cannot be played on board {spec.name} "
                    f"(it hosts {hosted})"
                )
            options = game.options_from_json(given)
            ai = self._ai_for(game, options, command)
        except (GameError, CommandError) as error:
            raise CommandRefused(f"new-game: {error}") from None
        self.flush()
        kept = self.spec, self.games
        self.spec, self.games = spec, games
        try:
            self._build(game.name, options, ai)
        except ProfileError as error:  # options that widen the area over a hole, say
            self.spec, self.games = kept
            raise CommandRefused(f"new-game: {error}") from None
        except BaseException:
            self.spec, self.games = kept  # the old session plays on, on its own board
            raise
        self.broadcast([board_info(self.session, self.games)])

    def _ai_for(
        self, game: Game, options: Mapping[str, Any], command: Mapping[str, Any]
    ) -> str | None:
        """The seat the board plays in the new game: as asked, else as before where the game
        has that seat (CommandError for a seat or level it does not have)."""
        if "ai" in command:
            ai = command["ai"]
            if ai is not None and not isinstance(ai, str):
                raise CommandError("ai is SEAT[:LEVEL] (O, 2:strong) or null")
            seat_of(ai, game, "ai", options)
            return ai
        try:
            seat_of(self.ai, game, options=options)
        except CommandError:
            return None
        return self.ai

    # Running.

    async def run(self, tick: float = TICK) -> None:
        """Advances the board every `tick` wall seconds until cancelled."""
        failed = None
        while True:
            try:
                self.advance()
                failed = None
            except Exception as error:  # said once, not every tick, and the board goes on
                text = f"{type(error).__name__}: {error}"
                if text != failed:
                    log.error("the board stumbled: %s", "".join(traceback.format_exception(error)))
                    self.note(None, f"the simulated board stumbled and carried on: {text}")
                    with contextlib.suppress(Exception):
                        self.flush()
                failed = text
            await asyncio.sleep(tick)


# The web application.
