"""What the firmware may ask of a board: the factory interface both the real and the simulated
boards implement (gpiozero's pin factories are the model).

Sensing, the referee and the lights see hardware only through this and the BoardSpec; they never
import a driver library or the simulator. One contract test suite runs against every board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from .spec import BoardSpec

RGB = tuple[int, int, int]


class Clock(Protocol):
    """Monotonic seconds. Real boards use time.monotonic; the simulator's time is virtual."""

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


@dataclass(frozen=True)
class Fault:
    """Something the hardware did wrong that the board survived (and what it did about it)."""

    kind: str
    """'i2c-error', 'expander-reset', 'expander-lost', 'expander-back', 'led-error'."""
    where: str
    detail: str
    at: float


@dataclass(frozen=True)
class Scan:
    """One read of every sensor.

    `frame` has bit `Sensor.bit` set where that Hall switch sees a magnet. `blind` has the bits
    of every expander that could not be read after retries: they hold the last value read, and
    nothing may be concluded from them.
    """

    frame: int
    blind: int
    faults: tuple[Fault, ...] = ()
    at: float = 0.0
    transfers: int = 0
    """I2C transactions the scan made (mux selects, chip reads and their retries, mux releases),
    so an error rate has something to be a rate of; 0 from a board that does not count them.
    The probes that try to set up a lost chip again are not counted: that chip is reported by
    its `expander-lost` fault and its blind bits, not as noise on the bus."""
    errors: int = 0
    """How many of those `transfers` failed (each retry that failed is one)."""

    @property
    def complete(self) -> bool:
        """Every expander was read."""
        return not self.blind


@dataclass(frozen=True)
class ButtonEvent:
    button: str
    pressed: bool
    at: float


class Board(Protocol):
    """A board the firmware drives. One thread owns it (the drivers share buffers)."""

    spec: BoardSpec
    clock: Clock

    def scan(self) -> Scan:
        """Reads every expander once; never raises for a bus fault (it retries, reinitialises
        a reset chip and reports what happened in `Scan.faults`)."""
        ...

    def wait_for_change(self, timeout: float) -> bool:
        """Blocks until an interrupt line or a button fires (True) or `timeout` seconds pass
        (False). A board with no interrupt lines waits out the timeout and says True."""
        ...

    def show(self, pixels: Sequence[RGB]) -> None:
        """Sends one frame to the LED chain, one colour per LED in chain order."""
        ...

    def verify(self) -> tuple[Fault, ...]:
        """Reads back what a chip could have lost without the scan seeing it, and sets up again
        any that did; for the slow safety poll."""
        ...

    def button_events(self) -> list[ButtonEvent]:
        """Presses and releases since the last call, oldest first."""
        ...

    def held_buttons(self) -> frozenset[str]:
        """The buttons down now, read from their lines rather than from edges: one held while
        the board starts (no edge to see) asks for the self-test."""
        ...

    def close(self) -> None: ...
