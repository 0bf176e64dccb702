"""A game's physical model on one board: what each position looks like to the sensors.

The referee's whole understanding of the physical world is to compare what the sensors see with
`render(state)` for the few positions the changed places allow. A profile says where the game's
area lies on the lattice, which supplies hold which pieces (sensed tray slots, or an unsensed
box), and the signature of each piece kind (the cell channels its magnets trip). Pieces in a
supply are interchangeable: a player may take any of them, so supply slots are compared by how
many are full (`canonical`), not by which.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from magboard.firmware.games import Action, Cell, Game, State
from magboard.hardware.spec import BoardSpec, Place, place_label

from .parts import (
    Asked,
    Difference,
    Layout,
    Movement,
    PieceKind,
    Spot,
    Step,
    Supply,
    TileKind,
    TileStep,
)
from .sensors import SensorMap

FRAME_CACHE = 50_000
"""Rendered frames kept per profile; emptied whole when full (positions recur within a game)."""


class ProfileError(ValueError):
    """A game that does not fit a board, or a profile that contradicts its board."""


class NotProvided(ProfileError):
    """A board without what a game's profile needs: a lattice that holds its area, the
    channels its pieces and tiles trip. Such a board does not play the game
    (`profiles.profiled_pairs`)."""


def _row_major(cell: Cell) -> tuple[int, int]:
    """Row by row from a1, the order a board lists its cells in."""
    return cell[1], cell[0]


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
    extent: tuple[int, int] | None = None
    """Columns and rows of the game's lattice with its options (default: the game's)."""
    tile: TileKind | None = None
    """The magnets of the game's 2x2 grid tiles, where it has tiles."""
    _frames: dict[State, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.extent is None:
            self.extent = self.game.board
        width, height = self.extent
        col, row = self.origin
        if col < 0 or row < 0 or col + width > self.spec.columns or row + height > self.spec.rows:
            raise NotProvided(
                f"{self.game.name}'s {width}x{height} area at {place_label(self.origin)} does "
                f"not fit board {self.spec.name} ({self.spec.columns}x{self.spec.rows})"
            )
        self._refuse_holes()
        channels = {c.name for c in self.spec.channels}
        if self.tile is not None and not self.tile.signature | self.tile.key <= channels:
            raise NotProvided(f"{self.game.name}'s tiles trip channels {self.spec.name} lacks")
        for kind in self.kinds:
            if not kind.signature <= channels:
                raise NotProvided(
                    f"piece {kind.name} trips channels {sorted(kind.signature - channels)} "
                    f"that board {self.spec.name} does not have"
                )
        slots = [slot for supply in self.supplies for slot in supply.slots]
        if len(slots) != len(set(slots)) or not set(slots) <= set(self.spec.slots):
            raise ProfileError(
                f"supplies of {self.game.name} on {self.spec.name} use unknown or shared tray slots"
            )

    def _refuse_holes(self) -> None:
        """A hole under the game's area has no sensors and no LED: a position with a piece there
        could be neither seen nor lit, so the game is refused when it is chosen, not when a
        piece first lands there."""
        holes = [cell for cell in sorted(self.spec.holes, key=_row_major) if cell in self.area]
        if not holes:
            return
        assert self.extent is not None
        width, height = self.extent
        corner = self.to_board((width - 1, height - 1))
        where = ", ".join(place_label(cell) for cell in holes)
        found = f"holes at {where} are" if len(holes) > 1 else f"hole at {where} is"
        raise ProfileError(
            f"{self.spec.path.name}: lattice.holes: {found} inside {self.game.name}'s area "
            f"({place_label(self.origin)}-{place_label(corner)})"
        )

    @abstractmethod
    def layout(self, state: State) -> Layout:
        """Where the pieces of `state` are on this board."""

    # Where the game lies on the lattice.

    def to_board(self, cell: Cell) -> Cell:
        return cell[0] + self.origin[0], cell[1] + self.origin[1]

    def to_game(self, cell: Cell) -> Cell | None:
        """The game's cell under board `cell`, or None off the game's area."""
        assert self.extent is not None
        col, row = cell[0] - self.origin[0], cell[1] - self.origin[1]
        width, height = self.extent
        return (col, row) if 0 <= col < width and 0 <= row < height else None

    @cached_property
    def area(self) -> frozenset[Cell]:
        """Board cells under the game's lattice."""
        assert self.extent is not None
        width, height = self.extent
        return frozenset(self.to_board((c, r)) for c in range(width) for r in range(height))

    @cached_property
    def sensors(self) -> SensorMap:
        return SensorMap(self.spec, self.supplies, self.area)

    def supply(self, name: str) -> Supply:
        for supply in self.supplies:
            if supply.name == name:
                return supply
        raise KeyError(name)

    # What the sensors would see.

    def render(self, state: State) -> int:
        """The (canonical) frame `state` shows."""
        frame = self._frames.get(state)
        if frame is None:
            frame = self.draw(state)
            if len(self._frames) > FRAME_CACHE:
                self._frames.clear()
            self._frames[state] = frame
        return frame

    def may_become(self, state: State, frame: int) -> bool:
        """False where no way to go on with the turn from `state` (stopping there included)
        can show the canonical `frame`: the referee's search leaves such positions unexplored.
        A profile that knows its game's turns well answers cheaply; the default never prunes."""
        return True

    def may_become_any(self, state: State, frames: Iterable[int]) -> bool:
        """Whether `state` may become any of the canonical `frames` (`may_become`): a profile
        may weigh the position once for them all."""
        return any(self.may_become(state, frame) for frame in frames)

    def draw(self, state: State) -> int:
        """The frame of `state`, uncached; a profile whose positions are many may draw them
        faster than through their layout."""
        return self.frame_of(self.layout(state))

    def frame_of(self, layout: Layout) -> int:
        bit = self.spec.sensor_bit
        frame = 0
        for cell, stack in layout.cells.items():
            for kind in stack:
                for channel in kind.signature:
                    frame |= 1 << bit[(cell, channel)]
        for name, fill in self.sensors.fills.items():
            frame |= fill[layout.supplies.get(name, 0)]
        if layout.tiles:
            assert self.tile is not None
            for spot in layout.tiles:
                for cell in spot.cells:
                    for channel in self.tile.signature:
                        frame |= 1 << bit[(cell, channel)]
                for channel in self.tile.key:
                    frame |= 1 << bit[(spot.key, channel)]
        return frame

    def canonical(self, frame: int) -> int:
        return self.sensors.canonical(frame)

    # Comparing a board with a position.

    def owner_at(self, layout: Layout, cell: Cell) -> int | None:
        stack = layout.cells.get(cell, ())
        return stack[-1].owner if stack else None

    def difference(self, observed: int, state: State) -> Difference:
        """What to remove and put back for the raw `observed` frame to show `state`."""
        layout = self.layout(state)
        return self.sensors.difference(
            observed, self.render(state), layout, lambda cell: self.owner_at(layout, cell)
        )

    def lifted_from(self, observed: int, state: State) -> frozenset[Spot] | None:
        """If the (canonical) `observed` frame is `state` with pieces taken away and nothing
        added, the places they were taken from; else None."""
        return self.sensors.lifted_from(observed, self.render(state))

    # The physical side of actions.

    def movement(self, before: State, action: Action) -> Movement:
        """Which places a legal action empties and fills (a supply is one place)."""
        return self.layout_change(self.layout(before), self.layout(before.advance(action)))

    def placement(self, state: State, kind: PieceKind, cell: Cell) -> Action | None:
        """The action of putting a piece of `kind` from its supply on board `cell`, legal or
        not, so a refusal can say why; None off the game's area or where the game has no such
        action. Games whose pieces go down from a supply say how."""
        return None

    def moving(self, state: State, source: Cell, target: Cell) -> Action | None:
        """The action of moving the piece on board cell `source` to board cell `target`, legal
        or not, so a refusal can say why (its target may lie off the game's area, which
        `explain` says before asking the rules); None where the game moves no pieces so."""
        return None

    def plan(self, state: State, action: Action) -> tuple[Step | TileStep, ...]:
        """How a hand performs `action` (for the simulator, and for lights that show a move to
        be made). One piece from the one place that loses it to the one that gains it; games
        whose actions move several pieces at once say how."""
        movement = self.movement(state, action)
        if not movement.physical:
            return ()
        if len(movement.lifted) == 1 and len(movement.placed) == 1:
            return (Step(*movement.lifted, *movement.placed),)
        raise ProfileError(f"{self.game.name}: no plan for {action}, which moves several pieces")

    def layout_change(self, before: Layout, after: Layout) -> Movement:
        lifted: set[Spot] = set()
        placed: set[Spot] = set()
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

    def choice_places(self, state: State, action: Action) -> frozenset[Place]:
        """Board places to light while a pending choice points at `action` (the squares of the
        Magnetman type it names); none by default."""
        return frozenset()

    def tried(self, state: State) -> tuple[Action, ...]:
        """Actions the rules forbid here that a hand may still make and the board can draw,
        so a refusal can say why (`explain.forbidden`). Most games need none: their refused
        moves are explained from what the board shows."""
        return ()

    def tried_shown(self, state: State, frame: int) -> Action | None:
        """The action of `tried(state)` whose result the canonical `frame` shows, if any. A
        profile whose tried actions reach positions the rules cannot hold (a tile off the
        game's area, a tile the turn does not move) draws those itself."""
        for action in self.tried(state):
            if self.render(state.advance(action)) == frame:
                return action
        return None

    def next_up(self, state: State) -> tuple[frozenset[Place], frozenset[Place]]:
        """What the turn in progress must move next, and where it may go, for the lights
        between the actions of a turn. Most games have nothing to show there: a lifted piece
        shows its own targets."""
        return frozenset(), frozenset()

    def asked(self, state: State) -> Asked | None:
        """What the rules ask the turn in progress to do by hand before it may go on, where a
        player chooses the square (a Magnetmen Explorer's destruction): the lights and the
        words say it, as no lifted piece does. Most games ask nothing of the kind."""
        return None

    def places_of(self, spots: Iterable[Spot]) -> frozenset[Place]:
        """Board places to light for cells and supplies (a sensed supply lights its slots; an
        unsensed one has nothing to light)."""
        places: set[Place] = set()
        for spot in spots:
            if isinstance(spot, str):
                places.update(self.supply(spot).slots)
            else:
                places.add(spot)
        return frozenset(places)
