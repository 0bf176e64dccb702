"""View: what the referee wants the board to show, as one static value.

The referee says what is true (these are the legal targets, this place holds a mistake, this is
the winning line) and when it became true; the lights decide how it looks and animate it. A view
is hashable, so a caller can tell cheaply whether anything changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from magboard.hardware.spec import Place

from .palette import Meaning

_PLACE_SETS = ("targets", "due", "last_move", "error", "remove", "obligation")


@dataclass(frozen=True)
class View:
    """What to show. Seats are 0-based; places without an LED are ignored when drawn.

    Sets of places may be passed as any iterable and `put_back` as a mapping of place to seat:
    they are stored as frozensets (put_back as (place, seat) pairs) to keep the view hashable.
    """

    players: int
    to_move: int | None = None
    """Whose turn it is; None when nobody is to move (the game is over)."""
    targets: frozenset[Place] = frozenset()
    """Where the lifted piece (or the piece the turn must move next) may go: dim and steady in
    the mover's colour."""
    due: frozenset[Place] = frozenset()
    """What the turn in progress must still move (the tile under the meeple just moved):
    bright and steady in the mover's colour."""
    last_move: frozenset[Place] = frozenset()
    last_mover: int | None = None
    """Whose colour the last move glows in."""
    error: frozenset[Place] = frozenset()
    """A mistake just made: fast red blink for a moment after `since`."""
    remove: frozenset[Place] = frozenset()
    """Take what stands here off the board: slow red blink."""
    put_back: frozenset[tuple[Place, int]] = frozenset()
    """(place, seat): put that seat's piece back here; slow blink in the seat's colour."""
    obligation: frozenset[Place] = frozenset()
    """A follow-up the rules require by hand (remove a captured piece): slow white blink."""
    win: tuple[Place, ...] = ()
    """The winning line, in order along it."""
    winner: int | None = None
    draw: bool = False
    since: float = 0.0
    """When this view began: blinks and animations count from here, unless `starts` says
    otherwise for their meaning."""
    starts: tuple[tuple[Meaning, float], ...] = ()
    """(meaning, when it began) for meanings that began before `since` or apart from it (a
    flag's fall, a clock's stage, a put-back a later status still shows): each rhythm counts
    from the event that started its meaning, so a later event never re-times it."""
    fault: bool = False
    """The hardware had a fault recently and the board carried on: the alert LED."""
    clock: str | None = None
    """Where the mover's game clock stands ('turn', 'reserve', 'last-seconds'), if one runs:
    its seat LED is steady on the turn's time, blinks slowly on the reserve, fast at the end."""
    flagged: int | None = None
    """The seat whose time ran out: its seat LED in the alert colour."""
    attract: tuple[Place, ...] = ()
    """Nobody has touched the board for a while: a calm wave runs along these places (in
    order), under anything else shown, inviting play."""
    attract_since: float = 0.0
    """When attract mode began (the wave counts from here, other animations from `since`)."""
    out_of_order: tuple[Place, ...] = ()
    """The board is out of order: these places (a cross over the game's area) glow steadily
    in the alert colour, and nothing else is shown."""

    def began(self, meaning: Meaning) -> float:
        """When `meaning` began: its own start if the view carries one, else `since`."""
        for shown, start in self.starts:
            if shown is meaning:
                return start
        return self.since

    def __post_init__(self) -> None:
        for name in _PLACE_SETS:
            value = getattr(self, name)
            if not isinstance(value, frozenset):
                object.__setattr__(self, name, frozenset(value))
        put_back = self.put_back
        pairs = put_back.items() if isinstance(put_back, Mapping) else put_back
        if not isinstance(pairs, frozenset):
            object.__setattr__(self, "put_back", frozenset(pairs))
        if not isinstance(self.win, tuple):
            object.__setattr__(self, "win", tuple(self.win))
        if not isinstance(self.starts, tuple):
            starts = self.starts.items() if isinstance(self.starts, Mapping) else self.starts
            object.__setattr__(self, "starts", tuple(starts))
        if not isinstance(self.attract, tuple):
            object.__setattr__(self, "attract", tuple(self.attract))
        if not isinstance(self.out_of_order, tuple):
            object.__setattr__(self, "out_of_order", tuple(self.out_of_order))
        self._check()

    def _check(self) -> None:
        """Refuses a view that cannot be drawn unambiguously, naming the field at fault."""
        if self.players < 1:
            raise ValueError(f"a view needs at least one player, not {self.players}")
        seats = [("to_move", self.to_move), ("last_mover", self.last_mover)]
        seats += [("winner", self.winner), ("flagged", self.flagged)]
        seats += [(f"put_back[{place!r}]", seat) for place, seat in self.put_back]
        for name, seat in seats:
            if seat is not None and not 0 <= seat < self.players:
                raise ValueError(f"{name} is seat {seat}, not one of 0 to {self.players - 1}")
        if (self.targets or self.due) and self.to_move is None:
            raise ValueError("targets are shown in the mover's colour: to_move is None")
        if self.last_move and self.last_mover is None:
            raise ValueError("a last move is shown in its mover's colour: last_mover is None")
        if self.win and self.winner is None:
            raise ValueError("a winning line is shown in the winner's colour: winner is None")
        if self.draw and self.winner is not None:
            raise ValueError(f"a draw has no winner, but winner is seat {self.winner}")
        places = [place for place, _ in self.put_back]
        if len(places) != len(set(places)):
            raise ValueError("put_back names a place twice")
