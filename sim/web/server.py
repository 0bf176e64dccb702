"""`magboard sim`: one simulated board (the whole real stack, in a `SimSession`) and a local web
server with one page that draws it and lets a person play on it with the mouse.

One asyncio event loop owns the board: a task advances the session's virtual clock in step with
the wall clock (times `--speed`), and the same loop carries out what pages send, so nothing else
ever touches it. Pages and server speak the event schema of docs/protocol.md over `/ws`:

- server -> page: every event the board emits (`leds` frames coalesced to the last of each
  tick), plus `sim-board` (layout, games and options), `sim-pieces` (where every piece and
  tile is) and `sim-leds` (what the LED chain shows), each sent when a page connects and then
  whenever it changes; a page that connects is also sent the recent events, and the latest of
  those that say where the clocks and the match stand however old;
- page -> server: the hand commands of sim/commands.py as JSON objects, and
  `{"do": "new-game", "game": NAME, "options": {...}}` (with `"board": NAME`, on another of
  the reference boards; with `"ai": "SEAT[:LEVEL]"` the board plays that seat, `null` no one,
  and left out, the seat it played if the new game has it). Anything malformed is answered
  with a `note` saying why, and changes nothing.

Besides the page (at `/`, and at `/spectator` for a screen beside an exhibit) it serves
`/boards` (every reference board and the games it hosts, as JSON) and the rules of each game
and the legend of the lights, as Markdown (`/rules/NAME`, `/rules/lights`).

Who may connect: see guard.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import threading
import time
import webbrowser
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.hours import OpeningHours
from magboard.firmware.app.opponent_seat import from_args, needs_seat
from magboard.firmware.games import GameError, get_game
from magboard.firmware.rules_pages import lights_markdown, rules_markdown
from magboard.hardware.spec import board_names, load_board

from .board_host import HISTORY, MAX_MESSAGE, TICK, BoardHost, Client
from .guard import Guard, is_loopback
from .snapshot import game_summary, hosted_games

__all__ = [
    "HISTORY",
    "MAX_MESSAGE",
    "BoardHost",
    "ServerThread",
    "calendar_of",
    "create_app",
    "main",
]


HERE = Path(__file__).resolve().parent
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; "
        "script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
WS_MAX_SIZE = 65536
"""Longest WebSocket message the server reads at all (longer ones close that connection)."""


def reference_boards() -> list[dict[str, Any]]:
    """Every reference board (hardware/boards/) and the games it hosts, for the board picker."""
    found = []
    for name in board_names():
        spec = load_board(name)
        games = [game_summary(g) for g in hosted_games(spec)]
        found.append({"name": spec.name, "title": spec.title, "games": games})
    return found


def rules_text(name: str) -> str | None:
    """The rules of a game, or the legend of the lights (`lights`), as Markdown; None where
    there are none to show."""
    try:
        if name == "lights":
            return lights_markdown()
        return rules_markdown(get_game(name).name)
    except (GameError, ImportError, LookupError, OSError, ValueError):
        return None


def _page_files() -> dict[str, Path]:
    return {p.name: p for p in HERE.iterdir() if p.suffix in MEDIA_TYPES and p.is_file()}


def create_app(host: BoardHost, *, allow_remote: bool = False, tick: float = TICK) -> Starlette:
    """The web application around a board. Its lifespan runs the board."""
    files = _page_files()

    def page_file(name: str) -> Response:
        path = files.get(name)
        if path is None:
            return PlainTextResponse("404 Not Found\n", status_code=404)
        return Response(
            path.read_bytes(), media_type=MEDIA_TYPES[path.suffix], headers=SECURITY_HEADERS
        )

    async def index(request: Request) -> Response:
        return page_file("index.html")

    boards: list[dict[str, Any]] = []

    async def board_list(request: Request) -> Response:
        if not boards:
            boards.extend(reference_boards())
        return JSONResponse(boards, headers=SECURITY_HEADERS)

    async def rules(request: Request) -> Response:
        text = rules_text(request.path_params["name"])
        if text is None:
            return PlainTextResponse("404 Not Found\n", status_code=404, headers=SECURITY_HEADERS)
        return Response(text, media_type="text/markdown; charset=utf-8", headers=SECURITY_HEADERS)

    async def static(request: Request) -> Response:
        return page_file(request.path_params["name"])

    async def board_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        client = Client(websocket)
        host.connect(client)
        sender = asyncio.create_task(client.pump())
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                host.handle(text if text is not None else message.get("bytes"), client)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            host.disconnect(client)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        host.loop = asyncio.get_running_loop()
        runner = asyncio.create_task(host.run(tick))
        try:
            yield
        finally:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/spectator", index),
            Route("/boards", board_list),
            Route("/rules/{name}", rules),
            WebSocketRoute("/ws", board_socket),
            Route("/{name}", static),
        ],
        middleware=[Middleware(Guard, allow_remote=allow_remote)],
        lifespan=lifespan,
    )
    app.state.host = host
    return app


# The command.


def listen(address: str, port: int) -> socket.socket:
    """A listening socket, or a CommandError a person can act on."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        return socket.create_server((address, port), family=family)
    except OSError as error:
        raise CommandError(
            f"cannot listen on {address} port {port}: {error.strerror or error}"
        ) from None


