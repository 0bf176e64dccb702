"""What the running service says about itself in its state directory, for `magboard update`.

An update is kept only if the new version comes up healthy, and only the service knows that: so
it writes `service.json` in its state directory (MAGBOARD_STATE) just before it tells systemd
READY=1, naming its version, the game it resumed from the journal and what its start-up check
found; and on a clean stop, the game it leaves in the journal. The updater compares the two:
the game left by the old version must be the game the new one resumed, and the new one must
find no fault the old one did not.

Here (hardware/, standard library only) because both sides read it: the service writes it
(firmware/app/service_report.py) and the updater, which runs as root, reads it
(hardware/update.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

FILE = "service.json"


class ServiceState(Enum):
    READY = "ready"
    """Started: the board answered, the game is set up, READY=1 follows."""
    STOPPED = "stopped"
    """Stopped on purpose, the journal closed."""


@dataclass(frozen=True)
class GameInPlay:
    """A game in the journal, told apart by its moves: the same game, as far along."""

    game: str
    moves: int
    digest: str
    """sha256 of the actions, one a line: equal only if every move is."""

    @classmethod
    def of(cls, game: str, actions: Iterable[str]) -> GameInPlay:
        done = tuple(actions)
        digest = hashlib.sha256("\n".join(done).encode()).hexdigest()
        return cls(game, len(done), digest)

    def describe(self) -> str:
        return f"{self.game} after {self.moves} {'move' if self.moves == 1 else 'moves'}"


@dataclass(frozen=True)
class ServiceHealth:
    state: ServiceState
    version: str
    pid: int
    game: GameInPlay | None
    """Ready: the game resumed from the journal (None: a new game). Stopped: the game in
    progress left in the journal (None: none)."""
    faults: tuple[str, ...] = ()
    """What the start-up check found wrong as the board came up (an expander that does not
    answer, a fault the drivers survived), each in a line."""

    def to_json(self) -> str:
        return json.dumps(
            {
                "state": self.state.value,
                "version": self.version,
                "pid": self.pid,
                "game": None if self.game is None else vars(self.game),
                "faults": list(self.faults),
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> ServiceHealth:
        """Raises ValueError for anything but what `to_json` writes."""
        data = json.loads(text)
        if not isinstance(data, Mapping):
            raise ValueError("not an object")
        game = data.get("game")
        try:
            return cls(
                state=ServiceState(data["state"]),
                version=str(data["version"]),
                pid=int(data["pid"]),
                game=None if game is None else GameInPlay(**_fields(game, GameInPlay)),
                faults=tuple(str(fault) for fault in data.get("faults", ())),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a service report ({error})") from None


def _fields(data: Any, kind: type) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise TypeError(f"{kind.__name__} is not an object")
    return {name: data[name] for name in kind.__dataclass_fields__}


def write(state_dir: Path, health: ServiceHealth) -> None:
    """Whole or not at all: the updater never reads half a report."""
    with tempfile.NamedTemporaryFile(
        "w", dir=state_dir, prefix=f".{FILE}.", delete=False, encoding="utf-8"
    ) as file:
        file.write(health.to_json())
    os.chmod(file.name, 0o644)
    os.replace(file.name, state_dir / FILE)


def read(state_dir: Path) -> ServiceHealth | None:
    """The last report, or None: none written (a version from before reports), or unreadable."""
    try:
        return ServiceHealth.from_json((state_dir / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def clear(state_dir: Path) -> None:
    (state_dir / FILE).unlink(missing_ok=True)
