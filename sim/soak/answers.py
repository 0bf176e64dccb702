"""What the board must answer the hands: the event a move, a part of a turn or an obligation
fulfilled is seen by, and the answer an event gives."""

from __future__ import annotations

from magboard.firmware.events import Event, Fulfilled, Moved, Partial

Expected = tuple[str, int, tuple[str, ...]]
"""What the board must answer: ("move" | "partial" | "fulfilled", player, actions)."""


_EVENT_OF: dict[str, type[Event]] = {"move": Moved, "partial": Partial, "fulfilled": Fulfilled}


def _answer(event: Event) -> Expected:
    if isinstance(event, Fulfilled):
        return ("fulfilled", event.player, ())
    assert isinstance(event, Moved | Partial)
    return ("move" if isinstance(event, Moved) else "partial", event.player, event.actions)
