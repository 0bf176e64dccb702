"""Where a search stops and what each seat scores there.

A game's end scores its outcome, unless the game declares a horizon of its own (`SearchHooks.
horizon`: a match won bout by bout is searched a bout at a time).
"""

from __future__ import annotations

from magboard.firmware.games import State
from magboard.firmware.games.search import search_hooks

from .playout import rewards


def ended(state: State) -> tuple[float, ...] | None:
    """The rewards if a search ends at `state`, else None."""
    horizon = search_hooks(state.game).horizon
    if horizon is not None:
        return horizon(state)
    outcome = state.outcome()
    return None if outcome is None else rewards(outcome, state.players)
