"""The soak's hands: their pace, the words they read in a refusal, and the kind of trouble a
method of theirs makes (counted per kind in the tally)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

HAND_PAUSE = 0.3
"""Seconds between lifting a piece and putting it down, and after it: a brisk but human hand."""
ACCEPT_WAIT = 1.6
"""Longest wait for the board to answer: the safety poll (an expander that reset itself raises no
interrupt until it is found and set up again) plus the settle time, with room to spare."""
FAST = 0.1
"""Seconds a quick hand takes to lift a piece and put it down."""

RULES_APART = " | "
"""Between the rules a refusal may name where the hands broke several at once."""
GENERAL_REFUSAL = "no legal move gives this board"
"""The refusal that names no rule (firmware/referee/explain.py)."""


def _kind(kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Makes a method of GameSoak trouble of `kind`: what goes wrong while it runs is its."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(method)
        def doing(self: Any, *args: Any, **kwargs: Any) -> Any:
            with self._doing(kind):
                return method(self, *args, **kwargs)

        return doing

    return wrap
