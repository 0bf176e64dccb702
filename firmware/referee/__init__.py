"""Keeping the game and the pieces in step: inference, recovery, takeback."""

from .inference import AmbiguousFrameError, Continuation, TurnCandidates
from .referee import ILLEGAL, IN_HAND, OVER, PLAY, Referee, Status

__all__ = [
    "ILLEGAL",
    "IN_HAND",
    "OVER",
    "PLAY",
    "AmbiguousFrameError",
    "Continuation",
    "Referee",
    "Status",
    "TurnCandidates",
]
