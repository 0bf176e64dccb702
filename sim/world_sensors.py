"""What the Hall switches beneath the world report to the simulated electronics.

The world (`sim.world.World`) says which sensors its magnets reach; this feed turns that into
the levels the electronics are told, with the faults a real board adds, drawn from one
`random.Random(seed)` so a run repeats exactly: contact bounce, noise, stuck sensors, and the
faults of the electronics themselves (I2C error bursts, expanders resetting, dead LEDs), passed
down. Only the bits whose reported level changed are sent.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from magboard.hardware.spec import Place

from .clock import Scheduled
from .world_pieces import Bounce, Electronics, SensorRef, WorldError


class SensorFeed:
    """The sensor levels sent down to the electronics, and the faults over them. `World` adds
    what stands above the board, and says which sensors it trips (`_change`)."""

    def __init__(self, board: Electronics, seed: int = 0) -> None:
        self.board = board
        self.spec = board.spec
        self.clock = board.clock
        self.random = random.Random(seed)
        self.bounce: Bounce | None = None
        """Set to a `Bounce` to make every real sensor change bounce."""

        spec = self.spec
        self._bits_of: dict[Place, dict[str, int]] = {}
        for sensor in spec.sensors:
            self._bits_of.setdefault(sensor.place, {})[sensor.channel] = sensor.bit
        self._wired_bits = tuple(sensor.bit for sensor in spec.sensors)
        self._wired = frozenset(self._wired_bits)

        self._level = bytearray(spec.frame_bits)
        """Physical level of each bit: what a fault-free sensor would report."""
        self._frame = 0
        self._reported = bytearray(spec.frame_bits)
        """What the electronics were last told."""
        self._inverted: set[int] = set()
        self._flicker: dict[int, list[Scheduled]] = {}
        """Glitches still scheduled on a sensor, cancelled by its next real change."""
        self._stuck: dict[int, bool] = {}

    def expected_frame(self) -> int:
        """The frame a fault-free board reads now: no bounce, noise or stuck sensors."""
        return self._frame

    # -- faults ----------------------------------------------------------------------------

    def noise(self, rate_hz: float, duration: float, width: float = 0.002) -> int:
        """Blips of `width` seconds on random sensors at random times (a Poisson process of
        `rate_hz`) over the next `duration` seconds; returns how many were scheduled. A blip
        that would land on a sensor already flickering is dropped."""
        if rate_hz <= 0 or duration <= 0 or width <= 0:
            raise WorldError("noise needs a positive rate, duration and width")
        start = self.clock.now()
        t = self.random.expovariate(rate_hz)
        count = 0
        while t < duration:
            bit = self.random.choice(self._wired_bits)
            self.clock.call_at(start + t, lambda bit=bit: self._blip(bit, width))
            count += 1
            t += self.random.expovariate(rate_hz)
        return count

    def stick(self, sensor: SensorRef, level: bool) -> None:
        """That sensor reports `level` from now on, whatever is over it."""
        bit = self._bit(sensor)
        self._stuck[bit] = level
        self._send([bit])

    def unstick(self, sensor: SensorRef) -> None:
        bit = self._bit(sensor)
        self._stuck.pop(bit, None)
        self._send([bit])

    def inject_i2c_errors(self, expander: int, count: int) -> None:
        """A burst of `count` I2C errors on that expander, as the board beneath produces them."""
        self._check_expander(expander)
        self.board.inject_i2c_errors(expander, count)

    def reset_expander(self, expander: int) -> None:
        """The expander resets itself: its registers go back to power-on defaults."""
        self._check_expander(expander)
        self.board.reset_expander(expander)

    def kill_led(self, index: int) -> None:
        if not 0 <= index < self.spec.leds.count:
            raise WorldError(f"board {self.spec.name} has no LED {index}")
        self.board.kill_led(index)

    # -- inside ----------------------------------------------------------------------------

    def _check_expander(self, expander: int) -> None:
        if not 0 <= expander < len(self.spec.expanders):
            raise WorldError(f"board {self.spec.name} has no expander {expander}")

    def _bit(self, sensor: SensorRef) -> int:
        if isinstance(sensor, int):
            if sensor not in self._wired:
                raise WorldError(f"no sensor is wired to frame bit {sensor}")
            return sensor
        place, channel = sensor
        bit = self._bits_of.get(place, {}).get(channel)
        if bit is None:
            raise WorldError(f"no sensor {channel!r} under {place!r}")
        return bit

    def _change(self, bits: Sequence[int], bounce: bool) -> None:
        """The physical level of `bits` flipped: reports them, ending any glitch pending on
        them, and makes them bounce if the world bounces (`bounce`: a hand did it)."""
        for bit in bits:
            self._level[bit] ^= 1
            self._frame ^= 1 << bit
            self._calm(bit)
        self._send(bits)
        if bounce and self.bounce is not None:
            for bit in sorted(bits):
                self._bounce(bit, self.bounce)

    def _calm(self, bit: int) -> None:
        """A real change ends whatever glitch was pending on that sensor."""
        for event in self._flicker.pop(bit, ()):
            event.cancel()
        self._inverted.discard(bit)

    def _bounce(self, bit: int, bounce: Bounce) -> None:
        now = self.clock.now()
        moments = sorted(self.random.uniform(0, bounce.span) for _ in range(2 * bounce.toggles))
        events = self._flicker.setdefault(bit, [])
        for i, moment in enumerate(moments):
            last = i == len(moments) - 1
            events.append(
                self.clock.call_at(now + moment, lambda last=last: self._toggle(bit, last))
            )

    def _blip(self, bit: int, width: float) -> None:
        if bit in self._flicker:
            return
        self._toggle(bit, False)
        end = self.clock.call_later(width, lambda: self._toggle(bit, True))
        self._flicker[bit] = [end]

    def _toggle(self, bit: int, last: bool) -> None:
        self._inverted ^= {bit}
        if last:
            self._flicker.pop(bit, None)
        self._send([bit])

    def connect(self, board: Electronics) -> None:
        """Wires the world to new electronics (a board restarted after a power cut): the
        pieces stay where they are, and the new sensors are told what they see."""
        self.board = board
        self.clock = board.clock
        self._reported = bytearray(self.spec.frame_bits)
        self._send(self._wired_bits)

    def _send(self, bits: Iterable[int]) -> None:
        levels: dict[int, bool] = {}
        for bit in bits:
            level = self._stuck.get(bit)
            if level is None:
                level = bool(self._level[bit]) != (bit in self._inverted)
            if level != bool(self._reported[bit]):
                self._reported[bit] = level
                levels[bit] = level
        if levels:
            self.board.set_sensors(levels)
