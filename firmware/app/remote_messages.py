"""The messages of a remote match, as they go over the broker: a board's log and its stop,
read back strictly (docs/protocol.md, "Remote games"). firmware/app/remote.py has the match."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from magboard.firmware.referee import Turns

PROTOCOL = 1
"""The version of the match's messages (`v`)."""
MAX_PAYLOAD = 256 * 1024
"""The longest message read; a longer one is refused as garbage."""
MAX_TEXT = 200
"""The longest action, seat name or reason read from a message."""


class MessageError(ValueError):
    """A message on the match's topics that is not one of its messages."""


@dataclass(frozen=True)
class LogMessage:
    """A board's log, retained on `<root>/log/<its seats>`: the game, and every settled turn
    with the position's digest after the last."""

    game: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    turns: Turns
    key: str

    @property
    def seq(self) -> int:
        return len(self.turns)

    def to_json(self) -> bytes:
        data = {
            "v": PROTOCOL,
            "game": self.game,
            "options": self.options,
            "seats": list(self.seats),
            "seq": self.seq,
            "turns": [list(turn) for turn in self.turns],
            "key": self.key,
        }
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, payload: bytes) -> LogMessage:
        data = _object(payload, {"v", "game", "options", "seats", "seq", "turns", "key"})
        turns = data["turns"]
        if not isinstance(turns, list) or not all(_words(turn) for turn in turns):
            raise MessageError("turns is not a list of lists of actions")
        if not isinstance(data["options"], dict):
            raise MessageError("options is not an object")
        if not _words(data["seats"]) or not _text(data["game"]) or not _text(data["key"]):
            raise MessageError("game, seats or key is not text")
        if data["seq"] != len(turns):
            raise MessageError(f"seq {data['seq']!r} does not count its {len(turns)} turns")
        return cls(
            data["game"],
            data["options"],
            tuple(data["seats"]),
            tuple(tuple(turn) for turn in turns),
            data["key"],
        )


@dataclass(frozen=True)
class StopMessage:
    """The match stopped, retained on `<root>/stop`: by whom, at which seq, why."""

    seats: tuple[str, ...]
    seq: int
    reason: str

    def to_json(self) -> bytes:
        data = {"v": PROTOCOL, "seats": list(self.seats), "seq": self.seq, "reason": self.reason}
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, payload: bytes) -> StopMessage:
        data = _object(payload, {"v", "seats", "seq", "reason"})
        if not _words(data["seats"]) or not _text(data["reason"]):
            raise MessageError("seats or reason is not text")
        if not isinstance(data["seq"], int) or isinstance(data["seq"], bool) or data["seq"] < 0:
            raise MessageError("seq is not a count")
        return cls(tuple(data["seats"]), data["seq"], data["reason"])


def _object(payload: bytes, keys: set[str]) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        raise MessageError(f"{len(payload)} bytes, more than {MAX_PAYLOAD}")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise MessageError(f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise MessageError("not a JSON object")
    if data.get("v") != PROTOCOL:
        raise MessageError(f"version {data.get('v')!r}, not {PROTOCOL}")
    if set(data) != keys:
        wrong = sorted(set(data) ^ keys)
        raise MessageError(f"fields {', '.join(wrong)} missing or unknown")
    return data


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_TEXT


def _words(value: Any) -> bool:
    return isinstance(value, list) and all(_text(v) for v in value)
