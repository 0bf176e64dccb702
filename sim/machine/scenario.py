"""A scenario file played on a physical board in real time: `magboard scenario FILE --machine`.

The in-process runner (sim/scenario.py) plays a file in virtual time on the simulated board;
this one plays the same file's steps at their times by the wall clock, through the hands of a
`hands.PhysicalBoard` (the emulated machine's `EmulatedBoard`), and reads the board's events
from its MQTT topic `magboard/<board-id>/events`, printing them as `magboard scenario` does
(times counted from the `game-started` that begins the run) and checking them against the
file's `expect` and `forbid`, and its `expect_leds` against what the LED chain shows. A board
in real time sees a hand's movement a scan or two later than the simulator and lights its
answer a frame after that, so an LED check at `t` is met if the LEDs show it at some moment
from `t` to `t + LED_GRACE`, looked at every `LED_RECHECK`; the steps go on meanwhile.

What hands can do is played: `lift`, `put`, `move`, `slide` (one path), `press`, `play` (by
the game's notation, from the referee's position as the board's events tell it, taking from a
full slot of the mover's tray chosen by the file's `seed` as the in-process runner chooses
it), `i2c_errors` (with `count`, or `for`: the expander unplugged and back) and
`reset_expander`. The rest (noise, stuck sensors, dead LEDs, bounce, a power cut, tiles, boxes
no sensor sees, following the lights) is refused before the run, naming the step: status 2.

`--machine` boots the emulated machine, installs the service as an operator does
(sim/machine/deploy.py), serves the file's board beneath it, lays the game's pieces out in
their trays and starts the service; then plays. Minutes, most of them the install.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import itertools
import json
import math
import queue
import random
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from magboard.firmware.events import EVENT_TYPES, Event, GameStarted, Moved, TakenBack
from magboard.firmware.games import END_TURN, GameError, State
from magboard.firmware.profiles import Profile, TileStep, profile_for
from magboard.hardware.spec import Place, place_label
from magboard.sim.following import shows
from magboard.sim.scenario import AFTER_LAST, check_events
from magboard.sim.scenario_file import PRESS_HOLD, LedCheck, Scenario, ScenarioError, Step, load

from .hands import PhysicalBoard

MQTT = 1883
BOARD_ID = "hil"
JOURNAL = "/var/lib/magboard/magboard.db"
LED_GRACE = 1.0
LED_RECHECK = 0.05
HANDS = ("lift", "put", "move", "slide", "press", "play", "i2c_errors", "reset_expander")
"""The steps a physical board's hands (and its bench's faults) make."""


class StepFailed(Exception):
    """A step that cannot go on at its moment (a `play` the referee's position does not
    allow): the run's failure, status 1, not the file's."""


@dataclass(frozen=True)
class Touch:
    """One thing done to the board at `at` seconds: `PhysicalBoard` method `op` with `args`."""

    at: float
    op: str
    args: tuple[Any, ...] = ()


# What a step is, as hands do it.


def check_playable(scenario: Scenario) -> None:
    """Refuses, naming the step, a file with a step a physical board cannot make."""
    if scenario.ai is not None:
        raise ScenarioError(f"{scenario.name}: ai: the board playing a seat is not played here")
    for step in scenario.steps:
        reason = None
        if step.action not in HANDS:
            reason = "a physical board's hands cannot make it"
        elif step.action == "lift" and isinstance(step.value, str):
            reason = "a box no sensor sees is not on a physical board"
        elif step.action == "slide" and step.extra["group"]:
            reason = "a group pushed together is not played here"
        if reason is not None:
            raise ScenarioError(f"{scenario.name}: {step.where}.{step.action}: {reason}")


def touches(
    step: Step,
    state: State | None,
    profile: Profile,
    full: Callable[[Sequence[Place]], list[Place]],
    rng: random.Random,
) -> list[Touch]:
    """What hands do for `step`, from the referee's `state` (for a `play`); `full` says which
    of some slots hold a piece now. Raises StepFailed for a `play` the position refuses."""
    at, value, extra = step.at, step.value, step.extra
    label = place_label
    if step.action == "lift":
        return [Touch(at, "lift", (label(value),))]
    if step.action == "put":
        return [Touch(at, "put", (label(value),))]
    if step.action == "move":
        return [Touch(at, "move", (label(value[0]), label(value[1])))]
    if step.action == "slide":
        src, *path = value
        return [Touch(at, "slide", (label(src), [label(p) for p in path], extra["step"]))]
    if step.action == "press":
        return [Touch(at, "press", (value, extra["hold"]))]
    if step.action == "i2c_errors" and "for" in extra:  # unplugged, and back after `for`
        unplugged = [Touch(at, "kill_expander", (value,))]
        if not math.isinf(extra["for"]):
            unplugged.append(Touch(at + extra["for"], "revive_expander", (value,)))
        return unplugged
    if step.action == "i2c_errors":
        return [Touch(at, "i2c_errors", (value, extra["count"]))]
    if step.action == "reset_expander":
        return [Touch(at, "reset_expander", (value,))]
    if step.action == "play":
        return _play(step, state, profile, full, rng)
    raise ScenarioError(f"{step.where}.{step.action}: a physical board's hands cannot make it")


def _play(
    step: Step,
    state: State | None,
    profile: Profile,
    full: Callable[[Sequence[Place]], list[Place]],
    rng: random.Random,
) -> list[Touch]:
    """A hand makes the move, as the in-process runner's: each piece lifted at its turn, put
    down `pause`/2 later, the next `pause`/2 after that."""
    if state is None:
        raise StepFailed(f"{step.where}: cannot play {step.value}: no game-started seen yet")
    try:
        action = state.parse_action(step.value)
    except (GameError, ValueError) as error:
        raise StepFailed(
            f"{step.where}: cannot play {step.value} at t={step.at:g}: {error}"
        ) from None
    pause = step.extra["pause"]
    if action == END_TURN:
        return [Touch(step.at, "press", (f"seat-{state.to_move + 1}", PRESS_HOLD))]
    done: list[Touch] = []
    at = step.at
    for hand in profile.plan(state, action):
        if isinstance(hand, TileStep) or hand.slide:
            raise ScenarioError(f"{step.where}.play: tiles and slid groups are not played here")
        if isinstance(hand.source, str):
            slots = full(profile.supply(hand.source).slots)
            if not slots:
                raise ScenarioError(
                    f"{step.where}.play: at t={step.at:g}: no piece left in the slots of "
                    f"supply {hand.source}"
                )
            source = rng.choice(slots)
        else:
            source = hand.source
        assert not isinstance(hand.target, str), "a play puts pieces on cells"
        done += [
            Touch(at, "lift", (place_label(source),)),
            Touch(at + pause / 2, "put", (place_label(hand.target),)),
        ]
        at += pause
    return done


def step_end(step: Step) -> float:
    """When a step is over (a play's hand lets go, a slide comes to rest, an expander is back)."""
    extra = step.extra
    if step.action == "play":
        return step.at + extra["pause"]
    if step.action == "slide":
        return step.at + extra["step"] * (len(step.value) - 1)
    if step.action == "i2c_errors" and "for" in extra and not math.isinf(extra["for"]):
        return step.at + extra["for"]
    return step.at


def run_end(scenario: Scenario) -> float:
    if scenario.until is not None:
        return scenario.until
    ends = [step_end(step) for step in scenario.steps]
    ends += [check.at for check in scenario.expect_leds]
    return max([0.0, *ends]) + AFTER_LAST


# The game, as the board's events tell it.


@dataclass
class FollowedGame:
    """The referee's position, followed from its events: the game started (or resumed), each
    move applied, each takeback undoing one."""

    scenario: Scenario
    states: list[State] = field(default_factory=list)

    @property
    def state(self) -> State | None:
        return self.states[-1] if self.states else None

    def hear(self, event: Event) -> None:
        game = self.scenario.game
        if isinstance(event, GameStarted):
            state = game.new_state(event.options)
            self.states = [state]
            for text in event.actions:
                self.states.append(self.states[-1].apply(game.parse_action(text)))
        elif isinstance(event, Moved) and self.states:
            state = self.states[-1]
            for text in event.actions:
                state = state.apply(game.parse_action(text))
            self.states.append(state)
        elif isinstance(event, TakenBack) and len(self.states) > 1:
            self.states.pop()


def event_of(data: Mapping[str, Any]) -> Event:
    """An event from its JSON object (protocol.md), as the board sent it."""
    kind = EVENT_TYPES[data["type"]]
    return kind(**{k: v for k, v in data.items() if k != "type"})


# Playing.


@dataclass
class Played:
    events: list[Event]
    failures: list[str]

    @property
    def ok(self) -> bool:
        return not self.failures


def lay_out(scenario: Scenario, board: PhysicalBoard) -> Profile:
    """Every piece of a new game in its place through the board's hands, as the in-process
    session's `lay_out` does: the trays full, the lattice as the game begins."""
    profile = profile_for(
        scenario.game, scenario.spec, scenario.game.resolve_options(scenario.options)
    )
    layout = profile.layout(scenario.game.new_state(scenario.options))
    if layout.tiles:
        raise ScenarioError(f"{scenario.name}: game: tiles are not laid out here")
    board.clear()
    for cell, stack in layout.cells.items():
        for kind in stack:
            board.put(place_label(cell), kind.name, sorted(kind.signature))
    for supply in profile.supplies:
        kind = supply.kinds[0]
        for slot in supply.slots[: layout.supplies.get(supply.name, 0)]:
            board.put(place_label(slot), kind.name, sorted(kind.signature))
    return profile


def play(
    scenario: Scenario,
    board: PhysicalBoard,
    events: queue.Queue[dict],
    profile: Profile,
    sink: Callable[[Event], None] | None = None,
    start_timeout: float = 120.0,
    now: Callable[[], float] = time.monotonic,
) -> Played:
    """Plays the file's steps on `board` from the `game-started` that `events` (the board's
    event stream, JSON objects) brings; every event, its time counted from that one, goes to
    `sink`. The pieces are laid out and the service started already. `now` is the clock the
    steps' moments are kept by, the one `events.get` waits on: the wall's for a real board."""
    check_playable(scenario)
    rng = random.Random(scenario.seed)
    position = FollowedGame(scenario)
    seen: list[Event] = []
    failures: list[str] = []
    zero: list[float] = []  # the game-started's own time, on the board's clock

    def take(data: dict) -> None:
        if not zero and data.get("type") != "game-started":
            return  # before the run: a previous game's last words
        if not zero:
            zero.append(data["t"])
        event = event_of({**data, "t": round(data["t"] - zero[0], 6)})
        seen.append(event)
        position.hear(event)
        if sink is not None:
            sink(event)

    def drain(until: float) -> None:
        while True:
            try:
                take(events.get(timeout=max(0.0, until - now())))
            except queue.Empty:
                return

    deadline = now() + start_timeout
    while not zero:
        try:
            take(events.get(timeout=max(0.0, deadline - now())))
        except queue.Empty:
            raise StepFailed(f"no game-started from the board in {start_timeout:.0f} s") from None
    begun = now()

    def full(slots: Sequence[Place]) -> list[Place]:
        held = board.pieces()
        return [slot for slot in slots if held.get(place_label(slot))]

    # Steps and LED checks at their moments (checks first at the same moment); a step becomes
    # its touches when it comes, from the position the events have told by then.
    counter = itertools.count()
    timeline: list[tuple[float, int, int, Any]] = [
        (check.at, 0, next(counter), check) for check in scenario.expect_leds
    ]
    timeline += [(step.at, 1, next(counter), step) for step in scenario.steps]
    heapq.heapify(timeline)
    try:
        while timeline:
            at, _, _, item = heapq.heappop(timeline)
            drain(begun + at)
            if isinstance(item, LedCheck):
                missed = _check_leds(board, item)
                if missed and at + LED_RECHECK <= item.at + LED_GRACE:
                    heapq.heappush(timeline, (at + LED_RECHECK, 0, next(counter), item))
                else:
                    failures += missed
            elif isinstance(item, Step):
                for touch in touches(item, position.state, profile, full, rng):
                    heapq.heappush(timeline, (touch.at, 1, next(counter), touch))
            else:
                getattr(board, item.op)(*item.args)
        drain(begun + run_end(scenario))
    except StepFailed as failure:
        drain(now() + AFTER_LAST)
        moves = [a for e in seen if isinstance(e, Moved) for a in e.actions]
        return Played(seen, [f"{failure} (the referee's position after {moves})"])
    return Played(seen, failures + check_events(scenario, seen))


def _check_leds(board: PhysicalBoard, check: LedCheck) -> list[str]:
    shown = board.leds().colours or ()
    for label, index in check.places:
        seen = shown[index] if index < len(shown) else (0, 0, 0)
        if not shows(seen, check.colour):
            return [
                f"{check.where}: from t={check.at:g} to {check.at + LED_GRACE:g} the LED under "
                f"{label} (LED {index}) showed "
                "#{:02x}{:02x}{:02x}".format(*seen)
                + f", not {check.colour_name}"
            ]
    return []


# The emulated machine.


def config_text(scenario: Scenario, board: str) -> str:
    """/etc/magboard/magboard.toml for the file's game on its board, reporting to the broker."""
    lines = [
        f"board = {json.dumps(board)}",
        f"game = {json.dumps(scenario.game.name)}",
        f"journal = {json.dumps(JOURNAL)}",
        f"takeback = {'true' if scenario.takeback else 'false'}",
        "",
        "[mqtt]",
        'url = "mqtt://localhost"',
        f"board_id = {json.dumps(BOARD_ID)}",
    ]
    if scenario.options:
        lines += ["", "[options]", *(f"{k} = {json.dumps(v)}" for k, v in scenario.options.items())]
    return "\n".join(lines) + "\n"


def start_service(machine: Any, scenario: Scenario) -> None:
    """The service told the file's game on its board, its journal fresh, and started: returns
    once it said READY=1."""
    from . import deploy

    deploy.write(machine, deploy.CONFIG, config_text(scenario, scenario.spec.name))
    machine.run(["systemctl", "stop", "magboard"], timeout=120)
    machine.run(["rm", "-f", JOURNAL], check=True)
    machine.run(["systemctl", "start", "magboard"], timeout=300, check=True)


class Subscription:
    """The host's subscriber to the board's events on the machine's broker: a queue of JSON
    objects."""

    def __init__(self, port: int, board_id: str = BOARD_ID, host: str = "127.0.0.1") -> None:
        import paho.mqtt.client as mqtt

        self.events: queue.Queue[dict] = queue.Queue()
        self.subscribed = queue.Queue[bool]()
        topic = f"magboard/{board_id}/events"
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hil-scenario")
        self.client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
        self.client.on_subscribe = lambda *_: self.subscribed.put(True)
        self.client.on_message = lambda _c, _u, m: self.events.put(json.loads(m.payload))
        self.host, self.port = host, port

    def __enter__(self) -> Subscription:
        self.client.connect(self.host, self.port)
        self.client.loop_start()
        self.subscribed.get(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def on_machine(scenario: Scenario, sink: Callable[[Event], None] | None = None) -> Played:
    """Boots the emulated machine, installs the service, serves the file's board, lays the
    pieces out, starts the service and plays the file."""
    from . import deploy
    from .vm import Machine
    from .world_link import EmulatedBoard, install_board_unit

    check_playable(scenario)
    with Machine(forward=[MQTT]) as machine:
        machine.run(["systemctl", "is-system-running", "--wait"], timeout=300)
        _say("installing the service in the emulated machine")
        deploy.install(machine)
        deploy.write_drop_in(machine)
        install_board_unit(machine, scenario.spec.name)
        board = EmulatedBoard(machine.world_socket)
        try:
            board.wait_ready(60)
            with prepared(machine, scenario, board) as (profile, events):
                _say("playing")
                return play(scenario, board, events, profile, sink)
        finally:
            board.close()


@contextlib.contextmanager
def prepared(
    machine: Any, scenario: Scenario, board: PhysicalBoard
) -> Iterator[tuple[Profile, queue.Queue[dict]]]:
    """The pieces laid out, the host subscribed to the events, the service started: the
    profile and the events' queue; the service stopped afterwards."""
    profile = lay_out(scenario, board)
    try:
        with Subscription(machine.ports[MQTT]) as subscription:
            start_service(machine, scenario)
            yield profile, subscription.events
    finally:
        machine.run(["systemctl", "stop", "magboard"], timeout=120)


def _say(text: str) -> None:
    print(f"magboard: {text}", file=sys.stderr, flush=True)


def main(args: argparse.Namespace) -> int:
    """`magboard scenario FILE --machine`: as without it, on the emulated machine."""
    scenario = load(args.file)
    check_playable(scenario)

    def echo(event: Event) -> None:
        print(event.to_json(), flush=True)

    played = on_machine(scenario, echo)
    if played.ok:
        return 0
    more = len(played.failures) - 1
    tail = f"\n({more} more failed expectation{'s' if more > 1 else ''})" if more else ""
    print(f"{scenario.name}: FAILED {played.failures[0]}{tail}", file=sys.stderr)
    return 1
