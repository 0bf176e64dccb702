"""Home Assistant's MQTT discovery for a board: retained configurations on
`<prefix>/<component>/<node_id>/<object_id>/config` (prefix `homeassistant` unless `[mqtt]
discovery_prefix` says otherwise) that make each board a device with its sensors, its health,
an event entity for the staff's alerts and, where the board takes commands, the controls (a
new-game and a self-test button, a game select, a brightness number), with no configuration on
Home Assistant's side.

The entities read the board's own topics (status, usage, heartbeat, events, response) with
value templates, and the controls publish the board's own commands: nothing here is published
for Home Assistant alone but the configurations. A control the board cannot take (no
credentials, so it listens to nobody) has its configuration cleared, an empty retained
payload, so Home Assistant removes it rather than show a button that does nothing.

tests/ha (`make test-ha`) checks every configuration against Home Assistant's own schemas and
renders every template against the board's payloads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from .closing import STATES
from .mqtt_settings import MqttSettings

MANUFACTURER = "magboard"
PHASES = ("play", "choice", "in-hand", "illegal", "obligation", "taking-back", "over", "clearing")
"""The status's `phase`: what the board waits for (docs/protocol.md, "MQTT")."""
SELFTEST_RESULTS = ("passed", "failed", "unreadable", "none")
ALERTS = ("game-over", "fault")
"""The events the event entity passes on: what the staff may want an automation for."""
BRIGHTNESS = (0.05, 1.0, 0.05)
"""The brightness number's least value, greatest and step (the command takes above 0 to 1)."""
NEW_GAME_PRESS = json.dumps({"do": "new-game"}, separators=(",", ":"))
"""The button's payload: the board's own command (firmware/app/mqtt_commands.py)."""
SELFTEST_PRESS = json.dumps({"do": "selftest"}, separators=(",", ":"))
GAME_COMMAND = '{"do":"new-game","game":"{{ value }}"}'
BRIGHTNESS_COMMAND = '{"do":"brightness","level":{{ value }}}'
DIAGNOSTIC, CONFIG = "diagnostic", "config"
CONTROLS = frozenset({"button", "select", "number"})
"""The components that publish to the board's `command` topic."""


@dataclass(frozen=True)
class Entity:
    component: str
    object_id: str
    name: str
    icon: str
    topic: str | None
    """Which of the board's topics it reads (None: a button, which reads nothing)."""
    template: str | None = None
    commands: bool = False
    """A control: configured only where the board takes commands."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Keys of its component's schema (device class, state class, category...)."""


def _enum(options: Iterable[str], **extra: Any) -> dict[str, Any]:
    return {"device_class": "enum", "options": list(options), **extra}


