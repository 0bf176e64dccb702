"""A board nobody watches (a museum's, a cafe's): after a while untouched its lights invite play,
and a finished game left standing gives way to a new one, whose lights show what to clear.

Only the board's clock counts here; the loop says when the board was touched and whether the
game is over, and asks what to do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unattended:
    """The operator's settings, in seconds; None is never."""

    attract_after: float | None = None
    """Untouched this long, the lights play a calm wave that invites play."""
    reset_after: float | None = None
    """A finished game left standing (untouched) this long is reset to a new game."""

    def __post_init__(self) -> None:
        for name in ("attract_after", "reset_after"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} is a number of seconds above 0, not {value!r}")


class Idle:
    """How long the board has been left alone, against the settings."""

    def __init__(self, settings: Unattended, now: float) -> None:
        self.settings = settings
        self.touched_at = now
        self._over_at: float | None = None

    def touched(self, now: float) -> None:
        """A piece moved or a button was pressed: attract mode stops at once."""
        self.touched_at = now

    def follow(self, over: bool, now: float) -> None:
        """Notes when the game ended (None again once a new one runs)."""
        if not over:
            self._over_at = None
        elif self._over_at is None:
            self._over_at = now

    def attract_since(self, now: float) -> float | None:
        """When attract mode began, if it is on at `now`."""
        after = self.settings.attract_after
        if after is None or now < self.touched_at + after:
            return None
        return self.touched_at + after

    def reset_due(self, now: float) -> bool:
        at = self._reset_at()
        return at is not None and now >= at

    def next_wake(self, now: float) -> float | None:
        """The next time something here changes by itself: attract mode starts, or the reset."""
        times = [self._reset_at()]
        if self.settings.attract_after is not None:
            times.append(self.touched_at + self.settings.attract_after)
        return min((t for t in times if t is not None and t > now), default=None)

    def _reset_at(self) -> float | None:
        after = self.settings.reset_after
        if after is None or self._over_at is None:
            return None
        return max(self._over_at, self.touched_at) + after
