"""A game's physical model on one board: what each position looks like to the sensors.

The referee's whole understanding of the physical world is to compare what the sensors see with
`render(state)` for the positions the rules allow next. A profile says where the game's area lies
on the lattice, which tray slots hold which supply, and the signature of each piece kind (the
cell channels its magnets trip). Pieces in a supply are interchangeable: a player may take any of
them, so supply slots are compared by how many are full (`canonical`), not by which.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from magboard.firmware.games import Action, Cell, Game, State
from magboard.hardware.spec import BoardSpec, Place, Slot, place_label


class ProfileError(ValueError):
    """A game that does not fit a board, or a profile that contradicts its board."""


@dataclass(frozen=True)
class PieceKind:
    name: str
    signature: frozenset[str]
    """Cell channels its magnets trip where it stands."""
    owner: int | None
    """The player whose colour shows for it (None: neutral)."""
    label: str = ""
    """What is printed on it, for drawings of the board (X, O, S, M, L)."""
    size: int = 1
    """Relative size, 1 to 3, for drawings (Small, Medium, Large markers)."""


@dataclass(frozen=True)
class Supply:
    """Interchangeable pieces of one kind waiting in tray slots."""

    name: str
    kind: PieceKind
    slots: tuple[Slot, ...]


@dataclass(frozen=True)
class Layout:
    """Where every piece of a position physically is: stacks on board cells (bottom to top, in
    board coordinates) and how many pieces each supply holds."""

    cells: Mapping[Cell, tuple[PieceKind, ...]]
    supplies: Mapping[str, int]


@dataclass(frozen=True)
class Difference:
    """How an observed board differs from a position, by place."""

    remove: tuple[Place, ...] = ()
    """Places holding something the position does not have there."""
    put_back: tuple[tuple[Place, int | None], ...] = ()
    """Places missing something, with the owner of what belongs there."""

    def __bool__(self) -> bool:
        return bool(self.remove or self.put_back)

    def labels(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (
            tuple(place_label(p) for p in self.remove),
            tuple(place_label(p) for p, _ in self.put_back),
        )


@dataclass(frozen=True)
class Movement:
    """The physical side of one action: places that lose pieces and places that gain them.
    A supply counts as one place, named by the supply."""

    lifted: frozenset[Cell | str]
    placed: frozenset[Cell | str]

    @property
    def physical(self) -> bool:
        return bool(self.lifted or self.placed)


@dataclass(frozen=True)
class Step:
    """One movement of a hand: a piece from a place to a place (a supply is one place)."""

    source: Cell | str
    target: Cell | str


@dataclass
class Profile(ABC):
    game: Game
    spec: BoardSpec
    origin: Cell
    """The board cell under the game's a1."""
    kinds: tuple[PieceKind, ...]
    supplies: tuple[Supply, ...]
    settle: float = 0.25
    """Seconds the board must be still before a frame is judged: long enough that a hand
    sliding a piece never commits the squares it passes, short enough to feel immediate."""
    _frames: dict[State, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        width, height = self.game.board
        col, row = self.origin
        if col < 0 or row < 0 or col + width > self.spec.columns or row + height > self.spec.rows:
            raise ProfileError(
                f"{self.game.name}'s {width}x{height} area at {place_label(self.origin)} does "
                f"not fit board {self.spec.name} ({self.spec.columns}x{self.spec.rows})"
            )
        channels = {c.name for c in self.spec.channels}
        for kind in self.kinds:
            if not kind.signature <= channels:
                raise ProfileError(
                    f"piece {kind.name} trips channels {sorted(kind.signature - channels)} "
                    f"that board {self.spec.name} does not have"
                )
        slots = [slot for supply in self.supplies for slot in supply.slots]
        if len(slots) != len(set(slots)) or not set(slots) <= set(self.spec.slots):
            raise ProfileError(
                f"supplies of {self.game.name} on {self.spec.name} use unknown or shared tray slots"
            )

    @abstractmethod
    def layout(self, state: State) -> Layout:
        """Where the pieces of `state` are on this board."""

    # What the sensors would see.

    def to_board(self, cell: Cell) -> Cell:
        return cell[0] + self.origin[0], cell[1] + self.origin[1]

    def render(self, state: State) -> int:
        """The frame `state` shows, with supplies filled from their first slot."""
        frame = self._frames.get(state)
        if frame is None:
            frame = self.frame_of(self.layout(state))
            if len(self._frames) > 50_000:
                self._frames.clear()
            self._frames[state] = frame
        return frame

    def frame_of(self, layout: Layout) -> int:
        bit = self.spec.sensor_bit
        frame = 0
        for cell, stack in layout.cells.items():
            for kind in stack:
                for channel in kind.signature:
                    frame |= 1 << bit[(cell, channel)]
        for supply in self.supplies:
            frame |= self._supply_fill[supply.name][layout.supplies.get(supply.name, 0)]
        return frame

    @cached_property
    def _supply_fill(self) -> dict[str, tuple[int, ...]]:
        """Per supply, the canonical bits for 0, 1, 2 ... pieces present."""
        fills = {}
        for supply in self.supplies:
            masks, mask = [0], 0
            for slot in supply.slots:
                mask |= 1 << self.spec.sensor_bit[(slot, "")]
                masks.append(mask)
            fills[supply.name] = tuple(masks)
        return fills

    @cached_property
    def _supply_masks(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        return tuple(
            (self._supply_fill[s.name][-1], self._supply_fill[s.name]) for s in self.supplies
        )

    def canonical(self, frame: int) -> int:
        """The frame with each supply's pieces moved to its first slots: which slot a player
        took a piece from does not matter."""
        for mask, fill in self._supply_masks:
            present = frame & mask
            if present:
                frame = frame & ~mask | fill[present.bit_count()]
        return frame

    # Comparing a board with a position.

    @cached_property
    def _cell_masks(self) -> dict[Cell, int]:
        masks: dict[Cell, int] = {}
        for sensor in self.spec.sensors:
            if not isinstance(sensor.place, Slot):
                masks[sensor.place] = masks.get(sensor.place, 0) | 1 << sensor.bit
        return masks

    @cached_property
    def _loose_slots(self) -> tuple[tuple[Slot, int], ...]:
        used = {slot for supply in self.supplies for slot in supply.slots}
        return tuple(
            (slot, 1 << self.spec.sensor_bit[(slot, "")])
            for slot in self.spec.slots
            if slot not in used
        )

    def owner_at(self, layout: Layout, cell: Cell) -> int | None:
        stack = layout.cells.get(cell, ())
        return stack[-1].owner if stack else None

    def difference(self, observed: int, state: State) -> Difference:
        """What to remove and put back, place by place, for the raw `observed` frame to show
        `state`. Supply slots are judged by count; which slots to use is read off the raw frame."""
        expected = self.render(state)
        layout = self.layout(state)
        remove: list[Place] = []
        put_back: list[tuple[Place, int | None]] = []
        if (observed ^ expected) & self._cells_mask:
            for cell, mask in self._cell_masks.items():
                seen, want = observed & mask, expected & mask
                if seen & ~want:
                    remove.append(cell)
                if want & ~seen:
                    put_back.append((cell, self.owner_at(layout, cell)))
        bit = self.spec.sensor_bit
        for supply in self.supplies:
            full = [s for s in supply.slots if observed >> bit[(s, "")] & 1]
            want = layout.supplies.get(supply.name, 0)
            if len(full) > want:
                remove += full[want - len(full) :]
            elif len(full) < want:
                empty = [s for s in supply.slots if s not in full]
                put_back += [(s, supply.kind.owner) for s in empty[: want - len(full)]]
        remove += [slot for slot, mask in self._loose_slots if observed & mask]
        return Difference(tuple(remove), tuple(put_back))

    @cached_property
    def _cells_mask(self) -> int:
        mask = 0
        for cell_mask in self._cell_masks.values():
            mask |= cell_mask
        return mask

    def movement(self, before: State, action: Action) -> Movement:
        """Which places an action empties and fills (a supply is one place)."""
        return self.layout_change(self.layout(before), self.layout(before.apply(action)))

    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        """The action of putting a piece of `kind` from its supply on board `cell`, legal or
        not, so a refusal can say why; None off the game's area or where the game has no such
        action. Games whose pieces go down from a supply say how."""
        return None

    def to_game(self, cell: Cell) -> Cell | None:
        """The game's cell under board `cell`, or None off the game's area."""
        col, row = cell[0] - self.origin[0], cell[1] - self.origin[1]
        width, height = self.game.board
        return (col, row) if 0 <= col < width and 0 <= row < height else None

    def plan(self, state: State, action: Action) -> tuple[Step, ...]:
        """How a hand performs `action` (for the simulator and for teaching lights). One piece
        from the one place that loses it to the one that gains it; games whose actions move
        several pieces at once say how."""
        movement = self.movement(state, action)
        if not movement.physical:
            return ()
        if len(movement.lifted) == 1 and len(movement.placed) == 1:
            return (Step(*movement.lifted, *movement.placed),)
        raise ProfileError(f"{self.game.name}: no plan for {action}, which moves several pieces")

    def layout_change(self, before: Layout, after: Layout) -> Movement:
        lifted: set[Cell | str] = set()
        placed: set[Cell | str] = set()
        for cell in before.cells.keys() | after.cells.keys():
            old, new = before.cells.get(cell, ()), after.cells.get(cell, ())
            if old != new:
                common = 0
                while common < min(len(old), len(new)) and old[common] == new[common]:
                    common += 1
                if len(old) > common:
                    lifted.add(cell)
                if len(new) > common:
                    placed.add(cell)
        for name in before.supplies.keys() | after.supplies.keys():
            change = after.supplies.get(name, 0) - before.supplies.get(name, 0)
            if change < 0:
                lifted.add(name)
            elif change > 0:
                placed.add(name)
        return Movement(frozenset(lifted), frozenset(placed))

    def places_of(self, spots: Iterable[Cell | str]) -> frozenset[Place]:
        """Board places to light for cells and supplies (a supply lights its slots)."""
        by_name = {s.name: s for s in self.supplies}
        places: set[Place] = set()
        for spot in spots:
            if isinstance(spot, str):
                places.update(by_name[spot].slots)
            else:
                places.add(spot)
        return frozenset(places)

    def lifted_from(self, observed: int, state: State) -> frozenset[Cell | str] | None:
        """If the (canonical) `observed` frame is `state` with pieces taken away and nothing
        added, the places they were taken from; else None."""
        expected = self.render(state)
        if observed & ~expected or observed == expected:
            return None
        lifted: set[Cell | str] = set()
        for cell, mask in self._cell_masks.items():
            if (expected & ~observed) & mask:
                lifted.add(cell)
        for supply in self.supplies:
            mask = self._supply_fill[supply.name][-1]
            if (expected & ~observed) & mask:
                lifted.add(supply.name)
        return frozenset(lifted)
