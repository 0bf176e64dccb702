"""Physical models of the games on the boards: what a position looks like to the sensors.

Importing the package imports each of its modules, and so registers every profile
(`registry.register_profile`, at the bottom of each)."""

from __future__ import annotations

import importlib
import pkgutil

from .base import NotProvided, Profile, ProfileError
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
    TileSpot,
    TileStep,
)
from .registry import (
    ProfileMaker,
    profile_for,
    profiled_pairs,
    profiled_variants,
    register_profile,
)

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "Asked",
    "Difference",
    "Layout",
    "Movement",
    "NotProvided",
    "PieceKind",
    "Profile",
    "ProfileError",
    "ProfileMaker",
    "Spot",
    "Step",
    "Supply",
    "TileKind",
    "TileSpot",
    "TileStep",
    "profile_for",
    "profiled_pairs",
    "profiled_variants",
    "register_profile",
]
