"""Where a board reports over MQTT: the broker's URL, the board's id in the topics, the CA that
vouches for a TLS broker, and how Home Assistant shows it (a name, an area, the discovery
prefix). Read from `magboard run --mqtt URL --board-id ID` or the `[mqtt]` table of the
configuration file, and checked before the board lights anything: a board set up once and left
alone must not report for weeks under a name nobody looks for.

Nothing here talks to a broker (firmware/app/mqtt.py does), so checking a configuration file
needs no MQTT client.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

PORTS = {"mqtt": 1883, "mqtts": 8883}
BOARD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a board id may be: one MQTT topic level that is also a valid Home Assistant node id."""
TOPIC_ROOT = "magboard"
POLL = 0.1
"""On a real board, the longest the loop waits between two looks at what the broker sent."""
HEARTBEAT = 30.0
"""Seconds between two heartbeats, on the board's clock."""
DISCOVERY_PREFIX = "homeassistant"
"""Home Assistant's default discovery prefix (its MQTT integration can be set to another)."""
MAX_LABEL = 100
"""Longest device name or area, in characters: a label a person reads on a dashboard."""


class MqttSettingError(ValueError):
    """An MQTT URL, board id or CA file that can never work; the message says why."""


@dataclass(frozen=True)
class Broker:
    """A broker's address and the board's credentials there."""

    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def shown(self) -> str:
        """The URL without the password, for faults and notes people read."""
        user = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{host}:{self.port}"

    @property
    def authenticated(self) -> bool:
        return bool(self.username) and self.password is not None


@dataclass(frozen=True)
class MqttSettings:
    broker: Broker
    board_id: str
    ca_file: Path | None = None
    heartbeat: float = HEARTBEAT
    name: str | None = None
    """The device's name in Home Assistant (default `magboard <board-id>`)."""
    area: str | None = None
    """The area Home Assistant suggests putting the device in (a room, a table)."""
    discovery_prefix: str = DISCOVERY_PREFIX
    support_url: str | None = None
    """The operator's help page for the boards, in Home Assistant's `origin`."""

    def topic(self, name: str) -> str:
        return f"{TOPIC_ROOT}/{self.board_id}/{name}"


def parse_broker(url: str) -> Broker:
    """`mqtt[s]://[user:pass@]host[:port]`; MqttSettingError names what is wrong."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise MqttSettingError(f"{_safe(url)}: {error}") from None
    scheme = parts.scheme.lower()
    if scheme not in PORTS:
        raise MqttSettingError(
            f"{_safe(url)}: an MQTT broker is mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
        )
    if not parts.hostname:
        raise MqttSettingError(f"{_safe(url)}: no broker host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise MqttSettingError(f"{_safe(url)}: a broker URL has no path, query or fragment")
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if password is not None and not username:
        raise MqttSettingError(f"{_safe(url)}: a password without a user name")
    return Broker(parts.hostname, port or PORTS[scheme], scheme == "mqtts", username, password)


def check_board_id(board_id: str) -> str:
    if not BOARD_ID.fullmatch(board_id):
        raise MqttSettingError(
            f"board id {board_id!r}: 1 to 64 letters, digits, '-' or '_' (it is a topic level)"
        )
    return board_id


def check_discovery_prefix(prefix: str) -> str:
    """A topic of one or more levels, without wildcards, empty levels or a leading `$`."""
    if (
        not prefix
        or "+" in prefix
        or "#" in prefix
        or prefix.startswith("$")
        or "" in prefix.split("/")
    ):
        raise MqttSettingError(
            f"discovery prefix {prefix!r}: topic levels without '+', '#', a leading '$' "
            "or an empty level (Home Assistant's default is homeassistant)"
        )
    return prefix


def check_label(what: str, label: str) -> str:
    if not label.strip() or len(label) > MAX_LABEL or not label.isprintable():
        raise MqttSettingError(f"{what} {label!r}: 1 to {MAX_LABEL} printable characters")
    return label


def check_support_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise MqttSettingError(f"support URL {url!r}: an http:// or https:// address")
    return url


def default_board_id() -> str:
    """The machine's host name, made a valid board id (a Pi named `cafe-3.local` is `cafe-3`)."""
    name = socket.gethostname().split(".")[0]
    name = re.sub(r"[^A-Za-z0-9_-]", "-", name)[:64]
    return name or "magboard"


def settings(
    url: str,
    board_id: str | None = None,
    ca_file: str | Path | None = None,
    *,
    name: str | None = None,
    area: str | None = None,
    discovery_prefix: str = DISCOVERY_PREFIX,
    support_url: str | None = None,
) -> MqttSettings:
    broker = parse_broker(url)
    if ca_file is not None and not broker.tls:
        raise MqttSettingError(f"{_safe(url)}: a CA file is for mqtts:// only")
    return MqttSettings(
        broker,
        check_board_id(board_id) if board_id is not None else default_board_id(),
        Path(ca_file).expanduser() if ca_file is not None else None,
        name=check_label("name", name) if name is not None else None,
        area=check_label("area", area) if area is not None else None,
        discovery_prefix=check_discovery_prefix(discovery_prefix),
        support_url=check_support_url(support_url) if support_url is not None else None,
    )


def _safe(url: str) -> str:
    """The URL as said back to a person, without its password."""
    return re.sub(r"(//[^:/@]*):[^@/]*@", r"\1:***@", url)
