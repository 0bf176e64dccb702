"""What a scenario file may say, and what `scenario_file.load` gives for it: the format's keys,
actions and defaults, and the checked values (a `Scenario` of `Step`s, `EventPattern`s and
`LedCheck`s) the runner plays and checks the run against.

Apart from the reader (scenario_file.py), so that the values the runner uses are read in one
short place, and how an event is matched against what a file expects is beside them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from magboard.firmware.app.errors import CommandError
from magboard.firmware.events import Event
from magboard.firmware.games import Game
from magboard.firmware.lights import palette
from magboard.hardware.interface import RGB
from magboard.hardware.spec import BoardSpec

from .session import TURNS
from .world import STEPS

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat

SLIDE_STEP = 0.12
PRESS_HOLD = 0.1
I2C_BURST = 3
"""Errors in a burst by default: as many as the driver's attempts at one read, so it fails."""
NOISE_RATE = 50.0
NOISE_WIDTH = 0.002

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
    "ai",
    "ai_budget",
)
ACTIONS: Mapping[str, tuple[str, ...]] = {
    "lift": (),
    "put": (),
    "move": (),
    "play": ("pause",),
    "slide": ("step",),
    "shift_tile": (),
    "turn_tile": (),
    "press": ("hold",),
    "i2c_errors": ("count", "for"),
    "reset_expander": (),
    "noise": ("rate", "width"),
    "stick": ("level",),
    "unstick": (),
    "kill_led": (),
    "bounce": (),
    "restart": (),
    "follow": ("pause",),
}
"""Each step's action key, and the other keys that action may take besides `at`."""
TILE_WAYS: Mapping[str, tuple[str, ...]] = {"shift_tile": tuple(STEPS), "turn_tile": TURNS}
"""The ways a hand may move a tile by each tile step: the world's words for a shift, the
games' notation for a quarter turn (the simulator's shift-tile and turn-tile say the same)."""
WINDOW = ("after", "before")
MENTIONS = "mentions"
COLOURS: Mapping[str, RGB] = {
    "red": palette.RED,
    "white": palette.WHITE,
    "blue": palette.BLUE,
    "orange": palette.ORANGE,
    "green": palette.GREEN,
    "magenta": palette.MAGENTA,
    "off": palette.OFF,
}


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
    mentions: tuple[str, ...] = ()
    """Words some text of the event must contain, each as a whole word."""

    def matches(self, event: Event, data: Mapping[str, Any] | None = None) -> bool:
        kind = event.TYPE
        if kind != self.type or not self.in_window(event):
            return False
        data = data if data is not None else event.to_dict()
        return all(data.get(k) == v for k, v in self.fields.items()) and self.mentioned(data)

    def mentioned(self, data: Mapping[str, Any]) -> bool:
        """Whether the event's text (`data`, as its JSON carries it) has every word."""
        text = " ".join(_texts(data))
        return all(_word(word).search(text) for word in self.mentions)

    def in_window(self, event: Event) -> bool:
        return (self.after is None or event.t >= self.after) and (
            self.before is None or event.t <= self.before
        )

    def __str__(self) -> str:
        parts = [f'type = "{self.type}"']
        parts += [f"{k} = {json.dumps(v)}" for k, v in self.fields.items()]
        if self.mentions:
            parts.append(f"{MENTIONS} = {json.dumps(list(self.mentions))}")
        parts += [
            f"{k} = {getattr(self, k):g}"
            for k in (*WINDOW, "count")
            if getattr(self, k) is not None
        ]
        return "{" + ", ".join(parts) + "}"


def _texts(value: Any) -> list[str]:
    """Every string in an event's value, lists and tables opened."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [text for item in value for text in _texts(item)]
    return []


def _word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![0-9A-Za-z]){re.escape(word)}(?![0-9A-Za-z])")


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
    ai: AiSeat | None = None
    """The seat the board plays itself, if any."""
    ai_budget: float | None = None
    """Its thinking time per turn, by a stepped clock (None: the opponent's default)."""

    @property
    def name(self) -> str:
        return self.path.name
