"""What an operator's dashboard (Home Assistant) needs from a board, against a real Mosquitto
(tests/support/broker.py): controls cleared when the board cannot take them, figures that
follow the day, brightness kept across a restart, the controls' commands answered, every field
the entities read present in what the board publishes, and the device named and placed as
configured. tests/ha checks the same configurations against Home Assistant's own code."""

from __future__ import annotations

import argparse
import json
import re
import time

import pytest
from broker import Broker, Listener, topic
from sim_mqtt import Board

from magboard.firmware.app.config import ConfigError, load_config
from magboard.firmware.app.mqtt import USAGE_EVERY, next_midnight
from magboard.firmware.app.mqtt_discovery import ALERTS, ENTITIES, software_version
from magboard.firmware.app.run import mqtt_of
from magboard.firmware.events import GameStarted

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]  # a real broker each

CONTROLS = {e.object_id for e in ENTITIES if e.commands}
X_WINS = ("a1", "b1", "b2", "c1", "c3")


def configs(listener: Listener, board: str, after: int = 0) -> dict[str, str]:
    """The last discovery payload heard on each of the board's configuration topics."""
    found = {}
    for message in listener.messages[after:]:
        if f"/magboard_{board}/" in message.topic:
            found[message.topic.split("/")[-2]] = message.payload
    return found


def heard_all(board: Board, listener: Listener, after: int = 0) -> dict[str, str]:
    return board.until(
        lambda: (
            (found := configs(listener, board.link.settings.board_id, after))
            and len(found) == len(ENTITIES)
            and found
        )
    )


def retained(broker, pattern: str) -> dict[str, str]:
    """What a client connecting now gets: the retained messages on `pattern`."""
    late = Listener(broker, topics=[pattern])
    try:
        late.wait_for("never", timeout=0.3)
        return {m.topic: m.payload for m in late.messages if m.retained}
    finally:
        late.close()


@pytest.fixture
def open_broker(tmp_path_factory, broker_certificates):
    """A broker that lets a board without credentials in (it reports, and takes no commands)."""
    running = Broker(tmp_path_factory.mktemp("mosquitto"), broker_certificates, anonymous=True)
    try:
        yield running
    finally:
        running.stop()


def test_controls_are_cleared_when_the_board_comes_back_without_credentials(open_broker, tmp_path):
    listener = Listener(open_broker)
    try:
        board = Board(open_broker.url("board1"), "board1", tmp_path)
        try:
            first = heard_all(board, listener)
            assert all(first[c] for c in CONTROLS)  # every control configured
        finally:
            board.close()
        after = len(listener.messages)
        anonymous = Board(open_broker.anonymous_url(), "board1", tmp_path)
        try:
            again = heard_all(anonymous, listener, after)
            assert {c for c, payload in again.items() if not payload} == CONTROLS
            kept = retained(open_broker, "homeassistant/#")
            assert {t.split("/")[-2] for t in kept} == {e.object_id for e in ENTITIES} - CONTROLS
            # A command now changes nothing: the board listens to nobody.
            started = sum(isinstance(e, GameStarted) for e in anonymous.events)
            listener.publish(topic("board1", "command"), b'{"do": "new-game"}')
            anonymous.until(lambda: False, timeout=0.3)
            assert sum(isinstance(e, GameStarted) for e in anonymous.events) == started
        finally:
            anonymous.close()
    finally:
        listener.close()


def test_games_today_is_published_on_a_timer_and_again_at_midnight(broker, listener, tmp_path):
    base = time.time()
    shift = [0.0]
    board = Board(broker.url("board1"), "board1", tmp_path, wall=lambda: base + shift[0])
    usage = topic("board1", "usage")
    try:
        assert board.until(lambda: listener.on(usage))
        assert json.loads(listener.on(usage)[-1])["started_today"] == 1
        heard = len(listener.on(usage))
        # Nothing happens on the board: the figures come again within USAGE_EVERY.
        step = USAGE_EVERY / 20
        assert board.until(lambda: len(listener.on(usage)) > heard, timeout=10, step=step)
        assert board.session.clock.now() >= USAGE_EVERY
        heard = len(listener.on(usage))
        shift[0] = next_midnight(base) - base + 1  # a second after local midnight
        assert board.until(lambda: len(listener.on(usage)) > heard, step=0.1)
        assert json.loads(listener.on(usage)[-1])["started_today"] == 0  # a new day
        heard = len(listener.on(usage))
        shift[0] = -3 * 24 * 3600  # the clock set back (NTP correcting a Pi's guess)
        assert board.until(lambda: len(listener.on(usage)) > heard, step=0.1)
        assert board.session.clock.now() < 2 * USAGE_EVERY  # not the timer's doing
    finally:
        board.close()


