"""Meeple Maneuver: its rules (`rules`), and its compact engine (`engine`), which declares the
game's search hooks when the game is imported."""

from . import engine
from .rules import (
    EACH,
    GAME,
    LETTERS,
    NEUTRAL,
    SEATS,
    TILE_ACTIONS,
    TO_WIN,
    TYPES,
    MeepleState,
    Place,
    code,
    colour_of,
    kind_of,
    parse_action,
    pile_name,
    sandwiched,
    supply_name,
)

__all__ = [
    "EACH",
    "GAME",
    "LETTERS",
    "NEUTRAL",
    "SEATS",
    "TILE_ACTIONS",
    "TO_WIN",
    "TYPES",
    "MeepleState",
    "Place",
    "code",
    "colour_of",
    "engine",
    "kind_of",
    "parse_action",
    "pile_name",
    "sandwiched",
    "supply_name",
]
