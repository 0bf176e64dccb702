"""Reading frames the way one game on one board needs them: which bits are which place, supply
slots counted rather than told apart, and how an observed frame differs from a rendered one."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from magboard.firmware.games import Cell
from magboard.hardware.spec import BoardSpec, Place, Slot

from .parts import Difference, Layout, Spot, Supply


class SensorMap:
    """The frame bits of a board, grouped by the places a game cares about."""

    def __init__(self, spec: BoardSpec, supplies: Iterable[Supply], area: Iterable[Cell]) -> None:
        self.spec = spec
        self.supplies = tuple(s for s in supplies if s.sensed)
        bit = spec.sensor_bit
        self.cell_masks: dict[Cell, int] = {}
        for sensor in spec.sensors:
            if not isinstance(sensor.place, Slot):
                self.cell_masks[sensor.place] = self.cell_masks.get(sensor.place, 0) | (
                    1 << sensor.bit
                )
        self.cells_mask = 0
        for mask in self.cell_masks.values():
            self.cells_mask |= mask
        self.fills: dict[str, tuple[int, ...]] = {}
        """Per sensed supply, the canonical bits for 0, 1, 2 ... pieces present."""
        for supply in self.supplies:
            masks, mask = [0], 0
            for slot in supply.slots:
                mask |= 1 << bit[(slot, "")]
                masks.append(mask)
            self.fills[supply.name] = tuple(masks)
        self._supply_masks = tuple((fill[-1], fill) for fill in self.fills.values())
        used = {slot for supply in self.supplies for slot in supply.slots}
        self.loose_slots = tuple(
            (slot, 1 << bit[(slot, "")]) for slot in spec.slots if slot not in used
        )
        needed = 0
        for cell in area:
            needed |= self.cell_masks.get(cell, 0)
        for fill in self.fills.values():
            needed |= fill[-1]
        self.needed = needed
        """Every bit the game reads: its area's cells and its sensed supplies' slots."""
        self._spot_of_bit: dict[int, tuple[Spot, int]] = {}
        """Frame bit -> the cell or sensed supply it belongs to, and all of that place's bits."""
        for cell, mask in self.cell_masks.items():
            for bit in _bits(mask):
                self._spot_of_bit[bit] = (cell, mask)
        for name, fill in self.fills.items():
            for bit in _bits(fill[-1]):
                self._spot_of_bit[bit] = (name, fill[-1])

    def canonical(self, frame: int) -> int:
        """The frame with each supply's pieces moved to its first slots: which slot a player
        took a piece from does not matter."""
        for mask, fill in self._supply_masks:
            present = frame & mask
            if present:
                frame = frame & ~mask | fill[present.bit_count()]
        return frame

    def count(self, frame: int, supply: str) -> int:
        return (frame & self.fills[supply][-1]).bit_count()

    def spots(self, bits: int) -> frozenset[Spot]:
        """The cells and sensed supplies where any of `bits` lie."""
        where = self._spot_of_bit
        return frozenset(where[b][0] for b in _bits(bits) if b in where)

    def cover(self, bits: int) -> int:
        """Every bit of each place where any of `bits` lie."""
        where, mask = self._spot_of_bit, 0
        for b in _bits(bits):
            if b in where:
                mask |= where[b][1]
        return mask

    def spot_mask(self, spot: Spot) -> int:
        return self.fills[spot][-1] if isinstance(spot, str) else self.cell_masks.get(spot, 0)

    def lifted_from(self, observed: int, expected: int) -> frozenset[Spot] | None:
        """If the (canonical) `observed` frame is `expected` with pieces taken away and
        nothing added, the places they were taken from; else None."""
        if observed & ~expected or observed == expected:
            return None
        return self.spots(expected & ~observed)

    def difference(
        self,
        observed: int,
        expected: int,
        layout: Layout,
        owner_at: Callable[[Cell], int | None],
    ) -> Difference:
        """What to remove and put back, place by place, for the raw `observed` frame to show
        `expected` (the frame of `layout`). Supply slots are judged by count; which slots to
        use is read off the raw frame."""
        remove: list[Place] = []
        put_back: list[tuple[Place, int | None]] = []
        if (observed ^ expected) & self.cells_mask:
            for cell, mask in self.cell_masks.items():
                seen, want = observed & mask, expected & mask
                if seen & ~want:
                    remove.append(cell)
                if want & ~seen:
                    put_back.append((cell, owner_at(cell)))
        bit = self.spec.sensor_bit
        for supply in self.supplies:
            full = [s for s in supply.slots if observed >> bit[(s, "")] & 1]
            want = layout.supplies.get(supply.name, 0)
            if len(full) > want:
                remove += full[want - len(full) :]
            elif len(full) < want:
                empty = [s for s in supply.slots if s not in full]
                put_back += [(s, supply.owner) for s in empty[: want - len(full)]]
        remove += [slot for slot, mask in self.loose_slots if observed & mask]
        return Difference(tuple(remove), tuple(put_back))


def _bits(mask: int) -> list[int]:
    """The positions of the set bits of `mask`, lowest first."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found
