"""Keeping the game and the pieces on the board in step: judging by difference, recovery,
takeback, obligations, and clearing between games."""

from .choices import ChoiceError
from .matcher import Matcher, Reading, SearchLimitError
from .obligations import OBLIGATION_FIRST
from .owed import Owed
from .referee import Referee
from .remote_log import RemoteError, Turns, conflict, digest, replay
from .status import Phase, Status

PLAY, IN_HAND, ILLEGAL, OBLIGATION, OVER, CLEARING = (
    Phase.PLAY,
    Phase.IN_HAND,
    Phase.ILLEGAL,
    Phase.OBLIGATION,
    Phase.OVER,
    Phase.CLEARING,
)

__all__ = [
    "CLEARING",
    "ILLEGAL",
    "IN_HAND",
    "OBLIGATION",
    "OBLIGATION_FIRST",
    "OVER",
    "PLAY",
    "ChoiceError",
    "Matcher",
    "Owed",
    "Phase",
    "Reading",
    "Referee",
    "RemoteError",
    "SearchLimitError",
    "Status",
    "Turns",
    "conflict",
    "digest",
    "replay",
]
