"""What the people's hands share: their pace in a turn made in one go, the tries at a mistake,
and a move as they make it."""

from __future__ import annotations

from magboard.firmware.profiles import Step, TileStep

BRISK = 0.15
"""Seconds between the actions of a turn made in one go: shorter than the settle time, so the
board is never still in the middle of it."""
TRIES = 8
"""Candidates tried for a mistake the board must call illegal."""

Move = Step | TileStep
