"""A board on MQTT: its events, status, health and figures for a room of boards, and commands back.

Under `magboard/<board-id>/` the board publishes `events` (every event but LED frames), and
retained `status`, `heartbeat`, `usage` (at connect, when a game starts or ends, every
USAGE_EVERY seconds and at local midnight, when "games today" starts again from 0) and
`availability` ("online", or "offline" as its last will), plus Home Assistant's discovery
configurations; on an authenticated connection it takes commands on `command` and answers each
on `response` (docs/protocol.md, "MQTT"). The lights' level is kept beside the journal, so a
board dimmed from a dashboard stays dimmed after a restart.

paho-mqtt speaks the protocol in a thread of its own, which reconnects by itself and only
queues what it hears; everything that touches the board (commands, status, figures) happens in
the loop's thread, in `poll`, once a step. A broker that is down or goes away is a `fault`
event of kind `mqtt`, once an outage, and the board goes on refereeing: publishing never waits
for the network.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import queue
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from magboard.firmware.events import Event, FaultSurvived, GameOver, GameStarted, LedFrame, Note
from magboard.firmware.games.registry import all_games
from magboard.firmware.profiles import profiled_pairs
from magboard.firmware.stats import read_usage

from .errors import CommandError
from .kept_level import keep_level, level_file, read_level
from .loop import BoardLoop
from .mqtt_commands import MAX_COMMAND, Refused, RunSelfTest, carry_out, read_command
from .mqtt_discovery import discovery
from .mqtt_health import THERMAL, HealthWatch, selftest_summary
from .mqtt_settings import MqttSettingError, MqttSettings
from .mqtt_status import BoardStatus, StatusWatch

KEEPALIVE = 30
"""Seconds of silence after which the broker counts the board gone (and sends its will)."""
RECONNECT = (1, 30)
"""paho's wait before trying the broker again: from 1 s, doubling, up to 30 s."""
MAX_QUEUED = 1000
"""Events kept for a broker that is away; beyond this they are dropped and counted."""
CLOSE_WAIT = 2.0
"""Longest wait, on the way out, for the broker to take the "offline"."""
USAGE_EVERY = 600.0
"""Seconds of the board's clock between two publications of the figures with nothing else to
publish them: a dashboard's "games today" is never older than this."""
DAY = 24 * 3600.0
ONLINE, OFFLINE = "online", "offline"


@dataclass(frozen=True)
class _Connected:
    refused: str | None
    """None: the broker took the board; else its reason for refusing."""


@dataclass(frozen=True)
class _Lost:
    reason: str


@dataclass(frozen=True)
class _Unreachable:
    pass


@dataclass(frozen=True)
class _Message:
    payload: bytes
    retained: bool


_Happening = _Connected | _Lost | _Unreachable | _Message


