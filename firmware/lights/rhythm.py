"""Rhythms: when each meaning on the board began, kept across the views that go on showing it.

A view says when it began (`View.since`), and a new view comes with every event: a mistake, a
piece lifted, a clock's stage, progress on an obligation. Counting every blink from the latest
view would re-time a fallen flag's double flash to a mistake made after it, or an obligation's
wink to each piece carried off. So the loop passes each view through `Rhythms`, which carries
each meaning's start forward for as long as that meaning goes on being shown the same, and
starts it afresh only when the meaning itself is new: a new mistake, what is left to clear after
a piece is cleared, a clock's next stage.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

from .animation import clock_meaning
from .palette import Meaning
from .view import View

Shown = dict[Meaning, Hashable]
"""What each timed meaning of a view shows (its places, its seat), to tell whether it goes on."""


def shown(view: View, episode: Hashable = None) -> Shown:
    """The timed meanings of `view` and what each shows. A meaning of the squares belongs to
    the referee's `episode` (its phase: a piece held, a mistake, an obligation), which announced
    it; a mistake is its own event each time (its view's moment is part of what it shows). The
    seat LEDs' meanings are the game clock's: what the referee judges meanwhile never starts
    them again."""
    found: Shown = {}
    if view.error:
        found[Meaning.ERROR] = (view.error, view.since)
    if view.remove:
        found[Meaning.REMOVE] = (episode, view.remove)
    if view.put_back:
        found[Meaning.PUT_BACK] = (episode, view.put_back)
    if view.obligation:
        found[Meaning.OBLIGATION] = (episode, view.obligation)
    if view.win:
        found[Meaning.WIN_LINE] = view.win
    if view.draw:
        found[Meaning.DRAW] = True
    if view.flagged is not None:
        found[Meaning.FLAGGED] = view.flagged
    if view.to_move is not None and view.winner is None and not view.draw:
        found[clock_meaning(view)] = view.to_move
    return found


class Rhythms:
    """Each meaning's start, from the view that first showed it to the last that still does."""

    def __init__(self) -> None:
        self._shown: Shown = {}
        self._began: dict[Meaning, float] = {}

    def timed(self, view: View, now: float, episode: Hashable = None) -> View:
        """`view` with the start of every meaning it shows: carried forward where the view
        before showed the same in the same `episode`, else `now`, the moment it first shows
        (the moment of the event that announced it)."""
        found = shown(view, episode)
        began = {}
        for meaning, what in found.items():
            going_on = self._shown.get(meaning) == what
            began[meaning] = self._began[meaning] if going_on else now
        self._shown, self._began = found, began
        starts = tuple((meaning, at) for meaning, at in began.items() if at != view.since)
        return replace(view, starts=starts) if starts else view
