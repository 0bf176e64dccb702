"""A real board at a bench, from the host: `PersonAtBoard`, the second `hands.PhysicalBoard`.

    person = PersonAtBoard()                    # asks on stdout, reads the answers on stdin
    person.put("A1", "X")                       # "Put a new X piece on A1, then press Enter."
    person.move("A1", "b2")                     # "Move the piece on A1 (X1) to b2, ..."
    person.pieces()                             # {"b2": ["X1"]}: what it asked for

The emulated board does what the tests ask at once; a real board needs hands. Here they are a
person's: each action is one instruction on a terminal, in the project's place words (cells
`a1`, tray slots `A1`), and the person presses Enter once it is done, or answers `n` (`no`,
`skip`) when it cannot be done, which raises `NotDone`. Nothing on a real board says which
piece is which, so the record of where pieces are is what was asked for: pieces are named by
kind in the order they were first put (`X1`, `X2`).

Eyes are a camera's, given as a callable returning a `LedView`; without one `leds()` raises
`NotSupported`, as do the faults a bench cannot make on purpose (`i2c_errors`). The faults it
can make are the ones a jumper wire and a connector make: an expander unplugged, plugged back,
reset, and SDA held low.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from .hands import LedView, NotSupported

SKIP = frozenset({"n", "no", "skip"})
"""Answers meaning the person could not do what was asked."""
EXPANDER_BASE = 0x20
"""Expander N answers at 0x20 + N (its address pins)."""


class NotDone(RuntimeError):
    """The person at the board could not do what was asked (or no one answered)."""


class PersonAtBoard:
    """`hands.PhysicalBoard` on a real board: a person asked for each action on a terminal."""

    def __init__(
        self,
        ask: TextIO | None = None,
        answer: TextIO | None = None,
        camera: Callable[[], LedView] | None = None,
    ) -> None:
        # Resolved here, not as defaults, so that a test's replaced sys.stdout is the one used.
        self.ask = ask if ask is not None else sys.stdout
        self.answer = answer if answer is not None else sys.stdin
        self.camera = camera
        self.stacks: dict[str, list[str]] = {}
        """What was asked for: place -> piece names, bottom to top."""
        self.hand: list[str] = []
        """Pieces lifted and not put back, the last lifted last."""
        self.counts: dict[str, int] = {}

    def request(self, instruction: str) -> None:
        """Prints one instruction and waits for Enter; `NotDone` if the person says they could
        not, or the input ended (no one is there to answer)."""
        self.ask.write(f"{instruction} Press Enter when done, or type n if you cannot.\n")
        self.ask.flush()
        line = self.answer.readline()
        if not line:
            raise NotDone(f"no answer to: {instruction}")
        if line.strip().lower() in SKIP:
            raise NotDone(f"the person at the board could not: {instruction}")

    def top(self, place: str) -> str:
        """The name of the top piece on `place` as recorded; ValueError if it has none."""
        stack = self.stacks.get(place)
        if not stack:
            raise ValueError(f"no piece on {place} (none was asked to be put there)")
        return stack[-1]

    # Hands.

    def put(self, place: str, kind: str | None = None, magnets: Sequence[str] = ()) -> str:
        # The magnets are the kind's, under every real piece of it: nothing to ask for.
        if kind is None:
            if not self.hand:
                raise ValueError(f"nothing in the hand to put on {place}")
            name = self.hand[-1]
            self.request(f"Put the piece in your hand ({name}) on {place}.")
            self.hand.pop()
        else:
            number = self.counts.get(kind, 0) + 1
            name = f"{kind}{number}"
            self.request(f"Put a new {kind} piece on {place}.")
            self.counts[kind] = number
        self.stacks.setdefault(place, []).append(name)
        return name

    def put_all(self, kinds: Mapping[str, str]) -> list[str]:
        """Puts a new piece of each kind on its place (place -> kind) as one request: a layout
        asked for once rather than a piece at a time; returns the pieces' names."""
        by_kind: dict[str, list[str]] = {}
        for place, kind in kinds.items():
            by_kind.setdefault(kind, []).append(place)
        listed = "; ".join(f"{kind} on {', '.join(places)}" for kind, places in by_kind.items())
        self.request(f"Put new pieces: {listed}.")
        names = []
        for place, kind in kinds.items():
            self.counts[kind] = self.counts.get(kind, 0) + 1
            names.append(f"{kind}{self.counts[kind]}")
            self.stacks.setdefault(place, []).append(names[-1])
        return names

    def lift(self, place: str, *, away: bool = False) -> str:
        name = self.top(place)
        if away:
            self.request(f"Take the piece on {place} ({name}) off the board and put it aside.")
        else:
            self.request(f"Lift the piece on {place} ({name}) and keep it in your hand.")
        self.stacks[place].pop()
        if not away:
            self.hand.append(name)
        return name

    def move(self, src: str, dst: str) -> str:
        name = self.top(src)
        self.request(f"Move the piece on {src} ({name}) to {dst}.")
        self.stacks[src].pop()
        self.stacks.setdefault(dst, []).append(name)
        return name

    def slide(self, src: str, path: Sequence[str], step: float = 0.12) -> float:
        """Asks for the slide at about `step` seconds a cell; returns that estimate of how long
        it takes (a person's pace is not a clock's)."""
        if not path:
            raise ValueError("a slide needs a path")
        name = self.top(src)
        self.request(
            f"Slide the piece on {src} ({name}) without lifting it through {', '.join(path)}, "
            f"about {step:g} s a cell, and leave it on {path[-1]}."
        )
        self.stacks[src].pop()
        self.stacks.setdefault(path[-1], []).append(name)
        return step * len(path)

    def press(self, button: str, hold: float | None = None) -> None:
        if hold is None:
            self.request(f"Press and hold the `{button}` button until you are asked to let go.")
        else:
            self.request(f"Press and hold the `{button}` button for {hold:g} s, then let go.")

    def release(self, button: str) -> None:
        self.request(f"Let go of the `{button}` button.")

    def clear(self) -> int:
        """Asks for every piece off the board, trays too (a real board may hold pieces the
        record does not know of); returns how many the record had there."""
        count = sum(map(len, self.stacks.values()))
        self.request("Take every piece off the board and its trays, and put down any you hold.")
        self.stacks.clear()
        self.hand.clear()
        return count

    # Eyes.

    def leds(self) -> LedView:
        if self.camera is None:
            raise NotSupported("no camera watches the LEDs at this bench")
        return self.camera()

    def pieces(self) -> dict[str, list[str]]:
        return {place: list(stack) for place, stack in self.stacks.items() if stack}

    # Faults.

    def hang_bus(self, bus: str | None = None) -> None:
        where = f"the {bus} bus's SDA" if bus else "SDA"
        self.request(f"Hold {where} to GND with a jumper wire, and leave it there.")

    def release_bus(self, bus: str | None = None) -> None:
        where = f"the {bus} bus's SDA" if bus else "SDA"
        self.request(f"Remove the jumper wire from {where}.")

    def kill_expander(self, expander: int) -> None:
        self.request(f"Unplug {self._expander(expander)}'s connector.")

    def revive_expander(self, expander: int) -> None:
        self.request(f"Plug {self._expander(expander)}'s connector back in.")

    def reset_expander(self, expander: int) -> None:
        self.request(f"Touch {self._expander(expander)}'s RESET pin to GND for a moment.")

    def i2c_errors(self, expander: int, count: int) -> None:
        raise NotSupported("a person cannot make a given number of I2C transactions fail")

    @staticmethod
    def _expander(expander: int) -> str:
        return f"expander {expander} (address 0x{EXPANDER_BASE + expander:02x})"

    # The whole machine.

    def power_cut(self) -> None:
        """A cold cut, as a cafe has them: the plug pulled, no shutdown."""
        self.request("Pull the Pi's power plug (do not shut it down first).")

    def power_on(self) -> None:
        self.request("Plug the Pi's power back in.")
