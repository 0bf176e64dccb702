"""How long the board computes between a stable frame and the LED frame that answers it.

Per profile (every registered game and board), on frames the board really meets, three cases:

- legal: a random position of a seeded random game, then a random legal continuation of its
  turn (a prefix or the whole turn), the frames of each step passed through first;
- unrecognised: the same, with a piece no rule allows put on a free cell: the board must call it
  illegal;
- fast reply: a whole turn and the next player's whole turn before the board settled, the first
  turn's end passed through on the way.

For each sample the referee is set to the position and fed the frames the board passed through
(untimed), the last as the loop feeds it: changed, not yet still. Then two parts are timed. The
search ahead (`Referee.search_ahead`) is what the loop does in the settle time once it has
answered that frame: the search by difference, while the board waits to see the frame still.
The stable frame is what the scan loop does when the frame is still: `Referee.judge` (the
readings of the frame, searched ahead, the evidence of the frames, accepting the move, the new
status) and the lights (`Referee.view`, `LedWriter.update`: render, current cap, compare): the
time between the board settling and its answer, the figure with the target. The profile's
render cache is emptied before each run, as the next turn's positions are new to the board;
writing the frame on the wire is the driver's and the chain's time, and is left out.

Every game is measured with each option family that changes its pieces, seats, clocks or turns
(`bench_variants`; each game declares its own, `Game.bench_families`: Meep Tac Toe's maneuvers,
Magnetmen's sets with 2, 3 and 4 players, Lance Assembly's clocks, Tic-Tac-Cap's variants where
the board's trays hold them). One more row, the
stress row, takes all its samples from the largest turn met in any game (Lance Assembly's tens of
thousands of continuations): the widest start a search by difference meets.

Rounds go over every sample of every profile in turn, so a slow spell on the machine hits them
all alike; each sample keeps its best time over the rounds (noise only ever adds time), and the
median and p99 are taken over samples. Each profile also reports the largest turn met in its
first games: how many positions the turn could reach, the number a table of continuations would
hold (a turn of tens of thousands takes seconds to count, so only COUNTED_GAMES are counted).
"""

from __future__ import annotations

import gc
import json
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from magboard.firmware import native
from magboard.firmware.app import wiring
from magboard.firmware.games import Game, State, get_game
from magboard.firmware.games.core import forget_successors
from magboard.firmware.profiles import Profile, ProfileError, profile_for, profiled_variants
from magboard.firmware.referee import ILLEGAL, Matcher, Referee
from magboard.firmware.referee.evidence import in_order, witness
from magboard.firmware.referee.matcher import Found, forced_passes
from magboard.firmware.table import aligned
from magboard.hardware.interface import RGB
from magboard.hardware.spec import load_board

from .board import SimBoard

SEED = 2026
FRAMES = 120
"""Samples per profile and case."""
MIN_ROUNDS = 5
MAX_ROUNDS = 200
CASES = ("legal", "unrecognised", "fast-reply")
TARGET_US = 1000.0
"""The goal: p99 from stable frame to LED frame under 1 ms, every game, option family and case,
the stress row included."""
STRESS_TURN = 20_000
"""Continuations that make the largest turn met a stress case, with a row of its own."""
COUNT_LIMIT = 200_000
"""Stop counting a turn's continuations here (the figure is then a lower bound)."""
COUNTED_GAMES = 16
"""Sample games per profile whose turn is counted for its largest turn."""


def every_reading(profile: Profile, start: State, frames: Sequence[int], across: bool) -> Found:
    """Every reading of the last of `frames` (the board passed through them from `start`), by
    one turn or, `across`, a turn and a reply, without the board's bounds."""
    anchor, changed = profile.render(start), 0
    for frame in frames:
        changed |= frame ^ anchor
    matcher = Matcher(profile, max_nodes=10**6, max_seconds=math.inf)
    cells = matcher.game_cells(profile.sensors.spots(changed))
    return matcher.search(
        start,
        frames[-1],
        cells,
        across=matcher.any_reply if across else None,
        passed=(anchor, *frames),
    )