class MqttLink:
    """Joins a board's loop to a broker: a sink for the loop's events and a poll once a step."""

    def __init__(
        self,
        settings: MqttSettings,
        loop: BoardLoop,
        *,
        thermal: Path = THERMAL,
        keepalive: int = KEEPALIVE,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.loop = loop
        self.wall = wall
        """The time of day (Unix time), for "today" in the figures and when midnight comes."""
        self.status = StatusWatch(loop)
        self.health = HealthWatch(loop, thermal)
        self.connected = False
        """As the loop's thread last heard: what it publishes the state to."""
        self.dropped = 0
        """Events not published (too many waiting for a broker that was away)."""
        self._happenings: queue.SimpleQueue[_Happening] = queue.SimpleQueue()
        self.heard = threading.Event()
        """Set from paho's thread whenever the broker said something the next `poll` takes:
        whoever steps the loop may wait on it rather than spin (the simulator's tests do)."""
        self._down = False
        """In an outage: reported once, until the broker takes the board again."""
        self._unsent = 0
        self._published: BoardStatus | None = None
        self._usage_due = True
        self._next_usage = loop.board.clock.now() + USAGE_EVERY
        self._midnight = next_midnight(wall())
        self._next_heartbeat = loop.board.clock.now()
        self._closing = False
        self._level_file = level_file(loop.journal.path) if loop.journal is not None else None
        self._kept_level = self._restore_level()
        self.client = self._client()
        loop.sinks.append(self.send)
        loop.inputs.append(self.poll)
        broker = settings.broker
        self.client.connect_async(broker.host, broker.port, keepalive)
        self.client.loop_start()

    def _client(self) -> paho.Client:
        settings, broker = self.settings, self.settings.broker
        client = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"magboard-{settings.board_id}",
            protocol=paho.MQTTv311,
        )
        if broker.username:
            client.username_pw_set(broker.username, broker.password)
        if broker.tls:
            ca = settings.ca_file
            try:
                client.tls_set(ca_certs=str(ca) if ca else None)
            except (OSError, ssl.SSLError, ValueError) as error:
                reason = error.strerror if isinstance(error, OSError) and error.strerror else error
                problem = f"mqtt: the CA file {ca} cannot be used ({reason})"
                raise MqttSettingError(problem) from None
        client.will_set(self.topic("availability"), OFFLINE, qos=1, retain=True)
        client.reconnect_delay_set(*RECONNECT)
        client.max_queued_messages_set(MAX_QUEUED)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    def topic(self, name: str) -> str:
        return self.settings.topic(name)

    @property
    def takes_commands(self) -> bool:
        return self.settings.broker.authenticated

    # paho's thread: only queue what happened.

    def _hear(self, happening: _Happening) -> None:
        self._happenings.put(happening)
        self.heard.set()

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        self._hear(_Connected(str(reason_code) if reason_code.is_failure else None))

    def _on_connect_fail(self, client, userdata) -> None:
        self._hear(_Unreachable())

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if not self._closing:
            self._hear(_Lost(str(reason_code)))

    def _on_message(self, client, userdata, message) -> None:
        if message.topic == self.topic("command"):
            self._hear(_Message(bytes(message.payload), bool(message.retain)))

    # The loop's thread.

    def send(self, event: Event) -> None:
        """A sink of the loop: follows the event and publishes it (LED frames stay home).
        Never raises and never waits: paho queues it for its own thread."""
        try:
            self.status.hear(event)
            self.health.hear(event)
            if isinstance(event, GameStarted | GameOver):
                self._usage_due = True
            if not isinstance(event, LedFrame):
                self._publish_event(event)
        except Exception:  # whatever it is, it is the link's trouble, not the referee's
            self.dropped += 1

    def _publish_event(self, event: Event) -> None:
        info = self.client.publish(self.topic("events"), event.to_json(), qos=1)
        if info.rc == MQTTErrorCode.MQTT_ERR_QUEUE_SIZE:
            self.dropped += 1
            self._unsent += 1

    def poll(self, now: float) -> None:
        """What the broker said, and the state published where it changed; once a step."""
        try:
            while True:
                try:
                    happening = self._happenings.get_nowait()
                except queue.Empty:
                    break
                self._take(happening, now)
            self._keep_level()
            if self.connected:
                self._publish_state(now)
        except Exception as error:  # a bug here must not stop the referee
            self._fault(now, f"{type(error).__name__}: {error}")

    def _take(self, happening: _Happening, now: float) -> None:
        if isinstance(happening, _Message):
            self._command(happening, now)
        elif isinstance(happening, _Connected):
            if happening.refused is None:
                self._connected(now)
            else:
                self.connected = False
                self._fault(now, f"the broker refused the board ({happening.refused})")
        elif isinstance(happening, _Lost):
            self.connected = False
            self._fault(now, f"the connection was lost ({happening.reason})")
        else:
            self._fault(now, "the broker cannot be reached")

    def _fault(self, now: float, detail: str) -> None:
        if self._down:
            return
        self._down = True
        retry = f"trying again every {RECONNECT[0]}-{RECONNECT[1]} s"
        where = self.settings.broker.shown
        self.loop.emit(FaultSurvived(now, "mqtt", where, f"{detail}; {retry}"))

    def _connected(self, now: float) -> None:
        self.connected = True
        if self._down:
            self._down = False
            unsent = f"; {_events(self._unsent)} not sent meanwhile" if self._unsent else ""
            self._unsent = 0
            where = self.settings.broker.shown
            self.loop.emit(Note(now, f"mqtt: connected again to {where}{unsent}"))
        client = self.client
        client.publish(self.topic("availability"), ONLINE, qos=1, retain=True)
        if self.takes_commands:
            client.subscribe(self.topic("command"), qos=1)
        board = self.loop.board.spec.name
        profiled = set(profiled_pairs())
        games = [game.name for game in all_games() if (game.name, board) in profiled]
        configs = discovery(self.settings, board, self.takes_commands, games)
        for topic, config in configs.items():
            # None: a control the board cannot take now; the empty retained payload clears it.
            payload = "" if config is None else json.dumps(config, separators=(",", ":"))
            client.publish(topic, payload, qos=1, retain=True)
        self._published = None
        self._usage_due = True
        self._next_heartbeat = now

    def _publish_state(self, now: float) -> None:
        client = self.client
        if self.status.changed:
            status = self.status.read(now)
            if not status.same_as(self._published):
                client.publish(self.topic("status"), status.to_json(), qos=1, retain=True)
                self._published = status
        wall = self.wall()
        # A new day, when "games today" starts again from 0; or the clock set back more than a
        # day (a Pi has no clock of its own until NTP answers): the day is the clock's again.
        if wall >= self._midnight or self._midnight - wall > DAY:
            self._midnight = next_midnight(wall)
            self._usage_due = True
        if now >= self._next_usage:
            self._usage_due = True
        if self._usage_due:
            self._usage_due = False
            self._next_usage = now + USAGE_EVERY
            usage = self._usage()
            if usage is not None:
                client.publish(self.topic("usage"), usage, qos=1, retain=True)
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + self.settings.heartbeat
            heartbeat = self.health.read(now).to_json()
            client.publish(self.topic("heartbeat"), heartbeat, qos=1, retain=True)

    def _usage(self) -> str | None:
        """The figures of `magboard stats` (None without a state database to read them from);
        the last self-test goes into the heartbeat too."""
        journal = self.loop.journal
        if journal is None:
            return None
        try:
            usage = read_usage(journal.path, self.wall())
        except CommandError:
            return None
        self.health.selftest = selftest_summary(usage.selftest)
        return json.dumps(asdict(usage), separators=(",", ":"))  # `magboard stats --json`'s

    def _command(self, message: _Message, now: float) -> None:
        if not self.takes_commands:
            return
        asked = _asked(message.payload)
        try:
            if message.retained:
                raise Refused("a retained command (it would be carried out at every reconnect)")
            command = read_command(message.payload)
            carry_out(command, self.loop, now, authenticated=self.takes_commands)
            if isinstance(command, RunSelfTest):  # its report in the figures and heartbeat
                self._usage_due = True
                self._next_heartbeat = self.loop.board.clock.now()
        except Refused as error:
            self._answer(now, asked, f"refused: {error}")
        except Exception as error:  # a bug must not take the board down
            reason = f"the board could not do that ({type(error).__name__})"
            self._answer(now, asked, f"refused: {reason}")
        else:
            self._respond(now, asked, True, "done")

    def _answer(self, now: float, asked: str | None, text: str) -> None:
        """A refusal: a `note` on `events` and on `response`. To MQTT only: an answer to a
        command is not a board event (the journal must not see it, nor the serial link's
        host)."""
        self._publish_event(Note(now, text))
        self._respond(now, asked, False, text)

    def _respond(self, now: float, asked: str | None, ok: bool, text: str) -> None:
        """The last command's answer, retained on `response` for a dashboard to show."""
        answer = {"t": round(now, 6), "command": asked, "ok": ok, "text": text}
        payload = json.dumps(answer, separators=(",", ":"))
        self.client.publish(self.topic("response"), payload, qos=1, retain=True)

    def _restore_level(self) -> float:
        """The level kept by the last run, if any, set before the first frame is lit; the
        level now."""
        kept = read_level(self._level_file) if self._level_file is not None else None
        if kept is not None:
            self.loop.writer.set_level(kept)
        return self.loop.writer.level

    def _keep_level(self) -> None:
        level = self.loop.writer.level
        if level != self._kept_level and self._level_file is not None:
            keep_level(self._level_file, level)
        self._kept_level = level

    def close(self) -> None:
        """Says "offline" (a clean goodbye sends no will) and disconnects."""
        if self.send in self.loop.sinks:
            self.loop.sinks.remove(self.send)
        if self.poll in self.loop.inputs:
            self.loop.inputs.remove(self.poll)
        self._closing = True
        client = self.client
        with contextlib.suppress(Exception):  # a broker that is away cannot be told
            if client.is_connected():
                info = client.publish(self.topic("availability"), OFFLINE, qos=1, retain=True)
                info.wait_for_publish(timeout=CLOSE_WAIT)
        with contextlib.suppress(Exception):
            client.disconnect()
        client.loop_stop()


def open_mqtt(settings: MqttSettings, loop: BoardLoop, **kwargs: Any) -> MqttLink:
    """The board's MQTT link; a CA file that cannot be used is the person's mistake."""
    try:
        return MqttLink(settings, loop, **kwargs)
    except MqttSettingError as error:
        raise CommandError(str(error)) from None


def next_midnight(wall: float) -> float:
    """The next local midnight after `wall` (Unix time), as the figures' "today" ends."""
    tomorrow = dt.datetime.fromtimestamp(wall).date() + dt.timedelta(days=1)
    return dt.datetime.combine(tomorrow, dt.time()).timestamp()


def _asked(payload: bytes) -> str | None:
    """The command a message asked for (its `do`), where it says one, for the answer."""
    if len(payload) > MAX_COMMAND:
        return None
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    name = data.get("do") if isinstance(data, dict) else None
    return name if isinstance(name, str) and len(name) <= 40 else None


def _events(count: int) -> str:
    return "1 event" if count == 1 else f"{count} events"
