"""Home Assistant's MQTT discovery for a board: retained configurations on
`homeassistant/<component>/<node_id>/<object_id>/config` that make each board a device with a
few sensors (what it waits for, the game, whose turn, games begun today, faults) and a button
that starts a new game, with no configuration on Home Assistant's side.

The entities read the board's own topics (status, usage, heartbeat) with value templates, and
the button publishes the board's own `new-game` command: nothing here is published for Home
Assistant alone but the configurations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from .mqtt_settings import MqttSettings

PREFIX = "homeassistant"
"""Home Assistant's default discovery prefix."""
MANUFACTURER = "magboard"


@dataclass(frozen=True)
class Sensor:
    object_id: str
    name: str
    topic: str
    """Which of the board's topics holds the value: status, usage or heartbeat."""
    template: str
    icon: str


SENSORS = (
    Sensor("state", "State", "status", "{{ value_json.phase }}", "mdi:checkerboard"),
    Sensor("game", "Game", "status", "{{ value_json.game }}", "mdi:gamepad-variant"),
    Sensor(
        "turn",
        "Turn",
        "status",
        "{{ value_json.to_move if value_json.to_move else '-' }} ({{ value_json.turn }})",
        "mdi:account-arrow-right",
    ),
    Sensor(
        "games_today",
        "Games today",
        "usage",
        "{{ value_json.started_today }}",
        "mdi:counter",
    ),
    Sensor("faults", "Faults", "heartbeat", "{{ value_json.faults }}", "mdi:alert-circle-outline"),
)
NEW_GAME_PRESS = json.dumps({"do": "new-game"}, separators=(",", ":"))
"""The button's payload: the board's own command (firmware/app/mqtt_commands.py)."""


def node_id(settings: MqttSettings) -> str:
    return f"magboard_{settings.board_id}"


def software_version() -> str:
    try:
        return metadata.version("magboard")
    except metadata.PackageNotFoundError:
        return "unknown"


def device(settings: MqttSettings, board: str) -> dict[str, Any]:
    return {
        "identifiers": [node_id(settings)],
        "name": f"magboard {settings.board_id}",
        "manufacturer": MANUFACTURER,
        "model": f"board {board}",
        "sw_version": software_version(),
    }


def discovery(settings: MqttSettings, board: str, commands: bool) -> dict[str, dict[str, Any]]:
    """Each discovery topic and its configuration; the new-game button only where the board
    takes `commands` (it listens for them only on an authenticated connection)."""
    node = node_id(settings)
    common = {
        "availability_topic": settings.topic("availability"),
        "payload_available": "online",
        "payload_not_available": "offline",
        "device": device(settings, board),
    }
    configs: dict[str, dict[str, Any]] = {}
    for sensor in SENSORS:
        configs[f"{PREFIX}/sensor/{node}/{sensor.object_id}/config"] = {
            "name": sensor.name,
            "unique_id": f"{node}_{sensor.object_id}",
            "state_topic": settings.topic(sensor.topic),
            "value_template": sensor.template,
            "icon": sensor.icon,
            **common,
        }
    if not commands:
        return configs
    configs[f"{PREFIX}/button/{node}/new_game/config"] = {
        "name": "New game",
        "unique_id": f"{node}_new_game",
        "command_topic": settings.topic("command"),
        "payload_press": NEW_GAME_PRESS,
        "qos": 1,
        "icon": "mdi:restart",
        **common,
    }
    return configs
