"""Magnetmen (rules/magnetmen.md): a board printed from a seed, 2-4 players collecting and
destroying its squares, 24 types of Magnetman with their powers."""

from .generator import SIZES, Printed, generate
from .rules import (
    GAME,
    SEATS,
    Collect,
    Destroy,
    DestroyIcon,
    GainIcon,
    MagnetmenState,
    parse_action,
)
from .scoring import Icon, Tally, scores, type_scores

__all__ = [
    "GAME",
    "SEATS",
    "SIZES",
    "Collect",
    "Destroy",
    "DestroyIcon",
    "GainIcon",
    "Icon",
    "MagnetmenState",
    "Printed",
    "Tally",
    "generate",
    "parse_action",
    "scores",
    "type_scores",
]
