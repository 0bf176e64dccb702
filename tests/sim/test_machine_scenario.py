"""A scenario file's steps as a physical board's hands make them (sim/machine/scenario.py),
played on a fake board that feeds the in-process simulator's events back, without QEMU."""

from __future__ import annotations

import queue
import random
import re
from pathlib import Path

import pytest

from magboard.hardware.spec import load_board
from magboard.sim import scenario as in_process
from magboard.sim.clock import VirtualClock
from magboard.sim.machine import scenario as on_machine
from magboard.sim.machine.hands import LedView
from magboard.sim.scenario_file import ScenarioError, load

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
SPEC = load_board("mini")
B2 = next(cell for cell in SPEC.cells if cell == (1, 1))


class FakeBoard:
    """Records what hands do; the mini board's trays full, as laid out."""

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.done: list[tuple] = []
        self.held: dict[str, list[str]] = {}
        self.clock = clock or VirtualClock()
        self.red_from: float | None = None

    def put(self, place: str, kind: str | None = None, magnets=()) -> str:
        self.done.append(("put", place, kind))
        self.held.setdefault(place, []).append(kind or "held")
        return "piece"

    def lift(self, place: str, *, away: bool = False) -> str:
        self.done.append(("lift", place))
        self.held[place].pop()
        return "piece"

    def move(self, src: str, dst: str) -> str:
        self.done.append(("move", src, dst))
        return "piece"

    def clear(self) -> int:
        self.held.clear()
        return 0

    def pieces(self) -> dict[str, list[str]]:
        return {place: stack for place, stack in self.held.items() if stack}

    def leds(self) -> LedView:
        """Dark, unless a test lights the LED under b2 red from a moment on."""
        colours = [(0, 0, 0)] * SPEC.leds.count
        if self.red_from is not None and self.clock.now() >= self.red_from:
            colours[SPEC.led_index[B2]] = (255, 0, 0)
        return LedView(tuple(colours), 1, 0.0)


class Stream(queue.Queue):
    """The simulator's events, each given out at its own time from the first look (as MQTT
    brings a board's events as they happen), on a virtual clock that waiting moves on."""

    def __init__(self, events: list[dict]) -> None:
        super().__init__()
        self.due, self.clock, self.start = list(events), VirtualClock(), None

    def get(self, block: bool = True, timeout: float | None = None) -> dict:
        now = self.clock.now()
        if self.start is None:
            self.start = now
        wait = timeout or 0.0
        if not self.due or self.start + self.due[0]["t"] > now + wait:
            self.clock.sleep(wait)
            raise queue.Empty
        self.clock.advance_to(max(now, self.start + self.due[0]["t"]))
        return self.due.pop(0)


def write(tmp_path: Path, steps: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(
        f'board = "mini"\ngame = "tic-tac-toe"\nseed = 3\nuntil = 2.2\nsteps = [\n{steps}\n]\n'
    )
    return path


def test_the_trays_are_laid_out_with_each_seats_pieces(tmp_path: Path) -> None:
    board = FakeBoard()
    on_machine.lay_out(load(write(tmp_path, "")), board)
    assert ("put", "A1", "X") in board.done and ("put", "B1", "O") in board.done
    assert len([d for d in board.done if d[0] == "put"]) == 10


def test_a_play_takes_from_the_slot_the_in_process_runner_takes(tmp_path: Path) -> None:
    scenario = load(write(tmp_path, '{ at = 0.5, play = "b2" },\n{ at = 1.2, play = "a1" },'))
    simulated = in_process.run(scenario)
    board = FakeBoard()
    events = Stream([e.to_dict() for e in simulated.events if e.TYPE != "leds"])
    profile = on_machine.lay_out(scenario, board)
    board.done.clear()
    played = on_machine.play(
        scenario, board, events, profile, start_timeout=1, now=events.clock.now
    )
    assert played.ok, played.failures
    lifted = [d[1] for d in board.done if d[0] == "lift"]
    rng = random.Random(scenario.seed)
    assert lifted == [
        rng.choice([f"A{i}" for i in range(1, 6)]),
        rng.choice([f"B{i}" for i in range(1, 6)]),
    ]
    assert [d[1] for d in board.done if d[0] == "put"] == ["b2", "a1"]
    assert [e.to_dict() for e in played.events if e.TYPE == "move"] == [
        e.to_dict() for e in simulated.events if e.TYPE == "move"
    ]


@pytest.mark.parametrize(
    ("late", "failures"),
    [
        (0.0, []),
        (0.6, []),
        (
            1.5,
            ["expect_leds[0]: from t=0.5 to 1.5 the LED under b2 (LED 4) showed #000000, not red"],
        ),
    ],
)
def test_an_led_check_waits_for_a_board_that_lights_late(
    tmp_path: Path, late: float, failures: list[str]
) -> None:
    """Real time is not virtual time: the check at 0.5 is met by a red shown up to a second
    later, and fails, saying over what span, when it comes after that."""
    path = write(tmp_path, "")
    path.write_text(
        path.read_text() + 'expect_leds = [{ at = 0.5, places = ["b2"], colour = "red" }]\n'
    )
    scenario = load(path)
    events = Stream([e.to_dict() for e in in_process.run(scenario).events if e.TYPE != "leds"])
    board = FakeBoard(events.clock)
    board.red_from = 0.5 + late
    played = on_machine.play(
        scenario, board, events, on_machine.lay_out(scenario, board), start_timeout=1,
        now=events.clock.now,
    )  # fmt: skip
    assert played.failures == failures


@pytest.mark.parametrize(
    ("step", "named"),
    [
        ("{ at = 0.5, noise = 1.0 }", "steps[0].noise"),
        ("{ at = 0.5, restart = true }", "steps[0].restart"),
        ('{ at = 0.5, stick = "b2.s" }', "steps[0].stick"),
    ],
)
def test_a_step_hands_cannot_make_is_refused_naming_it(
    tmp_path: Path, step: str, named: str
) -> None:
    with pytest.raises(ScenarioError, match=re.escape(f"s.toml: {named}:")):
        on_machine.check_playable(load(write(tmp_path, step)))
