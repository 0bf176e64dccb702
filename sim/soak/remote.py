"""Remote soak: two-board games through a real MQTT broker, with trouble on both sides.

Two simulated boards (each its world, electronics, drivers, referee, lights and journal) play
one game over a Mosquitto broker (firmware/app/remote.py), each board moving only its own
seat's pieces. The mover makes a random legal move by hand on its board; the other board must
accept it as the other board's turn and show it, and a simulated person there makes it by
following the lights alone (`follow_lights`): the red places to take from, the places in a
seat's colour to put that seat's piece on. Before most moves, drawn from one seeded random:

- on either board, a mistake and its correction, a knock, a bump (careless.py's): `illegal`
  then `restored`, or nothing;
- a takeback tried by hand on the board that just moved: refused in a remote match (`illegal`),
  and the move put back as it was (`restored`);
- a broker restart, or a board's connection severed;
- a power cut on the mover's board with a piece in the hand; on the other board before the move
  arrives, or with the move half made: it resumes from its journal and catches up.

Every move must be accepted exactly once on each board, the other board's only once its pieces
match, both boards must end on the same log and position, and nothing may stop the match.

Boards run in virtual time; the broker is real, so waits on the network are real, and bounded.
`magboard soak --remote` runs it on a private broker of its own.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.remote import RemoteMatch
from magboard.firmware.events import (
    Event,
    GameOver,
    Illegal,
    MatchStopped,
    Moved,
    Note,
    Obligation,
    Partial,
    RemoteMade,
    TakenBack,
)
from magboard.firmware.games import DEFAULT_GAME, Action, Game, get_game
from magboard.firmware.lights.palette import DEFAULT
from magboard.firmware.profiles import Step
from magboard.hardware.spec import BoardSpec, Place, load_board, place_label

from ..following import follow_lights, shows
from ..session import SimSession
from .broker import Broker, Mosquitto
from .careless import GameSoak
from .hands import ACCEPT_WAIT, HAND_PAUSE
from .tally import Tally

USERS = ("board1", "board2")
"""The broker users the two boards log in as."""
P_TAKEBACK = 0.08
P_POWER_CUT_HOME = 0.05
"""Of moves: the power goes on the mover's board while the piece is in the hand."""
P_POWER_CUT_AWAY = 0.08
"""Of moves: the power goes on the other board, before the move arrives or half made."""
P_BROKER_RESTART = 0.05
P_DROP = 0.08
"""Of moves: one board's connection to the broker is severed."""
NETWORK_WAIT = 20.0
"""Longest real wait, in seconds, for one board to hear the other (a broker restart and the
reconnection after it included)."""
STEP = 0.05
"""Virtual seconds each board runs between two looks at the network."""
RECONNECT = (0.1, 0.5)
"""The boards' reconnection delays here: a broker on this machine is back at once."""


# The figures.


