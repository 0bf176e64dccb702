"""Scenario files: a game told as timed physical actions, run through the whole simulated stack,
with the events it must (and must not) cause and the lights it must show.

A scenario is a TOML file (docs/scenarios.md). `run_file` loads it, lays out a board, and plays
the steps at their times on the virtual clock: the world moves magnets, the emulated MCP23017s
and the real drivers read them, the scanner debounces, the referee judges, the lights write
NeoPixel bytes. Every event goes to the caller as it happens; afterwards the expectations are
checked against the whole stream.

A file that cannot run (unknown key, place, button, expander; a step the world cannot do) raises
`ScenarioError`, a `CommandError` with one line naming the file and the field. A scenario that
runs but whose expectations do not hold returns failures, each saying what was seen instead.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import tempfile
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from magboard.firmware.app.errors import CommandError
from magboard.firmware.events import EVENT_TYPES, Event, LedFrame
from magboard.firmware.games import Game, GameError, get_game
from magboard.firmware.lights import palette
from magboard.firmware.profiles import ProfileError, profile_for
from magboard.firmware.profiles import Step as HandStep
from magboard.hardware.interface import RGB
from magboard.hardware.spec import BoardSpec, BoardSpecError, Place, load_board, place_label

from .session import HAND_PAUSE, SimSession
from .world import Bounce, SensorRef, WorldError

AFTER_LAST = 2.0
"""Seconds the run goes on after the last step, when the file gives no `until`."""
SLIDE_STEP = 0.12
PRESS_HOLD = 0.1
I2C_BURST = 3
"""Errors in a burst by default: as many as the driver's attempts at one read, so it fails."""
NOISE_RATE = 50.0
NOISE_WIDTH = 0.002
LATE = 1e-9
"""Rounding allowed when a step's time is compared with the end of a `play` before it."""

TOP_KEYS = (
    "board",
    "game",
    "options",
    "seed",
    "takeback",
    "bounce",
    "until",
    "steps",
    "expect",
    "forbid",
    "expect_leds",
)
ACTIONS: Mapping[str, tuple[str, ...]] = {
    "lift": (),
    "put": (),
    "move": (),
    "play": ("pause",),
    "slide": ("step",),
    "press": ("hold",),
    "i2c_errors": ("count",),
    "reset_expander": (),
    "noise": ("rate", "width"),
    "stick": ("level",),
    "unstick": (),
    "kill_led": (),
    "bounce": (),
    "restart": (),
}
"""Each step's action key, and the other keys that action may take besides `at`."""
WINDOW = ("after", "before")
COLOURS: Mapping[str, RGB] = {
    "red": palette.RED,
    "white": palette.WHITE,
    "blue": palette.BLUE,
    "orange": palette.ORANGE,
    "green": palette.GREEN,
    "magenta": palette.MAGENTA,
    "off": palette.OFF,
}
_HEX = re.compile(r"#([0-9a-fA-F]{6})")
_EXPANDER = re.compile(r"[Uu]([0-9]+)")


class ScenarioError(CommandError):
    """A scenario file that cannot run; the message names the file and the field."""


# What a file says, checked.


@dataclass(frozen=True)
class Step:
    where: str
    """`steps[i]`, for messages."""
    at: float
    action: str
    value: Any
    """The action's argument, resolved against the board (places, expander index, ...)."""
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EventPattern:
    where: str
    """`expect[i]` or `forbid[i]`."""
    type: str
    fields: Mapping[str, Any]
    after: float | None = None
    before: float | None = None
    count: int | None = None

    def matches(self, event: Event, data: Mapping[str, Any] | None = None) -> bool:
        kind = event.TYPE
        if kind != self.type or not self.in_window(event):
            return False
        data = data if data is not None else event.to_dict()
        return all(data.get(k) == v for k, v in self.fields.items())

    def in_window(self, event: Event) -> bool:
        return (self.after is None or event.t >= self.after) and (
            self.before is None or event.t <= self.before
        )

    def __str__(self) -> str:
        parts = [f'type = "{self.type}"']
        parts += [f"{k} = {json.dumps(v)}" for k, v in self.fields.items()]
        parts += [
            f"{k} = {getattr(self, k):g}"
            for k in (*WINDOW, "count")
            if getattr(self, k) is not None
        ]
        return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True)
