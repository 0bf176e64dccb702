"""How long the board computes between a stable frame and the LED frame that answers it.

Per profile (every registered game and board), on frames the board really meets: random positions
of seeded random games, each followed by a random legal continuation of its turn, with tray pieces
taken from random slots. For each frame the referee is set to the position (untimed), then the
timed part is what the scan loop does with a stable frame: `Referee.judge` (canonical frame,
lookup, accepting the move, building the next turn's candidates, the new status) and the lights
(`view_of` the status, `LedWriter.update`: render, current cap, compare). The profile's render
cache is emptied before each run, as the next turn's positions are new to the board; writing the
frame on the wire is the driver's and the chain's time, not computed, and is left out.

Rounds go over every frame of every profile in turn, so a slow spell on the machine hits them all
alike; each frame keeps its best time over the rounds (noise only ever adds time), and the median
and p99 are taken over frames. Also timed: building the largest candidate table met in the random
games (the turn with the most continuations), and one lookup in it.
"""

from __future__ import annotations

import json
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from magboard.firmware import native
from magboard.firmware.app import wiring
from magboard.firmware.app.loop import view_of
from magboard.firmware.games import Game, State, get_game
from magboard.firmware.profiles import Layout, Profile, profiled_pairs
from magboard.firmware.referee import TurnCandidates
from magboard.hardware.interface import RGB
from magboard.hardware.spec import load_board

from .board import SimBoard

SEED = 2026
FRAMES = 200
"""Stable frames per profile."""
MIN_ROUNDS = 5
MAX_ROUNDS = 200
TARGET_US = 2000.0
"""The goal for tic-tac-toe: p99 from stable frame to LED frame under 2 ms."""
LOOKUPS = 1000
"""Lookups per timed run in the largest candidate table."""


class _DarkBoard(SimBoard):
    """A simulated board whose LED chain is never sent a frame: the wire is not part of the
    computation."""

    def show(self, pixels: Sequence[RGB]) -> None:
        pass


@dataclass
class _Sample:
    actions: tuple[str, ...]
    """The game up to the position, from the start."""
    frame: int
    """A raw stable frame of a legal continuation of its turn."""


class _Pipeline:
    """One profile's referee and lights, wired as the board wires them (the loop is never
    stepped), reset to a sample's position between timed runs."""

    def __init__(self, game: Game, board: SimBoard, frames: int, rng: random.Random) -> None:
        self.game = game
        self.spec = board.spec
        table = wiring.wire(board, game)
        self.profile: Profile = table.profile
        self.referee = table.referee
        self.initial = self.referee.initial
        self.writer = table.loop.writer
        self.samples: list[_Sample] = []
        self.largest: tuple[int, State, tuple[str, ...]] = (0, self.initial, ())
        while len(self.samples) < frames:
            self._random_game(rng, frames)
        self.best = [float("inf")] * len(self.samples)
        self.best_judge = [float("inf")] * len(self.samples)
        self.best_lights = [float("inf")] * len(self.samples)
        self.spent = 0.0

    def _random_game(self, rng: random.Random, frames: int) -> None:
        """Plays one random game, taking a sample at one random turn start of it."""
        state, played, starts = self.initial, [], []
        while state.outcome() is None:
            if not state.turn_actions:
                starts.append((state, tuple(played)))
            action = rng.choice(state.legal_actions())
            played.append(str(action))
            state = state.apply(action)
        for start, actions in starts:
            size = _continuations(TurnCandidates(self.profile, start))
            if size > self.largest[0]:
                self.largest = (size, start, actions)
        start, actions = rng.choice(starts)
        table = TurnCandidates(self.profile, start)
        follows = [c for c in table.by_frame.values() if c.actions]
        if follows and len(self.samples) < frames:
            follow = rng.choice(follows)
            self.samples.append(_Sample(actions, self._raw_frame(follow.state, rng)))

    def _raw_frame(self, state: State, rng: random.Random) -> int:
        """The frame a board shows for `state`, its tray pieces in random slots."""
        layout = self.profile.layout(state)
        frame = self.profile.frame_of(Layout(layout.cells, {}))
        bit = self.spec.sensor_bit
        for supply in self.profile.supplies:
            count = layout.supplies.get(supply.name, 0)
            for slot in rng.sample(supply.slots, count):
                frame |= 1 << bit[(slot, "")]
        return frame

    def run(self, index: int) -> None:
        """Sets the board at sample `index`'s position, then times the stable frame through to
        the LED frame."""
        sample, referee, writer = self.samples[index], self.referee, self.writer
        referee.start(0.0, sample.actions)
        before = referee.position
        players = self.initial.players
        writer.update(view_of(referee.status, players, False), 1.0)
        self.profile._frames.clear()  # the next turn's positions are new to the board
        clock = time.perf_counter
        start = clock()
        referee.judge(sample.frame, 2.0, stable=True)
        judged = clock()
        writer.update(view_of(referee.status, players, False), 2.0)
        end = clock()
        if referee.position == before:
            raise RuntimeError(
                f"{self.game.name} on {self.spec.name}: a sample frame after"
                f" {' '.join(sample.actions) or 'the start'} was not accepted"
            )
        self.spent += end - start
        self.best[index] = min(self.best[index], end - start)
        self.best_judge[index] = min(self.best_judge[index], judged - start)
        self.best_lights[index] = min(self.best_lights[index], end - judged)

    def inference(self, rounds: int) -> dict[str, Any]:
        """Building the largest candidate table met, and one lookup in it; best of `rounds`."""
        size, start, actions = self.largest
        frames = list(TurnCandidates(self.profile, start).by_frame)
        lookups = [frames[i % len(frames)] for i in range(LOOKUPS)]
        build = lookup = float("inf")
        clock = time.perf_counter
        for _ in range(rounds):
            self.profile._frames.clear()
            began = clock()
            table = TurnCandidates(self.profile, start)
            build = min(build, clock() - began)
            match = table.match
            began = clock()
            for frame in lookups:
                match(frame)
            lookup = min(lookup, (clock() - began) / LOOKUPS)
        return {
            "position": " ".join(actions) or "(start)",
            "continuations": size,
            "build_us": round(build * 1e6, 2),
            "lookup_us": round(lookup * 1e6, 4),
        }

    def result(self, rounds: int) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "board": self.spec.name,
            "frames": len(self.samples),
            "median_us": _us(statistics.median(self.best)),
            "p99_us": _us(_percentile(self.best, 0.99)),
            "max_us": _us(max(self.best)),
            "judge_median_us": _us(statistics.median(self.best_judge)),
            "judge_p99_us": _us(_percentile(self.best_judge, 0.99)),
            "lights_median_us": _us(statistics.median(self.best_lights)),
            "lights_p99_us": _us(_percentile(self.best_lights, 0.99)),
            "largest_turn": self.inference(rounds),
        }