@dataclass
class RemoteTally:
    """The remote soak's figures; `ok` says whether both boards did everything right."""

    game: str = ""
    board: str = ""
    seed: int = 0
    games: int = 0
    finished: int = 0
    """Games that ended on both boards with the result the rules give."""
    aborted: int = 0
    moves: int = 0
    """Moves made by hand on the mover's board."""
    accepted: int = 0
    """Of those, accepted there exactly as made."""
    shown: int = 0
    """Of those, accepted on the other board, shown there and made by hand following the
    lights, and taken as made only once the pieces matched."""
    missed: int = 0
    false_accepts: int = 0
    forks: int = 0
    """Games whose boards ended on different logs or positions."""
    stops: int = 0
    """Matches stopped (there is no disagreement to stop for in a soak)."""
    illegal_made: int = 0
    illegal_caught: int = 0
    recovered: int = 0
    false_alarms: int = 0
    knocks: int = 0
    bumps: int = 0
    takebacks_tried: int = 0
    takebacks_refused: int = 0
    """Takebacks by hand refused (`illegal`) and put right (`restored`)."""
    power_cuts_mover: int = 0
    power_cuts_other: int = 0
    broker_restarts: int = 0
    drops: int = 0
    set_aside: int = 0
    """Messages a board could not read (none are sent in a soak)."""
    virtual_seconds: float = 0.0
    wall_seconds: float = 0.0
    sides: list[Tally] = field(default_factory=list, repr=False)

    @property
    def failures(self) -> list[str]:
        problems = []
        for count, what in (
            (self.false_accepts, "false accepts"),
            (self.missed, "missed moves"),
            (self.forks, "forks"),
            (self.stops, "matches stopped"),
            (self.aborted, "games aborted"),
            (self.false_alarms, "false alarms"),
            (self.set_aside, "messages set aside"),
            (self.illegal_made - self.illegal_caught, "mistakes not caught"),
            (self.illegal_made - self.recovered, "mistakes not recovered"),
            (self.takebacks_tried - self.takebacks_refused, "takebacks not refused"),
            (self.games - self.finished - self.aborted, "games not finished on both boards"),
        ):
            if count:
                problems.append(f"{count} {what}")
        return problems

    @property
    def ok(self) -> bool:
        return not self.failures

    def add_side(self, side: Tally) -> None:
        self.false_accepts += side.false_accepts
        self.missed += side.missed
        self.false_alarms += side.false_alarms
        self.illegal_made += side.illegal_made
        self.illegal_caught += side.illegal_caught
        self.recovered += side.recovered
        self.knocks += side.knocks
        self.bumps += side.bumps
        self.accepted += side.accepted

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["sides"]
        data["virtual_seconds"] = round(self.virtual_seconds, 3)
        data["wall_seconds"] = round(self.wall_seconds, 3)
        data["ok"] = self.ok
        data["failures"] = self.failures
        return data


# The boards.


class Side(GameSoak):
    """One board of the match and the people at it: careless.py's careless player, whose
    mistakes, knocks and bumps it reuses, on a board it is handed rather than one of its own."""

    def __init__(self, seat: int, session: SimSession, rng: random.Random, seed: int) -> None:
        self.seat = seat
        self.rng = rng
        self.seed = seed
        self.tally = Tally()
        self._fault_seen = False
        self.use(session)
        self.state = session.initial
        self.turn_actions: tuple[Action, ...] = ()
        self.last_turn = None
        self.remote: RemoteMatch | None = None

    def use(self, session: SimSession) -> None:
        self.session = session
        self.profile = session.profile
        self.world = session.world
        self.clock = session.clock
        self.spec = session.spec
        self._cursor = 0
        self.area = sorted(self.profile.area)
        self.outside = [cell for cell in self.spec.cells if cell not in self.profile.area]

    def events(self) -> list[Event]:
        return self._new_events()