ENTITIES = (
    Entity(
        "sensor",
        "state",
        "State",
        "mdi:checkerboard",
        "status",
        "{{ value_json.state }}",
        extra=_enum(STATES),
    ),
    Entity(
        "sensor",
        "phase",
        "Waiting for",
        "mdi:timer-sand",
        "status",
        "{{ value_json.phase }}",
        extra=_enum(PHASES),
    ),
    Entity("sensor", "game", "Game", "mdi:gamepad-variant", "status", "{{ value_json.game }}"),
    Entity(
        "sensor",
        "turn",
        "Turn",
        "mdi:account-arrow-right",
        "status",
        "{{ value_json.to_move if value_json.to_move else '-' }} ({{ value_json.turn }})",
    ),
    Entity(
        "sensor",
        "winner",
        "Winner",
        "mdi:trophy",
        "status",
        "{% set r = value_json.result %}"
        "{{ '-' if not r else (r.winners | join(' and ') if r.winners else 'draw') }}",
    ),
    Entity(
        "sensor",
        "games_today",
        "Games today",
        "mdi:counter",
        "usage",
        "{{ value_json.started_today }}",
        # A count that only grows during the day and starts again from 0 at midnight: what
        # Home Assistant's statistics call total_increasing (a drop is a new cycle).
        extra={"state_class": "total_increasing"},
    ),
    Entity(
        "sensor",
        "version",
        "Software version",
        "mdi:package-variant",
        "status",
        "{{ value_json.version }}",
        extra={"entity_category": DIAGNOSTIC},
    ),
    Entity(
        "sensor",
        "faults",
        "Faults",
        "mdi:alert-circle-outline",
        "heartbeat",
        "{{ value_json.faults }}",
        extra={"state_class": "total_increasing", "entity_category": DIAGNOSTIC},
    ),
    Entity(
        "sensor",
        "expanders_missing",
        "Missing expanders",
        "mdi:chip",
        "heartbeat",
        "{{ value_json.expanders_missing | length }}",
        extra={
            "state_class": "measurement",
            "entity_category": DIAGNOSTIC,
            "json_attributes_template": "{{ {'missing': value_json.expanders_missing} | tojson }}",
        },
    ),
    Entity(
        "sensor",
        "selftest",
        "Self-test",
        "mdi:clipboard-check-outline",
        "heartbeat",
        "{% set s = value_json.selftest %}"
        "{{ 'none' if s is none else ('unreadable' if s.unreadable else "
        "('passed' if s.passed else 'failed')) }}",
        extra=_enum(
            SELFTEST_RESULTS,
            entity_category=DIAGNOSTIC,
            json_attributes_template="{{ (value_json.selftest or {}) | tojson }}",
        ),
    ),
    Entity(
        "sensor",
        "i2c_error_rate",
        "I2C error rate",
        "mdi:swap-horizontal",
        "heartbeat",
        "{{ none if value_json.i2c_error_rate is none "
        "else (value_json.i2c_error_rate * 100) | round(4) }}",
        extra={
            "unit_of_measurement": "%",
            "state_class": "measurement",
            "entity_category": DIAGNOSTIC,
        },
    ),
    Entity(
        "sensor",
        "cpu_temp",
        "CPU temperature",
        "mdi:thermometer",
        "heartbeat",
        "{{ value_json.cpu_temp }}",
        extra={
            "device_class": "temperature",
            "unit_of_measurement": "°C",
            "state_class": "measurement",
            "entity_category": DIAGNOSTIC,
        },
    ),
    Entity(
        "sensor",
        "uptime",
        "Uptime",
        "mdi:clock-outline",
        "heartbeat",
        "{{ value_json.uptime | round(0) }}",
        extra={
            "device_class": "duration",
            "unit_of_measurement": "s",
            "state_class": "measurement",
            "entity_category": DIAGNOSTIC,
        },
    ),
    Entity(
        "event",
        "alert",
        "Alert",
        "mdi:bell-alert",
        "events",
        # Every other event renders empty, which Home Assistant ignores without a word.
        "{% if value_json.type in " + json.dumps(list(ALERTS)) + " %}"
        "{{ dict(value_json, event_type=value_json.type) | tojson }}{% endif %}",
        extra={"event_types": list(ALERTS)},
    ),
    Entity(
        "button",
        "new_game",
        "New game",
        "mdi:restart",
        None,
        commands=True,
        extra={"payload_press": NEW_GAME_PRESS},
    ),
    Entity(
        "button",
        "run_selftest",
        "Run the self-test",
        "mdi:clipboard-play-outline",
        None,
        commands=True,
        extra={"payload_press": SELFTEST_PRESS, "entity_category": DIAGNOSTIC},
    ),
    Entity(
        "select",
        "game_select",
        "Game to play",
        "mdi:gamepad-square",
        "status",
        "{{ value_json.game }}",
        commands=True,
        extra={"command_template": GAME_COMMAND},
    ),
    Entity(
        "number",
        "brightness",
        "Brightness",
        "mdi:brightness-6",
        "status",
        "{{ value_json.brightness }}",
        commands=True,
        extra={
            "command_template": BRIGHTNESS_COMMAND,
            "min": BRIGHTNESS[0],
            "max": BRIGHTNESS[1],
            "step": BRIGHTNESS[2],
            "mode": "slider",
            "entity_category": CONFIG,
        },
    ),
    Entity(
        "sensor",
        "response",
        "Last command",
        "mdi:message-reply-text",
        "response",
        "{{ value_json.text[:255] }}",  # Home Assistant keeps no longer state
        commands=True,
        extra={"entity_category": DIAGNOSTIC},
    ),
)


def node_id(settings: MqttSettings) -> str:
    return f"magboard_{settings.board_id}"


def software_version() -> str:
    try:
        return metadata.version("magboard")
    except metadata.PackageNotFoundError:
        return "unknown"


def device(settings: MqttSettings, board: str) -> dict[str, Any]:
    found = {
        "identifiers": [node_id(settings)],
        "name": settings.name or f"magboard {settings.board_id}",
        "manufacturer": MANUFACTURER,
        "model": f"board {board}",
        "sw_version": software_version(),
    }
    if settings.area:
        found["suggested_area"] = settings.area
    return found


def origin(settings: MqttSettings) -> dict[str, Any]:
    """What made the entities, for Home Assistant's log; `support_url` where the operator
    gave one (`[mqtt] support_url`: their own help page for the boards)."""
    found = {"name": MANUFACTURER, "sw_version": software_version()}
    if settings.support_url:
        found["support_url"] = settings.support_url
    return found


def config_topic(settings: MqttSettings, entity: Entity) -> str:
    prefix, node = settings.discovery_prefix, node_id(settings)
    return f"{prefix}/{entity.component}/{node}/{entity.object_id}/config"


def discovery(
    settings: MqttSettings, board: str, commands: bool, games: Iterable[str] = ()
) -> dict[str, dict[str, Any] | None]:
    """Each discovery topic and its configuration: None (to be cleared) for the controls where
    the board does not take `commands`. `games`: the games the select offers (those with a
    profile on this board)."""
    common = {
        "availability_topic": settings.topic("availability"),
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": device(settings, board),
        "origin": origin(settings),
    }
    node = node_id(settings)
    configs: dict[str, dict[str, Any] | None] = {}
    for entity in ENTITIES:
        where = config_topic(settings, entity)
        if entity.commands and not commands:
            configs[where] = None
            continue
        config: dict[str, Any] = {
            "name": entity.name,
            "unique_id": f"{node}_{entity.object_id}",
            "icon": entity.icon,
        }
        if entity.topic is not None:
            config["state_topic"] = settings.topic(entity.topic)
            config["value_template"] = entity.template
            if "json_attributes_template" in entity.extra:
                config["json_attributes_topic"] = settings.topic(entity.topic)
        if entity.component in CONTROLS:
            config["command_topic"] = settings.topic("command")
            config["qos"] = 1
        if entity.component == "select":
            config["options"] = list(games)
        configs[where] = {**config, **entity.extra, **common}
    return configs
