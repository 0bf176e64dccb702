"""A Magnetmen position drawn as text: the board with two letters per type, each seat's score
and icons, and what the turn in progress wants."""

from __future__ import annotations

from ..grid import Cell, cell_name, draw_grid
from .actions import SEATS
from .fields import Duty, MagnetmenFields

SHORT = {
    "Guitarist": "Gu",
    "Veterinarian": "Ve",
    "Athlete": "At",
    "Ballerina": "Ba",
    "Knitting Lady": "Kn",
    "Baby": "By",
    "Elderly Man": "El",
    "Explorer": "Ex",
    "Astronaut": "As",
    "Doctor": "Do",
    "Firefighter": "Fi",
    "Police": "Po",
    "Baker": "Bk",
    "Judge": "Ju",
    "King": "Ki",
    "Mail Carrier": "Ma",
    "Painter": "Pa",
    "Photographer": "Ph",
    "Hairdresser": "Ha",
    "Life Guard": "Li",
    "Actress": "Ac",
    "Singer": "Si",
    "Taxi Driver": "Ta",
    "Pilot": "Pi",
}
"""Two letters per type, for the board drawn as text."""


def draw(state: MagnetmenFields) -> str:
    """The board, each seat's score and icons, and whose turn it is and what it wants."""
    setup = state.setup

    def mark(cell: Cell) -> str:
        i = setup.at(cell)
        assert i is not None
        if state.destroyed >> i & 1:
            return "--"
        short = SHORT[setup.kinds[setup.type_at[i]]]
        return f"{short}*" if state.collected >> i & 1 else short

    lines = [draw_grid(setup.width, setup.height, mark)]
    current = state.scores
    for seat in range(state.players):
        held = ", ".join(
            f"{count} {setup.kinds[t]}" for t, count in enumerate(state.counts[seat]) if count
        )
        lines.append(f"{SEATS[seat]} ({current[seat]}): {held or 'nothing'}")
    if state.result is None:
        lines.append(f"{SEATS[state.to_move]} to move{_pending_text(state)}")
    return "\n".join(lines)


def _pending_text(state: MagnetmenFields) -> str:
    if state.duty is Duty.EXPLORE:
        return ": destroy a square for the Explorer"
    if state.duty is Duty.PILOT:
        pilot = cell_name(state.setup.cell(state.pilot))
        return f": one more square in the row or column of {pilot}"
    if state.duty is Duty.LOSE:
        return f": {SEATS[state.choosers[0]]} destroys an icon for the Actress"
    if state.duty is Duty.GAIN:
        return f": {SEATS[state.choosers[0]]} gains an icon for the Actress"
    if state.collections:
        return ": more if a power allows, or end"
    return ""
