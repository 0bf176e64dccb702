"""A Magnetmen state's fields: the squares' states, the inventories, who took a King, and the
turn in progress."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from ..core import Outcome, State
from .generator import Printed
from .scoring import Icon, Tally
from .scoring import scores as tally_scores
from .setup import Setup, bits


class Duty(Enum):
    """What the turn in progress must do before anything else."""

    NONE = "none"
    EXPLORE = "explore"
    """Destroy an unused square (the Explorer)."""
    PILOT = "pilot"
    """Collect a square in the Pilot's row or column, ignoring every rule."""
    LOSE = "lose"
    """The first of `choosers` destroys an icon of their own (the Actress, main text)."""
    GAIN = "gain"
    """The first of `choosers` gains an icon (the Actress, alternative text)."""


@dataclass(frozen=True)
class MagnetmenFields(State):
    """A Magnetmen state's fields and what reads them alone. The rules' modules (restrictions,
    legal, turns, powers, reasons) work on it as functions; `MagnetmenState` is this with the
    contract's methods built from them."""

    setup: Setup
    collected: int = 0
    """Squares crossed out, a Police square collected once among them."""
    destroyed: int = 0
    police: int = 0
    """Police squares collected once: crossed out, and collectable once more."""
    counts: tuple[tuple[int, ...], ...] = ()
    """Per seat, its icons of each of the board's types (`Setup.kinds`)."""
    squares: tuple[tuple[tuple[int, int], ...], ...] = ()
    """Per seat, (type, square) of each icon whose square matters (`Setup.marked`), sorted; an
    icon gained without a square is counted but not listed."""
    retired: int = 0
    """Seats that took a King (main text): bit per seat."""
    to_move: int = 0
    turn: int = 0
    collections: int = 0
    """Collections made in the turn in progress."""
    duty: Duty = Duty.NONE
    pilot: int = -1
    """The Pilot's square while its extra collection is owed."""
    choosers: tuple[int, ...] = ()
    """The seats whose Actress choice is still owed, the one choosing now first."""
    fire: bool = False
    """A Firefighter (main text) was collected this turn."""
    extra: int = 0
    """Extra collections ignoring repel still allowed (Firefighter, alternative text)."""
    singer: int = 0
    """Icon destructions still allowed (Singer, alternative text)."""
    result: Outcome | None = None

    def _evolve(self, **changes: Any) -> MagnetmenFields:
        """This state with `changes`: `dataclasses.replace` without its per-call checks, as
        perft and the referee's search make many thousands of states."""
        after = object.__new__(type(self))
        values = after.__dict__
        values.update(self.__dict__)
        for worked_out in _WORKED_OUT:
            values.pop(worked_out, None)
        values.update(changes)
        return after

    def __hash__(self) -> int:
        """The fields' hash, worked out once: perft and the referee look positions up in sets."""
        known = self.__dict__.get("_hash")
        if known is None:
            mine = self.__dict__
            known = mine["_hash"] = hash(tuple(mine[name] for name in _FIELDS))
        return known

    # -- what the contract asks ----------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def extent(self) -> tuple[int, int]:
        return self.setup.width, self.setup.height

    @property
    def printed(self) -> Printed:
        return self.setup.printed

    # -- scores --------------------------------------------------------------------------------

    def tally(self) -> Tally:
        """The position as scoring reads it."""
        setup = self.setup
        inventories = []
        for seat in range(self.players):
            icons: list[Icon] = []
            for t, count in enumerate(self.counts[seat]):
                name = setup.kinds[t]
                placed = [Icon(name, setup.cell(i)) for k, i in self.squares[seat] if k == t]
                icons += placed + [Icon(name)] * (count - len(placed))
            inventories.append(tuple(icons))
        return Tally(
            setup.printed,
            frozenset(setup.cell(i) for i in bits(self.collected)),
            frozenset(setup.cell(i) for i in bits(self.destroyed)),
            tuple(inventories),
        )

    @property
    def scores(self) -> tuple[int, ...]:
        """Every seat's score if the game ended now."""
        return tally_scores(self.tally())


def bumped(counts: tuple[tuple[int, ...], ...], seat: int, t: int, by: int) -> Any:
    mine = counts[seat]
    return (*counts[:seat], (*mine[:t], mine[t] + by, *mine[t + 1 :]), *counts[seat + 1 :])


_FIELDS = tuple(f.name for f in fields(MagnetmenFields))
FRESH_TURN: dict[str, Any] = {
    "collections": 0,
    "duty": Duty.NONE,
    "pilot": -1,
    "choosers": (),
    "fire": False,
    "extra": 0,
    "singer": 0,
}
"""A turn's own fields as a turn begins."""
_WORKED_OUT = ("_hash", "_legal_cache")
"""What a state keeps of its own besides its fields, never copied to a changed state."""
