"""The commands a board takes from afar, declared once: each one's name, the fields it takes
besides `do`, the links it may come over and what it answers; and the one reading of a command
message that every link uses, so a malformed command is refused in the same words everywhere.

The serial link (firmware/app/link.py) and MQTT (firmware/app/mqtt_commands.py) read their
commands here and refuse with `Refused`; what a command does stays with the link that carries it
out, except `new-game`, which means one thing on both (`mqtt_commands.new_game`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from magboard.firmware.games import GameError, get_game
from magboard.firmware.profiles import ProfileError

if TYPE_CHECKING:
    from .loop import BoardLoop


class Link(Enum):
    """A way commands reach the board."""

    SERIAL = "serial"
    MQTT = "mqtt"
    PAGE = "page"
    """The simulator's web page (sim/web/server.py): its hands' commands are its own."""


@dataclass(frozen=True)
class Declared:
    """One command: `do` is `name`; it takes `fields` (besides `do`), over `links`; `answer`
    says what the sender hears back when it is carried out; `more` are fields only one link
    takes besides."""

    name: str
    fields: frozenset[str]
    links: frozenset[Link]
    answer: str
    more: tuple[tuple[Link, frozenset[str]], ...] = ()

    def fields_over(self, link: Link) -> frozenset[str]:
        """The fields this command takes over `link`."""
        return self.fields.union(*(more for over, more in self.more if over is link))


COMMANDS: tuple[Declared, ...] = (
    Declared(
        "hello",
        frozenset(),
        frozenset({Link.SERIAL}),
        "a note: the board, its game and options, the protocol",
    ),
    Declared(
        "state",
        frozenset(),
        frozenset({Link.SERIAL}),
        "a game-started whose actions replay the game so far",
    ),
    Declared(
        "press",
        frozenset({"button"}),
        frozenset({Link.SERIAL}),
        "the button's events, as the physical button's",
    ),
    Declared(
        "choose",
        frozenset({"action"}),
        frozenset({Link.SERIAL}),
        "the choice made, as the seat button and `menu` make it",
    ),
    Declared(
        "new-game",
        frozenset({"game", "options"}),
        frozenset({Link.SERIAL, Link.MQTT, Link.PAGE}),
        "a game-started: the game again, or another (`game`, `options`)",
        # The page sets a simulated board up afresh: on another board, with a seat it plays.
        more=((Link.PAGE, frozenset({"board", "ai"})),),
    ),
    Declared("brightness", frozenset({"level"}), frozenset({Link.MQTT}), "the lights' level"),
    Declared("selftest", frozenset(), frozenset({Link.MQTT}), "the self-test's report"),
    Declared(
        "update",
        frozenset({"url", "sha256"}),
        frozenset({Link.MQTT}),
        "a note: the update checked and left for root",
    ),
    Declared(
        "maintenance",
        frozenset({"on", "reason"}),
        frozenset({Link.MQTT}),
        "a maintenance event: out of order or back in service",
    ),
)
"""Every command, in the order refusals list them."""


class Refused(ValueError):
    """A command the board will not carry out; the message says why."""


def commands_over(link: Link) -> dict[str, Declared]:
    """The commands `link` takes, by name, in the registry's order."""
    return {c.name: c for c in COMMANDS if link in c.links}


def decoded(payload: bytes) -> str:
    """A command message's text; Refused if it is not UTF-8."""
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None


def read(text: str, link: Link) -> dict[str, Any]:
    """The command in `text`, checked against what `link` takes: a JSON object whose `do` is one
    of its commands, with no field that command does not take. Refused names what is wrong."""
    try:
        command = json.loads(text)
    except json.JSONDecodeError as error:
        raise Refused(f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise Refused("not JSON (nested too deeply)") from None
    return checked(command, link)


def checked(command: Any, link: Link) -> dict[str, Any]:
    """`command`, decoded from JSON, if it is one `link` takes with only the fields it takes;
    Refused names what is wrong."""
    known = commands_over(link)
    example = f'{{"do": "{next(iter(known))}"}}'
    if not isinstance(command, dict):
        raise Refused(f"a command is a JSON object, like {example}")
    if "do" not in command:
        raise Refused(f"a command says what to do, like {example}")
    name = command["do"]
    if not isinstance(name, str) or name not in known:
        raise Refused(f"unknown command {short(name)} (commands: {', '.join(known)})")
    extra = sorted(set(command) - known[name].fields_over(link) - {"do"})
    if extra:
        raise Refused(f"{name}: unknown field {short(extra[0])}")
    return command


def short(value: Any, limit: int = 40) -> str:
    """`value` as a refusal quotes it: its repr, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class NewGame:
    """`game` None: the game being played; `options` None: its options (with another game,
    or with `game` given, the options given over the game's defaults)."""

    game: str | None = None
    options: dict[str, Any] | None = None


def new_game_of(command: dict[str, Any]) -> NewGame:
    """A checked `new-game` command's game and options; Refused if they are not a name and an
    object."""
    game, options = command.get("game"), command.get("options")
    if game is not None and not isinstance(game, str):
        raise Refused(f"new-game: game is a name, not {short(game)}")
    if options is not None and not isinstance(options, dict):
        raise Refused(f"new-game: options is an object of NAME: VALUE, not {short(options)}")
    return NewGame(game, options)


def start(command: NewGame, loop: BoardLoop, now: float) -> None:
    """Starts the game again (neither game nor options given) or another game or options, on
    any link; Refused, having changed nothing, while the board is shut or if it cannot be."""
    if loop.shut is not None:
        # The game kept while shut is the one players come back to.
        raise Refused(f"new-game: the board is {loop.shut.value}")
    if command.game is None and command.options is None:
        loop.new_game(now)
        return
    try:
        game = get_game(command.game) if command.game is not None else loop.referee.game
        options = game.options_from_json(command.options or {})
        loop.set_game(game, options, now)
    except (GameError, ProfileError) as error:
        raise Refused(f"new-game: {error}") from None
