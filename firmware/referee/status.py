"""What the referee wants the board to show, and its translation into the lights' view."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from magboard.firmware.lights import View
from magboard.firmware.profiles import Difference
from magboard.hardware.spec import Place


class Phase(StrEnum):
    PLAY = "play"
    """The board shows the game's position (or a legal prefix of the turn)."""
    IN_HAND = "in-hand"
    """Pieces lifted, nothing put down: show where they may go."""
    ILLEGAL = "illegal"
    """No legal reading: show what to remove and put back."""
    TAKING_BACK = "taking-back"
    """Against the board: a takeback under way (a piece of the person's last move or of the
    board's reply put back): show what is left to put back."""
    OBLIGATION = "obligation"
    """The rules need something done by hand before the next turn."""
    OVER = "over"
    """The game has ended and the board still shows its end."""
    CLEARING = "clearing"
    """Between games: show what is left to clear for the next one to start."""
    STOPPED = "stopped"
    """A remote match stopped because its boards disagree: nothing more is judged."""


@dataclass(frozen=True)
class Status:
    phase: Phase
    since: float
    to_move: int | None
    targets: frozenset[Place] = frozenset()
    due: frozenset[Place] = frozenset()
    last_move: frozenset[Place] = frozenset()
    last_mover: int | None = None
    difference: Difference = field(default_factory=Difference)
    obligation: frozenset[Place] = frozenset()
    win: tuple[Place, ...] = ()
    winners: tuple[int, ...] = ()
    draw: bool = False
    alarm: frozenset[Place] = frozenset()
    """Places that flash red when this status begins (a stopped match: the game's area)."""
    round_won: bool = False
    """A round of the match just won (a Lance Assembly bout): its winning line shows in the
    winner's colour, and the obligation that follows (clear the board) waits until it ends."""

    def view(self, players: int, fault: bool) -> View:
        """The lights' view: what is true now, for the lights to draw in their own language."""
        difference = self.difference
        seat = self.to_move or 0
        won = bool(self.winners) and (self.phase == Phase.OVER or self.round_won)
        return View(
            players=players,
            to_move=self.to_move,
            targets=self.targets if self.phase in (Phase.IN_HAND, Phase.PLAY) else frozenset(),
            due=self.due if self.phase == Phase.PLAY else frozenset(),
            last_move=self.last_move if self.last_mover is not None else frozenset(),
            last_mover=self.last_mover,
            error=frozenset(difference.remove) if self.phase == Phase.ILLEGAL else self.alarm,
            remove=frozenset(difference.remove),
            put_back=frozenset(
                (place, owner if owner is not None else seat)
                for place, owner in difference.put_back
            ),
            obligation=frozenset() if self.round_won else self.obligation,
            win=self.win if won else (),
            winner=self.winners[0] if won else None,
            draw=self.draw and self.phase == Phase.OVER,
            since=self.since,
            fault=fault or self.phase == Phase.STOPPED,
        )
