"""What the hardware-in-the-loop tests do to a board: the physical side, as hands do it.

`PhysicalBoard` is the board as a test sees it from outside the Pi: pieces put, lifted, moved
and slid, buttons pressed, the LEDs looked at, and the faults a bench can make. Against the
emulated machine it is `world_link.EmulatedBoard`, which sends each action over the world
channel to the simulated board in the guest. Against a real Pi with a board attached it is
`bench.PersonAtBoard`, which asks a person for each action on a terminal and reads the LEDs
with a camera when it has one (a robot would be a third class with the same methods). Faults a
bench cannot make raise `NotSupported`.

Places are written as the rest of the project writes them (`hardware.spec.place_label`): cells
`a1`, `l12`; tray slots `A1`. A piece is of a kind with a name (`X`, `north`), whose magnets
trip the channels `magnets` (`n`, `s`, `i`, `o` on r1) - what a real piece of that kind has
under it; the emulated board needs them the first time a kind is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

RGB = tuple[int, int, int]


class NotSupported(NotImplementedError):
    """This board cannot do that (a fault a real bench cannot make, say)."""


@dataclass(frozen=True)
class LedView:
    """What the LED chain shows: its colours, one per LED (None before any frame), how many
    frames it has received and how long ago the last one came (seconds, None before any)."""

    colours: tuple[RGB, ...] | None
    frames: int
    age: float | None


class PhysicalBoard(Protocol):
    """A board, from the outside: what hands do to it and what eyes see on it."""

    # Hands.

    def put(self, place: str, kind: str | None = None, magnets: Sequence[str] = ()) -> str:
        """Puts a new piece of `kind` on `place` (on top of a stack), or with no kind the piece
        in the hand (the one lifted last); returns the piece's name."""

    def lift(self, place: str, *, away: bool = False) -> str:
        """Takes the top piece off `place` into the hand (or `away`, off the board for good)."""

    def move(self, src: str, dst: str) -> str:
        """Lifts the top piece of `src` and puts it on `dst` at once."""

    def slide(self, src: str, path: Sequence[str], step: float = 0.12) -> float:
        """Drags the top piece of `src` across the neighbouring cells of `path`, a cell every
        `step` seconds; returns the seconds until it comes to rest on the last."""

    def press(self, button: str, hold: float | None = None) -> None:
        """Presses `button`: until `release`, or for `hold` seconds."""

    def release(self, button: str) -> None: ...

    def clear(self) -> int:
        """Takes every piece off the board; returns how many."""

    # Eyes.

    def leds(self) -> LedView: ...

    def pieces(self) -> dict[str, list[str]]:
        """The pieces on the board: place -> names, bottom to top."""

    # Faults.

    def hang_bus(self, bus: str | None = None) -> None:
        """The I2C bus stops answering (a target holding SDA low) until `release_bus`."""

    def release_bus(self, bus: str | None = None) -> None: ...

    def kill_expander(self, expander: int) -> None:
        """The expander stops answering (unplugged, dead)."""

    def revive_expander(self, expander: int) -> None:
        """An expander answers again, fresh from power-on (plugged back in)."""

    def reset_expander(self, expander: int) -> None:
        """The expander loses its registers (a brown-out on its supply)."""

    def i2c_errors(self, expander: int, count: int) -> None:
        """The next `count` transactions with the expander fail (noise, a loose connector)."""