def page_url(address: str, port: int) -> str:
    if address in ("0.0.0.0", "::", ""):
        address = "127.0.0.1"
    if ":" in address:
        address = f"[{address}]"
    return f"http://{address}:{port}/"


def make_server(app: Starlette) -> Any:
    """A uvicorn server for the application (imported here: only `magboard sim` needs it)."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        ws_max_size=WS_MAX_SIZE,
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    return uvicorn.Server(config)


class ServerThread:
    """The web server in a background thread, on its own event loop: for tests, and for
    programs that want a simulated board to watch while they do something else.

        with ServerThread(BoardHost("mini")) as server:
            ... server.url ... server.call(lambda: server.host.session.state) ...
    """

    def __init__(
        self,
        host: BoardHost,
        *,
        address: str = "127.0.0.1",
        port: int = 0,
        allow_remote: bool = False,
        start_timeout: float = 30.0,
    ) -> None:
        self.host = host
        self.address = address
        self.port = port
        self.allow_remote = allow_remote
        self.start_timeout = start_timeout
        self.url = ""

    def __enter__(self) -> ServerThread:
        sock = listen(self.address, self.port)
        self.port = sock.getsockname()[1]
        self.url = page_url(self.address, self.port)
        self.server = make_server(create_app(self.host, allow_remote=self.allow_remote))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, name="magboard-sim-web", daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + self.start_timeout
        while not (self.server.started and self.host.loop):
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise CommandError(f"the web server did not start on {self.url}")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def call(self, function: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Runs `function` on the thread that owns the board, between two of its steps."""
        assert self.host.loop is not None

        async def run() -> Any:
            return function()

        return asyncio.run_coroutine_threadsafe(run(), self.host.loop).result(timeout)


def calendar_of(args: argparse.Namespace) -> tuple[OpeningHours | None, Path | None, float | None]:
    """`--config`'s opening hours and the maintenance file beside its state database (if it
    names one), and `--at`: the date and time the simulated board starts at (epoch seconds)."""
    from datetime import datetime

    from magboard.firmware.app.config import load_config
    from magboard.firmware.app.maintenance import maintenance_file

    hours = maintenance = calendar = None
    if getattr(args, "config", None):
        config = load_config(Path(args.config))
        hours = config.hours
        maintenance = maintenance_file(config.journal) if config.journal is not None else None
    if getattr(args, "at", None):
        try:
            calendar = datetime.fromisoformat(args.at).timestamp()
        except ValueError:
            problem = f"--at is a date and time (2026-12-01T17:55), not {args.at!r}"
            raise CommandError(problem) from None
    return hours, maintenance, calendar


def main(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port is 0 to 65535, not {args.port}")
    spec = load_board(args.board)
    game = get_game(args.game)
    options = game.parse_options(args.option)
    seat, budget = from_args(args, game, options)  # a mistake is said before anything listens
    needs_seat(seat, budget)
    hours, maintenance, calendar = calendar_of(args)
    host = BoardHost(
        spec,
        game.name,
        options,
        speed=args.speed,
        ai=args.ai,
        ai_budget=budget,
        hours=hours,
        maintenance=maintenance,
        calendar=calendar,
    )
    sock = listen(args.host, args.port)
    url = page_url(args.host, sock.getsockname()[1])
    if not args.allow_remote and not is_loopback(args.host):
        print(
            f"magboard sim: listening on {args.host}, but only this machine may connect "
            "(--allow-remote lets others)",
            flush=True,
        )
    if args.allow_remote:
        print("magboard sim: --allow-remote: anyone who can reach this port can play", flush=True)
    print(f"{game.name} on a simulated {spec.name} board: {url}  (Ctrl-C stops)", flush=True)

    server = make_server(create_app(host, allow_remote=args.allow_remote))
    if args.open:
        webbrowser.open(url)  # the socket is listening already: the browser waits for it
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C, after a clean shutdown
        server.run(sockets=[sock])
    return 0
