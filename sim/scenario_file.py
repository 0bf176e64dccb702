"""The scenario file format: one TOML file read and checked against its board and its game.

Apart from the runner (scenario.py) so that what a file may say, and the one line naming file and
field for what it may not, live in one place. `load` gives a `Scenario` whose steps are already
resolved against the board (places, buttons, expanders, sensors, LEDs): the runner only plays it.
The format's vocabulary and the values it gives are in `scenario_values`, importable from here.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args, get_origin, get_type_hints

from magboard.firmware.events import EVENT_TYPES
from magboard.firmware.games import Game, GameError, get_game
from magboard.firmware.lights import palette
from magboard.firmware.profiles import ProfileError, profile_for
from magboard.firmware.referee.choices import MENU
from magboard.hardware.interface import RGB
from magboard.hardware.spec import (
    BoardSpec,
    BoardSpecError,
    Cell,
    Place,
    load_board,
    place_label,
)

from .commands import BOX
from .scenario_fields import FieldReader
from .scenario_values import (
    ACTIONS,
    COLOURS,
    I2C_BURST,
    MENTIONS,
    NOISE_RATE,
    NOISE_WIDTH,
    PRESS_HOLD,
    SLIDE_STEP,
    TILE_WAYS,
    TOP_KEYS,
    WINDOW,
    EventPattern,
    LedCheck,
    Scenario,
    ScenarioError,
    Step,
)
from .session import HAND_PAUSE
from .world import SensorRef

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat

_HEX = re.compile(r"#([0-9a-fA-F]{6})")
_EXPANDER = re.compile(r"[Uu]([0-9]+)")


class _Reader(FieldReader):
    """Reads one scenario file whole, checked against its board and its game, raising
    ScenarioError that names the file and the field."""

    # The whole file.

    def scenario(self, data: Mapping[str, Any]) -> Scenario:
        self.known(data, TOP_KEYS, "")
        board = self.get(data, "board", str, "")
        try:
            spec = load_board(self._board_path(board))
        except BoardSpecError as error:
            raise self.fail("board", str(error)) from None
        try:
            game = get_game(self.get(data, "game", str, ""))
        except GameError as error:
            raise self.fail("game", str(error)) from None
        given = self.get(data, "options", dict, "", {})
        try:
            options = game.resolve_options(given)
        except (GameError, ValueError) as error:
            raise self.fail("options", str(error)) from None
        try:
            profile = profile_for(game, spec, options)
        except ProfileError as error:
            raise self.fail("board", str(error)) from None
        self.spec, self.game = spec, game
        self.games = self._games_in_play(data, spec, game)
        self.tiled = profile.tile is not None or any(
            profile_for(other, spec, other.resolve_options({})).tile is not None
            for other in self.games[1:]
        )
        self.places = {place_label(p): p for p in (*spec.cells, *spec.slots)}
        self.boxes = {f"{BOX}{s.name}": s.name for s in profile.supplies if not s.sensed}
        seed = self.get(data, "seed", int, "", 0)
        takeback = self.get(data, "takeback", bool, "", True)
        bounce = self.get(data, "bounce", bool, "", False)
        until = self.number(data, "until", "", None)
        ai = self.ai(data, options)
        ai_budget = self.number(data, "ai_budget", "", None)
        if ai_budget is not None and ai is None:
            raise self.fail("ai_budget", "is the thinking time of ai: give ai too")
        if ai_budget == 0:
            raise self.fail("ai_budget", "must be more than 0, not 0")
        steps = tuple(self.step(where, item) for where, item in self.tables(data, "steps"))
        for previous, step in itertools.pairwise(steps):
            if step.at < previous.at:
                raise self.fail(
                    f"{step.where}.at",
                    f"{step.at:g} comes before {previous.where} at {previous.at:g}: "
                    "steps go in time order",
                )
        if until is not None and steps and until < steps[-1].at:
            raise self.fail(
                "until", f"{until:g} comes before {steps[-1].where} at {steps[-1].at:g}"
            )
        expect = tuple(self.pattern(w, t, True) for w, t in self.tables(data, "expect"))
        forbid = tuple(self.pattern(w, t, False) for w, t in self.tables(data, "forbid"))
        leds = tuple(self.led_check(w, t) for w, t in self.tables(data, "expect_leds"))
        for check in leds:
            if until is not None and check.at > until:
                raise self.fail(f"{check.where}.at", f"{check.at:g} is after until ({until:g})")
        return Scenario(
            self.path,
            spec,
            game,
            options,
            seed,
            takeback,
            bounce,
            until,
            steps,
            expect,
            forbid,
            leds,
            ai,
            ai_budget,
        )

    @staticmethod
    def _games_in_play(data: Mapping[str, Any], spec: BoardSpec, game: Game) -> tuple[Game, ...]:
        """The games a run of the file may play: its `game`, and where a step presses `menu`,
        every game the LED menu offers on the board (the file's first). A step's notation is
        checked against these here, and against the game in play when the step runs."""
        from magboard.firmware.app.menu import EntryKind, entries

        steps = data.get("steps", [])
        menu = (
            any(button.name == MENU for button in spec.buttons)
            and isinstance(steps, list)
            and any(isinstance(item, dict) and item.get("press") == MENU for item in steps)
        )
        if not menu:
            return (game,)
        offered = [e.game for e in entries(spec) if e.kind == EntryKind.GAME and e.game is not None]
        return (game, *(other for other in offered if other.name != game.name))

    def ai(self, data: Mapping[str, Any], options: Mapping[str, Any]) -> AiSeat | None:
        """`ai = "SEAT[:LEVEL]"`: the seat the board plays, read as `--ai` reads it."""
        from magboard.firmware.engine.opponent import AiSpecError, parse_ai

        text = self.get(data, "ai", str, "", None)
        if text is None:
            return None
        try:
            seat = parse_ai(text, self.game)
        except AiSpecError as error:
            raise self.fail("ai", str(error)) from None
        players = self.game.new_state(options).players
        if seat.seat >= players:
            seats = ", ".join(self.game.seats[:players])
            raise self.fail("ai", f"this {self.game.title} is played by {seats}")
        return seat

    def _board_path(self, board: str) -> str | Path:
        if board.endswith(".toml"):
            path = Path(board)
            return path if path.is_absolute() else self.path.parent / path
        return board

    # Steps.

    def step(self, where: str, item: Mapping[str, Any]) -> Step:
        actions = [key for key in item if key in ACTIONS]
        extras = {key for keys in ACTIONS.values() for key in keys}
        unknown = [k for k in item if k != "at" and k not in ACTIONS and k not in extras]
        if not actions and unknown:  # a misspelt action is an unknown key, not a missing one
            raise ScenarioError(
                f"{self.path.name}: {where}: unknown key {unknown[0]!r} (known here: at and "
                f"one action: {', '.join(ACTIONS)})"
            )
        if len(actions) != 1:
            found = f"has {', '.join(actions)}" if actions else "has none"
            raise self.fail(where, f"needs exactly one action ({', '.join(ACTIONS)}); it {found}")
        action = actions[0]
        self.known(item, ("at", action, *ACTIONS[action]), where)
        at = self.number(item, "at", where)
        path = f"{where}.{action}"
        raw = item[action]
        extra: dict[str, Any] = {}
        value: Any
        if action == "lift" and isinstance(raw, str) and raw.startswith(BOX):
            value = self.box(raw, path)
        elif action in ("lift", "put"):
            value = self.place(raw, path)
        elif action == "move":
            pair = self.check(raw, list, path)
            if len(pair) != 2:
                raise self.fail(path, f"is [from, to], not {raw!r}")
            value = tuple(self.place(p, f"{path}[{i}]") for i, p in enumerate(pair))
        elif action == "play":
            value = self.notation(self.check(raw, str, path), path)
            extra["pause"] = self.positive(item, "pause", where, HAND_PAUSE)
        elif action == "slide":
            group = isinstance(raw, list) and bool(raw) and isinstance(raw[0], list)
            value = self.group(raw, path) if group else self.slide(raw, path)
            extra["step"] = self.positive(item, "step", where, SLIDE_STEP)
            extra["group"] = group
        elif action in TILE_WAYS:
            value = self.tile_step(raw, path, TILE_WAYS[action])
        elif action == "press":
            value = self.check(raw, str, path)
            buttons = [b.name for b in self.spec.buttons]
            if value not in buttons:
                raise self.fail(
                    path,
                    f"board {self.spec.name} has no button {value!r} ({', '.join(buttons)})",
                )
            extra["hold"] = self.positive(item, "hold", where, PRESS_HOLD)
        elif action in ("i2c_errors", "reset_expander"):
            value = self.expander(raw, path)
            if action == "i2c_errors" and "for" in item:
                if "count" in item:
                    raise self.fail(where, "has count and for: a burst, or a time, not both")
                extra["for"] = self.positive(item, "for", where, 0.0)
            elif action == "i2c_errors":
                count = self.get(item, "count", int, where, I2C_BURST)
                if count < 1:
                    raise self.fail(f"{where}.count", f"must be 1 or more, not {count}")
                extra["count"] = count
        elif action == "noise":
            value = self.positive(item, "noise", where, 0.0)
            extra["rate"] = self.positive(item, "rate", where, NOISE_RATE)
            extra["width"] = self.positive(item, "width", where, NOISE_WIDTH)
        elif action in ("stick", "unstick"):
            value = self.sensor(raw, path)
            if action == "stick":
                extra["level"] = self.get(item, "level", bool, where, True)
        elif action == "kill_led":
            value = self.led(raw, path)[1]
        elif action == "bounce":
            value = self.check(raw, bool, path)
        elif action == "follow":
            if raw is not True:
                raise self.fail(path, f"must be true, not {raw!r}")
            value = True
            extra["pause"] = self.positive(item, "pause", where, HAND_PAUSE)
        else:  # restart
            if raw is not True:
                raise self.fail(path, f"must be true, not {raw!r}")
            value = True
        return Step(where, at, action, value, extra)

    def notation(self, text: str, where: str) -> str:
        """A `play` step's move, readable by a game the run may play: which game is in play
        when the step runs is the run's to say (a menu may have changed it)."""
        errors = []
        for game in self.games:
            try:
                game.parse_action(text)
            except (GameError, ValueError) as error:
                errors.append(str(error))
            else:
                return text
        if len(self.games) == 1:
            raise self.fail(where, errors[0])
        names = ", ".join(game.name for game in self.games)
        raise self.fail(where, f"{text!r} is a move in none of the games the menu offers ({names})")

    def box(self, text: str, where: str) -> str:
        """The supply a box off the board holds (`supply:A`), named as `lift` may name it."""
        name = self.boxes.get(text)
        if name is None:
            named = ", ".join(self.boxes) or "none"
            raise self.fail(where, f"no box {text!r} in {self.game.name} (boxes: {named})")
        return name

    def place(self, text: Any, where: str) -> Place:
        self.check(text, str, where)
        place = self.places.get(text)
        if place is None:
            raise self.fail(where, f"unknown place {text!r} on board {self.spec.name}")
        return place

    def slide(self, raw: Any, where: str) -> tuple[Place, ...]:
        cells = self.check(raw, list, where)
        if len(cells) < 2:
            raise self.fail(where, "needs the cell it starts on and at least one more")
        path = tuple(self.place(c, f"{where}[{i}]") for i, c in enumerate(cells))
        for i, (a, b) in enumerate(itertools.pairwise(path), 1):
            if not isinstance(a, tuple) or not isinstance(b, tuple):
                slot = a if not isinstance(a, tuple) else b
                raise self.fail(where, f"slides go over cells, not the tray slot {slot}")
            if max(abs(a[0] - b[0]), abs(a[1] - b[1])) != 1:
                raise self.fail(
                    f"{where}[{i}]",
                    f"{place_label(b)} is not next to {place_label(a)}: a slide goes cell by cell",
                )
        return path

    def group(self, raw: list, where: str) -> tuple[tuple[Place, ...], ...]:
        """Paths of pieces pushed together: each straight along one row or column, all the
        same way and the same length."""
        paths = []
        for i, item in enumerate(raw):
            if not isinstance(item, list):
                raise self.fail(f"{where}[{i}]", f"a group slide is a list of paths, not {item!r}")
            paths.append(self.slide(item, f"{where}[{i}]"))
        ways = set()
        for i, path in enumerate(paths):
            if len(path) != len(paths[0]):
                raise self.fail(
                    f"{where}[{i}]",
                    f"has {len(path)} cells, {where}[0] {len(paths[0])}: a group's pieces "
                    "move together",
                )
            ways |= {(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(path)}
        if len(ways) != 1 or 0 not in next(iter(ways)):
            raise self.fail(
                where, "a group slides straight, every path the same way along a row or column"
            )
        starts = [path[0] for path in paths]
        if len(set(starts)) != len(starts):
            raise self.fail(where, "two paths start on one cell: one path a piece")
        return tuple(paths)

    def tile_step(self, raw: Any, where: str, ways: Sequence[str]) -> tuple[Cell, str]:
        """`[cell, way]`: any cell the tile covers (a hand grips the tile, not its corner), so
        a file need not follow where each tile's lower-left corner has gone. Whether a tile
        lies there is the world's to say when the step comes."""
        if not self.tiled:
            raise self.fail(where, f"{self.game.name} has no tiles on board {self.spec.name}")
        pair = self.check(raw, list, where)
        if len(pair) != 2:
            raise self.fail(where, f"is [cell, way], not {raw!r}")
        cell = self.place(pair[0], f"{where}[0]")
        if not isinstance(cell, tuple):
            raise self.fail(f"{where}[0]", f"tiles lie on cells, not on the tray slot {cell}")
        way = self.check(pair[1], str, f"{where}[1]")
        if way not in ways:
            named = f"{', '.join(ways[:-1])} or {ways[-1]}"
            raise self.fail(f"{where}[1]", f"must be {named}, not {way!r}")
        return cell, way

    def expander(self, raw: Any, where: str) -> int:
        expanders = self.spec.expanders
        names = f"U1-U{len(expanders)}, or 0-{len(expanders) - 1}"
        if isinstance(raw, int) and not isinstance(raw, bool):
            if 0 <= raw < len(expanders):
                return raw
        elif isinstance(raw, str):
            match = _EXPANDER.fullmatch(raw.strip())
            if match and 1 <= int(match[1]) <= len(expanders):
                return int(match[1]) - 1
            for expander in expanders:
                if raw == expander.label:
                    return expander.index
        else:
            raise self.fail(where, f"must be a label like U1 or an index, not {raw!r}")
        raise self.fail(where, f"board {self.spec.name} has no expander {raw!r} ({names})")

    def sensor(self, raw: Any, where: str) -> SensorRef:
        text = self.check(raw, str, where)
        place_text, _, channel = text.partition(".")
        place = self.places.get(place_text)
        if place is None or (place, channel) not in self.spec.sensor_bit:
            raise self.fail(
                where,
                f"board {self.spec.name} has no sensor {text!r} (a cell's CELL.CHANNEL like "
                f"b2.{self.spec.channels[0].name}, or a tray slot like A1)",
            )
        return place, channel

    def led(self, raw: Any, where: str) -> tuple[str, int]:
        """A place or status name, or a chain index: (label, index)."""
        count = self.spec.leds.count
        if isinstance(raw, int) and not isinstance(raw, bool):
            if not 0 <= raw < count:
                raise self.fail(where, f"board {self.spec.name} has LEDs 0-{count - 1}, not {raw}")
            return f"LED {raw}", raw
        text = self.check(raw, str, where)
        key: Any = self.places.get(text, text)
        index = self.spec.led_index.get(key)
        if index is None:
            raise self.fail(where, f"no LED under {text!r} on board {self.spec.name}")
        return text, index

    # Expectations.

    def pattern(self, where: str, item: Mapping[str, Any], expect: bool) -> EventPattern:
        kind = self.get(item, "type", str, where)
        cls = EVENT_TYPES.get(kind)
        if cls is None:
            raise self.fail(
                f"{where}.type", f"unknown event type {kind!r} ({', '.join(EVENT_TYPES)})"
            )
        names = [f.name for f in fields(cls) if f.name != "t"]
        keys = ("type", *names, *WINDOW, *(("count",) if expect else ()))
        if "t" in item:
            raise self.fail(f"{where}.t", "match times with after and before")
        self.known({k: v for k, v in item.items() if k != MENTIONS}, keys, where)
        hints = get_type_hints(cls)
        wanted = {}
        for name in names:
            if name in item:
                wanted[name] = self.event_value(item[name], hints[name], f"{where}.{name}")
        after = self.number(item, "after", where, None)
        before = self.number(item, "before", where, None)
        count = self.get(item, "count", int, where, None)
        if count is not None and count < 0:
            raise self.fail(f"{where}.count", f"must not be negative: {count}")
        mentions = self.get(item, MENTIONS, list, where, [])
        for i, word in enumerate(mentions):
            if not self.check(word, str, f"{where}.{MENTIONS}[{i}]").strip():
                raise self.fail(f"{where}.{MENTIONS}[{i}]", "must not be blank")
        return EventPattern(where, kind, wanted, after, before, count, tuple(mentions))

    def event_value(self, value: Any, hint: Any, where: str) -> Any:
        """The value as the event's JSON carries it; refuses one no event could ever have."""
        origin = get_origin(hint)
        if origin is tuple:
            item = get_args(hint)[0]
            items = self.check(value, list, where)
            for i, v in enumerate(items):
                self.check(v, (int, float) if item is float else item, f"{where}[{i}]")
            return items
        if origin is dict:
            return self.check(value, dict, where)
        return self.check(value, (int, float) if hint is float else hint, where)

    def led_check(self, where: str, item: Mapping[str, Any]) -> LedCheck:
        self.known(item, ("at", "places", "colour"), where)
        at = self.number(item, "at", where)
        raw = self.get(item, "places", list, where)
        if not raw:
            raise self.fail(f"{where}.places", "needs at least one place")
        places = tuple(self.led(p, f"{where}.places[{i}]") for i, p in enumerate(raw))
        name = self.get(item, "colour", str, where)
        return LedCheck(where, at, places, self.colour(name, f"{where}.colour"), name)

    def colour(self, name: str, where: str) -> RGB:
        seats = self.game.seats
        for game in self.games:  # the file's game first, then any the menu may start
            if name in game.seats:
                players = palette.DEFAULT.players
                return players[game.seats.index(name) % len(players)]
        if name.lower() in COLOURS:
            return COLOURS[name.lower()]
        match = _HEX.fullmatch(name)
        if match:
            value = int(match[1], 16)
            return (value >> 16, value >> 8 & 0xFF, value & 0xFF)
        raise self.fail(
            where,
            f"unknown colour {name!r}: a seat ({', '.join(seats)}), "
            f"{', '.join(COLOURS)}, or #rrggbb",
        )


def load(path: str | Path) -> Scenario:
    """Reads and checks a scenario file; ScenarioError names the file and the field."""
    path = Path(path)
    reader = _Reader(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise reader.fail("", f"{path.name}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise reader.fail("", f"{path.name}: not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise reader.fail("", f"{path.name}: not valid TOML: {error}") from None
    return reader.scenario(data)