def _continuations(table: TurnCandidates) -> int:
    """Positions the turn can reach, its start left out."""
    return sum(1 for found in table.by_frame.values() if found.actions)


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 2)


def _percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def measure(min_time: float = 0.6, frames: int | None = None) -> dict[str, Any]:
    """Times every profile on `frames` stable frames each, in interleaved rounds until each
    profile has spent `min_time` seconds in timed runs (at least MIN_ROUNDS rounds). The result
    is plain JSON-ready data."""
    frames = FRAMES if frames is None else frames
    rng = random.Random(SEED)
    boards: dict[str, SimBoard] = {}
    pipelines = []
    for game_name, board_name in profiled_pairs():
        if board_name not in boards:
            boards[board_name] = _DarkBoard(load_board(board_name))
        pipelines.append(_Pipeline(get_game(game_name), boards[board_name], frames, rng))
    rounds = 0
    while rounds < MIN_ROUNDS or (
        rounds < MAX_ROUNDS and min(p.spent for p in pipelines) < min_time
    ):
        for index in range(frames):
            for pipeline in pipelines:
                pipeline.run(index)
        rounds += 1
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "machine": platform.machine(),
        "native": native.backend,
        "min_time": min_time,
        "rounds": rounds,
        "frames": frames,
        "target_us": TARGET_US,
        "profiles": [p.result(rounds) for p in pipelines],
    }


def format_report(result: dict[str, Any]) -> str:
    """A small aligned table, microseconds per stable frame."""
    columns = (
        "game",
        "board",
        "frames",
        "median",
        "p99",
        "max",
        "judge p99",
        "lights p99",
        "largest turn",
        "build",
        "lookup",
    )
    rows = []
    for entry in result["profiles"]:
        largest = entry["largest_turn"]
        rows.append(
            (
                entry["game"],
                entry["board"],
                str(entry["frames"]),
                f"{entry['median_us']:,.0f}",
                f"{entry['p99_us']:,.0f}",
                f"{entry['max_us']:,.0f}",
                f"{entry['judge_p99_us']:,.0f}",
                f"{entry['lights_p99_us']:,.0f}",
                str(largest["continuations"]),
                f"{largest['build_us']:,.0f}",
                f"{largest['lookup_us']:,.3f}",
            )
        )
    widths = [max(len(row[i]) for row in (columns, *rows)) for i in range(len(columns))]

    def line(cells: Sequence[str]) -> str:
        left = [cell.ljust(width) for cell, width in zip(cells[:2], widths[:2], strict=True)]
        right = [cell.rjust(width) for cell, width in zip(cells[2:], widths[2:], strict=True)]
        return "  ".join((*left, *right))

    lines = [
        f"stable frame to LED frame, microseconds per frame (best of {result['rounds']} rounds"
        f" per frame); native {result['native']}; Python {result['python']} on"
        f" {result['machine']}",
        line(columns),
        *(line(row) for row in rows),
        "(judge: referee.judge with the stable frame; lights: view and LedWriter.update;"
        " largest turn: continuations in the biggest candidate table met, build and lookup"
        " times)",
    ]
    target = result["target_us"]
    for entry in result["profiles"]:
        if entry["game"] == "tic-tac-toe":
            verdict = "met" if entry["p99_us"] < target else "NOT met"
            lines.append(
                f"target p99 < {target / 1000:g} ms on {entry['board']}: {verdict}"
                f" ({entry['p99_us'] / 1000:.3f} ms)"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    outcome = measure()
    print(json.dumps(outcome, indent=2) if "--json" in sys.argv[1:] else format_report(outcome))