class Pair:
    """Two boards playing one match through a broker, and the driver that runs them: each board
    in its own virtual time, a step at a time, while the network's news is waited for (in real
    time, bounded)."""

    def __init__(
        self,
        broker: Broker,
        spec: BoardSpec,
        game: Game,
        seed: int,
        folder: Path,
        *,
        reconnect: tuple[float, float] = RECONNECT,
        match: str | None = None,
    ) -> None:
        self.broker = broker
        self.match = match or f"soak-{secrets.token_hex(6)}"
        self.wake = threading.Event()
        self.reconnect = reconnect
        rng = random.Random(seed)
        self.sides: list[Side] = []
        for seat in range(2):
            session = SimSession(spec, game.name, seed=seed + seat, journal=folder / f"{seat}.db")
            self.sides.append(Side(seat, session, rng, seed + seat))
            self.attach(seat)

    def url(self, seat: int) -> str:
        return f"{self.broker.url(USERS[seat])}/{self.match}"

    def attach(self, seat: int) -> RemoteMatch:
        side = self.sides[seat]
        side.remote = RemoteMatch(
            self.url(seat), side.session.loop, {seat}, wake=self.wake, reconnect=self.reconnect
        )
        return side.remote

    def start(self) -> bool:
        """Sets both boards up and starts the game; True once both have reached the broker."""
        for side in self.sides:
            side.session.lay_out()
            side.session.start()
        return self.drive(lambda: all(s.remote.connected for s in self.sides))

    def drive(self, done: Callable[[], bool], timeout: float = NETWORK_WAIT) -> bool:
        """Runs both boards until `done()`, for at most `timeout` real seconds."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                return False
            for side in self.sides:
                side.session.run_for(STEP)
            if not done():
                self.wake.wait(0.01)
                self.wake.clear()
        return True

    def power_cut(self, seat: int) -> None:
        """The power goes on one board and comes back: the program starts again from its
        journal, the pieces stay where they were, and it joins the match again."""
        side = self.sides[seat]
        side.events()
        side.remote.close()
        side.use(side.session.restart(seed=side.seed))
        self.attach(seat)

    def agree(self) -> bool:
        """Both boards hold the same log and position, and each has heard the other's."""
        a, b = (side.session.referee for side in self.sides)
        if a.log != b.log or a.position != b.position:
            return False
        seq = len(a.log)
        return all(
            side.remote.heard.get(other.remote.tag) == seq
            for side in self.sides
            for other in self.sides
            if other is not side
        )

    def close(self) -> None:
        for side in self.sides:
            if side.remote is not None:
                side.remote.close()


