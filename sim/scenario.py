"""Scenario runs: a game told as timed physical actions, played through the whole simulated
stack, then checked for the events it must (and must not) cause and the lights it must show.

A scenario is a TOML file (docs/scenarios.md), read and checked by `scenario_file`. `run_file`
loads it, lays out a board, and plays the steps at their times on the virtual clock: the world
moves magnets, the emulated MCP23017s and the real drivers read them, the scanner debounces, the
referee judges, the lights write NeoPixel bytes. Every event goes to the caller as it happens;
afterwards the expectations are checked against the whole stream.

A file that cannot run (unknown key, place, button, expander; a step the world cannot do) raises
`ScenarioError`, a `CommandError` with one line naming the file and the field. A scenario that
runs but whose expectations do not hold returns failures, each saying what was seen instead.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from magboard.firmware.app.board_player import Thinking, stepped_clock
from magboard.firmware.events import EVENT_TYPES, Event, LedFrame, Obligation
from magboard.firmware.games import END_TURN, GameError, State
from magboard.firmware.profiles import ProfileError, TileStep
from magboard.firmware.profiles import Step as HandStep
from magboard.hardware.interface import RGB
from magboard.hardware.spec import Cell, Place, place_label

from .following import follow_lights, shows
from .scenario_file import (
    MENTIONS,
    PRESS_HOLD,
    EventPattern,
    LedCheck,
    Scenario,
    ScenarioError,
    Step,
    load,
)
from .session import DIRECTIONS, SimSession
from .world import Bounce, Tile, WorldError

AFTER_LAST = 2.0
"""Seconds the run goes on after the last step, when the file gives no `until`."""
LATE = 1e-9
"""Rounding allowed when a step's time is compared with the end of a `play` before it."""


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
        return _Run(scenario, Path(folder) / "magboard.db", sink).go()


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
            ai=scenario.ai,
            thinking=Thinking(stepped_clock(), scenario.ai_budget, scenario.seed),
        )
        if scenario.bounce:
            self.session.world.bounce = Bounce()
        self.busy_until = 0.0
        """When the last `play` is done: the hand is busy until then, so no step may come
        sooner. A slide or noise burst goes on by itself while other steps happen."""
        self.quiet_from = 0.0
        """When the last step, slide or noise burst is over."""
        self.last_play: Step | None = None
        self.dead: dict[int, float] = {}
        """Expanders that do not answer (an `i2c_errors` step with `for`), and until when."""

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
        self.failures += check_events(scenario, self.events)
        return self._result()

    def _result(self) -> Result:
        return Result(self.scenario, self.events, self.failures + self.led_failures)

    def _do(self, step: Step) -> bool:
        """Does one step; False if the run cannot go on (a `play` the referee's position does
        not allow: that is a failure of the run, not of the file)."""
        session, world = self.session, self.session.world
        end = step.at
        try:
            if step.action == "lift" and isinstance(step.value, str):
                session.take(step.value)  # a piece out of a box no sensor sees
            elif step.action == "lift":
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
                        f"(the game in play: {session.game.name}, the referee's position after "
                        f"{list(session.referee.actions_played)})"
                    )
                    return False
                if action == END_TURN:
                    end = self._end_turn(session.state)
                else:
                    plan = session.profile.plan(session.state, action)
                    self._check_supplies(step, plan)
                    session.perform(action, step.extra["pause"])
                    end = session.clock.now()  # the hand lets go
            elif step.action == "slide" and step.extra["group"]:
                paths = step.value
                (dx, dy), distance = _way(paths[0]), len(paths[0]) - 1
                direction = DIRECTIONS[(dx, dy)]
                starts = [path[0] for path in paths]
                end = world.slide_group(starts, direction, distance, step.extra["step"])
            elif step.action == "slide":
                src, *path = step.value
                end = world.slide(src, path, step.extra["step"])
            elif step.action == "shift_tile":
                cell, way = step.value
                world.shift_tile(self._tile(cell), way)
            elif step.action == "turn_tile":
                cell, way = step.value
                world.rotate_tile(self._tile(cell), clockwise=way == "cw")
            elif step.action == "press":
                world.press(step.value, step.extra["hold"])
            elif step.action == "i2c_errors" and "for" in step.extra:
                end = self._kill_expander(step, step.at + step.extra["for"])
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
            elif step.action == "follow":
                if not self._follow(step):
                    return False
                end = session.clock.now()
            elif step.action == "restart":
                self.session = session.restart(seed=self.scenario.seed, sinks=[self._record])
                for expander in self.dead:  # new electronics, the same dead chip
                    self._plug(expander, False)
        except (WorldError, ProfileError) as error:
            raise self.fail(f"{step.where}.{step.action}", f"at t={step.at:g}: {error}") from None
        if step.action in ("play", "follow"):
            self.busy_until, self.last_play = end, step
        self.quiet_from = max(self.quiet_from, end)
        return True

    def _follow(self, step: Step) -> bool:
        """`follow = true`: hands make the move the board last asked for (its latest
        `obligation`) by reading the lights alone, under its places and the trays (a piece put
        back meanwhile is lit there); False, with a failure, if the board asks for nothing."""
        asked = next((e for e in reversed(self.events) if isinstance(e, Obligation)), None)
        if asked is None or self.session.referee.owed is None:
            self.failures.append(
                f"{step.where}: at t={step.at:g} the board asks for no move to follow "
                f"(the referee's position, after {list(self.session.referee.actions_played)})"
            )
            return False
        slots = [place_label(slot) for slot in self.session.spec.slots]
        follow_lights(self.session, [*asked.places, *slots], step.extra["pause"])
        return True

    def _tile(self, cell: Cell) -> Tile:
        """The tile a hand grips by one of its cells (any: tiles move, their corners with them)."""
        tile = self.session.world.tile_at(cell)
        if tile is None:
            raise WorldError(f"no tile covers {place_label(cell)}")
        return tile

    def _end_turn(self, state: State) -> float:
        """`play = "end"`: the mover presses their seat's button (and lets go)."""
        self.session.world.press(f"seat-{state.to_move + 1}", PRESS_HOLD)
        return self.session.clock.now() + PRESS_HOLD

    def _kill_expander(self, step: Step, until: float) -> float:
        """The expander stops answering (dead, or its connector loose) until `until`, which may
        be infinite; returns when it answers again, or `step.at` if never."""
        if step.value in self.dead:
            raise self.fail(
                f"{step.where}.i2c_errors",
                f"at t={step.at:g}: the expander is already not answering until "
                f"t={self.dead[step.value]:g}",
            )
        self._plug(step.value, False)
        self.dead[step.value] = until
        if math.isinf(until):
            return step.at
        self.session.clock.call_at(until, lambda: self._revive(step.value))
        return until

    def _revive(self, expander: int) -> None:
        del self.dead[expander]
        self._plug(expander, True)

    def _plug(self, expander: int, plugged: bool) -> None:
        """Connects an expander to its wire (its bus, or its mux channel), or takes it off."""
        board = self.session.board
        spec = board.spec.expanders[expander]
        wire = (
            board.muxes[spec.mux].channel(spec.mux_channel)
            if spec.mux
            else board.buses[spec.bus].segment
        )
        chip = board.chips[expander]
        if plugged:
            wire.attach(chip)
        else:
            wire.detach(chip)

    def _check_supplies(self, step: Step, plan: Sequence[HandStep | TileStep]) -> None:
        """A `play` takes its pieces from the mover's tray: one the file's own steps emptied
        is the file's mistake. An unsensed box never runs out; a tile action takes nothing."""
        slots = {supply.name: supply.slots for supply in self.session.profile.supplies}
        world = self.session.world
        for hand in plan:
            if (
                isinstance(hand, HandStep)
                and isinstance(hand.source, str)
                and slots[hand.source]
                and not any(world.pieces_at(slot) for slot in slots[hand.source])
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


def check_events(scenario: Scenario, events: Sequence[Event]) -> list[str]:
    """What the stream `events` does not do of what the file expects (`expect`, `forbid`),
    one line each; the in-process run and the emulated machine's check their streams alike."""
    failures: list[str] = []
    dicts = [e.to_dict() for e in events]
    position = 0
    matched_at: Event | None = None
    previous: EventPattern | None = None
    for pattern in scenario.expect:
        found = next(
            (i for i in range(position, len(events)) if pattern.matches(events[i], dicts[i])),
            None,
        )
        if found is None:
            failures.append(_missing(pattern, events, dicts, position, previous, matched_at))
            break  # later entries would only repeat the same miss
        position, matched_at, previous = found + 1, events[found], pattern
    for pattern in scenario.expect:
        if pattern.count is None:
            continue
        hits = [e for e, d in zip(events, dicts, strict=True) if pattern.matches(e, d)]
        if len(hits) != pattern.count:
            shown = "; ".join(f"t={e.t:g}" for e in hits[:6])
            failures.append(
                f"{pattern.where}: {pattern} matched {len(hits)} events, not "
                f"{pattern.count}" + (f" (at {shown})" if hits else "")
            )
    for pattern in scenario.forbid:
        for event, data in zip(events, dicts, strict=True):
            if pattern.matches(event, data):
                failures.append(
                    f"{pattern.where}: forbidden {pattern} happened at t={event.t:g}: "
                    f"{event.to_json()}"
                )
                break
    return failures


def _way(path: Sequence[Place]) -> tuple[int, int]:
    """The step from one cell to the next along a straight path."""
    (c0, r0), (c1, r1) = path[0], path[1]
    return c1 - c0, r1 - r0


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
            if not pattern.mentioned(data):
                differ.append(MENTIONS)
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
