"""Every discovery configuration a board publishes, read by Home Assistant's own MQTT code
(`make test-ha`, in a venv of its own with homeassistant 2024.3.3): the topic as its discovery
matches it, each payload through its platform's DISCOVERY_SCHEMA (which drops keys it does
not know: none may be dropped but those newer releases read), the origin through its schema,
and every value template rendered by its template engine against the board's payloads."""

from __future__ import annotations

import asyncio
import importlib
import json
import math

import pytest
from homeassistant.components.mqtt.discovery import (
    MQTT_ORIGIN_INFO_SCHEMA,
    SUPPORTED_COMPONENTS,
    TOPIC_MATCHER,
)
from homeassistant.components.mqtt.models import PayloadSentinel
from homeassistant.components.sensor import (
    DEVICE_CLASS_STATE_CLASSES,
    DEVICE_CLASS_UNITS,
    SensorDeviceClass,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers.template import Template

from magboard.firmware.app.mqtt_discovery import ALERTS, ENTITIES, discovery
from magboard.firmware.app.mqtt_settings import settings
from magboard.firmware.profiles import profiled_pairs

NEWER = {"sensor": {"options"}}
"""Keys 2024.3's schemas drop that later releases read (an enum sensor's options)."""
BOARDS = sorted({board for _, board in profiled_pairs()})
SETTINGS = {
    "plain": settings("mqtt://u:p@hub", "cafe-3"),
    "named": settings(
        "mqtt://u:p@hub",
        "table_7",
        name="Table 7 by the window",
        area="Cafe",
        discovery_prefix="ha/discovery",
        support_url="https://example.org/boards",
    ),
}


def _configurations():
    for board in BOARDS:
        games = [game for game, on in profiled_pairs() if on == board]
        for commands in (True, False):
            for label, chosen in SETTINGS.items():
                yield pytest.param(
                    chosen,
                    discovery(chosen, board, commands, games),
                    commands,
                    games,
                    id=f"{board}-{'commands' if commands else 'read-only'}-{label}",
                )


CONFIGURATIONS = list(_configurations())


@pytest.mark.parametrize(("chosen", "configs", "commands", "games"), CONFIGURATIONS)
def test_every_configuration_passes_home_assistants_discovery(chosen, configs, commands, games):
    controls = {e.object_id for e in ENTITIES if e.commands}
    for topic, config in configs.items():
        prefix = f"{chosen.discovery_prefix}/"
        assert topic.startswith(prefix)
        match = TOPIC_MATCHER.match(topic.removeprefix(prefix))
        assert match, topic
        component, node, object_id = match.groups()
        assert component in SUPPORTED_COMPONENTS and node == f"magboard_{chosen.board_id}"
        if config is None:  # cleared: Home Assistant removes the entity
            assert not commands and object_id in controls
            continue
        json.loads(json.dumps(config))  # what goes on the wire
        MQTT_ORIGIN_INFO_SCHEMA(config["origin"])
        schema = importlib.import_module(f"homeassistant.components.mqtt.{component}")
        validated = schema.DISCOVERY_SCHEMA(dict(config))
        dropped = set(config) - set(validated)
        assert dropped <= NEWER.get(component, set()), (topic, dropped)
        assert validated["device"]["identifiers"] == [node]
        if component == "sensor" and "device_class" in config:
            # What Home Assistant's sensor accepts of each device class (an enum: no state
            # class and no unit), from its own tables.
            kind = SensorDeviceClass(config["device_class"])
            if "state_class" in config:
                assert config["state_class"] in DEVICE_CLASS_STATE_CLASSES[kind], topic
            if "unit_of_measurement" in config:
                assert config["unit_of_measurement"] in DEVICE_CLASS_UNITS[kind], topic
            if kind is SensorDeviceClass.ENUM:
                assert "state_class" not in config and "unit_of_measurement" not in config
        if component == "select":
            assert validated["options"] == games and games
        if component == "number":
            assert 0 < validated["min"] < validated["max"] <= 1
    shown = {t for t, c in configs.items() if c is not None}
    assert len(shown) == len(ENTITIES) - (0 if commands else len(controls))


@pytest.mark.parametrize(("chosen", "configs", "commands", "games"), CONFIGURATIONS)
def test_the_device_says_its_name_area_and_origin(chosen, configs, commands, games):
    devices = {json.dumps(c["device"], sort_keys=True) for c in configs.values() if c}
    assert len(devices) == 1  # one device, every entity on it
    device = json.loads(devices.pop())
    assert device["name"] == (chosen.name or f"magboard {chosen.board_id}")
    assert device.get("suggested_area") == chosen.area
    origin = next(c["origin"] for c in configs.values() if c)
    assert origin["name"] == "magboard" and origin["sw_version"] == device["sw_version"]
    assert origin.get("support_url") == chosen.support_url


STATUS = {
    "board": "mini",
    "game": "tic-tac-toe",
    "options": {},
    "players": ["X", "O"],
    "phase": "play",
    "to_move": "O",
    "turn": 1,
    "last_move": {"player": "X", "actions": ["a1"], "turn": 1},
    "result": None,
    "clock": None,
    "t": 0.68,
    "state": "active",
    "version": "0.1.0",
    "brightness": 0.5,
}
WON = {**STATUS, "phase": "over", "to_move": None, "turn": 5}
WON["result"] = {"winners": ["X"], "draw": False, "reason": "three in a row", "scores": []}
DRAWN = {**WON, "result": {"winners": [], "draw": True, "reason": "full", "scores": []}}
HEARTBEAT = {
    "t": 30.0,
    "uptime": 30.4,
    "expanders_present": ["U1 i2c1 0x20", "U2 i2c1 0x21", "U3 i2c1 0x22"],
    "expanders_missing": ["U4 i2c1 0x23"],
    "i2c_transfers": 1204,
    "i2c_errors": 3,
    "i2c_error_rate": 0.002492,
    "faults": 3,
    "fault_kinds": {"i2c-error": 2, "expander-lost": 1},
    "selftest": {
        "wall": 1767000000.0,
        "passed": False,
        "stuck": ["c3.s"],
        "dead_sensors": [],
        "dead_leds": ["a1"],
        "missing_expanders": [],
    },
    "cpu_temp": 48.3,
}
FRESH = {**HEARTBEAT, "i2c_error_rate": None, "selftest": None, "cpu_temp": None}
USAGE = {"games": [], "started_today": 4, "set_aside": 0, "selftest": None}
RESPONSE = {"t": 5.2, "command": "fly", "ok": False, "text": "refused: unknown command 'fly'"}
EXPECTED = {
    # object_id: (topic's payload, what Home Assistant's state becomes)
    "state": [(STATUS, "active")],
    "phase": [(STATUS, "play"), (WON, "over")],
    "game": [(STATUS, "tic-tac-toe")],
    "game_select": [(STATUS, "tic-tac-toe")],
    "turn": [(STATUS, "O (1)"), (WON, "- (5)")],
    "winner": [(STATUS, "-"), (WON, "X"), (DRAWN, "draw")],
    "version": [(STATUS, "0.1.0")],
    "brightness": [(STATUS, 0.5)],
    "games_today": [(USAGE, 4)],
    "faults": [(HEARTBEAT, 3)],
    "expanders_missing": [(HEARTBEAT, 1), (FRESH, 1)],
    "selftest": [(HEARTBEAT, "failed"), (FRESH, "none")],
    "i2c_error_rate": [(HEARTBEAT, 0.2492), (FRESH, None)],
    "cpu_temp": [(HEARTBEAT, 48.3), (FRESH, None)],
    "uptime": [(HEARTBEAT, 30)],
    "response": [(RESPONSE, "refused: unknown command 'fly'")],
}


def _state(rendered: str, numeric: bool):
    """As the MQTT sensor takes a rendered value: "None" is no value."""
    if rendered == "None":
        return None
    return float(rendered) if numeric else rendered


def test_every_template_renders_what_a_person_should_see(tmp_path):
    configs = discovery(SETTINGS["plain"], "mini", True, ["tic-tac-toe"])
    by_id = {t.split("/")[3]: c for t, c in configs.items()}

    async def render() -> None:
        hass = HomeAssistant(str(tmp_path))
        try:
            for object_id, cases in EXPECTED.items():
                config = by_id[object_id]
                numeric = "state_class" in config or "unit_of_measurement" in config
                numeric |= config.get("min") is not None  # the number
                for payload, expected in cases:
                    template = Template(config["value_template"], hass)
                    rendered = template.async_render_with_possible_json_value(
                        json.dumps(payload), PayloadSentinel.DEFAULT
                    )
                    got = _state(str(rendered), numeric)
                    if isinstance(expected, float | int) and got is not None:
                        assert math.isclose(got, expected), (object_id, rendered)
                    else:
                        assert got == expected, (object_id, rendered)
                    if config.get("device_class") == "enum":
                        assert got in config["options"], (object_id, got)
            missing = Template(by_id["expanders_missing"]["json_attributes_template"], hass)
            attributes = missing.async_render_with_possible_json_value(json.dumps(HEARTBEAT))
            assert json.loads(attributes) == {"missing": ["U4 i2c1 0x23"]}
            alert = Template(by_id["alert"]["value_template"], hass)
            for kind in ALERTS:
                event = {"type": kind, "t": 9.5, "names": ["X"]}
                shown = json.loads(alert.async_render_with_possible_json_value(json.dumps(event)))
                assert shown["event_type"] == kind and shown["t"] == 9.5
            quiet = alert.async_render_with_possible_json_value('{"type":"move","t":1.0}')
            assert quiet == ""  # Home Assistant ignores an empty rendering without a word
        finally:
            await hass.async_stop(force=True)

    asyncio.run(render())


def test_the_controls_send_the_boards_own_commands(tmp_path):
    configs = discovery(SETTINGS["plain"], "r1", True, ["tic-tac-toe", "magnetmen"])
    by_id = {t.split("/")[3]: c for t, c in configs.items()}

    async def render() -> None:
        hass = HomeAssistant(str(tmp_path))
        try:
            select = Template(by_id["game_select"]["command_template"], hass)
            sent = select.async_render({"value": "magnetmen"}, parse_result=False)
            assert json.loads(sent) == {"do": "new-game", "game": "magnetmen"}
            number = Template(by_id["brightness"]["command_template"], hass)
            sent = number.async_render({"value": 0.35}, parse_result=False)
            assert json.loads(sent) == {"do": "brightness", "level": 0.35}
        finally:
            await hass.async_stop(force=True)

    asyncio.run(render())
    assert json.loads(by_id["new_game"]["payload_press"]) == {"do": "new-game"}
    assert json.loads(by_id["run_selftest"]["payload_press"]) == {"do": "selftest"}
