"""The soak's mishaps: faults injected (noise, I2C errors, an expander resetting itself), a
bump, and a mistake or a knock with its correction, each seen through by the board."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from magboard.firmware.events import (
    Event,
    Fulfilled,
    Illegal,
    Moved,
    Partial,
    Restored,
    TakenBack,
)
from magboard.firmware.referee import SearchLimitError
from magboard.hardware.spec import Cell, Place, Slot, place_label

from .hands import ACCEPT_WAIT, HAND_PAUSE, RULES_APART, _kind

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


class Mishaps:
    """The mishaps of the soak's careless player (careless.py's `GameSoak`)."""

    _fault_seen = False
    """The board reported a fault since the last one was injected (whatever the hands were
    doing meanwhile: waiting for it, carrying captured pieces off)."""

    def _survived(self, faulted: bool, ok: bool) -> None:
        """Counts the fault injected before the move just checked as survived if the board
        reported it and took the move; one the board took the move without reporting is kept
        as an example (a move it missed is one already)."""
        if faulted:
            self.tally.faults_survived += ok and self._fault_seen
            if ok and not self._fault_seen:
                self._keep_example("faults_not_survived", "the move was taken, no fault reported")
        self._fault_seen = False

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
        self._fault_seen = False
        if rng.random() < 0.5:
            self._wait(QUIET_WAIT)
            self._unexpected(self._new_events())
        return True

    @_kind("noise")
    def noise(self) -> None:
        rate = self.rng.uniform(*NOISE_RATE)
        self.tally.noise_bursts += 1
        self.tally.noise_blips += self.world.noise(rate, duration=2.0)

    def _neighbours(self, cell: Cell) -> list[Cell]:
        cells = set(self.spec.cells)
        return [
            (cell[0] + dx, cell[1] + dy)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if (cell[0] + dx, cell[1] + dy) in cells
        ]

    def bump(self) -> None:
        """A piece nudged onto a neighbouring cell and straight back."""
        world, rng = self.world, self.rng
        occupied = [cell for cell in self.area if world.pieces_at(cell)]
        if not occupied:
            return
        cell = rng.choice(occupied)
        with self._doing("bump"):
            world.slide(
                cell, [rng.choice(self._neighbours(cell)), cell], step=rng.uniform(*BUMP_STEP)
            )
            self.tally.bumps += 1
            self._wait(self.profile.settle + 0.2)
            self._unexpected(self._new_events())

    def mistake(self, knock: bool = False) -> None:
        """A mistake the sensors can see, then its correction; a knock slides a placed piece
        onto a free neighbouring square and back."""
        found = self._find_knock() if knock else self._find_mistake()
        if found is None:
            return
        source, target = found
        self.tally.knocks += knock
        self._mistake_put_right(
            "knock" if knock else "mistake",
            f"{place_label(source)} to {place_label(target)}",
            partial(self._hand, source, target, knock),
            partial(self._hand, target, source, knock),
            None if knock else self._rule_broken(source, target),
        )

    def _mistake_put_right(
        self,
        kind: str,
        made: str,
        wrong: Callable[[], None],
        back: Callable[[], None],
        rule: str | None = None,
    ) -> None:
        """A mistake of `kind` (`made` says what the hands did), made and put right
        (`_put_right`), counted as made, caught and recovered from; one not caught or not
        recovered from is kept as an example, with what the board said meanwhile."""
        tally = self.tally
        tally.illegal_made += 1
        with self._doing(kind):
            answer = self._put_right(wrong, back, rule)
            if not answer.caught:
                self._keep_example("not_caught", answer.describe(made))
            elif not answer.recovered:
                self._keep_example("not_recovered", answer.describe(made))
        tally.illegal_caught += answer.caught
        tally.recovered += answer.recovered

    def _put_right(
        self, wrong: Callable[[], None], back: Callable[[], None], rule: str | None = None
    ) -> PutRight:
        """Something wrong done by hand, then undone: whether the board said `illegal` (and
        accepted nothing), and whether it then said `restored` and agrees with the game. The
        refusal must name `rule` where the soak knows it, and some rule in any case."""
        wrong()
        self._wait(ACCEPT_WAIT, until=Illegal)
        made = self._new_events()
        refusals = [e for e in made if isinstance(e, Illegal)]
        caught = bool(refusals)
        if refusals:
            self._judge_reason(refusals[0], rule)
        for event in made:
            if isinstance(event, Moved | Partial | TakenBack | Fulfilled):
                self._blame("false_accepts", 1, event)
        back()
        self._wait(ACCEPT_WAIT, until=Restored)
        undone = self._new_events()
        restored = any(isinstance(e, Restored) for e in undone)
        self._unexpected(undone)
        return PutRight(
            caught,
            caught and restored and self._agree(),
            tuple(map(_said, made)),
            tuple(map(_said, undone)),
        )

    def _hand(self, source: Place, target: Place, slide: bool = False) -> None:
        """Moves the top piece of `source` to `target` at a hand's pace."""
        if slide:
            assert not isinstance(source, Slot) and not isinstance(target, Slot)
            self._wait(self.world.slide(source, [target]) - self.clock.now())
            return
        piece = self.world.lift(source)
        self._wait(HAND_PAUSE / 2)
        self.world.put(target, piece)

    def _rule_broken(self, source: Place, target: Place) -> str | None:
        """The rules a piece from tray slot `source` put on cell `target` breaks, in the words
        the board must use, where the soak can name them (either may be named, `RULES_APART`):
        off the game's area, another seat's piece, or the placement the rules refuse
        (`why_illegal`). None otherwise."""
        if not isinstance(source, Slot) or isinstance(target, Slot):
            return None
        supplies = [s for s in self.profile.supplies if source in s.slots]
        if len(supplies) != 1 or len(supplies[0].kinds) != 1:
            return None
        kind, state = supplies[0].kinds[0], self.state
        rules = []
        if target not in self.profile.area:
            rules.append("outside the game's area")
        if kind.owner is not None and kind.owner != state.to_move:
            rules.append(f"that is {self.profile.game.seats[kind.owner]}'s piece")
        tried = self.profile.placement(state, kind, target)
        if not rules and tried is not None and not state.is_legal(tried):
            rules.append(state.why_illegal(tried))
        return RULES_APART.join(rules) or None

    def _find_knock(self) -> tuple[Place, Place] | None:
        world = self.world
        placed = [c for c in self.area if world.pieces_at(c)]
        self.rng.shuffle(placed)
        for cell in placed[:6]:
            free = [n for n in self._neighbours(cell) if not world.pieces_at(n)]
            if free:
                target = self.rng.choice(free)
                if self._visible(cell, target):
                    return cell, target
        return None

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
        return self._calls_illegal(frame)

    def _calls_illegal(self, frame: int) -> bool:
        """Whether the board showing the raw `frame` is one the referee must call illegal: no
        legal continuation, takeback (also one against the board under way, some of it put
        back) or hand merely holding pieces explains it."""
        profile, state, referee = self.profile, self.state, self.session.referee
        seen = profile.canonical(frame)
        if seen == profile.render(state) or profile.lifted_from(seen, state) is not None:
            return False
        start = referee.turn_start
        if referee.history.takeback_depth(seen, start, profile.render):
            return False
        if referee.on_the_way_back(seen):
            return False  # against the board: a takeback under way, the rest of it lit
        matcher = referee.matcher
        try:
            found = matcher.search(
                start, seen, self._cells_to_search(seen), across=matcher.any_reply
            )
        except SearchLimitError:
            return True
        return not found.exact and not found.endings and seen != profile.render(start)

    def _cells_to_search(self, seen: int) -> frozenset[Cell]:
        """The game cells whose actions the referee tries in reading `seen`: those that differ
        from the turn's start."""
        start = self.profile.render(self.session.referee.turn_start)
        return self.session.referee.matcher.game_cells(self.profile.sensors.spots(seen ^ start))