class _DarkBoard(SimBoard):
    """A simulated board whose LED chain is never sent a frame: the wire is not part of the
    computation."""

    def show(self, pixels: Sequence[RGB]) -> None:
        pass


@dataclass(frozen=True)
class _Sample:
    case: str
    actions: tuple[str, ...]
    """The game up to the turn's start, from the beginning."""
    passed: tuple[int, ...]
    """Frames the board passed through before the stable one (fed untimed)."""
    frame: int
    """The raw stable frame."""
    expected: State | None
    """Where the referee must end (None: it must call the board illegal)."""


class _Pipeline:
    """One profile's referee and lights, wired as the board wires them (the loop is never
    stepped), reset to a sample's position between timed runs."""

    def __init__(
        self,
        game: Game,
        options: dict[str, Any],
        board: SimBoard,
        frames: int,
        rng: random.Random,
        stress_of: _Pipeline | None = None,
    ) -> None:
        """With `stress_of`, the stress row: that profile's referee and lights, every sample
        taken at the start of the largest turn its games met."""
        self.game = game
        self.options = options
        self.spec = board.spec
        if stress_of is None:
            table = wiring.wire(board, game, options)
            self.profile: Profile = table.profile
            self.referee: Referee = table.referee
            self.writer = table.loop.writer
        else:
            self.profile, self.referee = stress_of.profile, stress_of.referee
            self.writer = stress_of.writer
        self.stress = stress_of is not None
        self.initial = self.referee.initial
        self.rng = rng
        self.samples: dict[str, list[_Sample]] = {case: [] for case in CASES}
        self.largest: tuple[int, tuple[str, ...]] = (0, ())
        self.counted = 0
        if stress_of is not None:
            self.largest = stress_of.largest
            start = self.initial
            for text in self.largest[1]:
                start = start.apply(start.parse_action(text))
        tries = 0
        while min(len(s) for s in self.samples.values()) < frames:
            tries += 1
            if tries > 50 * frames:
                raise RuntimeError(f"{game.name} on {self.spec.name}: too few samples found")
            if stress_of is None:
                self._random_game(frames)
            else:
                self._take_samples(start, self.largest[1], frames)
        self.best = {case: [float("inf")] * frames for case in CASES}
        self.best_judge = {case: [float("inf")] * frames for case in CASES}
        self.best_ahead = {case: [float("inf")] * frames for case in CASES}
        self.spent = 0.0
        self.rounds = 0

    # Samples.

    def _random_game(self, frames: int) -> None:
        """Plays one random game and takes a sample of each case at random turn starts. Every
        other game holds back the actions that shrink the turns after them (`Game.held_back`:
        Lance Assembly's neutral tile), so the largest turns are met too."""
        rng = self.rng
        state, played, starts = self.initial, [], []
        held = self.game.held_back if rng.random() < 0.5 else None
        turn = -1
        while state.outcome() is None:
            if state.turn != turn and not state.obligations:
                turn = state.turn
                starts.append((state, tuple(played)))
            legal = state.legal_actions()
            kept = [a for a in legal if held is None or not isinstance(a, held)]
            action = rng.choice(kept or legal)
            played.append(str(action))
            state = state.apply(action)
        start, actions = rng.choice(starts)
        if self.counted < COUNTED_GAMES:
            self.counted += 1
            size = _continuations(start)
            if size > self.largest[0]:
                self.largest = (size, actions)
        self._take_samples(start, actions, frames)

    def _take_samples(self, start: State, actions: tuple[str, ...], frames: int) -> None:
        """A sample of each case still short of `frames`, at the turn that begins at `start`."""
        for case in CASES:
            if len(self.samples[case]) < frames:
                sample = self._sample(case, start, actions)
                if sample is not None:
                    self.samples[case].append(sample)

    def _sample(self, case: str, start: State, actions: tuple[str, ...]) -> _Sample | None:
        first = self._walk(start, whole=case == "fast-reply")
        if first is None:
            return None
        state, passed = first
        if case == "legal":
            expected = forced_passes(state) if not state.obligations else state
            return _Sample(case, actions, passed[:-1], self._raw_frame(state), expected)
        if case == "unrecognised":
            if state.outcome() is not None:
                return None  # after the end a stray piece is only something to clear
            frame = self._stray(state)
            if frame is None or self._readable(start, (*passed, frame)):
                return None
            return _Sample(case, actions, passed, frame, None)
        if state.outcome() is not None or state.obligations:
            return None
        following = forced_passes(state)
        second = self._walk(following, whole=True)
        if second is None:
            return None
        final, more = second
        frames = (*passed, *more)
        if frames[-1] == self.profile.render(start):
            return None  # the reply put the board back as it was: nothing to read, by design
        if self._readable(start, frames, across=False):
            return None  # one turn alone shows the same: the board reads it so, by design
        if len(self._two_turn_positions(start, frames)) > 1:
            return None  # the frames admit two positions: the board asks for a put-back
        expected = forced_passes(final) if not final.obligations else final
        return _Sample(case, actions, frames[:-1], self._raw_frame(final), expected)

    def _walk(self, start: State, whole: bool) -> tuple[State, tuple[int, ...]] | None:
        """A random way through the turn by seen actions: its end (the whole turn, or where
        the hand stops) and the frames of every step."""
        rng, render = self.rng, self.profile.render
        state, frames = start, []
        while True:
            seen = [a for a in state.legal_actions() if a.seen]
            if not seen:
                return None
            state = state.apply(rng.choice(seen))
            frames.append(render(state))
            over = state.turn != start.turn or state.outcome() is not None
            if over or (not whole and rng.random() < 0.4):
                return state, tuple(frames)

    def _readable(self, start: State, frames: Sequence[int], across: bool = True) -> bool:
        """Whether some reading explains the last of `frames` (a stray piece that happens to
        make a legal reply is no unrecognised frame)."""
        found = self._search(start, frames, across)
        return bool(found.exact or (across and found.endings))

    def _two_turn_positions(self, start: State, frames: Sequence[int]) -> set:
        """The positions that a turn and a reply, each seen in order in `frames`, may end on."""
        profile, trail = self.profile, (self.profile.render(start), *frames)
        found = self._search(start, frames, True)
        return {
            r.state.key()
            for r in found.exact
            if r.previous is not None
            and witness(profile, trail, r.previous) is not None
            and in_order(profile, trail, r)
        }

    def _search(self, start: State, frames: Sequence[int], across: bool) -> Found:
        return every_reading(self.profile, start, frames, across)

    def _stray(self, state: State) -> int | None:
        """The frame of `state` with a piece that no rule put there on a free cell."""
        profile = self.profile
        free = sorted(profile.area - set(profile.layout(state).cells))
        if not free:
            return None
        kind = self.rng.choice(profile.kinds)
        layout = profile.layout(state)
        cells = dict(layout.cells)
        cells[self.rng.choice(free)] = (kind,)
        return profile.frame_of(replace(layout, cells=cells))

    def _raw_frame(self, state: State) -> int:
        """The frame a board shows for `state`, its tray pieces in random slots."""
        layout = self.profile.layout(state)
        frame = self.profile.frame_of(replace(layout, supplies={}))
        bit = self.spec.sensor_bit
        for supply in self.profile.supplies:
            count = layout.supplies.get(supply.name, 0)
            for slot in self.rng.sample(supply.slots, count) if supply.sensed else ():
                frame |= 1 << bit[(slot, "")]
        return frame

    # Timing.

    def run(self, case: str, index: int) -> None:
        """Sets the board at a sample's position, feeds what the board passed through, then
        times the stable frame through to the LED frame."""
        sample, referee, writer = self.samples[case][index], self.referee, self.writer
        referee.start(0.0, sample.actions)
        writer.update(referee.view(fault=False), 1.0)
        for frame in sample.passed:
            referee.judge(frame, 1.5, stable=False)
        referee.judge(sample.frame, 1.6, stable=False)
        self.profile._frames.clear()  # the next turn's positions are new to the board
        forget_successors()
        clock = time.perf_counter
        began = clock()
        referee.search_ahead()
        start = clock()
        referee.judge(sample.frame, 2.0, stable=True)
        judged = clock()
        writer.update(referee.view(fault=False), 2.0)
        end = clock()
        self._check(sample)
        self.spent += end - began
        self.best[case][index] = min(self.best[case][index], end - start)
        self.best_judge[case][index] = min(self.best_judge[case][index], judged - start)
        self.best_ahead[case][index] = min(self.best_ahead[case][index], start - began)

    def _check(self, sample: _Sample) -> None:
        referee = self.referee
        if sample.expected is None:
            right = referee.status.phase == ILLEGAL
        else:
            right = referee.position.key() == sample.expected.key()
        if not right:
            raise RuntimeError(
                f"{self.game.name} on {self.spec.name}, {sample.case}: after"
                f" {' '.join(sample.actions) or 'the start'} the board was not read right"
            )

    def result(self) -> dict[str, Any]:
        cases = {}
        for case in CASES:
            best, judge, ahead = self.best[case], self.best_judge[case], self.best_ahead[case]
            cases[case] = {
                "median_us": _us(statistics.median(best)),
                "p99_us": _us(_percentile(best, 0.99)),
                "max_us": _us(max(best)),
                "judge_p99_us": _us(_percentile(judge, 0.99)),
                "ahead_p99_us": _us(_percentile(ahead, 0.99)),
            }
        size, actions = self.largest
        return {
            "game": self.game.name,
            "options": self.options,
            "board": self.spec.name,
            "frames": len(self.samples["legal"]),
            "rounds": self.rounds,
            "cases": cases,
            "largest_turn": {"continuations": size, "position": " ".join(actions) or "(start)"},
            "stress": self.stress,
        }