class RemoteGameSoak:
    """One two-board game with trouble mixed in."""

    def __init__(self, pair: Pair, tally: RemoteTally, rng: random.Random) -> None:
        self.pair = pair
        self.tally = tally
        self.rng = rng
        self.stopped = 0

    def play(self) -> None:
        pair, tally = self.pair, self.tally
        pair.start()
        for side in pair.sides:
            side._unexpected(side.events())
        state = pair.sides[0].state
        while state.outcome() is None:
            if not self.turn():
                tally.aborted += 1
                break
            state = pair.sides[0].state
        else:
            if pair.drive(pair.agree):
                tally.finished += self._finished()
            else:
                tally.forks += 1
        tally.stops += self.stopped
        tally.virtual_seconds += sum(side.clock.now() for side in pair.sides)

    def _finished(self) -> int:
        over = self.pair.sides[0].state.outcome()
        assert over is not None
        ends = [
            [e for e in side.session.events if isinstance(e, GameOver)] for side in self.pair.sides
        ]
        return int(all(end and end[-1].winners == over.winners for end in ends))

    def _events(self, side: Side) -> list[Event]:
        """New events of a board, with what no game event says counted on the way."""
        events = side.events()
        self.stopped += sum(isinstance(e, MatchStopped) for e in events)
        self.tally.set_aside += sum(
            isinstance(e, Note) and "was set aside" in e.text for e in events
        )
        return events

    def turn(self) -> bool:
        pair, rng, tally = self.pair, self.rng, self.tally
        home = pair.sides[pair.sides[0].state.to_move]
        away = pair.sides[1 - home.seat]
        action = home._choose()
        if action is None:
            return False
        for side in (home, away):
            side._trouble()
        if rng.random() < P_BROKER_RESTART:
            tally.broker_restarts += 1
            pair.broker.restart()
        if rng.random() < P_DROP:
            tally.drops += 1
            rng.choice(pair.sides).remote.drop_connection()
        if not self.move_home(home, away, action):
            return False
        return self.move_away(home, away, action)

    # The mover's board.

    def move_home(self, home: Side, away: Side, action: Action) -> bool:
        before = home.state
        expected = home._expect(action)
        away._expect(action)
        steps = home.profile.plan(before, action)
        simple = len(steps) == 1 and isinstance(steps[0], Step) and not steps[0].slide
        if simple and self.rng.random() < P_POWER_CUT_HOME:
            self.tally.power_cuts_mover += 1
            (step,) = steps
            piece = home.session.take(step.source)
            home._wait(HAND_PAUSE / 2)
            self.pair.power_cut(home.seat)
            home._wait(HAND_PAUSE / 2)
            home.session.give(step.target, piece)
        else:
            home.session.perform(action, pause=HAND_PAUSE, state=before)
        home._wait(ACCEPT_WAIT, until=Moved)
        self.tally.moves += 1
        ok = home._check(expected) and home._agree()
        if ok and simple and home.state.outcome() is None and self.rng.random() < P_TAKEBACK:
            self.takeback(home, steps[0])
        return ok

    def takeback(self, home: Side, step: Step) -> None:
        """The move just accepted, put back by hand: refused (the other board has it), and made
        again."""
        self.tally.takebacks_tried += 1
        undo = (step.target, step.source)

        def wrong() -> None:
            home.session.give(undo[1], home.session.take(undo[0]))

        def back() -> None:
            home.session.give(undo[0], home.session.take(undo[1]))

        answer = home._put_right(wrong, back)
        self.tally.takebacks_refused += answer.recovered

    # The other board.

    def move_away(self, home: Side, away: Side, action: Action) -> bool:
        """The other board hears the move, accepts it as the mover's and shows it; a person
        there makes it by following the lights; the board takes it as made once it matches."""
        pair, tally, rng = self.pair, self.tally, self.rng
        player = home.seat
        if rng.random() < P_POWER_CUT_AWAY / 2:
            tally.power_cuts_other += 1
            pair.power_cut(away.seat)
        seen: list[Event] = []

        def owed() -> bool:
            seen.extend(self._events(away))
            return any(isinstance(e, Obligation) for e in seen) or _made(seen)

        if not pair.drive(owed):
            away.tally.missed += 1
            return False
        moved = [e for e in seen if isinstance(e, Moved)]
        if [(e.player, e.actions) for e in moved] != [(player, (str(action),))]:
            away.tally.false_accepts += len(moved)
            away.tally.missed += 1
            return False
        half_made = False
        if not _made(seen) and rng.random() < P_POWER_CUT_AWAY / 2:
            half_made = self._half_made_then_cut(away, seen)
        if not _made(seen):
            places = [e for e in seen if isinstance(e, Obligation)][-1].places
            if not half_made:
                away._wait(0.2)  # a moment to see the lights change
            follow_lights(away.session, places)
        away._wait(ACCEPT_WAIT, until=RemoteMade)
        seen.extend(self._events(away))
        return self._check_made(away, seen, player, action)

    def _half_made_then_cut(self, away: Side, seen: list[Event]) -> bool:
        """The person there takes the piece the lights show, and the power goes: the board
        comes back owing the move again, and says so."""
        places = [e for e in seen if isinstance(e, Obligation)][-1].places
        world = away.world
        away._wait(0.2)
        full = [p for p in _places(away.session, places) if world.pieces_at(p)]
        red = [
            p
            for p in full
            if shows(away.session.board.visible_leds()[away.spec.led_index[p]], DEFAULT.remove)
        ]
        if not red:
            return False
        self.tally.power_cuts_other += 1
        world.lift(red[0])
        away._wait(HAND_PAUSE / 2)
        self.pair.power_cut(away.seat)
        away._wait(0.1)
        seen.extend(self._events(away))
        again = [e for e in seen if isinstance(e, Obligation)]
        if not again:
            return False
        follow_lights(away.session, again[-1].places)
        return True

    def _check_made(self, away: Side, seen: list[Event], player: int, action: Action) -> bool:
        made = [e for e in seen if isinstance(e, RemoteMade)]
        frame = away.profile.canonical(away.world.expected_frame())
        shown = frame == away.profile.render(away.session.state)
        extra = [e for e in seen if isinstance(e, Moved | Partial | TakenBack)]
        if len(made) != 1 or made[0].actions != (str(action),) or made[0].player != player:
            away.tally.missed += 1
            return False
        if not shown or len(extra) != 1:
            away.tally.false_accepts += 1
            return False
        self.tally.shown += 1
        away.tally.false_alarms += sum(isinstance(e, Illegal) for e in seen)
        return away._agree()


