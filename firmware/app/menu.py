"""The menu drawn with the LEDs: another game chosen and started with the board's buttons alone.

The `menu` button opens it when no choice of the rules is waiting (then `menu` takes that
choice, as before). Each game that has a profile on this board is one square, in the order the
games are registered, from a1 along the lattice row by row; the square of the game it points at
glows bright, the others dim, in the first seat's colour. Then come the brightness levels, one
square each, and the self-test (for the person at the board: the game waits meanwhile).
A game's options page ends with the opponent: along the top row, nobody or the seat the board
plays; on the row below, how well it plays (where the board has the rows to spare).
`seat-1` moves the highlight on, any other seat button moves it back; a short press of `menu`
takes what it points at; a long press of `menu` (LONG_PRESS or more) or the `new` button leaves
without changing anything. While it is open the game stands still: the buttons are the menu's,
the pieces are still judged, the game clock is paused, and the lights are the menu's until it
closes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from magboard.firmware.events import Event, Note
from magboard.firmware.games import Game
from magboard.firmware.games.core import GameError, Option
from magboard.firmware.games.registry import all_games
from magboard.firmware.lights import LedWriter, View
from magboard.firmware.profiles import ProfileError, profiled_pairs
from magboard.firmware.referee import Referee
from magboard.hardware.spec import BoardSpec, Place

from .board_player import BoardPlayer, Thinking
from .selftest_report import SelfTestReport


class MenuTable(Protocol):
    """What the menu drives: the few parts of the board's loop it touches. Named here, not
    imported, because the loop holds the menu."""

    referee: Referee
    player: BoardPlayer | None
    thinking: Thinking
    writer: LedWriter

    def emit(self, event: Event) -> None: ...

    def selftest(self) -> SelfTestReport: ...

    def set_game(self, game: Game, options: dict[str, Any] | None, now: float) -> Referee: ...


MENU = "menu"
LEAVE = "new"
"""The dedicated way out, besides a long press: `new` is never needed inside the menu."""
LONG_PRESS = 1.0
"""Seconds `menu` is held to leave the menu rather than take what it points at."""
LEVELS = (0.25, 0.5, 1.0)
"""Brightness levels the menu offers, dimmest first."""


class EntryKind(Enum):
    GAME = "game"
    LEVEL = "brightness"
    START = "start"
    CHOICE = "option"
    SELFTEST = "self-test"
    OPPONENT = "opponent"
    STRENGTH = "opponent level"


@dataclass(frozen=True)
class Entry:
    """One lit square of the menu: what taking it does."""

    kind: EntryKind
    place: Place
    label: str
    game: Game | None = None
    level: float | None = None
    option: str | None = None
    value: Any = None


def entries(spec: BoardSpec) -> tuple[Entry, ...]:
    """The menu on this board: its games, in a fixed order, then the brightness levels, one
    lattice cell each (cells without an LED skipped, so every entry can be seen)."""
    profiled = {game for game, board in profiled_pairs() if board == spec.name}
    games = [game for game in all_games() if game.name in profiled]
    cells = [cell for cell in spec.cells if cell in spec.led_index]
    found: list[Entry] = []
    for game in games:
        found.append(Entry(EntryKind.GAME, cells[len(found)], game.name, game=game))
    for level in LEVELS:
        if len(found) < len(cells):
            found.append(
                Entry(EntryKind.LEVEL, cells[len(found)], f"brightness {level:g}", level=level)
            )
    if len(found) < len(cells):
        found.append(Entry(EntryKind.SELFTEST, cells[len(found)], "self-test"))
    return tuple(found[: len(cells)])


def option_entries(spec: BoardSpec, game: Game) -> tuple[Entry, ...]:
    """A game's options page: `start` on a1, then one row of the lattice per option whose values
    can be listed (its choices, off and on, or a small range of numbers such as Magnetmen's
    players), one square per value; an option with more values than the row has squares (a
    seed, a turn limit) keeps its default."""
    width = 1 + max(cell[0] for cell in spec.cells)
    rows = 1 + max(cell[1] for cell in spec.cells)
    lit = set(spec.led_index)
    found = [Entry(EntryKind.START, (0, 0), f"start {game.name}", game=game)]
    row = 1
    for option in game.options:
        values = _values(option)
        if len(values) < 2 or len(values) > width or row >= rows:
            continue
        places = [(column, row) for column in range(len(values))]
        if not all(place in lit for place in places):
            continue
        found += [
            Entry(
                EntryKind.CHOICE, place, f"{option.name} {value}", option=option.name, value=value
            )
            for place, value in zip(places, values, strict=True)
        ]
        row += 1
    return tuple(found)


def opponent_entries(spec: BoardSpec, game: Game, below: int) -> tuple[Entry, ...]:
    """The opponent on a game's options page, above row `below` (the options' rows): nobody
    then each seat along the top row, the levels along the row under it; either row left out
    where it does not fit (the board then plays at its normal level)."""
    from magboard.firmware.engine.opponent import Level

    width = 1 + max(cell[0] for cell in spec.cells)
    top = max(cell[1] for cell in spec.cells)
    seats = game.seats[: game.new_state(game.resolve_options({})).players]
    rows = [
        (EntryKind.OPPONENT, [("nobody", None), *((name, n) for n, name in enumerate(seats))]),
        (EntryKind.STRENGTH, [(level.value, level) for level in Level]),
    ]
    found: list[Entry] = []
    for row, (kind, values) in zip(range(top, below - 1, -1), rows, strict=False):
        places = [(column, row) for column in range(len(values))]
        if len(values) > width or not all(place in spec.led_index for place in places):
            break
        found += [
            Entry(kind, place, f"{kind.value} {label}", value=value)
            for place, (label, value) in zip(places, values, strict=True)
        ]
    return tuple(found)


def _values(option: Option) -> tuple[Any, ...]:
    if isinstance(option.default, bool):
        return (False, True)
    if option.choices:
        return option.choices
    if option.minimum is not None and option.maximum is not None:
        return tuple(range(option.minimum, option.maximum + 1))
    return ()


class Menu:
    """The menu's state: whether it is open, what it points at, and the press in progress."""

    def __init__(self, spec: BoardSpec) -> None:
        self.spec = spec
        self.games = entries(spec)
        self.entries = self.games
        """The page shown: the games and levels, or a game's options."""
        self.options: dict[str, Any] = {}
        """The options chosen so far on a game's options page."""
        self.opponent: dict[EntryKind, Any] = {}
        """The opponent chosen so far there: its seat (None: nobody) and its level."""
        self.open = False
        self.at = 0
        self.since = 0.0
        self._down: float | None = None
        """When `menu` went down inside the menu: its release says short (take) or long (leave)."""

    def start(self, loop: MenuTable, now: float) -> None:
        """Opens the menu pointing at the game on the board."""
        self.open, self.since, self._down = True, now, None
        self.entries, self.options = self.games, {}
        current = loop.referee.game.name
        self.at = next((i for i, e in enumerate(self.entries) if e.label == current), 0)
        loop.emit(Note(now, f"menu: open at {self.entries[self.at].label}"))

    def button(self, loop: MenuTable, name: str, pressed: bool, at: float, now: float) -> None:
        """A button while the menu is open (the one that opened it has been released)."""
        if name == MENU:
            if pressed:
                self._down = at
            elif self._down is not None:
                held, self._down = at - self._down, None
                if held >= LONG_PRESS:
                    self.close(loop, now)
                else:
                    self.take(loop, now)
            return
        if not pressed:
            return
        if name == LEAVE:
            self.close(loop, now)
        elif name.startswith("seat-"):
            self.at = (self.at + (1 if name == "seat-1" else -1)) % len(self.entries)
            self.since = now
            loop.emit(Note(now, f"menu: {self.entries[self.at].label}"))

    def close(self, loop: MenuTable, now: float) -> None:
        self.open, self._down = False, None
        loop.emit(Note(now, "menu: closed"))

    def take(self, loop: MenuTable, now: float) -> None:
        """Does what the highlighted entry says: a game with options to choose opens its
        options page, one without starts at once, as a command from afar starts it; on the
        options page a value is chosen, and `start` starts the game with the values chosen; a
        level is set. The menu stays open but for a game started."""
        entry = self.entries[self.at]
        self.since = now
        if entry.kind is EntryKind.LEVEL:
            loop.writer.set_level(entry.level)
            loop.emit(Note(now, f"menu: {entry.label}"))
            return
        if entry.kind is EntryKind.CHOICE:
            self.options[entry.option] = entry.value
            loop.emit(Note(now, f"menu: {entry.label}"))
            return
        if entry.kind is EntryKind.SELFTEST:
            self.close(loop, now)
            loop.selftest()
            return
        if entry.kind is EntryKind.GAME:
            page = option_entries(self.spec, entry.game)
            below = 1 + max(e.place[1] for e in page)
            page += opponent_entries(self.spec, entry.game, below)
            if len(page) > 1:
                self.entries, self.at, self.options = page, 0, {}
                self.opponent = _current_opponent(loop)
                loop.emit(Note(now, f"menu: {page[0].label}"))
                return
        if entry.kind in (EntryKind.OPPONENT, EntryKind.STRENGTH):
            self.opponent[entry.kind] = entry.value
            loop.emit(Note(now, f"menu: {entry.label}"))
            return
        self.close(loop, now)
        before = loop.player
        if entry.kind is EntryKind.START:
            loop.player = self._player(loop)
        try:
            loop.set_game(entry.game, dict(self.options), now)
        except (GameError, ProfileError) as error:
            loop.player = before
            loop.emit(Note(now, f"menu: {entry.label} cannot start: {error}"))

    def _player(self, loop: MenuTable) -> BoardPlayer | None:
        """The board's player the opponent page asks for."""
        from magboard.firmware.engine.opponent import AiSeat, Level

        seat = self.opponent.get(EntryKind.OPPONENT)
        if seat is None:
            return None
        level = self.opponent.get(EntryKind.STRENGTH) or Level.NORMAL
        return BoardPlayer(AiSeat(seat, level), loop.thinking)

    def chosen(self, entry: Entry) -> bool:
        """Whether an option's value is the one the game would start with."""
        if entry.kind in (EntryKind.OPPONENT, EntryKind.STRENGTH):
            return self.opponent.get(entry.kind) == entry.value
        if entry.kind is not EntryKind.CHOICE:
            return False
        game = self.entries[0].game
        default = game.option(entry.option).default if game is not None else None
        return self.options.get(entry.option, default) == entry.value

    def view(self, players: int) -> View:
        """The menu as lights, all steady in the first seat's colour: the entry pointed at
        bright, an option's chosen value soft, the others dim."""
        here = self.entries[self.at].place
        chosen = {e.place for e in self.entries if self.chosen(e)} - {here}
        others = {e.place for e in self.entries} - chosen - {here}
        return View(
            players=max(1, players),
            to_move=0,
            due={here},
            targets=others,
            last_move=chosen,
            last_mover=0 if chosen else None,
            since=self.since,
        )


def _current_opponent(loop: MenuTable) -> dict[EntryKind, Any]:
    """What the opponent page starts from: the board's player now, if any."""
    from magboard.firmware.engine.opponent import Level

    player = loop.player
    if player is None:
        return {EntryKind.OPPONENT: None, EntryKind.STRENGTH: Level.NORMAL}
    return {EntryKind.OPPONENT: player.seat.seat, EntryKind.STRENGTH: player.seat.level}