def _continuations(start: State) -> int:
    """Positions a turn can reach by seen actions, its start left out (at most COUNT_LIMIT)."""
    seen = {start}
    pending = [start]
    while pending and len(seen) <= COUNT_LIMIT:
        state = pending.pop()
        for action in state.legal_actions():
            if not action.seen:
                continue
            after = state.apply(action)
            if after not in seen:
                seen.add(after)
                if after.turn == start.turn and after.outcome() is None:
                    pending.append(after)
    return len(seen) - 1


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 2)


def _percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def measure(min_time: float = 0.6, frames: int | None = None) -> dict[str, Any]:
    """Times every profile on `frames` samples of each case, in interleaved rounds until each
    profile has spent `min_time` seconds in timed runs (at least MIN_ROUNDS rounds; a profile
    that has stops, the others go on). The result is plain JSON-ready data."""
    frames = FRAMES if frames is None else frames
    rng = random.Random(SEED)
    boards: dict[str, SimBoard] = {}
    pipelines = []
    for game_name, board_name, options in bench_variants():
        if board_name not in boards:
            boards[board_name] = _DarkBoard(load_board(board_name))
        game = get_game(game_name)
        pipelines.append(_Pipeline(game, options, boards[board_name], frames, rng))
    widest = max(pipelines, key=lambda p: p.largest[0])
    if widest.largest[0] >= STRESS_TURN:
        board = boards[widest.spec.name]
        pipelines.append(_Pipeline(widest.game, widest.options, board, frames, rng, widest))
    gc.freeze()  # as the board does once started (run.py): samples and all live to the end
    rounds = 0
    running = pipelines
    while running:
        for index in range(frames):
            for case in CASES:
                for pipeline in running:
                    pipeline.run(case, index)
        rounds += 1
        for pipeline in running:
            pipeline.rounds = rounds
        if rounds >= MIN_ROUNDS:
            running = [p for p in running if rounds < MAX_ROUNDS and p.spent < min_time]
    gc.unfreeze()
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "machine": platform.machine(),
        "native": native.backend,
        "min_time": min_time,
        "rounds": rounds,
        "frames": frames,
        "target_us": TARGET_US,
        "stress_turn": STRESS_TURN,
        "profiles": [p.result() for p in pipelines],
    }