def _made(events: Sequence[Event]) -> bool:
    return any(isinstance(e, RemoteMade) for e in events)


def _places(session: SimSession, labels: Sequence[str]) -> list[Place]:
    by_label = {place_label(p): p for p in session.spec.led_index if not isinstance(p, str)}
    return [by_label[label] for label in labels if label in by_label]


def soak_remote(
    broker: Broker,
    games: int = 50,
    seed: int = 1,
    game: str = DEFAULT_GAME,
    board: str | BoardSpec = "mini",
    reconnect: tuple[float, float] = RECONNECT,
) -> RemoteTally:
    """Plays `games` two-board games through `broker`; the same seed makes the same moves and
    trouble (the network's timing is the machine's own)."""
    if games < 1:
        raise CommandError(f"a soak plays 1 game or more, not {games}")
    spec = board if isinstance(board, BoardSpec) else load_board(board)
    found = get_game(game)
    tally = RemoteTally(game=found.name, board=spec.name, seed=seed)
    seeds = random.Random(seed)
    started = time.perf_counter()
    for _ in range(games):
        game_seed = seeds.randrange(2**31)
        with tempfile.TemporaryDirectory(prefix="magboard-remote-soak-") as folder:
            pair = Pair(broker, spec, found, game_seed, Path(folder), reconnect=reconnect)
            try:
                RemoteGameSoak(pair, tally, random.Random(game_seed)).play()
            finally:
                pair.close()
            for side in pair.sides:
                tally.add_side(side.tally)
        tally.games += 1
    tally.wall_seconds = time.perf_counter() - started
    return tally


def format_report(tally: RemoteTally) -> str:
    rows = [
        ("games", f"{tally.games}", f"finished on both boards {tally.finished}"),
        ("moves made", f"{tally.moves}", f"accepted {tally.accepted}"),
        ("shown elsewhere", f"{tally.shown}", "made there by following the lights"),
        ("missed moves", f"{tally.missed}", ""),
        ("false accepts", f"{tally.false_accepts}", ""),
        ("forks", f"{tally.forks}", f"matches stopped {tally.stops}"),
        (
            "illegal made",
            f"{tally.illegal_made}",
            f"caught {tally.illegal_caught}, recovered {tally.recovered}",
        ),
        ("of which knocks", f"{tally.knocks}", ""),
        ("bumps", f"{tally.bumps}", f"false alarms {tally.false_alarms}"),
        ("takebacks tried", f"{tally.takebacks_tried}", f"refused {tally.takebacks_refused}"),
        (
            "power cuts",
            f"{tally.power_cuts_mover + tally.power_cuts_other}",
            f"mover's board {tally.power_cuts_mover}, other board {tally.power_cuts_other}",
        ),
        ("broker restarts", f"{tally.broker_restarts}", ""),
        ("connections cut", f"{tally.drops}", ""),
        ("virtual time", f"{tally.virtual_seconds:.1f}s", "both boards"),
        ("wall time", f"{tally.wall_seconds:.1f}s", ""),
    ]
    label = max(len(r[0]) for r in rows)
    value = max(len(r[1]) for r in rows)
    lines = [
        f"remote soak: {tally.game} on two {tally.board} boards, {tally.games} games, "
        f"seed {tally.seed}"
    ]
    lines += [f"  {a:<{label}}  {b:>{value}}  {c}".rstrip() for a, b, c in rows]
    verdict = "PASS" if tally.ok else "FAIL: " + "; ".join(tally.failures)
    lines.append(f"  {'result':<{label}}  {verdict}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    """`magboard soak --remote`: each game on two boards, through a broker of the soak's own."""
    if args.option:
        raise CommandError("soak --remote plays a game with its default options")
    broker = Mosquitto()
    try:
        tally = soak_remote(broker, args.games, args.seed, args.game, args.board)
    finally:
        broker.close()
    print(json.dumps(tally.to_dict(), indent=2) if args.json else format_report(tally))
    return 0 if tally.ok else 1
