"""`magboard soak`: many random games in the simulator, with mistakes, bumps, noise and faults.

Every game is played physically on a fresh simulated board (world, emulated electronics, the real
drivers, referee and lights), in virtual time. Before most legal moves something else may happen
first, drawn from one seeded random so a run repeats exactly:

- a mistake, then its correction: a piece from the wrong tray onto a free cell, a piece put on an
  occupied cell, a placed piece moved to another cell, a piece put down outside the game's area.
  Only mistakes the sensors can see are made (a piece stacked on one whose magnets trip the same
  channels changes nothing the board can read). The board must say `illegal` once it settles,
  then `restored` once the piece is back where it came from;
- a bump: a piece nudged to a neighbouring cell and straight back, well within the settle time:
  the board must neither accept a move nor call it a mistake;
- a burst of sensor noise (blips far shorter than the debounce time) while the next move is made;
- a burst of I2C errors on a random expander, or an expander that resets itself, either while
  the board is quiet or just before the next move: the board must report a fault and carry on.

Then the legal move is made by hand, and the board must accept exactly that move (compared by
player and actions in notation) before the next thing happens.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from magboard.firmware.app.errors import CommandError
from magboard.firmware.events import (
    Event,
    FaultSurvived,
    GameOver,
    Illegal,
    LedFrame,
    Moved,
    Partial,
    Restored,
    TakenBack,
)
from magboard.firmware.games import PASS, Action, Game, State, get_game
from magboard.firmware.profiles import Profile
from magboard.firmware.referee import SearchLimitError
from magboard.hardware.spec import BoardSpec, Cell, Place, Slot, load_board

from .session import SimSession

HAND_PAUSE = 0.3
"""Seconds between lifting a piece and putting it down, and after it: a brisk but human hand."""
ACCEPT_WAIT = 1.6
"""Longest wait for the board to answer: the safety poll (an expander that reset itself raises no
interrupt until it is found and set up again) plus the settle time, with room to spare."""
QUIET_WAIT = 1.3
"""How long the board is left alone after a fault injected while nobody touches it: longer than
the safety poll, so a scan meets the fault."""
BUMP_STEP = (0.04, 0.08)
"""Seconds a bumped piece spends on the neighbouring cell: longer than the debounce time, so the
debounced frame does change, and well within the settle time."""
NOISE_RATE = (20.0, 200.0)
"""Blips a second in a burst of sensor noise."""
I2C_BURST = (1, 8)
"""Failed transactions in a burst of I2C errors on one expander."""

P_MISTAKE = 0.12
P_BUMP = 0.12
P_NOISE = 0.10
P_I2C = 0.08
P_RESET = 0.05

_REFEREE_EVENTS = (Moved, Partial, TakenBack, Illegal, Restored)


@dataclass
class Tally:
    """The soak's figures; `ok` says whether the board did everything right."""

    game: str = ""
    board: str = ""
    seed: int = 0
    games: int = 0
    finished: int = 0
    """Games that ended with the result the rules give, reported by the board."""
    aborted: int = 0
    """Games stopped because the board and the game played by hand went apart."""
    wins: dict[str, int] = field(default_factory=dict)
    draws: int = 0
    moves: int = 0
    """Legal actions performed by hand."""
    accepted: int = 0
    """Of those, accepted by the board exactly as performed, before the next action."""
    missed: int = 0
    """Legal actions performed that the board did not accept before the next action."""
    false_accepts: int = 0
    """Moves the board accepted that were not the one performed, or during a mistake, a bump or
    a fault."""
    illegal_made: int = 0
    illegal_caught: int = 0
    recovered: int = 0
    """Mistakes after which the board said `restored` and was back in the game's position."""
    false_alarms: int = 0
    """`illegal` events where no mistake was made."""
    bumps: int = 0
    noise_bursts: int = 0
    noise_blips: int = 0
    faults_injected: int = 0
    faults_survived: int = 0
    """Injected faults the board reported, after which it accepted the next move correctly."""
    fault_events: int = 0
    led_frames: int = 0
    virtual_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def failures(self) -> list[str]:
        problems = []
        if self.false_accepts:
            problems.append(f"{self.false_accepts} false accepts")
        if self.missed:
            problems.append(f"{self.missed} missed moves")
        if self.faults_survived != self.faults_injected:
            problems.append(f"{self.faults_injected - self.faults_survived} faults not survived")
        if self.illegal_caught != self.illegal_made:
            problems.append(f"{self.illegal_made - self.illegal_caught} mistakes not caught")
        if self.recovered != self.illegal_made:
            problems.append(f"{self.illegal_made - self.recovered} mistakes not recovered")
        if self.false_alarms:
            problems.append(f"{self.false_alarms} false alarms")
        if self.aborted:
            problems.append(f"{self.aborted} games aborted")
        return problems

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["virtual_seconds"] = round(self.virtual_seconds, 3)
        data["wall_seconds"] = round(self.wall_seconds, 3)
        data["ok"] = self.ok
        data["failures"] = self.failures
        return data