def bench_variants() -> list[tuple[str, str, dict[str, Any]]]:
    """Every profiled variant (`profiled_variants`), each followed by its game's option
    families (`Game.bench_families`) on the boards whose trays hold their pieces."""
    found = []
    for game_name, board_name, options in profiled_variants():
        found.append((game_name, board_name, options))
        for extra in get_game(game_name).bench_families:
            chosen = {**options, **extra}
            try:
                profile_for(get_game(game_name), load_board(board_name), chosen)
            except ProfileError:
                continue  # the board's trays do not hold this variant's pieces
            found.append((game_name, board_name, chosen))
    return found


def verdicts(result: dict[str, Any]) -> list[tuple[str, bool, float, float]]:
    """Per row, whether its worst case meets the target: (what, met, worst p99 in us, the
    target in us)."""
    found = []
    for entry in result["profiles"]:
        target = result["target_us"]
        worst = max(case["p99_us"] for case in entry["cases"].values())
        found.append((f"{_named(entry)} on {entry['board']}", worst < target, worst, target))
    return found


def worst_row(checks: Sequence[tuple[str, bool, float, float]]) -> tuple[str, bool, float, float]:
    """The row nearest to missing its target, or furthest past it (rows are compared by the
    share of their target they use)."""
    return max(checks, key=lambda check: check[2] / check[3])


