"""A turn's actions in words for players: "put a Large on b2", "slid the group of 3 at b2 two
cells right", "turned the tile at c3 a quarter clockwise". Notation ("Lb2", "b2>3:2", "Tc3cw")
is for machines and the log's detail; a person reads these."""

from __future__ import annotations

from dataclasses import dataclass

from magboard.firmware.article import with_article
from magboard.firmware.games import (
    Action,
    State,
    lance,
    meeplemaneuver,
    meeptactoe,
    sized,
    tictactoe,
)
from magboard.firmware.games.core import CarryOut, EndTurn, Pass
from magboard.firmware.games.grid import cell_name
from magboard.firmware.games.magnetmen.rules import (
    SEATS,
    Collect,
    Destroy,
    DestroyIcon,
    GainIcon,
)
from magboard.firmware.games.tiles import QuarterTurn, Shift

WAYS = {">": "right", "<": "left", "^": "up", "v": "down"}
BACK = {">": "<", "<": ">", "^": "v", "v": "^"}
NUMBERS = ("no", "one", "two", "three", "four", "five", "six")


def count(n: int, thing: str) -> str:
    """ "two cells", "one tile": small numbers in words."""
    said = NUMBERS[n] if 0 <= n < len(NUMBERS) else str(n)
    return f"{said} {thing}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class Phrase:
    """One action said two ways: asked of a player ("shift the tile at b2 right") and told
    once done ("shifted the tile at b2 right")."""

    asked: str
    told: str


def said(action: Action, state: State | None = None) -> Phrase:
    """`action` in words; `state` (a position of its game) names what a square shows where
    the words need it (a Magnetmen square's picture)."""
    match action:
        case Shift():
            where = f"the tile at {cell_name(action.tile)} {WAYS[action.way]}"
            return Phrase(f"shift {where}", f"shifted {where}")
        case QuarterTurn():
            way = "clockwise" if action.clockwise else "counter-clockwise"
            where = f"the tile at {cell_name(action.tile)} a quarter {way}"
            return Phrase(f"turn {where}", f"turned {where}")
        case lance.Slide():
            what = "the tile" if action.length == 1 else f"the group of {action.length}"
            where = f"{what} at {cell_name(action.cell)} {count(action.distance, 'cell')}"
            where += f" {WAYS[action.way]}"
            return Phrase(f"slide {where}", f"slid {where}")
        case lance.PlaceNeutral():
            return _put(f"the neutral tile on {cell_name(action.cell)}")
        case lance.Place():
            return _put(f"a tile on {cell_name(action.cell)}")
        case lance.FlagFell():
            return Phrase("wait", "ran out of time")
        case meeplemaneuver.Place():
            kind = meeplemaneuver.TYPES[action.kind]
            return _put(f"{with_article(kind)} on {cell_name(action.cell)}")
        case meeptactoe.Move():
            where = f"the meeple on {cell_name(action.source)} to {cell_name(action.target)}"
            return Phrase(f"move {where}", f"moved {where}")
        case sized.Place():
            return _put(f"{with_article(sized.NAMES[action.size])} on {cell_name(action.cell)}")
        case tictactoe.Place():
            square = cell_name(action.cell)
            return Phrase(f"play {square}", f"played {square}")
        case Collect():
            square = cell_name(action.cell)
            picture = _picture(state, action)
            shown = f" ({picture})" if picture else ""
            return Phrase(f"collect {square}{shown}", f"collected {square}{shown}")
        case Destroy():
            square = cell_name(action.cell)
            return Phrase(f"destroy {square}", f"destroyed {square}")
        case DestroyIcon() | GainIcon():
            seats = state.game.seats if state is not None else SEATS
            verb = "loses" if isinstance(action, DestroyIcon) else "gains"
            text = f"{seats[action.seat]} {verb} {with_article(action.kind)}"
            return Phrase(text, text)
        case Pass():
            return Phrase("pass", "passed")
        case EndTurn():
            return Phrase("end the turn", "ended the turn")
        case CarryOut():
            return Phrase("do what the rules ask", "did what the rules asked")
    return Phrase(str(action), str(action))


def undo(action: Action, extent: tuple[int, int]) -> str | None:
    """How to take a wrong move of a tile or a group back, as a player would put it ("shift
    the tile at c2 back left"); None for an action best undone square by square. A tile
    pushed (half) off the game's `extent` has no square of the game to be named by."""
    match action:
        case Shift():
            back = WAYS[BACK[action.way]]
            if not _inside(action.target, extent):
                return f"shift the tile back {back}, onto the game"
            return f"shift the tile at {cell_name(action.target)} back {back}"
        case QuarterTurn():
            way = "counter-clockwise" if action.clockwise else "clockwise"
            return f"turn the tile at {cell_name(action.tile)} back a quarter {way}"
        case lance.Slide():
            what = "the tile" if action.length == 1 else f"the group of {action.length}"
            back = f"back {count(action.distance, 'cell')} {WAYS[BACK[action.way]]}"
            if not all(_inside(cell, extent) for cell in action.moved):
                return f"slide {what} {back}, onto the game"
            return f"slide {what} at {cell_name(action.moved[0])} {back}"
    return None


def _inside(cell: tuple[int, int], extent: tuple[int, int]) -> bool:
    return 0 <= cell[0] < extent[0] and 0 <= cell[1] < extent[1]


def _put(rest: str) -> Phrase:
    return Phrase(f"put {rest}", f"put {rest}")


def _picture(state: State | None, action: Collect) -> str:
    printed = getattr(state, "printed", None)
    if printed is None:
        return ""
    col, row = action.cell
    width = state.extent[0]
    squares = printed.squares
    index = row * width + col
    return squares[index] if 0 <= index < len(squares) else ""