class GameSoak:
    """One game on a fresh simulated board, with trouble mixed in."""

    def __init__(
        self,
        spec: BoardSpec,
        game: Game,
        options: dict[str, Any],
        seed: int,
        tally: Tally,
    ) -> None:
        self.rng = random.Random(seed)
        self.tally = tally
        self.session = SimSession(spec, game.name, options, seed=seed)
        self.profile: Profile = self.session.profile
        self.world = self.session.world
        self.clock = self.session.clock
        self.spec = spec
        self.state: State = self.session.initial
        """The game as played by hand: what the board should agree with."""
        self.turn_start: State = self.state
        self.turn_actions: tuple[Action, ...] = ()
        self.history: list[State] = []
        """Positions at the start of each completed turn (what a takeback would restore)."""
        self._cursor = 0
        area = self._area()
        self.area = area
        self.outside = [cell for cell in spec.cells if cell not in set(area)]

    def _area(self) -> list[Cell]:
        width, height = self.profile.game.board
        return [self.profile.to_board((c, r)) for r in range(height) for c in range(width)]

    # Events.

    def _new_events(self) -> list[Event]:
        events = self.session.events
        new = events[self._cursor :]
        self._cursor = len(events)
        leds = sum(1 for e in new if isinstance(e, LedFrame))
        self.tally.led_frames += leds
        faults = [e for e in new if isinstance(e, FaultSurvived)]
        self.tally.fault_events += len(faults)
        return [e for e in new if not isinstance(e, LedFrame)]

    def _wait(self, seconds: float, until: type[Event] | None = None) -> None:
        """Lets the board run for `seconds`, or until an event of type `until` arrives."""
        loop, clock = self.session.loop, self.clock
        deadline = clock.now() + seconds
        seen = len(self.session.events)
        while clock.now() < deadline:
            loop.step(until=deadline)
            if until is not None:
                events = self.session.events
                if any(isinstance(e, until) for e in events[seen:]):
                    return
                seen = len(events)

    def _unexpected(self, events: Sequence[Event]) -> None:
        """Outside a legal move: any accepted move is false, any `illegal` a false alarm."""
        for event in events:
            if isinstance(event, Moved | Partial | TakenBack):
                self.tally.false_accepts += 1
            elif isinstance(event, Illegal):
                self.tally.false_alarms += 1

    # A game.

    def play(self) -> None:
        session = self.session
        session.lay_out()
        session.start()
        self._wait(0.1)
        self._unexpected(self._new_events())
        rng = self.rng
        while self.state.outcome() is None:
            if rng.random() < P_MISTAKE:
                self.mistake()
            if rng.random() < P_BUMP:
                self.bump()
            noise = rng.random() < P_NOISE
            fault = rng.random()
            faulted = False
            if fault < P_I2C + P_RESET:
                faulted = self.fault(i2c=fault < P_I2C)
            if noise:
                self.noise()
            action = self._choose()
            if action is None or not self.move(action, faulted):
                self.tally.aborted += 1
                break
        self.tally.virtual_seconds += self.clock.now()

    def _choose(self) -> Action | None:
        """A random legal action a hand can make (the rules pass for a player who cannot)."""
        state = self.state
        physical = [a for a in state.legal_actions() if self.profile.plan(state, a)]
        return self.rng.choice(physical) if physical else None

    # The legal move.

    def move(self, action: Action, faulted: bool) -> bool:
        """Performs `action` by hand and checks the board accepts exactly it; False if the board
        and the game went apart."""
        expected = self._expect(action)
        self.session.perform(action, pause=HAND_PAUSE)
        self._wait(ACCEPT_WAIT, until=Moved if expected[0][0] == "move" else Partial)
        tally = self.tally
        tally.moves += 1
        events = self._new_events()
        accepted = [
            ("move" if isinstance(e, Moved) else "partial", e.player, e.actions)
            for e in events
            if isinstance(e, Moved | Partial)
        ]
        remaining = list(expected)
        for item in accepted:
            if remaining and item == remaining[0]:
                remaining.pop(0)
            else:
                tally.false_accepts += 1
        if remaining:
            tally.missed += 1
        elif len(accepted) == len(expected):
            tally.accepted += 1
        tally.false_alarms += sum(1 for e in events if isinstance(e, Illegal))
        tally.false_accepts += sum(1 for e in events if isinstance(e, TakenBack))
        if faulted:
            seen = self._fault_seen or any(isinstance(e, FaultSurvived) for e in events)
            survived = seen and not remaining and len(accepted) == len(expected)
            tally.faults_survived += survived
        self._fault_seen = False
        over = self.state.outcome()
        if over is not None:
            ends = [e for e in events if isinstance(e, GameOver)]
            if ends and ends[-1].winners == over.winners:
                tally.finished += 1
                if over.winners:
                    name = self.profile.game.seats[over.winners[0]]
                    tally.wins[name] = tally.wins.get(name, 0) + 1
                else:
                    tally.draws += 1
        return self.session.state == self.state

    def _expect(self, action: Action) -> list[tuple[str, int, tuple[str, ...]]]:
        """The referee's answers to `action`, and the game as played advances by it."""
        state, player = self.state, self.state.to_move
        after = state.apply(action)
        self.turn_actions += (action,)
        notation = tuple(str(a) for a in self.turn_actions)
        if after.turn == state.turn and after.outcome() is None:
            self.state = after
            return [("partial", player, notation)]
        expected = [("move", player, notation)]
        self.history.append(self.turn_start)
        while after.outcome() is None and after.legal_actions() == (PASS,):
            expected.append(("move", after.to_move, ("pass",)))
            self.history.append(after)
            after = after.apply(PASS)
        self.state = self.turn_start = after
        self.turn_actions = ()
        return expected

    # Trouble.

    _fault_seen = False

    def fault(self, i2c: bool) -> bool:
        """An I2C error burst or an expander reset, while the board is quiet or just before the
        next move. Returns True: the next move decides whether the board survived it."""
        tally, rng = self.tally, self.rng
        expander = rng.randrange(len(self.spec.expanders))
        if i2c:
            self.world.inject_i2c_errors(expander, rng.randint(*I2C_BURST))
        else:
            self.world.reset_expander(expander)
        tally.faults_injected += 1
        if rng.random() < 0.5:
            self._wait(QUIET_WAIT)
            events = self._new_events()
            self._unexpected(events)
            self._fault_seen = any(isinstance(e, FaultSurvived) for e in events)
        return True

    def noise(self) -> None:
        rate = self.rng.uniform(*NOISE_RATE)
        self.tally.noise_bursts += 1
        self.tally.noise_blips += self.world.noise(rate, duration=2.0)

    def bump(self) -> None:
        """A piece nudged onto a neighbouring cell and straight back."""
        world, rng = self.world, self.rng
        occupied = [cell for cell in self.area if world.pieces_at(cell)]
        if not occupied:
            return
        cell = rng.choice(occupied)
        cells = set(self.spec.cells)
        neighbours = [
            (cell[0] + dx, cell[1] + dy)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if (cell[0] + dx, cell[1] + dy) in cells
        ]
        world.slide(cell, [rng.choice(neighbours), cell], step=rng.uniform(*BUMP_STEP))
        self.tally.bumps += 1
        self._wait(self.profile.settle + 0.2)
        self._unexpected(self._new_events())

    def mistake(self) -> None:
        """A mistake the sensors can see, then its correction."""
        found = self._find_mistake()
        if found is None:
            return
        source, target = found
        tally = self.tally
        tally.illegal_made += 1
        self._hand(source, target)
        self._wait(self.profile.settle + 0.2, until=Illegal)
        events = self._new_events()
        caught = any(isinstance(e, Illegal) for e in events)
        tally.illegal_caught += caught
        tally.false_accepts += sum(1 for e in events if isinstance(e, Moved | Partial | TakenBack))
        self._hand(target, source)
        self._wait(ACCEPT_WAIT, until=Restored)
        events = self._new_events()
        restored = any(isinstance(e, Restored) for e in events)
        self._unexpected(events)
        if caught and restored and self.session.state == self.state:
            tally.recovered += 1

    def _hand(self, source: Place, target: Place) -> None:
        """Lifts the top piece of `source` and puts it on `target`, at a hand's pace."""
        piece = self.world.lift(source)
        self._wait(HAND_PAUSE / 2)
        self.world.put(target, piece)

    def _find_mistake(self) -> tuple[Place, Place] | None:
        """A random physical mistake (source, target) the board can tell from every legal
        continuation, a takeback and a hand merely holding a piece; None if none is found."""
        world, rng = self.world, self.rng
        full_slots = [s for s in self.spec.slots if world.pieces_at(s)]
        placed = [c for c in self.area if world.pieces_at(c)]
        free = [c for c in self.area if not world.pieces_at(c)]
        kinds: list[Iterator[tuple[Place, Place]]] = []
        if full_slots and free:
            kinds.append(_pairs(rng, full_slots, free))  # wrong tray, or a slot's piece misplaced
        if full_slots and placed:
            kinds.append(_pairs(rng, full_slots, placed))  # onto an occupied cell
        if placed and free:
            kinds.append(_pairs(rng, placed, free))  # a placed piece moved
        if full_slots and self.outside:
            kinds.append(_pairs(rng, full_slots, self.outside))  # off the game's area
        rng.shuffle(kinds)
        for options in kinds:
            for _, (source, target) in zip(range(6), options, strict=False):
                if source != target and self._visible(source, target):
                    return source, target
        return None

    def _visible(self, source: Place, target: Place) -> bool:
        """Whether moving the top piece of `source` onto `target` makes a board the referee must
        call illegal."""
        world, bits = self.world, self.spec.sensor_bit
        frame = world.expected_frame()
        stacks = {p: list(world.pieces_at(p)) for p in (source, target)}
        before = {p: _sees(world, p, stacks[p]) for p in stacks}
        stacks[target].append(stacks[source].pop())
        for place, stack in stacks.items():
            for channel in before[place] ^ _sees(world, place, stack):
                frame ^= 1 << bits[(place, channel)]
        profile, state = self.profile, self.state
        seen = profile.canonical(frame)
        if seen == profile.render(state) or profile.lifted_from(seen, state) is not None:
            return False
        if self.history and seen == profile.render(self.history[-1]):
            return False
        matcher = self.session.referee.matcher
        changed = matcher.game_cells(profile.sensors.spots(seen ^ profile.render(state)))
        try:
            found = matcher.search(state, seen, changed, across=True)
        except SearchLimitError:
            return True
        return not found.exact and not found.endings