def _named(entry: dict[str, Any]) -> str:
    """A row's game, with the options that make it a row of its own; the stress row says so."""
    options = (f"{k}={v}" for k, v in entry.get("options", {}).items())
    stress = ("[stress turn]",) if entry.get("stress") else ()
    return " ".join((entry["game"], *options, *stress))


def format_report(result: dict[str, Any]) -> str:
    """A small aligned table, microseconds per stable frame."""
    columns = (
        "game",
        "board",
        *(f"{case} p99" for case in CASES),
        "worst max",
        "ahead p99",
        "largest turn",
    )
    rows = []
    for entry in result["profiles"]:
        cases = entry["cases"]
        rows.append(
            (
                _named(entry),
                entry["board"],
                *(f"{cases[case]['p99_us']:,.0f}" for case in CASES),
                f"{max(c['max_us'] for c in cases.values()):,.0f}",
                f"{max(c['ahead_p99_us'] for c in cases.values()):,.0f}",
                f"{entry['largest_turn']['continuations']:,}",
            )
        )

    lines = [
        f"stable frame to LED frame, microseconds (best of {MIN_ROUNDS}-{result['rounds']}"
        f" rounds per sample, {result['frames']} samples per case); native {result['native']};"
        f" Python {result['python']} on {result['machine']}",
        *aligned(columns, rows, left=2),
        "(ahead p99: the worst case's search made in the settle time, before the frame is"
        " still; largest turn: positions the biggest turn met could reach, what a table of"
        " continuations would have held; the [stress turn] row takes every sample at the"
        " largest turn met in any game)",
    ]
    checks = verdicts(result)
    worst_name, worst_met, worst, worst_target = worst_row(checks)
    missed = [name for name, met, _, _ in checks if not met]
    lines.append(
        f"target p99 < {result['target_us'] / 1000:g} ms, every row:"
        + (f" NOT met by {', '.join(missed)}" if missed else " met by every row")
        + f"; worst row {worst_name}, {worst / 1000:.3f} ms of its {worst_target / 1000:g} ms"
        + ("" if worst_met else " (NOT met)")
    )
    return "\n".join(lines)


if __name__ == "__main__":
    outcome = measure()
    print(json.dumps(outcome, indent=2) if "--json" in sys.argv[1:] else format_report(outcome))