def test_brightness_is_in_the_status_and_kept_across_a_restart(broker, listener, tmp_path):
    board = Board(broker.url("board1"), "board1", tmp_path)
    status = topic("board1", "status")
    try:
        found = heard_all(board, listener)
        number = json.loads(found["brightness"])
        assert number["min"] > 0 and number["max"] == 1
        press = number["command_template"].replace("{{ value }}", "0.35")  # as Home Assistant
        listener.publish(number["command_topic"], press)
        seen = board.until(
            lambda: listener.wait_for(status, lambda p: json.loads(p)["brightness"] == 0.35, 0.05)
        )
        assert seen and board.session.loop.writer.level == 0.35
        answer = json.loads(listener.wait_for(topic("board1", "response")))
        assert answer["ok"] and answer["command"] == "brightness"
    finally:
        board.close()
    after = len(listener.messages)
    again = Board(broker.url("board1"), "board1", tmp_path)  # the board restarted
    try:
        assert again.session.loop.writer.level == 0.35
        back = again.until(lambda: listener.wait_for(status, lambda p: True, 0.05, after))
        assert json.loads(back)["brightness"] == 0.35
        assert json.loads(back)["version"] == software_version()
    finally:
        again.close()


def test_the_game_select_and_buttons_send_commands_the_board_answers(broker, listener, tmp_path):
    board = Board(broker.url("board1"), "board1", tmp_path)
    try:
        found = heard_all(board, listener)
        select = json.loads(found["game_select"])
        assert {"tic-tac-toe", "tic-tac-cap"} <= set(select["options"])  # mini's games
        assert "lance-assembly" not in select["options"]  # r1's only
        chosen = select["command_template"].replace("{{ value }}", "tic-tac-cap")
        listener.publish(select["command_topic"], chosen)
        assert board.until(lambda: board.session.loop.referee.game.name == "tic-tac-cap")
        status = board.until(
            lambda: listener.wait_for(
                topic("board1", "status"), lambda p: json.loads(p)["game"] == "tic-tac-cap", 0.05
            )
        )
        assert status
        button = json.loads(found["new_game"])
        before = sum(isinstance(e, GameStarted) for e in board.events)
        listener.publish(button["command_topic"], button["payload_press"])
        assert board.until(lambda: sum(isinstance(e, GameStarted) for e in board.events) > before)
        assert json.loads(found["run_selftest"])["payload_press"] == '{"do":"selftest"}'
        after = len(listener.messages)
        listener.publish(topic("board1", "command"), b'{"do": "fly"}')
        answer = board.until(
            lambda: listener.wait_for(
                topic("board1", "response"),
                lambda p: json.loads(p)["command"] == "fly",
                0.05,
                after,
            )
        )
        answer = json.loads(answer)
        assert answer["ok"] is False and answer["command"] == "fly"
        assert answer["text"].startswith("refused: unknown command 'fly'")
        assert topic("board1", "response") in retained(broker, "magboard/board1/#")
    finally:
        board.close()