def _sees(world: Any, place: Place, stack: Sequence[Any]) -> frozenset[str]:
    """The channels a place's sensors see with `stack` on it."""
    if isinstance(place, Slot):
        return frozenset({""}) if stack else frozenset()
    tile = world.tile_at(place)
    seen = set(tile.signature) if tile is not None else set()
    for piece in stack:
        seen |= piece.kind.signature
    return frozenset(seen)


def _pairs(
    rng: random.Random, sources: Sequence[Place], targets: Sequence[Place]
) -> Iterator[tuple[Place, Place]]:
    while True:
        yield rng.choice(sources), rng.choice(targets)


def soak(
    game: str = "tic-tac-toe",
    board: str | BoardSpec = "r1",
    games: int = 100,
    seed: int = 1,
    options: dict[str, Any] | None = None,
) -> Tally:
    """Plays `games` games with trouble mixed in; the same seed gives the same figures."""
    if games < 1:
        raise CommandError(f"a soak plays 1 game or more, not {games}")
    spec = board if isinstance(board, BoardSpec) else load_board(board)
    found = get_game(game)
    resolved = found.resolve_options(options)
    tally = Tally(game=found.name, board=spec.name, seed=seed)
    seeds = random.Random(seed)
    started = time.perf_counter()
    for _ in range(games):
        GameSoak(spec, found, resolved, seeds.randrange(2**32), tally).play()
        tally.games += 1
    tally.wall_seconds = time.perf_counter() - started
    return tally


