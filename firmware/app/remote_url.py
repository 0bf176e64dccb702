"""Where a remote match is played: the `--remote` URL (broker, credentials, match id) and
the seats `--seat` names. firmware/app/remote.py has the match."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

from magboard.firmware.games import Game

PORTS = {"mqtt": 1883, "mqtts": 8883}
_MATCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class RemoteURLError(ValueError):
    """A `--remote` URL that can never work (scheme, host, match id)."""


class SeatError(ValueError):
    """A `--seat` that names no seat of the game, or leaves none to the other board."""


@dataclass(frozen=True)
class RemoteURL:
    """`mqtt[s]://[user:pass@]host[:port]/<match-id>[?ca=FILE]`."""

    scheme: str
    host: str
    port: int
    match: str
    user: str | None = None
    password: str | None = None
    ca: str | None = None
    """A CA certificate file to check the broker's certificate by (mqtts), instead of the
    system's."""

    @classmethod
    def parse(cls, text: str) -> RemoteURL:
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as error:
            raise RemoteURLError(f"remote {text!r}: {error}") from None
        if parts.scheme not in PORTS:
            raise RemoteURLError(f"remote {text!r}: the scheme is mqtt or mqtts")
        if not parts.hostname:
            raise RemoteURLError(f"remote {text!r}: no broker host")
        match = parts.path.strip("/")
        if not _MATCH.fullmatch(match):
            raise RemoteURLError(
                f"remote {text!r}: the path is the match id, letters, digits, '.', '-', '_'"
            )
        query = parse_qs(parts.query)
        unknown = set(query) - {"ca"}
        if unknown:
            raise RemoteURLError(f"remote {text!r}: unknown parameter {sorted(unknown)[0]!r}")
        ca = query.get("ca", [None])[-1]
        if ca is not None and parts.scheme != "mqtts":
            raise RemoteURLError(f"remote {text!r}: ca= goes with mqtts")
        return cls(
            parts.scheme,
            parts.hostname,
            port or PORTS[parts.scheme],
            match,
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None,
            ca,
        )

    @property
    def shown(self) -> str:
        """The URL for people and logs: never the password."""
        user = f"{self.user}@" if self.user else ""
        return f"{self.scheme}://{user}{self.host}:{self.port}/{self.match}"

    @property
    def root(self) -> str:
        return f"magboard/match/{self.match}"


def seats_of(game: Game, players: int, text: str) -> frozenset[int]:
    """The seats `--seat` names: seat names or numbers from 1, comma-separated."""
    names = [name.lower() for name in game.seats[:players]]
    seats = set()
    for word in (w.strip() for w in text.split(",")):
        if word.isdigit() and 1 <= int(word) <= players:
            seats.add(int(word) - 1)
        elif word.lower() in names:
            seats.add(names.index(word.lower()))
        else:
            known = ", ".join(game.seats[:players])
            raise SeatError(f"--seat {text!r}: {game.name} has seats {known} (or 1-{players})")
    if len(seats) == players:
        raise SeatError(f"--seat {text!r}: that is every seat; leave the other board one")
    return frozenset(seats)
