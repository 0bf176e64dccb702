"""From raw scans to what the referee may judge: debounced places, then stable frames.

Two time scales. A place (a cell's channels together, or a tray slot) takes a new value only after
it has held it for `debounce` (tens of milliseconds): contact bounce as a magnet arrives and
single-sensor noise never reach the referee. The whole board is *stable* once no place has
changed for `settle` (about a quarter of a second): a hand sliding a piece across squares keeps
the board unsettled, so the squares it passed are never judged. The debounced frames seen on the
way (the trail) are kept, to tell the order of two moves made without a pause.
"""

from __future__ import annotations

from magboard.hardware.spec import BoardSpec

DEBOUNCE = 0.03
SETTLE = 0.25


class Debouncer:
    def __init__(self, spec: BoardSpec, debounce: float = DEBOUNCE, settle: float = SETTLE) -> None:
        self.debounce = debounce
        self.settle = settle
        masks: dict[object, int] = {}
        for sensor in spec.sensors:
            masks[sensor.place] = masks.get(sensor.place, 0) | 1 << sensor.bit
        self._masks = tuple(masks.values())
        self._place_of_bit = {
            bit: index
            for index, mask in enumerate(self._masks)
            for bit in range(mask.bit_length())
            if mask >> bit & 1
        }
        self.reset(0, 0.0)

    def reset(self, frame: int, now: float) -> None:
        """Takes `frame` as what the board shows and has already been judged (at start-up)."""
        self.raw = self.debounced = frame
        self._pending: dict[int, tuple[int, float]] = {}
        self._changed_at = now
        self._blind = 0
        self._reported: int | None = frame
        self.trail: list[int] = []

    def feed(self, frame: int, now: float, blind: int = 0) -> bool:
        """Takes one scan; True if the debounced frame changed. Bits in `blind` (an expander
        that could not be read) keep their last value, and the rest of the board is judged as
        usual; once they can be read again, nothing is judged until the board has settled in
        full view."""
        if self._blind & ~blind:
            self._changed_at = now
        self._blind = blind
        frame = frame & ~blind | self.raw & blind
        changed = frame ^ self.raw
        self.raw = frame
        while changed:
            low = changed & -changed
            changed ^= low
            place = self._place_of_bit.get(low.bit_length() - 1)
            if place is None:
                continue  # a spare expander input: nothing is wired there
            mask = self._masks[place]
            value = frame & mask
            if value == self.debounced & mask:
                self._pending.pop(place, None)
            else:
                self._pending[place] = (value, now)
        return self.promote(now)

    def promote(self, now: float) -> bool:
        """Places that have held a new value for `debounce` take it."""
        ready = [p for p, (_, since) in self._pending.items() if now - since >= self.debounce]
        for place in ready:
            value, _ = self._pending.pop(place)
            self.debounced = self.debounced & ~self._masks[place] | value
        if ready:
            self._changed_at = now
            self._reported = None  # what settles next is judged, even a frame seen before
            self.trail.append(self.debounced)
        return bool(ready)

    def stable(self, now: float) -> int | None:
        """The debounced frame, once, when the board has been still for `settle`."""
        if (
            self._pending
            or now - self._changed_at < self.settle
            or self.debounced == self._reported
        ):
            return None
        self._reported = self.debounced
        return self.debounced

    def hold(self, now: float) -> None:
        """Nothing is stable before the board has been still for `settle` from `now`: what was
        seen before a fault is not enough to conclude anything from."""
        self._changed_at = max(self._changed_at, now)

    @property
    def pending(self) -> bool:
        """Some place is changing and not yet debounced."""
        return bool(self._pending)

    def take_trail(self) -> list[int]:
        trail, self.trail = self.trail, []
        return trail

    def next_deadline(self) -> float | None:
        """When something will be due without any new scan: a pending place, or stability."""
        deadlines = [since + self.debounce for _, since in self._pending.values()]
        if self.debounced != self._reported:
            deadlines.append(self._changed_at + self.settle)
        return min(deadlines) if deadlines else None

    def forget_stable(self) -> None:
        """Judge the current frame again at the next stable point (after a new game, say)."""
        self._reported = None
