"""Words for people: events, actions and places as players and visitors read them. The one
place they are made, for the terminal and (sent with every event) for the page; docs/words.md
lists them all, generated from here."""

from .actions import said, undo
from .describer import Banner, Describer, Mood, Words
from .places import PlaceNames

__all__ = ["Banner", "Describer", "Mood", "PlaceNames", "Words", "said", "undo"]
