"""What to remove and put back for a frame to show a position, worked out once per frame.

One judgement asks it of the same frame and position from several jobs (a turn owed is lit
from it, then the same frame is judged against the turn), and the loop judges a frame again
once the board is still: each answer is kept for as long as the sensors show that frame."""

from __future__ import annotations

from magboard.firmware.games import State
from magboard.firmware.profiles import Difference, Profile


class Differences:
    """The profile's `difference` of the frame being judged from each position asked of it."""

    def __init__(self, profile: Profile) -> None:
        self._profile = profile
        self._raw: int | None = None
        self._known: dict[State, Difference] = {}

    def __call__(self, raw: int, state: State) -> Difference:
        if raw != self._raw:
            self._raw, self._known = raw, {}
        found = self._known.get(state)
        if found is None:
            found = self._known[state] = self._profile.difference(raw, state)
        return found
