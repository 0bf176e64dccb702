"""What a game tells the searches that play it, beyond its rules: its fast paths.

The engine (`firmware.engine`) plays every game through the rules' own States; a game that has
something faster or wiser declares it here, at the bottom of its own module, and the engine asks
for it by the game. A game that declares nothing is searched on its States to its end.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .core import Action, Game, State

Rewards = tuple[float, ...]
"""Per seat, what an end is worth: 1 a lone win, shares of 1 otherwise."""

STATES = "States"
"""A bench row's path: the rules' own States played out."""
COMPACT = "compact"
"""A bench row's path: a compact engine's playouts, C kernel against its Python twin."""
LOOK_AHEAD = "look-ahead"
"""A bench row's path: whole turns planned from the start, every turn weighed."""


@dataclass(frozen=True)
class BenchRow:
    """One row of the AI bench (`engine.ai_bench`): the game with options, played out one way."""

    options: tuple[tuple[str, Any], ...] = ()
    path: str = STATES
    runs: Callable[[State, int], dict[str, Callable[[int], object]]] | None = field(
        default=None, compare=False, repr=False
    )
    """The timed loops by column ("c", where built, and "python") of a path of the game's own,
    from the start state and the bench's seed: each plays that many playouts, the same ones at
    every call. None: the rules' States played out."""
    play: Callable[[State, random.Random], object] | None = field(
        default=None, compare=False, repr=False
    )
    """How the States path plays one playout, when not to the game's end."""
    unit: str = "playouts"
    """What one playout of a path of the game's own is, for the bench's summary."""


Planner = Callable[..., tuple[Action, ...]]
"""(state, rng, clock, deadline, careful=) -> the actions of the turn of the seat to move,
obligations of the last turn carried out first; `careful` is the strongest level's."""


@dataclass(frozen=True)
class SearchHooks:
    """A game's fast paths; each left None means the engine's generic way."""

    horizon: Callable[[State], Rewards | None] | None = None
    """The rewards where a search of the game stops, else None; None: the game's end."""
    playout: Callable[[State, random.Random], Rewards] | None = None
    """Random legal actions to where the search stops, scored: a compact engine's."""
    planner: Planner | None = None
    """Whole turns chosen by a look-ahead of the game's own, for the levels above `easy`."""
    tabled: tuple[Mapping[str, Any], ...] = ()
    """Options whose whole solve takes more than a moment: they ship an opening table."""
    perft: tuple[tuple[Mapping[str, Any], int], ...] = ()
    """Options and depth the perft bench (`engine.perft_bench`) counts with the game's compact
    engine against its States."""
    bench: tuple[BenchRow, ...] = (BenchRow(),)
    """The AI bench's rows for the game."""
    strength: Mapping[str, Any] | None = field(default_factory=lambda: MappingProxyType({}))
    """The options the strength harness plays the game with; None: it does not play it."""


_HOOKS: dict[str, SearchHooks] = {}
_DEFAULT = SearchHooks()


def declare_search(game: Game, hooks: SearchHooks) -> SearchHooks:
    """Files `hooks` as `game`'s: what its module calls once, at its bottom."""
    if game.name in _HOOKS:
        raise ValueError(f"the search hooks of {game.name!r} are declared twice")
    _HOOKS[game.name] = hooks
    return hooks


def search_hooks(game: Game) -> SearchHooks:
    """`game`'s hooks; the generic ones where it declared none."""
    return _HOOKS.get(game.name, _DEFAULT)
