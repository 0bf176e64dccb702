"""What a person may do to the simulated board by hand: one vocabulary of commands, used by
`magboard run --sim` (typed lines) and the web page (JSON messages).

A command is a JSON object with `do` and its arguments; a typed line is the same words, e.g.
`move A1 b2`. Anything malformed is refused with `CommandRefused` naming what is wrong; nothing
a person sends can stop the board.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from magboard.firmware.games import GameError
from magboard.firmware.profiles import Supply, TileStep
from magboard.hardware.spec import Cell, Place, Slot, cell_label

from .session import SHIFTS, TURNS, SimSession
from .world import STEPS, Bounce, Direction, Tile

HELP = """\
lift PLACE               take the top piece off a cell (b2) or tray slot (A3), or one out of
                         a box no sensor sees (supply:A)
put PLACE                put the last lifted piece down, or back in its box (supply:A)
move FROM TO             lift and put in one go
slide FROM VIA.. TO      drag a piece across cells
slide-group CELL.. WAY N push the pieces on side-by-side cells of one row or column together
                         N cells up, down, left or right (b2 c2 right 1)
shift-tile CELL WAY      shift the 2x2 tile covering CELL one cell up, down, left or right,
                         with the pieces on it (e5 left)
turn-tile CELL cw|ccw    turn the 2x2 tile covering CELL a quarter, with the pieces on it
play ACTION              make a game move by hand, in the game's notation
choose OPTION            make a choice the rules leave to a player (A-Baker, end)
press BUTTON             press and release a button (seat-1, new, ...)
fault KIND [ARG]         i2c-burst U1 | expander-reset U1 | noise SECONDS | bounce on|off
help                     this text
quit                     wait for the board to judge what was done, then stop (so does the
                         end of input)"""
HANDS_ON = frozenset(
    {"lift", "put", "move", "slide", "slide-group", "shift-tile", "turn-tile", "play"}
)
"""Commands that handle pieces: refused while a slide is still under way."""
BOX = "supply:"
"""How a command names a box off the board (supply:A), as events name a supply."""
MAX_NOISE = 60.0
"""Longest burst of noise a command may ask for (its blips are scheduled at once)."""
NOTATION = {direction: way for way, direction in SHIFTS.items()}
"""A tile shift's direction as commands say it (left) and as the game's notation does (<)."""


class CommandRefused(ValueError):
    """A command the simulated board cannot carry out; the message says why."""


def parse_line(line: str) -> dict[str, Any]:
    """`move A1 b2` -> {"do": "move", "args": ["A1", "b2"]}."""
    words = line.split()
    if not words:
        raise CommandRefused("empty command")
    return {"do": words[0].lower(), "args": words[1:]}


class Hands:
    """Carries out commands on a session's world, at the session's current time."""

    def __init__(self, session: SimSession) -> None:
        self.session = session
        self._actions: dict[str, Callable[[list[str]], None]] = {
            "lift": self._lift,
            "put": self._put,
            "move": self._move,
            "slide": self._slide,
            "slide-group": self._slide_group,
            "shift-tile": self._shift_tile,
            "turn-tile": self._turn_tile,
            "play": self._play,
            "choose": self._choose,
            "press": self._press,
            "fault": self._fault,
        }
        self._sliding_until = -1.0
        """Virtual time the last slide ends: until then the hand stays on its piece."""

    @property
    def hands_free_at(self) -> float:
        """Virtual time the last slide ends (earlier than now when nothing is sliding)."""
        return self._sliding_until

    def run(self, command: Mapping[str, Any]) -> None:
        if not isinstance(command, Mapping):
            raise CommandRefused("a command is an object with 'do' and 'args'")
        name, args = command.get("do"), command.get("args", [])
        action = self._actions.get(name) if isinstance(name, str) else None
        if action is None:
            raise CommandRefused(f"unknown command {name!r} (commands: {', '.join(self._actions)})")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise CommandRefused(f"{name}: args are a list of words")
        if name in HANDS_ON and self.session.clock.now() <= self._sliding_until:
            raise CommandRefused(f"{name}: a piece is still sliding; wait until it stops")
        try:
            action(args)
        except (ValueError, LookupError, GameError) as error:
            raise CommandRefused(f"{name}: {error}") from None

    def place(self, text: str) -> Place:
        spec = self.session.spec
        for slot in spec.slots:
            if str(slot) == text:
                return slot
        for cell in spec.cells:
            if f"{chr(97 + cell[0])}{cell[1] + 1}" == text.lower():
                return cell
        raise CommandRefused(f"no place {text!r} on board {spec.name}")

    def _need(self, args: list[str], count: int, usage: str) -> None:
        if len(args) != count:
            raise CommandRefused(f"usage: {usage}")

    def box(self, text: str) -> Supply:
        """The supply whose box `text` names (supply:A): where a game's pieces wait when the
        trays have too few slots for them, out of any sensor's sight, so no place names it."""
        boxes = [s for s in self.session.profile.supplies if not s.sensed]
        for supply in boxes:
            if text == f"{BOX}{supply.name}":
                return supply
        named = ", ".join(f"{BOX}{s.name}" for s in boxes) or "none"
        raise CommandRefused(f"no box {text!r} in {self.session.game.name} (boxes: {named})")

    def _lift(self, args: list[str]) -> None:
        self._need(args, 1, "lift PLACE")
        if args[0].startswith(BOX):
            self.session.take(self.box(args[0]).name)
        else:
            self.session.world.lift(self.place(args[0]))

    def _put(self, args: list[str]) -> None:
        self._need(args, 1, "put PLACE")
        world = self.session.world
        if not args[0].startswith(BOX):
            world.put(self.place(args[0]))
            return
        supply = self.box(args[0])
        kinds = [kind.name for kind in supply.kinds]
        if world.hand and world.hand[-1].kind.name not in kinds:
            held = world.hand[-1].kind.name
            raise CommandRefused(f"{args[0]} holds {', '.join(kinds)}, not {held}")
        world.put_away()

    def _move(self, args: list[str]) -> None:
        self._need(args, 2, "move FROM TO")
        self.session.world.move(self.place(args[0]), self.place(args[1]))

    def _slide(self, args: list[str]) -> None:
        if len(args) < 2:
            raise CommandRefused("usage: slide FROM VIA.. TO")
        cells = [self.place(a) for a in args]
        if any(isinstance(c, Slot) for c in cells):
            raise CommandRefused("slide: only across cells")
        self._sliding_until = self.session.world.slide(cells[0], cells[1:])

    def _slide_group(self, args: list[str]) -> None:
        usage = "usage: slide-group CELL.. WAY N (WAY: up, down, left, right)"
        if len(args) < 3 or args[-2] not in STEPS or not args[-1].isdecimal():
            raise CommandRefused(usage)
        cells = [self.place(a) for a in args[:-2]]
        if any(isinstance(c, Slot) for c in cells):
            raise CommandRefused("only cells slide")
        way = cast(Direction, args[-2])
        self._sliding_until = self.session.world.slide_group(cells, way, int(args[-1]))

    def _shift_tile(self, args: list[str]) -> None:
        if len(args) != 2 or args[1] not in STEPS:
            raise CommandRefused("usage: shift-tile CELL WAY (WAY: up, down, left, right)")
        tile = self._tile(args[0])
        dx, dy = STEPS[args[1]]
        world = self.session.world
        cells = world.tile_cells(tile)
        moved = {(x + dx, y + dy) for x, y in cells}
        why = f"{_tile_name(cells)} cannot shift {args[1]}"
        for cell in sorted(moved - set(cells)):
            if cell not in self.session.spec.cells:
                raise CommandRefused(f"{why}: it would leave the lattice")
            other = world.tile_at(cell)
            if other is not None:
                raise CommandRefused(f"{why}: it would cover {_tile_name(world.tile_cells(other))}")
            if world.pieces_at(cell):
                raise CommandRefused(f"{why}: pieces stand on {cell_label(cell)} in its way")
        self.session.move_tile(TileStep(cells[0], NOTATION[args[1]]))

    def _turn_tile(self, args: list[str]) -> None:
        if len(args) != 2 or args[1] not in TURNS:
            raise CommandRefused("usage: turn-tile CELL cw|ccw")
        cells = self.session.world.tile_cells(self._tile(args[0]))
        self.session.move_tile(TileStep(cells[0], args[1]))

    def _tile(self, text: str) -> Tile:
        """The tile covering the cell `text` names: a hand takes hold of a tile anywhere on it."""
        cell = self.place(text)
        if isinstance(cell, Slot):
            raise CommandRefused(f"tiles lie on cells, not in tray slot {cell}")
        tile = self.session.world.tile_at(cell)
        if tile is None:
            raise CommandRefused(f"no tile covers {cell_label(cell)}")
        return tile

    def _play(self, args: list[str]) -> None:
        self._need(args, 1, "play ACTION")
        session = self.session
        session.perform(session.state.parse_action(args[0]))

    def _choose(self, args: list[str]) -> None:
        if not args:
            raise CommandRefused("usage: choose OPTION")
        session = self.session
        session.loop.choose(" ".join(args), session.clock.now())

    def _press(self, args: list[str]) -> None:
        self._need(args, 1, "press BUTTON")
        self.session.world.press(args[0])

    def _fault(self, args: list[str]) -> None:
        if not args:
            raise CommandRefused("usage: fault KIND [ARG]")
        kind, rest = args[0], args[1:]
        world = self.session.world
        if kind in ("i2c-burst", "expander-reset"):
            self._need(rest, 1, f"fault {kind} U1")
            index = self._expander(rest[0])
            if kind == "i2c-burst":
                world.inject_i2c_errors(index, 3)
            else:
                world.reset_expander(index)
        elif kind == "noise":
            seconds = float(rest[0]) if rest else 1.0
            if not 0 < seconds <= MAX_NOISE:  # also refuses nan and inf
                raise CommandRefused(f"fault noise lasts over 0 and up to {MAX_NOISE:g} seconds")
            world.noise(50.0, seconds)
        elif kind == "bounce":
            world.bounce = None if rest == ["off"] else Bounce()
        else:
            raise CommandRefused(
                f"unknown fault {kind!r} (i2c-burst, expander-reset, noise, bounce)"
            )

    def _expander(self, text: str) -> int:
        expanders = self.session.spec.expanders
        for expander in expanders:
            if text in (f"U{expander.index + 1}", str(expander.index)):
                return expander.index
        raise CommandRefused(f"no expander {text!r} (U1 to U{len(expanders)})")


def _tile_name(cells: tuple[Cell, ...]) -> str:
    """A tile by its lower-left and upper-right cells (the tile on e5-f6): tiles are unmarked,
    so where one lies is all that tells it apart."""
    return f"the tile on {cell_label(min(cells))}-{cell_label(max(cells))}"
