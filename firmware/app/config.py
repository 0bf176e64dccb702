"""The operator's configuration file (`/etc/magboard/magboard.toml`): which board, which game and
options, where the journal lives, and how the board behaves when nobody watches it.

A board that runs unattended is set up once by someone who may not come back for weeks, so every
mistake in the file is refused at start, in one line naming the file and the key, before the
board lights anything: a typo must not become a silently different game.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..journal import Limits
from .errors import CommandError
from .hours import HoursError, OpeningHours, parse_hours
from .mqtt_settings import (
    MqttSettingError,
    check_board_id,
    check_discovery_prefix,
    check_label,
    check_support_url,
    parse_broker,
)
from .unattended import Unattended

DEFAULT_CONFIG = Path("/etc/magboard/magboard.toml")
STATE = Path(os.environ.get("MAGBOARD_STATE", "~/.local/state/magboard"))
DEFAULT_JOURNAL = STATE / "magboard.db"
SIM_JOURNAL = STATE / "sim" / "magboard.db"
"""`magboard run --sim`'s own: a simulated board must never resume or count the real one's games."""


class ConfigError(CommandError, ValueError):
    """The configuration file cannot be used (the message names the file and the key)."""


@dataclass(frozen=True)
class Config:
    """What the file sets; None where it leaves the command's own default."""

    board: str | None = None
    game: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    takeback: bool | None = None
    journal: Path | None = None
    link: str | None = None
    unattended: Unattended | None = None
    mqtt: MqttConfig | None = None
    ai: str | None = None
    """The seat the board plays, `SEAT[:LEVEL]`, checked against the game when it is known."""
    ai_budget: float | None = None
    history: Limits = field(default_factory=Limits)
    """How much history the state database keeps (`[history]`)."""
    hours: OpeningHours | None = None
    """When the board referees (`[hours]`); None: always."""


@dataclass(frozen=True)
class MqttConfig:
    """The `[mqtt]` table: where the board reports (firmware/app/mqtt.py); each value None
    where the file leaves it to the command line or the default."""

    url: str | None = None
    board_id: str | None = None
    ca_file: Path | None = None
    name: str | None = None
    area: str | None = None
    discovery_prefix: str | None = None
    support_url: str | None = None


def load_config(path: Path) -> Config:
    try:
        text = Path(path).read_bytes().decode("utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a configuration file") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a configuration file") from None
    return _config(Path(path), data)


_TOP = {
    "board": str,
    "game": str,
    "takeback": bool,
    "journal": str,
    "link": str,
    "ai": str,
    "ai_budget": float,
}
_SECTIONS = {"options", "unattended", "mqtt", "history", "hours"}
_UNATTENDED = ("attract_after", "reset_after")
_MQTT = ("url", "board_id", "ca_file", "name", "area", "discovery_prefix", "support_url")
_HISTORY = {"keep_days": "a number of days", "max_mb": "a number of megabytes"}


def _config(path: Path, data: dict[str, Any]) -> Config:
    def refuse(key: str, problem: str) -> ConfigError:
        return ConfigError(f"{path}: {key} {problem}")

    for key, value in data.items():
        if key in _TOP:
            if _TOP[key] is float:
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise refuse(key, f"is a number of seconds, not {value!r}")
                if not math.isfinite(value) or value <= 0:
                    raise refuse(key, f"is a number of seconds, more than 0, not {value!r}")
            elif not isinstance(value, _TOP[key]):
                raise refuse(key, f"is {_kind(_TOP[key])}, not {value!r}")
        elif key in _SECTIONS:
            if not isinstance(value, dict):
                raise refuse(key, f"is a table ([{key}]), not {value!r}")
        else:
            known = ", ".join([*_TOP, *sorted(_SECTIONS)])
            raise refuse(key, f"is not a setting (the settings: {known})")
    for key in ("board", "game", "journal", "link", "ai"):
        if data.get(key) == "":
            raise refuse(key, "is empty")
    seconds: dict[str, float | None] = {}
    for key, value in data.get("unattended", {}).items():
        name = f"unattended.{key}"
        if key not in _UNATTENDED:
            raise refuse(name, f"is not a setting (the settings: {', '.join(_UNATTENDED)})")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise refuse(name, f"is a number of seconds, not {value!r}")
        if not math.isfinite(value) or value < 0:
            raise refuse(name, f"is a number of seconds, 0 (never) or more, not {value!r}")
        seconds[key] = float(value) or None
    options = data.get("options", {})
    for key, value in options.items():
        if not isinstance(value, str | int | float | bool):
            raise refuse(f"options.{key}", f"is a plain value, not {value!r}")
    mqtt = _mqtt(data["mqtt"], refuse) if "mqtt" in data else None
    history = _history(data.get("history", {}), refuse)
    try:
        hours = parse_hours(data["hours"]) if "hours" in data else None
    except HoursError as error:
        raise ConfigError(f"{path}: {error}") from None
    journal = data.get("journal")
    return Config(
        board=data.get("board"),
        game=data.get("game"),
        options=dict(options),
        takeback=data.get("takeback"),
        journal=Path(journal) if journal else None,
        link=data.get("link"),
        unattended=Unattended(**seconds),
        mqtt=mqtt,
        ai=data.get("ai"),
        ai_budget=float(data["ai_budget"]) if "ai_budget" in data else None,
        history=history,
        hours=hours,
    )