class LedCheck:
    where: str
    at: float
    places: tuple[tuple[str, int], ...]
    """(label, LED index) of each place to look at."""
    colour: RGB
    colour_name: str


@dataclass(frozen=True)
class Scenario:
    path: Path
    spec: BoardSpec
    game: Game
    options: Mapping[str, Any]
    seed: int
    takeback: bool
    bounce: bool
    until: float | None
    steps: tuple[Step, ...]
    expect: tuple[EventPattern, ...]
    forbid: tuple[EventPattern, ...]
    expect_leds: tuple[LedCheck, ...]

    @property
    def name(self) -> str:
        return self.path.name


class _Reader:
    """Reads one scenario file, raising ScenarioError that names the file and the field."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> ScenarioError:
        return ScenarioError(f"{self.path.name}: {where}: {problem}" if where else problem)

    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        where: str,
        default: Any = ...,
    ) -> Any:
        path = f"{where}.{key}" if where else key
        if key not in table:
            if default is ...:
                raise self.fail(path, "missing")
            return default
        return self.check(table[key], kind, path)

    def check(self, value: Any, kind: type | tuple[type, ...], where: str) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join("number" if k is float else k.__name__ for k in kinds)
            raise self.fail(where, f"must be {names}, not {value!r}")
        return value

    def number(self, table: Mapping[str, Any], key: str, where: str, default: Any = ...) -> Any:
        value = self.get(table, key, (int, float), where, default)
        if value is None:
            return None
        if value < 0:
            raise self.fail(f"{where}.{key}" if where else key, f"must not be negative: {value}")
        return float(value)

    def positive(self, table: Mapping[str, Any], key: str, where: str, default: float) -> float:
        value = self.number(table, key, where, default)
        if value <= 0:
            raise self.fail(f"{where}.{key}", f"must be more than 0, not {value}")
        return value

    def known(self, table: Mapping[str, Any], keys: Sequence[str], where: str) -> None:
        for key in table:
            if key not in keys:
                path = f"{where}.{key}" if where else key
                raise self.fail(path, f"unknown key (known here: {', '.join(keys)})")

    def tables(self, data: Mapping[str, Any], key: str) -> list[tuple[str, Mapping[str, Any]]]:
        items = self.get(data, key, list, "", [])
        found = []
        for i, item in enumerate(items):
            where = f"{key}[{i}]"
            if not isinstance(item, dict):
                raise self.fail(where, f"must be a table, not {item!r}")
            found.append((where, item))
        return found

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
            profile_for(game, spec, options)
        except ProfileError as error:
            raise self.fail("board", str(error)) from None
        self.spec, self.game = spec, game
        self.places = {place_label(p): p for p in (*spec.cells, *spec.slots)}
        seed = self.get(data, "seed", int, "", 0)
        takeback = self.get(data, "takeback", bool, "", True)
        bounce = self.get(data, "bounce", bool, "", False)
        until = self.number(data, "until", "", None)
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
        )

    def _board_path(self, board: str) -> str | Path:
        if board.endswith(".toml"):
            path = Path(board)
            return path if path.is_absolute() else self.path.parent / path
        return board

    # Steps.

    def step(self, where: str, item: Mapping[str, Any]) -> Step:
        actions = [key for key in item if key in ACTIONS]
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
        if action in ("lift", "put"):
            value = self.place(raw, path)
        elif action == "move":
            pair = self.check(raw, list, path)
            if len(pair) != 2:
                raise self.fail(path, f"is [from, to], not {raw!r}")
            value = tuple(self.place(p, f"{path}[{i}]") for i, p in enumerate(pair))
        elif action == "play":
            text = self.check(raw, str, path)
            try:
                self.game.parse_action(text)
            except (GameError, ValueError) as error:
                raise self.fail(path, str(error)) from None
            value = text
            extra["pause"] = self.positive(item, "pause", where, HAND_PAUSE)
        elif action == "slide":
            value = self.slide(raw, path)
            extra["step"] = self.positive(item, "step", where, SLIDE_STEP)
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
            if action == "i2c_errors":
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
        else:  # restart
            if raw is not True:
                raise self.fail(path, f"must be true, not {raw!r}")
            value = True
        return Step(where, at, action, value, extra)

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
        self.known(item, keys, where)
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
        return EventPattern(where, kind, wanted, after, before, count)

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
        if name in seats:
            return palette.DEFAULT.players[seats.index(name) % len(palette.DEFAULT.players)]
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


# Running.


@dataclass
class Result:
    scenario: Scenario
    events: list[Event]
    failures: list[str]

    @property
    def ok(self) -> bool:
        return not self.failures


def run(scenario: Scenario, sink: Callable[[Event], None] | None = None) -> Result:
    """Plays the scenario in virtual time; `sink` sees every event as it happens."""
    with tempfile.TemporaryDirectory(prefix="magboard-scenario-") as folder:
        return _Run(scenario, Path(folder) / "journal.jsonl", sink).go()


def run_file(path: str | Path, sink: Callable[[Event], None] | None = None) -> Result:
    return run(load(path), sink)


class _Run:
    def __init__(
        self, scenario: Scenario, journal: Path, sink: Callable[[Event], None] | None
    ) -> None:
        self.scenario = scenario
        self.events: list[Event] = []
        self.failures: list[str] = []
        self.led_failures: list[str] = []
        """Checked while the run goes on, reported after the events' failures."""
        self.sink = sink
        self.session = SimSession(
            scenario.spec,
            scenario.game.name,
            scenario.options,
            seed=scenario.seed,
            takeback=scenario.takeback,
            journal=journal,
            sinks=[self._record],
        )
        if scenario.bounce:
            self.session.world.bounce = Bounce()
        self.busy_until = 0.0
        """When the last `play` is done: the hand is busy until then, so no step may come
        sooner. A slide or noise burst goes on by itself while other steps happen."""
        self.quiet_from = 0.0
        """When the last step, slide or noise burst is over."""
        self.last_play: Step | None = None

    def _record(self, event: Event) -> None:
        self.events.append(event)
        if self.sink is not None:
            self.sink(event)

    def fail(self, where: str, problem: str) -> ScenarioError:
        return ScenarioError(f"{self.scenario.name}: {where}: {problem}")

    def go(self) -> Result:
        scenario = self.scenario
        self.session.lay_out()
        self.session.start()
        # LED checks go before steps at the same moment: they see the board just before.
        timeline: list[tuple[float, int, int, Step | LedCheck]] = [
            (check.at, 0, i, check) for i, check in enumerate(scenario.expect_leds)
        ]
        timeline += [(step.at, 1, i, step) for i, step in enumerate(scenario.steps)]
        timeline.sort(key=lambda item: item[:3])
        for at, _, _, item in timeline:
            if self.last_play is not None and at < self.busy_until - LATE:
                raise self.fail(
                    f"{item.where}.at",
                    f"{at:g} comes before {self.last_play.where} (play) is done at "
                    f"{self.busy_until:.3f}",
                )
            self.session.run_until(at)
            if isinstance(item, LedCheck):
                self._check_leds(item)
            elif not self._do(item):
                return self._result()
        end = scenario.until
        if end is None:
            last = max([self.quiet_from, *(c.at for c in scenario.expect_leds)])
            end = last + AFTER_LAST
        self.session.run_until(end)
        self._check_events()
        return self._result()

    def _result(self) -> Result:
        return Result(self.scenario, self.events, self.failures + self.led_failures)

    def _do(self, step: Step) -> bool:
        """Does one step; False if the run cannot go on (a `play` the referee's position does
        not allow: that is a failure of the run, not of the file)."""
        session, world = self.session, self.session.world
        end = step.at
        try:
            if step.action == "lift":
                world.lift(step.value)
            elif step.action == "put":
                world.put(step.value)
            elif step.action == "move":
                world.move(*step.value)
            elif step.action == "play":
                try:
                    action = session.state.parse_action(step.value)
                except (GameError, ValueError) as error:
                    self.failures.append(
                        f"{step.where}: cannot play {step.value} at t={step.at:g}: {error} "
                        f"(the referee's position, after {list(session.referee.played)})"
                    )
                    return False
                plan = session.profile.plan(session.state, action)
                self._check_supplies(step, plan)
                session.perform(action, step.extra["pause"])
                end = step.at + step.extra["pause"] * len(plan)
            elif step.action == "slide":
                src, *path = step.value
                end = world.slide(src, path, step.extra["step"])
            elif step.action == "press":
                world.press(step.value, step.extra["hold"])
            elif step.action == "i2c_errors":
                world.inject_i2c_errors(step.value, step.extra["count"])
            elif step.action == "reset_expander":
                world.reset_expander(step.value)
            elif step.action == "noise":
                world.noise(step.extra["rate"], step.value, step.extra["width"])
                end = step.at + step.value
            elif step.action == "stick":
                world.stick(step.value, step.extra["level"])
            elif step.action == "unstick":
                world.unstick(step.value)
            elif step.action == "kill_led":
                world.kill_led(step.value)
            elif step.action == "bounce":
                world.bounce = Bounce() if step.value else None
            elif step.action == "restart":
                self.session = session.restart(seed=self.scenario.seed, sinks=[self._record])
        except (WorldError, ProfileError) as error:
            raise self.fail(f"{step.where}.{step.action}", f"at t={step.at:g}: {error}") from None
        if step.action == "play":
            self.busy_until, self.last_play = end, step
        self.quiet_from = max(self.quiet_from, end)
        return True

    def _check_supplies(self, step: Step, plan: Sequence[HandStep]) -> None:
        """A `play` takes its pieces from the mover's tray: one the file's own steps emptied
        is the file's mistake."""
        slots = {supply.name: supply.slots for supply in self.session.profile.supplies}
        world = self.session.world
        for hand in plan:
            if isinstance(hand.source, str) and not any(
                world.pieces_at(slot) for slot in slots[hand.source]
            ):
                raise self.fail(
                    f"{step.where}.play",
                    f"at t={step.at:g}: no piece left in the slots of supply {hand.source} "
                    f"({', '.join(str(slot) for slot in slots[hand.source])})",
                )

    # Checking.

    def _check_leds(self, check: LedCheck) -> None:
        shown = self.session.board.visible_leds()
        wrong = [
            (label, index, shown[index])
            for label, index in check.places
            if not shows(shown[index], check.colour)
        ]
        if wrong:
            label, index, seen = wrong[0]
            everything = ", ".join(f"{lb} {_hex(shown[i])}" for lb, i in check.places)
            self.led_failures.append(
                f"{check.where}: at t={check.at:g} the LED under {label} (LED {index}) shows "
                f"{_hex(seen)}, not {_colour_text(check)}; all checked: {everything}"
            )

    def _check_events(self) -> None:
        events = self.events
        dicts = [e.to_dict() for e in events]
        position = 0
        matched_at: Event | None = None
        previous: EventPattern | None = None
        for pattern in self.scenario.expect:
            found = next(
                (i for i in range(position, len(events)) if pattern.matches(events[i], dicts[i])),
                None,
            )
            if found is None:
                self.failures.append(
                    _missing(pattern, events, dicts, position, previous, matched_at)
                )
                break  # later entries would only repeat the same miss
            position, matched_at, previous = found + 1, events[found], pattern
        for pattern in self.scenario.expect:
            if pattern.count is None:
                continue
            hits = [e for e, d in zip(events, dicts, strict=True) if pattern.matches(e, d)]
            if len(hits) != pattern.count:
                shown = "; ".join(f"t={e.t:g}" for e in hits[:6])
                self.failures.append(
                    f"{pattern.where}: {pattern} matched {len(hits)} events, not "
                    f"{pattern.count}" + (f" (at {shown})" if hits else "")
                )
        for pattern in self.scenario.forbid:
            for event, data in zip(events, dicts, strict=True):
                if pattern.matches(event, data):
                    self.failures.append(
                        f"{pattern.where}: forbidden {pattern} happened at t={event.t:g}: "
                        f"{event.to_json()}"
                    )
                    break