@dataclass(frozen=True)
class PutRight:
    """How the board answered something wrong done by hand and then undone."""

    caught: bool
    """It said `illegal`."""
    recovered: bool
    """It then said `restored` and agrees with the game as played."""
    made: tuple[str, ...]
    """What it said while the wrong thing stood."""
    undone: tuple[str, ...]
    """What it said once it was undone."""

    def describe(self, what: str) -> str:
        """`what` the hands did and what the board said to it: an example's event."""
        made = "; ".join(self.made) or "nothing"
        undone = "; ".join(self.undone) or "nothing"
        return f"made {what}; the board said: {made}; once undone: {undone}"


def _said(event: Event) -> str:
    """An event as the board said it, short enough for an example: its type and its fields
    that are set."""
    data = event.to_dict()
    kind, at = data.pop("type"), data.pop("t")
    fields = ", ".join(f"{k}={v}" for k, v in data.items() if v not in (None, "", (), []))
    return f"{kind} at {at:.3f} s" + (f": {fields}" if fields else "")


def _sees(world: Any, place: Place, stack: Sequence[Any]) -> frozenset[str]:
    """The channels a place's sensors see with `stack` on it."""
    if isinstance(place, Slot):
        return frozenset({""}) if stack else frozenset()
    tile = world.tile_at(place)
    seen = set(tile.signature) if tile is not None else set()
    if tile is not None and world.key_of(tile) == place:
        seen |= tile.key
    for piece in stack:
        seen |= piece.kind.signature
    return frozenset(seen)


def _pairs(
    rng: random.Random, sources: Sequence[Place], targets: Sequence[Place]
) -> Iterator[tuple[Place, Place]]:
    while True:
        yield rng.choice(sources), rng.choice(targets)
