"""Where a search stops and what each seat scores there.

A game's end scores its outcome. Lance Assembly is searched a bout at a time: a match is won
bout by bout, each bout starts from an empty board, so what a turn is worth is what it does for
the bout in progress, and a search that looked past the bout would spend its time on a next bout
that no move now changes.
"""

from __future__ import annotations

from magboard.firmware.games import State
from magboard.firmware.games.lance import LanceState

from .playout import bout_rewards, rewards


def ended(state: State) -> tuple[float, ...] | None:
    """The rewards if a search ends at `state`, else None."""
    if isinstance(state, LanceState):
        return bout_rewards(state.bouts[-1].winner) if state.over else None
    outcome = state.outcome()
    return None if outcome is None else rewards(outcome, state.players)