def shows(seen: RGB, colour: RGB) -> bool:
    """Whether an LED shows `colour` at some brightness: dark for "off"; else lit, with every
    channel in the colour's proportions (the driver's brightness and rounding aside)."""
    if max(colour) == 0:
        return max(seen) == 0
    if max(seen) == 0:
        return False
    scale = max(seen) / max(colour)
    tolerance = max(2.0, 0.06 * max(seen))
    return all(abs(s - c * scale) <= tolerance for s, c in zip(seen, colour, strict=True))


def _hex(colour: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def _colour_text(check: LedCheck) -> str:
    if max(check.colour) == 0:
        return "off"
    return f"{check.colour_name} ({_hex(check.colour)} at any brightness)"


def _missing(
    pattern: EventPattern,
    events: Sequence[Event],
    dicts: Sequence[Mapping[str, Any]],
    start: int,
    previous: EventPattern | None,
    matched_at: Event | None,
) -> str:
    """Why an expected event was not found, with the nearest events seen instead."""
    since = ""
    if previous is not None and matched_at is not None:
        since = f" after {previous.where} (t={matched_at.t:g})"
    text = f"{pattern.where}: expected {pattern}{since}, not seen."
    earlier = [i for i in range(start) if pattern.matches(events[i], dicts[i])]
    if earlier:
        first = events[earlier[0]]
        text += f" It happened earlier, at t={first.t:g}, out of the expected order."
    later = [e for e in events[start:] if type(e) is EVENT_TYPES[pattern.type]]
    if later:
        text += f" {pattern.type} events{since} instead:"
        for event in later[:4]:
            data = event.to_dict()
            differ = [k for k, v in pattern.fields.items() if data.get(k) != v]
            if not pattern.in_window(event):
                differ.append("time window")
            text += f"\n  {event.to_json()}  (differs in {', '.join(differ) or 'nothing'})"
    else:
        nearby = [e for e in events[start:] if not isinstance(e, LedFrame)][:4]
        if nearby:
            text += f" No {pattern.type} event came; the next events were:"
            text += "".join(f"\n  {e.to_json()}" for e in nearby)
        else:
            text += f" No event at all came{since or ' after the start'}."
    return text


# The command.


def main(args: argparse.Namespace) -> int:
    """`magboard scenario FILE [--leds]`: the event stream on stdout, 0 if every expectation
    holds, 1 (with the first failure on stderr) if not; a broken file raises ScenarioError."""
    scenario = load(args.file)
    show_leds = bool(getattr(args, "leds", False))

    def echo(event: Event) -> None:
        if show_leds or not isinstance(event, LedFrame):
            print(event.to_json(), flush=False)

    result = run(scenario, echo)
    sys.stdout.flush()
    if result.ok:
        return 0
    more = len(result.failures) - 1
    tail = f"\n({more} more failed expectation{'s' if more > 1 else ''})" if more else ""
    print(f"{scenario.name}: FAILED {result.failures[0]}{tail}", file=sys.stderr)
    return 1
