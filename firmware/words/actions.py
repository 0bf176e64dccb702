"""A turn's actions in words for players: "put a Large on b2", "slid the group of 3 at b2 two
cells right", "turned the tile at c3 a quarter clockwise". Notation ("Lb2", "b2>3:2", "Tc3cw")
is for machines and the log's detail; a person reads these.

Each game says its own actions (`Game.phrase`, `Game.undo_phrase`); these are the words every
game shares: the tiles of the tiled games, passing, ending a turn, doing what the rules ask."""

from __future__ import annotations

from magboard.firmware.games import Action, Game, State, all_games
from magboard.firmware.games.core import CarryOut, EndTurn, Pass
from magboard.firmware.games.grid import cell_name
from magboard.firmware.games.phrasing import BACK, WAYS, Phrase, inside
from magboard.firmware.games.tiles import QuarterTurn, Shift


def said(action: Action, state: State | None = None) -> Phrase:
    """`action` in words; `state` (a position of its game) names what a square shows where
    the words need it (a Magnetmen square's picture)."""
    for game in _games(state):
        if game.phrase is not None and (phrase := game.phrase(action, state)) is not None:
            return phrase
    match action:
        case Shift():
            where = f"the tile at {cell_name(action.tile)} {WAYS[action.way]}"
            return Phrase(f"shift {where}", f"shifted {where}")
        case QuarterTurn():
            way = "clockwise" if action.clockwise else "counter-clockwise"
            where = f"the tile at {cell_name(action.tile)} a quarter {way}"
            return Phrase(f"turn {where}", f"turned {where}")
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
            if not inside(action.target, extent):
                return f"shift the tile back {back}, onto the game"
            return f"shift the tile at {cell_name(action.target)} back {back}"
        case QuarterTurn():
            way = "counter-clockwise" if action.clockwise else "clockwise"
            return f"turn the tile at {cell_name(action.tile)} back a quarter {way}"
    for game in all_games():
        if game.undo_phrase is not None and (back := game.undo_phrase(action, extent)) is not None:
            return back
    return None


def _games(state: State | None) -> tuple[Game, ...]:
    """The game whose action it is, where a position says; else every game, each knowing only
    its own actions."""
    return (state.game,) if state is not None else all_games()
