"""A board on MQTT, against a real Mosquitto (tests/support/broker.py): what it publishes, its
last will, Home Assistant's discovery, who may connect, commands good and bad, TLS, and a broker
that goes away. The board is simulated and runs in virtual time; the network is real, so every
wait on it is bounded."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest
from broker import Listener, topic
from sim_mqtt import Board

from magboard.firmware.app.config import ConfigError, load_config
from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.mqtt import open_mqtt
from magboard.firmware.app.mqtt_commands import NewGame, Refused, read_command
from magboard.firmware.app.mqtt_discovery import ENTITIES, NEW_GAME_PRESS
from magboard.firmware.app.mqtt_settings import MqttSettingError, settings
from magboard.firmware.app.mqtt_status import StatusWatch
from magboard.firmware.events import FaultSurvived, GameStarted, LedFrame, Note
from magboard.host.cli import main
from magboard.sim.session import SimSession

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]  # a real broker each

X_WINS = ("a1", "b1", "b2", "c1", "c3")


@pytest.fixture
def board(broker, tmp_path):
    found = Board(broker.url("board1"), "board1", tmp_path, heartbeat=5.0)
    yield found
    found.close()


def online(listener: Listener, board: str, timeout: float = 5.0) -> bool:
    said = listener.wait_for(topic(board, "availability"), lambda p: p == "online", timeout)
    return said is not None


def wait_json(listener: Listener, where: str, match, timeout: float = 5.0, after: int = 0):
    payload = listener.wait_for(where, lambda p: match(json.loads(p)), timeout, after)
    return None if payload is None else json.loads(payload)


def test_events_status_heartbeat_usage_and_availability_appear_on_their_topics(
    broker, listener, board
):
    assert board.until(lambda: listener.on(topic("board1", "availability")))
    assert online(listener, "board1")
    board.play(X_WINS[0])
    moved = wait_json(listener, topic("board1", "events"), lambda e: e["type"] == "move")
    assert moved["player"] == 0 and moved["actions"] == ["a1"] and moved["turn"] == 1
    status = board.until(
        lambda: wait_json(listener, topic("board1", "status"), lambda s: s["turn"] == 1, 0.05)
    )
    assert status["board"] == "mini" and status["game"] == "tic-tac-toe"
    assert status["players"] == ["X", "O"] and status["to_move"] == "O"
    assert status["phase"] == "play" and status["result"] is None and status["clock"] is None
    last = {"player": "X", "actions": ["a1"], "turn": 1, "said": "X played a1"}
    assert status["last_move"] == last
    heartbeat = board.until(
        lambda: wait_json(listener, topic("board1", "heartbeat"), lambda h: h["uptime"] > 0, 0.05)
    )
    assert heartbeat["expanders_missing"] == [] and len(heartbeat["expanders_present"]) == 4
    assert heartbeat["i2c_transfers"] > 0 and heartbeat["i2c_errors"] == 0
    assert heartbeat["i2c_error_rate"] == 0 and heartbeat["cpu_temp"] == 48.3
    assert heartbeat["faults"] == 0 and heartbeat["selftest"] is None
    usage = wait_json(listener, topic("board1", "usage"), lambda u: u["started_today"] >= 1)
    assert usage["games"][0]["game"] == "tic-tac-toe" and usage["games"][0]["playing"] == 1

    board.play(*X_WINS[1:])
    over = wait_json(listener, topic("board1", "events"), lambda e: e["type"] == "game-over")
    assert over["names"] == ["X"]
    status = board.until(
        lambda: wait_json(listener, topic("board1", "status"), lambda s: s["result"], 0.05)
    )
    assert status["phase"] == "over" and status["to_move"] is None
    assert status["result"] == {
        "winners": ["X"],
        "draw": False,
        "reason": over["reason"],
        "scores": [],
    }
    usage = board.until(
        lambda: wait_json(
            listener, topic("board1", "usage"), lambda u: u["games"][0]["finished"] == 1, 0.05
        )
    )
    assert usage["games"][0]["turns_per_game"] == 5
    kinds = {json.loads(p)["type"] for p in listener.on(topic("board1", "events"))}
    assert "leds" not in kinds and any(isinstance(e, LedFrame) for e in board.events)
    retained = {m.topic for m in listener.messages if m.retained}
    late = Listener(broker, topics=["magboard/board1/+"])  # what a dashboard sees connecting now
    try:
        assert online(late, "board1")
        names = ("status", "heartbeat", "usage", "availability")
        assert all(late.wait_for(topic("board1", name)) for name in names)
        assert not late.on(topic("board1", "events"))  # events are not retained
    finally:
        late.close()
    assert retained <= {topic("board1", name) for name in names} | {
        m.topic for m in listener.messages if m.topic.startswith("homeassistant/")
    }
    board.close()  # a clean goodbye: no will, so the board says it itself
    assert listener.wait_for(topic("board1", "availability"), lambda p: p == "offline")


def test_the_status_follows_the_board_between_events(listener, board):
    """A piece taken in hand is an event; put straight back it is none: the status follows."""
    board.play(X_WINS[0])
    where = topic("board1", "status")
    assert board.until(lambda: wait_json(listener, where, lambda s: s["turn"] == 1, 0.05))
    after = len(listener.messages)
    session = board.session
    piece = session.take("O")  # from O's supply
    held = board.until(
        lambda: wait_json(listener, where, lambda s: s["phase"] == "in-hand", 0.05, after)
    )
    assert held["to_move"] == "O" and held["turn"] == 1
    after = len(listener.messages)
    session.give("O", piece)
    back = board.until(
        lambda: wait_json(listener, where, lambda s: s["phase"] == "play", 0.05, after)
    )
    assert back["turn"] == 1 and back["last_move"]["actions"] == ["a1"]


def test_the_heartbeat_says_what_is_broken(broker, listener, tmp_path):
    """A lost expander, I2C errors and the faults they made, and the last self-test kept."""
    journal = str(tmp_path / "board2.db")
    selftest = ["selftest", "--sim", "--board", "mini", "--stuck", "c3", "--dead-led", "a1"]
    assert main([*selftest, "--journal", journal]) == 1
    board = Board(broker.url("board2"), "board2", tmp_path, heartbeat=2.0)
    try:
        assert board.until(lambda: listener.on(topic("board2", "availability")))
        board.session.board.inject_i2c_errors(0, 2)
        board.session.board.kill_expander(3)
        beat = board.until(
            lambda: wait_json(
                listener, topic("board2", "heartbeat"), lambda h: h["expanders_missing"], 0.05
            ),
            step=1.0,
        )
        assert beat["expanders_missing"] == ["U4 i2c1 0x23"]
        assert beat["expanders_present"] == ["U1 i2c1 0x20", "U2 i2c1 0x21", "U3 i2c1 0x22"]
        assert beat["i2c_errors"] >= 2 and 0 < beat["i2c_error_rate"] < 1
        assert beat["faults"] >= 2 and beat["fault_kinds"]["expander-lost"] == 1
        assert beat["fault_kinds"]["i2c-error"] >= 1
        kept = beat["selftest"]
        assert kept["passed"] is False and kept["stuck"] == ["c3.s"]
        assert kept["dead_leds"] == ["a1"] and kept["wall"] > 0
    finally:
        board.close()


def test_the_last_will_marks_a_board_offline_when_its_connection_drops(broker, listener, tmp_path):
    """`magboard run --sim --mqtt`, killed: no DISCONNECT, so the broker sends the will."""
    command = [sys.executable, "-m", "magboard.host.cli", "run", "--sim", "--board", "mini"]
    command += ["--mqtt", broker.url("board2"), "--board-id", "board2"]
    command += ["--journal", str(tmp_path / "board2.db")]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert online(listener, "board2", timeout=15), process.stderr
        assert listener.wait_for(topic("board2", "status"), timeout=5)
        process.send_signal(signal.SIGKILL)
        process.wait(5)
        assert listener.wait_for(topic("board2", "availability"), lambda p: p == "offline")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdin:
            process.stdin.close()
        if process.stderr:
            process.stderr.close()


def test_home_assistant_discovery_has_the_fields_home_assistant_requires(broker, listener, board):
    """The shape Home Assistant reads (tests/ha checks the payloads against its own schemas)."""
    assert board.until(lambda: listener.on(topic("board1", "availability")))
    configs = {}
    deadline = time.monotonic() + 5
    while len(configs) < len(ENTITIES) and time.monotonic() < deadline:
        listener.wait_for("never", timeout=0.05)
        configs = {
            m.topic: json.loads(m.payload)
            for m in listener.messages
            if m.topic.startswith("homeassistant/")
        }
    assert len(configs) == len(ENTITIES)  # the board takes commands: every entity
    for where, config in configs.items():
        prefix, component, node, object_id, last = where.split("/")
        assert (prefix, node, last) == ("homeassistant", "magboard_board1", "config")
        assert component in ("sensor", "button", "select", "number", "event")
        assert all(c.isalnum() or c in "_-" for c in node + object_id)
        assert config["unique_id"] == f"magboard_board1_{object_id}" and config["name"]
        assert config["availability_topic"] == topic("board1", "availability")
        assert (config["payload_available"], config["payload_not_available"]) == (
            "online",
            "offline",
        )
        device = config["device"]
        assert device["identifiers"] == ["magboard_board1"]
        assert {"name", "manufacturer", "model", "sw_version"} <= set(device)
        if component != "button":
            assert config["state_topic"].startswith("magboard/board1/")
            assert "value_json." in config["value_template"]
        if component in ("button", "select", "number"):
            assert config["command_topic"] == topic("board1", "command")
    objects = {where.split("/")[3] for where in configs}
    assert objects == {entity.object_id for entity in ENTITIES}
    late = Listener(broker, topics=["homeassistant/#"])  # Home Assistant starting later
    try:
        assert late.wait_for("never", timeout=0.2) is None
        assert {m.topic for m in late.messages if m.retained} == set(configs)
    finally:
        late.close()
    # Every topic a configuration names is one the board publishes or listens on (`response`
    # once it has answered a command).
    board.until(lambda: listener.on(topic("board1", "heartbeat")))
    named = {c[k] for c in configs.values() for k in c if k.endswith("_topic")}
    published = {m.topic for m in listener.messages}
    assert named - published == {topic("board1", "command"), topic("board1", "response")}
    before = sum(isinstance(e, GameStarted) for e in board.events)
    listener.publish(topic("board1", "command"), NEW_GAME_PRESS)  # Home Assistant's press
    assert board.until(lambda: sum(isinstance(e, GameStarted) for e in board.events) > before)
    assert board.until(lambda: listener.on(topic("board1", "response")))


def test_a_client_without_the_right_password_is_refused(broker, tmp_path):
    for user, password in ((None, None), ("board3", "wrong"), ("nobody", "x")):
        client = Listener(broker, user, topics=(), password=password)
        client.close()
        assert client.refused == "Not authorized", (user, client.refused)
    stranger = Board(broker.url("board3").replace(broker.users["board3"], "wrong"), "x", tmp_path)
    try:
        fault = stranger.until(
            lambda: next((e for e in stranger.events if isinstance(e, FaultSurvived)), None)
        )
        assert fault.kind == "mqtt" and "refused" in fault.detail and "wrong" not in fault.where
        assert fault.where == f"mqtt://board3@127.0.0.1:{broker.port}"
        stranger.play("b2")  # refereeing goes on
        assert stranger.session.referee.actions_played == ("b2",)
    finally:
        stranger.close()


def test_a_malformed_command_is_refused_with_a_note_and_changes_nothing(broker, listener, board):
    assert board.until(lambda: listener.on(topic("board1", "availability")))
    board.play("b2")
    played, game = board.session.loop.referee.actions_played, board.session.loop.referee.game.name
    started = sum(isinstance(e, GameStarted) for e in board.events)
    bad = {
        b"fly me": "not JSON",
        b'["new-game"]': "a command is a JSON object",
        b'{"game": "tic-tac-cap"}': "a command says what to do",
        b'{"do": "fly"}': "unknown command 'fly'",
        b'{"do": "new-game", "colour": "red"}': "new-game: unknown field 'colour'",
        b'{"do": "new-game", "game": "chess"}': "new-game: no game called 'chess'",
        b'{"do": "new-game", "game": "lance"}': "new-game:",
        b'{"do": "new-game", "options": {"cover_own": true}}': "new-game:",
        b'{"do": "new-game", "game": 7}': "new-game: game is a name",
        b'{"do": "brightness", "level": 5}': "brightness: level is above 0 and at most 1",
        b'{"do": "brightness"}': "brightness: level",
        b"\xff\xfe": "not UTF-8",
        b"x" * 5000: "a command longer than 4096 bytes",
    }
    for payload, reason in bad.items():
        after = len(listener.messages)
        listener.publish(topic("board1", "command"), payload)
        note = board.until(
            lambda after=after: wait_json(
                listener, topic("board1", "events"), lambda e: e["type"] == "note", 0.05, after
            )
        )
        assert note is not None, payload
        assert note["text"].startswith(f"refused: {reason}"), (payload, note["text"])
    board.session.run_for(0.5)
    assert board.session.loop.referee.actions_played == played
    assert board.session.loop.referee.game.name == game
    assert sum(isinstance(e, GameStarted) for e in board.events) == started
    assert board.session.loop.writer.level == 1.0
    assert not any(isinstance(e, Note) and e.text.startswith("refused") for e in board.events)


def test_a_retained_command_is_not_carried_out_when_the_board_connects(broker, listener, tmp_path):
    """A command left retained on the broker would run again at every reconnect."""
    listener.publish(topic("board3", "command"), b'{"do": "new-game"}', retain=True)
    board = Board(broker.url("board3"), "board3", tmp_path)
    try:
        note = board.until(
            lambda: wait_json(
                listener, topic("board3", "events"), lambda e: e["type"] == "note", 0.05
            )
        )
        assert note["text"].startswith("refused: a retained command")
        assert sum(isinstance(e, GameStarted) for e in board.events) == 1
    finally:
        listener.publish(topic("board3", "command"), b"", retain=True)  # the broker forgets it
        board.close()


def test_commands_start_another_game_and_dim_the_lights(broker, listener, board):
    assert board.until(lambda: listener.on(topic("board1", "availability")))
    frames = [e for e in board.events if isinstance(e, LedFrame)]
    listener.publish(topic("board1", "command"), b'{"do": "brightness", "level": 0.5}')
    assert board.until(lambda: board.session.loop.writer.level == 0.5)
    dimmed = board.until(
        lambda: [e for e in board.events[len(frames) :] if isinstance(e, LedFrame)]
    )
    assert dimmed and max(bytes.fromhex(dimmed[-1].pixels)) < max(bytes.fromhex(frames[-1].pixels))
    command = {"do": "new-game", "game": "tic-tac-cap", "options": {"cover_own": "true"}}
    listener.publish(topic("board1", "command"), json.dumps(command))
    started = board.until(
        lambda: wait_json(
            listener,
            topic("board1", "events"),
            lambda e: e["type"] == "game-started" and e["game"] == "tic-tac-cap",
            0.05,
        )
    )
    assert started["options"]["cover_own"] is True
    assert board.session.loop.referee.game.name == "tic-tac-cap"
    status = board.until(
        lambda: wait_json(
            listener, topic("board1", "status"), lambda s: s["game"] == "tic-tac-cap", 0.05
        )
    )
    assert status["turn"] == 0 and status["options"]["cover_own"] is True


def test_a_board_reports_over_tls_with_the_test_ca(broker, tmp_path):
    secure = Listener(broker, tls=True)
    board = Board(broker.tls_url("board1"), "board1", tmp_path, ca_file=broker.ca_file)
    try:
        assert board.until(lambda: secure.on(topic("board1", "availability")))
        assert secure.wait_for(topic("board1", "status"))
    finally:
        board.close()
        secure.close()
    untrusting = Board(broker.tls_url("board2"), "board2", tmp_path)  # the system's CAs only
    try:
        fault = untrusting.until(
            lambda: next((e for e in untrusting.events if isinstance(e, FaultSurvived)), None)
        )
        assert fault.kind == "mqtt" and fault.where.startswith("mqtts://board2@")
    finally:
        untrusting.close()


def test_a_broker_that_goes_away_is_a_fault_and_the_game_goes_on(broker, listener, board):
    assert board.until(lambda: listener.on(topic("board1", "availability")))
    listener.close()
    broker.stop()
    fault = board.until(
        lambda: next((e for e in board.events if isinstance(e, FaultSurvived)), None)
    )
    assert fault.kind == "mqtt" and "lost" in fault.detail
    board.play("b2", "a1")  # refereeing never waits for the broker
    assert board.session.referee.actions_played == ("b2", "a1")
    broker.restart()
    back = board.until(
        lambda: next((e for e in board.events if isinstance(e, Note) and "again" in e.text), None),
        timeout=10,
    )
    assert back.text.startswith("mqtt: connected again to mqtt://board1@127.0.0.1")
    assert sum(isinstance(e, FaultSurvived) for e in board.events) == 1  # one outage, one fault
    late = Listener(broker, topics=["magboard/board1/#"])
    try:
        status = board.until(
            lambda: wait_json(late, topic("board1", "status"), lambda s: s["turn"] == 2, 0.05)
        )
        assert status["last_move"]["actions"] == ["a1"]
        assert online(late, "board1")
    finally:
        late.close()


# Settings, without a broker.


def test_mqtt_urls_and_board_ids_are_checked_before_anything_starts():
    ok = settings("mqtts://u%40x:p%3Aw@broker.example:9000", "cafe-3")
    assert (ok.broker.host, ok.broker.port, ok.broker.tls) == ("broker.example", 9000, True)
    assert (ok.broker.username, ok.broker.password) == ("u@x", "p:w")
    assert ok.broker.shown == "mqtts://u@x@broker.example:9000" and "p:w" not in repr(ok)
    assert settings("mqtt://h").broker.port == 1883 and settings("mqtt://h").board_id
    for url, board_id in (
        ("http://h", "b"),
        ("mqtt://", "b"),
        ("mqtt://h/x", "b"),
        ("mqtt://h:99999", "b"),
        ("mqtt://h", "a/b"),
        ("mqtt://h", "+"),
        ("mqtt://h", ""),
    ):
        with pytest.raises(MqttSettingError):
            settings(url, board_id)
    with pytest.raises(MqttSettingError, match="mqtts:// only"):
        settings("mqtt://h", "b", "ca.pem")


def test_the_configuration_files_mqtt_table_is_checked_naming_file_and_key(tmp_path):
    path = tmp_path / "magboard.toml"
    path.write_text(
        '[mqtt]\nurl = "mqtts://b:pw@hub:8883"\nboard_id = "cafe-3"\nca_file = "/etc/ca.pem"\n'
    )
    table = load_config(path).mqtt
    assert (table.url, table.board_id, str(table.ca_file)) == (
        "mqtts://b:pw@hub:8883",
        "cafe-3",
        "/etc/ca.pem",
    )
    for text, said in (
        ("mqtt = 3", "mqtt is a table"),
        ('[mqtt]\nurl = "mqtt://h"\nport = 1', "mqtt.port is not a setting"),
        ("[mqtt]\nurl = 1883", "mqtt.url is text"),
        ('[mqtt]\nurl = ""', "mqtt.url is empty"),
        ('[mqtt]\nurl = "http://h"', "mqtt.url is not a broker"),
        ('[mqtt]\nurl = "mqtt://h"\nboard_id = "a b"', "mqtt.board_id cannot be used"),
        ('[mqtt]\nurl = "mqtt://h"\nca_file = "ca.pem"', "mqtt.ca_file is for an mqtts://"),
    ):
        path.write_text(text + "\n")
        with pytest.raises(ConfigError) as refused:
            load_config(path)
        assert str(refused.value).startswith(f"{path}: {said}"), str(refused.value)
        assert "\n" not in str(refused.value)


def test_the_new_game_button_payload_is_the_plain_new_game_command():
    assert read_command(NEW_GAME_PRESS.encode()) == NewGame()
    with pytest.raises(Refused):
        read_command(b'{"do": "selftest", "now": true}')


def test_a_selftest_command_runs_it_for_the_person_at_the_board(broker, listener, tmp_path):
    """From afar, for the person at the board: the report comes back as notes, into the
    figures and the heartbeat, and the game goes on."""
    from magboard.firmware.app.mqtt import MqttLink
    from magboard.firmware.app.selftest import default_button
    from magboard.sim.selftest_person import SelfTestPerson

    session = SimSession("mini", "tic-tac-toe", journal=tmp_path / "board1.db")
    session.board.stick_sensor(session.spec.sensors[4].bit)
    link = MqttLink(settings(broker.url("board1"), "board1"), session.loop)
    session.start()  # a cleared board: nothing laid out
    SelfTestPerson(session.board, default_button(session.spec))
    try:
        deadline = time.monotonic() + 10
        while not listener.on(topic("board1", "availability")) and time.monotonic() < deadline:
            session.run_for(0.1)
        listener.publish(topic("board1", "command"), b'{"do": "selftest"}')
        verdict = None
        while verdict is None and time.monotonic() < deadline:
            session.run_for(0.1)
            verdict = wait_json(
                listener,
                topic("board1", "events"),
                lambda e: e["type"] == "note" and e["text"].startswith("self-test: verdict"),
                0.05,
            )
        assert verdict is not None and "1 stuck sensor" in verdict["text"]
        usage = None
        while usage is None and time.monotonic() < deadline:
            session.run_for(0.1)
            usage = wait_json(
                listener, topic("board1", "usage"), lambda u: u["selftest"] is not None, 0.05
            )
        assert usage is not None and usage["selftest"]["stuck"]
        assert session.referee.position == session.initial  # the game waits, untouched
    finally:
        link.close()


def test_the_test_broker_keeps_retained_and_queued_messages_across_a_restart(broker):
    """What the fixture promises the two-board tests: persistence across `restart()`."""
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    got: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    subscribed = threading.Event()

    def session() -> paho.Client:
        """A client whose session the broker keeps while it is away (clean_session off)."""
        connected = threading.Event()
        client = paho.Client(CallbackAPIVersion.VERSION2, client_id="kept", clean_session=False)
        client.username_pw_set("board2", broker.users["board2"])
        client.on_connect = lambda *args: connected.set()
        client.on_message = lambda client, userdata, message: got.put(message.payload)
        client.on_subscribe = lambda *args: subscribed.set()
        client.connect(broker.host, broker.port)
        client.loop_start()
        assert connected.wait(5)
        return client

    kept = session()
    kept.subscribe("queued", qos=1)
    assert subscribed.wait(5)
    kept.disconnect()
    kept.loop_stop()
    sender = Listener(broker, "board1", topics=())
    sender.publish("kept/retained", "still here", retain=True)
    sender.publish("queued", "for kept")
    sender.close()
    broker.restart()
    late = Listener(broker, topics=["kept/#"])
    try:
        assert late.wait_for("kept/retained") == "still here"
        assert late.messages[0].retained
    finally:
        late.close()
    kept = session()
    try:
        assert got.get(timeout=5) == b"for kept"  # it was queued for the session, and kept
    finally:
        kept.disconnect()
        kept.loop_stop()


def test_the_status_carries_a_running_clock_and_changes_only_with_its_stage():
    session = SimSession("r1", "lance-assembly", {"clock": "lance"})
    session.lay_out()
    session.start()
    watch = StatusWatch(session.loop)
    session.run_for(1.0)
    first = watch.read(session.clock.now())
    assert first.clock == {
        "running": "A",
        "stage": "turn",
        "turn_left": pytest.approx(59.0, abs=0.1),
        "reserves": [300.0, 300.0],
    }
    assert first.phase == "play" and first.to_move == "A" and first.turn == 0
    assert not watch.changed
    session.run_for(10.0)
    later = watch.read(session.clock.now())
    assert later.clock["turn_left"] < first.clock["turn_left"] and later.same_as(first)
    assert json.loads(later.to_json())["clock"]["stage"] == "turn"


def test_a_ca_file_that_cannot_be_read_or_a_board_id_without_a_broker_is_one_line(tmp_path, capsys):
    session = SimSession("mini", "tic-tac-toe")
    missing = tmp_path / "none.pem"
    with pytest.raises(CommandError, match=f"the CA file {missing} cannot be used"):
        open_mqtt(settings("mqtts://u:p@127.0.0.1:1", "b", missing), session.loop)
    assert session.loop.sinks == [session.events.append] and not session.loop.inputs
    config = tmp_path / "magboard.toml"
    config.write_text(f'[mqtt]\nurl = "mqtts://u:p@127.0.0.1:1"\nca_file = "{missing}"\n')
    run = ["run", "--sim", "--board", "mini", "--journal", str(tmp_path / "db")]
    assert main([*run, "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be used" in err
    assert main([*run, "--board-id", "cafe-3"]) == 2
    assert "give --mqtt URL too" in capsys.readouterr().err
    assert main([*run, "--mqtt", "mqtt://h", "--board-id", "a/b"]) == 2
    assert "board id 'a/b'" in capsys.readouterr().err
