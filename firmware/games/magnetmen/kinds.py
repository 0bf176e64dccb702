"""The 24 Magnetman types as data (rules/magnetmen.md, items 6 and "Types"): their set, the
generator's weights and limits, and the text of their main and alternative powers, which the
printed overlay's legend and the board's events quote."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Set(StrEnum):
    """The three sets a board's types are drawn from (option `set`): each includes the ones
    before it."""

    BASE = "base"
    ADVANCED = "advanced"
    EXPERT = "expert"


@dataclass(frozen=True)
class Kind:
    """One Magnetman type."""

    name: str
    set: Set
    main: str
    """The power's main text."""
    alternative: str
    """The alternative text the `random` powers option may pick (the main text again where the
    rules give none)."""
    prob: float = 1.0
    """The generator's weight."""
    min: int = 1
    """Squares the type gets at least, once chosen."""
    max: int | None = None
    """Squares the type gets at most (None: no limit)."""


KINDS: tuple[Kind, ...] = (
    Kind("Guitarist", Set.BASE, "+1", "+1", prob=2.5),
    Kind("Veterinarian", Set.BASE, "+2", "+2", prob=1.33),
    Kind("Athlete", Set.BASE, "each is worth as many points as you have Athletes",
         "each is worth as many points as you have Athletes", min=4, max=8),
    Kind("Ballerina", Set.BASE, "+4 each if you have the most Ballerinas, else -4 each",
         "+4 each if you have the most Ballerinas, else -4 each", min=4),
    Kind("Knitting Lady", Set.BASE, "+3 each if you have the fewest, else -3 each",
         "+3 each if you have the fewest, else -3 each", min=5),
    Kind("Baby", Set.BASE, "each is worth your lowest-scoring type",
         "each is worth your lowest-scoring type"),
    Kind("Elderly Man", Set.BASE, "each is worth your highest-scoring type",
         "each is worth your highest-scoring type"),
    Kind("Explorer", Set.BASE, "when collected, also destroy any unused square; worth 0",
         "when collected, also destroy any unused square; worth 0", prob=1.33, min=5),
    Kind("Astronaut", Set.ADVANCED, "+1; repel ignores collected squares",
         "+1; only collected squares repel"),
    Kind("Doctor", Set.ADVANCED, "+1; no repel until you hold three",
         "+2; repels only while you hold fewer than three", max=8),
    Kind("Firefighter", Set.ADVANCED,
         "-4; collect three squares this turn, not a second Firefighter",
         "-2; one extra collection that ignores repel"),
    Kind("Police", Set.ADVANCED, "+3; collected twice, then destroyed",
         "+3; collected twice, then destroyed"),
    Kind("Baker", Set.ADVANCED, "+5 each if you hold three or more, else -15 each",
         "+5 each if you hold three or more, else -15 each", min=5, max=14),
    Kind("Judge", Set.ADVANCED, "+3 if you hold exactly one, else -3; cannot be destroyed",
         "+4 if you hold exactly two, else -4; cannot be destroyed", prob=1.25, min=6),
    Kind("King", Set.ADVANCED, "+12; after taking it you take no more turns",
         "+6; one per player, no collecting next to it afterwards", max=3),
    Kind("Mail Carrier", Set.ADVANCED, "+2; only next to a collected square",
         "+3; only where no neighbour is collected", max=8),
    Kind("Painter", Set.EXPERT, "+2 for every unused Painter square",
         "+2 for every unused Painter square", min=4, max=10),
    Kind("Photographer", Set.EXPERT, "+1 for every collected Photographer square",
         "+1 for every collected Photographer square", min=2, max=7),
    Kind("Hairdresser", Set.EXPERT, "+1 for every row and column all collected or destroyed",
         "+3 for every row and column with no destroyed square"),
    Kind("Life Guard", Set.EXPERT, "+3; not if the player to your left could not collect it",
         "+3; not if the player to your right could not collect it"),
    Kind("Actress", Set.EXPERT, "the leading players destroy an icon of their choice",
         "the last-placed players gain an icon of their choice", max=5),
    Kind("Singer", Set.EXPERT, "-5; nobody may collect next to it",
         "-3; destroy up to two icons in any inventories", prob=0.75, max=4),
    Kind("Taxi Driver", Set.EXPERT, "+1 per neighbouring collected square",
         "+1 per neighbouring collected square"),
    Kind("Pilot", Set.EXPERT,
         "-2; collect one more square in its row or column, ignoring every rule",
         "-2; collect one more square in its row or column, ignoring every rule",
         prob=1.33, max=7),
)  # fmt: skip
"""In the rules file's order: base, advanced, expert."""

BY_NAME = {kind.name: kind for kind in KINDS}
SETS_UP_TO = {
    Set.BASE: (Set.BASE,),
    Set.ADVANCED: (Set.BASE, Set.ADVANCED),
    Set.EXPERT: (Set.BASE, Set.ADVANCED, Set.EXPERT),
}
"""The sets a board of each option `set` draws its types from."""