def _duration(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m {secs:02d}s"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{seconds:.1f}s"


def format_report(tally: Tally) -> str:
    wins = ", ".join(f"{name} {count}" for name, count in sorted(tally.wins.items()))
    results = f"{wins}, draws {tally.draws}" if wins else f"draws {tally.draws}"
    speed = tally.virtual_seconds / tally.wall_seconds if tally.wall_seconds else 0.0
    rows = [
        ("games", f"{tally.games}", f"finished {tally.finished} ({results})"),
        ("moves made", f"{tally.moves}", f"accepted {tally.accepted}"),
        ("missed moves", f"{tally.missed}", ""),
        ("false accepts", f"{tally.false_accepts}", ""),
        (
            "illegal made",
            f"{tally.illegal_made}",
            f"caught {tally.illegal_caught}, recovered {tally.recovered}",
        ),
        ("bumps", f"{tally.bumps}", f"false alarms {tally.false_alarms}"),
        ("noise bursts", f"{tally.noise_bursts}", f"blips {tally.noise_blips}"),
        (
            "faults injected",
            f"{tally.faults_injected}",
            f"survived {tally.faults_survived} (fault events {tally.fault_events})",
        ),
        ("LED frames", f"{tally.led_frames}", ""),
        ("virtual time", _duration(tally.virtual_seconds), f"{tally.virtual_seconds:.1f} s"),
        ("wall time", f"{tally.wall_seconds:.1f}s", f"{speed:.0f}x real time"),
    ]
    label = max(len(r[0]) for r in rows)
    value = max(len(r[1]) for r in rows)
    lines = [f"soak: {tally.game} on {tally.board}, {tally.games} games, seed {tally.seed}"]
    lines += [f"  {a:<{label}}  {b:>{value}}  {c}".rstrip() for a, b, c in rows]
    verdict = "PASS" if tally.ok else "FAIL: " + "; ".join(tally.failures)
    lines.append(f"  {'result':<{label}}  {verdict}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    options = game.parse_options(args.option)
    tally = soak(game.name, args.board, args.games, args.seed, options)
    print(json.dumps(tally.to_dict(), indent=2) if args.json else format_report(tally))
    return 0 if tally.ok else 1