def _history(table: dict[str, Any], refuse: Callable[[str, str], ConfigError]) -> Limits:
    for key, value in table.items():
        name = f"history.{key}"
        if key not in _HISTORY:
            raise refuse(name, f"is not a setting (the settings: {', '.join(_HISTORY)})")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise refuse(name, f"is {_HISTORY[key]}, not {value!r}")
        if not math.isfinite(value) or value <= 0:
            raise refuse(name, f"is {_HISTORY[key]}, more than 0, not {value!r}")
    default = Limits()
    return Limits(
        keep_days=float(table.get("keep_days", default.keep_days)),
        max_bytes=int(table["max_mb"] * 1024 * 1024) if "max_mb" in table else default.max_bytes,
    )


def _mqtt(table: dict[str, Any], refuse: Callable[[str, str], ConfigError]) -> MqttConfig:
    for key, value in table.items():
        name = f"mqtt.{key}"
        if key not in _MQTT:
            raise refuse(name, f"is not a setting (the settings: {', '.join(_MQTT)})")
        if not isinstance(value, str):
            raise refuse(name, f"is text, not {value!r}")
        if not value:
            raise refuse(name, "is empty")
    url, board_id = table.get("url"), table.get("board_id")
    if url is not None:
        try:
            broker = parse_broker(url)
        except MqttSettingError as error:
            raise refuse("mqtt.url", f"is not a broker to report to ({error})") from None
        if "ca_file" in table and not broker.tls:
            raise refuse("mqtt.ca_file", "is for an mqtts:// url only")
    if board_id is not None:
        try:
            check_board_id(board_id)
        except MqttSettingError as error:
            raise refuse("mqtt.board_id", f"cannot be used ({error})") from None
    shown: dict[str, Callable[[str], str]] = {
        "name": lambda name: check_label("name", name),
        "area": lambda area: check_label("area", area),
        "discovery_prefix": check_discovery_prefix,
        "support_url": check_support_url,
    }
    for key, check in shown.items():
        if key in table:
            try:
                check(table[key])
            except MqttSettingError as error:
                raise refuse(f"mqtt.{key}", f"cannot be used ({error})") from None
    ca_file = table.get("ca_file")
    return MqttConfig(
        url,
        board_id,
        Path(ca_file).expanduser() if ca_file else None,
        name=table.get("name"),
        area=table.get("area"),
        discovery_prefix=table.get("discovery_prefix"),
        support_url=table.get("support_url"),
    )


def _kind(kind: type) -> str:
    return {str: "text", bool: "true or false"}[kind]


def state_database(given: str | None) -> Path:
    """The state database a command means: the one it was given, else the installed
    configuration's (so `magboard stats` on a Pi needs no flag), else the state directory's."""
    if given:
        return Path(given).expanduser()
    if DEFAULT_CONFIG.is_file():
        configured = load_config(DEFAULT_CONFIG).journal
        if configured is not None:
            return configured
    return DEFAULT_JOURNAL.expanduser()
