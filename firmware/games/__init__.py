"""The rules of every game the board referees, behind one contract (see `core`)."""

from . import lance, meeplemaneuver, meeptactoe, tictaccap, tictacdoh, tictactoe
from .core import (
    CARRY_OUT,
    END_TURN,
    PASS,
    Action,
    ClockRules,
    Game,
    GameError,
    IllegalActionError,
    NotationError,
    Obligation,
    Option,
    OptionError,
    Outcome,
    State,
    UnknownGameError,
)
from .grid import Cell, cell_name, draw_grid, parse_cell
from .magnetmen import rules as magnetmen
from .registry import all_games, get_game, register

for _module in (tictactoe, tictaccap, tictacdoh, lance, meeptactoe, meeplemaneuver, magnetmen):
    register(_module.GAME)

DEFAULT_GAME = all_games()[0].name
"""The game a board plays where none is chosen: the first the menus offer."""

__all__ = [
    "CARRY_OUT",
    "DEFAULT_GAME",
    "END_TURN",
    "PASS",
    "Action",
    "Cell",
    "ClockRules",
    "Game",
    "GameError",
    "IllegalActionError",
    "NotationError",
    "Obligation",
    "Option",
    "OptionError",
    "Outcome",
    "State",
    "UnknownGameError",
    "all_games",
    "cell_name",
    "draw_grid",
    "get_game",
    "parse_cell",
    "register",
]
