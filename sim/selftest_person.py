"""A person doing the self-test on a simulated board, as a person at the real one would.

They know only what the test asks of everyone (firmware/app/selftest.py): clear the board when
every square is lit, put a magnet on the one lit square and lift it until the light moves on,
and press the "cannot see it" button when a square should be lit and none is. They see the
board only through `SimBoard.visible_leds()` (a dead LED stays dark to them as it would to a
person), and they move the magnet by the board's sensor levels, so the test meets them below the
`Board` interface, as it meets a hand on the real board.

Their magnet is a test puck: a centre magnet with ring magnets around it. One face trips the
channels that sense north or any pole, the other those that sense south or any; put down again,
it is put down on the other face, so two tries prove every switch of an r1 cell.

They act in virtual time: a reaction to what the LEDs show, a reach, a hold, a turn of the puck,
about two seconds a cell, and they never act while the clock does not move.
"""

from __future__ import annotations

from dataclasses import dataclass

from magboard.hardware.spec import BoardSpec, Place, Slot

from .board import SimBoard


@dataclass(frozen=True)
class Pace:
    """Seconds a person takes for each move."""

    react: float = 0.3
    """From the LEDs changing to noticing it."""
    reach: float = 0.5
    """From deciding to the puck touching the square."""
    hold: float = 0.4
    turn: float = 0.3
    """From lifting the puck to looking again, turned over."""
    patience: float = 1.5
    """How long a board with nothing lit is watched before saying so with the button."""
    press: float = 0.2


def puck_faces(spec: BoardSpec) -> tuple[frozenset[str], ...]:
    """The cell channels each face of the puck trips (one face when every channel senses any
    pole)."""
    faces = []
    for pole in ("north", "south"):
        face = frozenset(c.name for c in spec.channels if c.senses in (pole, "any"))
        if face and face not in faces:
            faces.append(face)
    return tuple(faces)


class SelfTestPerson:
    """Follows the self-test's lights on `board` until the program stops waiting."""

    def __init__(self, board: SimBoard, button: str | None, pace: Pace | None = None) -> None:
        self.board = board
        self.button = button
        self.pace = pace or Pace()
        self.faces = puck_faces(board.spec)
        self.leds = {
            led: place for place, led in board.spec.led_index.items() if not isinstance(place, str)
        }
        self._bits: dict[Place, list[tuple[int, str]]] = {}
        for sensor in board.spec.sensors:
            self._bits.setdefault(sensor.place, []).append((sensor.bit, sensor.channel))
        self.busy = False
        """A hand on its way, or on the board."""
        self.tries: dict[Place, int] = {}
        self.presses = 0
        self._seen_lit = False
        self._frames = 0
        self._watching_dark = False
        board.led_wire.listeners.append(self._frame_sent)

    # What they see.

    def lit(self) -> list[Place]:
        """The squares they can see lit now."""
        visible = self.board.visible_leds()
        return [place for led, place in self.leds.items() if any(visible[led])]

    def _frame_sent(self, data: bytes) -> None:
        self._frames += 1
        self.board.clock.call_later(self.pace.react, self._look)

    def _look(self) -> None:
        if self.busy:
            return  # they look again once the hand is back
        lit = self.lit()
        if len(lit) == 1:
            self._seen_lit = True
            self.busy = True
            square = lit[0]
            self.board.clock.call_later(self.pace.reach, lambda: self._put(square))
        elif lit:
            self._seen_lit = True  # every square: the board is to be cleared, and it is
        elif self._seen_lit and not self._watching_dark:
            self._watching_dark = True
            frames = self._frames
            self.board.clock.call_later(self.pace.patience, lambda: self._still_dark(frames))

    # What they do.

    def _put(self, square: Place) -> None:
        if square not in self.lit():
            self._back()  # the light moved on while the hand was on its way: follow it
            return
        face = self.faces[self.tries.get(square, 0) % len(self.faces)]
        bits = [
            bit
            for bit, channel in self._bits[square]
            if isinstance(square, Slot) or channel in face
        ]
        self.board.set_sensors(dict.fromkeys(bits, True))
        self.board.clock.call_later(self.pace.hold, lambda: self._lift(square, bits))

    def _lift(self, square: Place, bits: list[int]) -> None:
        self.board.set_sensors(dict.fromkeys(bits, False))
        self.tries[square] = self.tries.get(square, 0) + 1
        self.board.clock.call_later(self.pace.turn, self._back)

    def _back(self) -> None:
        self.busy = False
        self._look()

    def _still_dark(self, frames: int) -> None:
        self._watching_dark = False
        if self.busy or frames != self._frames or self.lit() or self.button is None:
            return
        self.presses += 1
        self.board.press(self.button)
        self.board.clock.call_later(self.pace.press, lambda: self.board.release(self.button))