def test_every_field_an_entity_reads_is_in_what_the_board_publishes(broker, listener, tmp_path):
    """Winner, health, figures, the alert event: each template's fields, on its topic."""
    board = Board(broker.url("board1"), "board1", tmp_path, heartbeat=2.0)
    try:
        found = {k: json.loads(v) for k, v in heard_all(board, listener).items()}
        listener.publish(topic("board1", "command"), b'{"do": "fly"}')  # something on response
        board.play(*X_WINS)
        board.session.board.inject_i2c_errors(0, 1)  # a fault
        assert board.until(
            lambda: listener.wait_for(
                topic("board1", "heartbeat"), lambda p: '"faults":0' not in p, 0.05
            ),
            step=0.5,
        )
        events = [json.loads(p) for p in listener.on(topic("board1", "events"))]
        assert set(ALERTS) <= {e["type"] for e in events}  # what the event entity passes on
        status = json.loads(listener.on(topic("board1", "status"))[-1])
        assert status["result"]["winners"] == ["X"]
        for object_id, config in found.items():
            if "state_topic" not in config or config["state_topic"].endswith("/events"):
                continue
            payload = json.loads(listener.on(config["state_topic"])[-1])
            fields = set(re.findall(r"value_json\.(\w+)", config["value_template"]))
            assert fields <= set(payload), (object_id, fields - set(payload))
        heartbeat = json.loads(listener.on(topic("board1", "heartbeat"))[-1])
        assert heartbeat["faults"] >= 1 and heartbeat["cpu_temp"] == 48.3
        assert found["faults"]["state_class"] == "total_increasing"
        assert found["faults"]["entity_category"] == "diagnostic"
        assert found["games_today"]["state_class"] == "total_increasing"
        assert found["state"]["device_class"] == "enum"
        assert found["alert"]["event_types"] == list(ALERTS)
    finally:
        board.close()


def test_the_device_takes_its_name_area_and_discovery_prefix(broker, tmp_path):
    listener = Listener(broker, topics=["museum/ha/#", "homeassistant/#"])
    board = Board(
        broker.url("board2"),
        "board2",
        tmp_path,
        name="Table 7 by the window",
        area="Cafe",
        discovery_prefix="museum/ha",
        support_url="https://example.org/boards",
    )
    try:
        found = heard_all(board, listener)
        assert all(m.topic.startswith("museum/ha/") for m in listener.messages)
        for payload in found.values():
            config = json.loads(payload)
            assert config["device"]["name"] == "Table 7 by the window"
            assert config["device"]["suggested_area"] == "Cafe"
            assert config["origin"] == {
                "name": "magboard",
                "sw_version": software_version(),
                "support_url": "https://example.org/boards",
            }
    finally:
        board.close()
        listener.close()


def test_the_mqtt_tables_name_area_prefix_and_support_url_are_checked(tmp_path):
    path = tmp_path / "magboard.toml"
    path.write_text(
        '[mqtt]\nurl = "mqtt://b:pw@hub"\nname = "Table 7"\narea = "Cafe"\n'
        'discovery_prefix = "museum/ha"\nsupport_url = "https://example.org/help"\n'
    )
    args = argparse.Namespace(mqtt=None, board_id=None)
    chosen = mqtt_of(args, load_config(path))
    assert (chosen.name, chosen.area) == ("Table 7", "Cafe")
    assert chosen.discovery_prefix == "museum/ha"
    assert chosen.support_url == "https://example.org/help"
    path.write_text('[mqtt]\nurl = "mqtt://b:pw@hub"\n')
    assert mqtt_of(args, load_config(path)).discovery_prefix == "homeassistant"
    for text, said in (
        ('name = ""', "mqtt.name is empty"),
        ('name = "  "', "mqtt.name cannot be used"),
        ('area = "a\\nb"', "mqtt.area cannot be used"),
        ('discovery_prefix = "ha/#"', "mqtt.discovery_prefix cannot be used"),
        ('discovery_prefix = "ha//x"', "mqtt.discovery_prefix cannot be used"),
        ('support_url = "ftp://x"', "mqtt.support_url cannot be used"),
    ):
        path.write_text(f'[mqtt]\nurl = "mqtt://h"\n{text}\n')
        with pytest.raises(ConfigError) as refused:
            load_config(path)
        assert str(refused.value).startswith(f"{path}: {said}"), str(refused.value)


def test_a_kept_level_that_does_not_read_leaves_the_lights_at_full(broker, tmp_path):
    (tmp_path / "board3.brightness").write_text("dim, please\n")
    board = Board(broker.url("board3"), "board3", tmp_path)
    try:
        assert board.session.loop.writer.level == 1.0
        board.session.loop.writer.set_level(0.6)  # as the LED menu does
        board.until(lambda: (tmp_path / "board3.brightness").read_text() == "0.6\n", timeout=2)
        assert (tmp_path / "board3.brightness").read_text() == "0.6\n"
    finally:
        board.close()
