"""A remote match: one game played on two boards through an MQTT broker.

Each board moves the pieces of its own seats (`--seat`). A turn accepted on one board goes into
its log, the list of settled turns (firmware/referee/remote_log.py), which it publishes whole,
retained, with QoS 1; the other board reads the log, finds the turns it lacks, and accepts them
as the other board's (`Referee.remote_move`): the lights then show what to take and where to
put it, and play goes on when the pieces match. Logs only grow, so whichever board is behind
(a lost connection, a broker restart, a power cut) catches up from the other's retained log as
soon as it hears it, and a log heard twice changes nothing. Two logs that differ, a turn the
rules here refuse, or another game stop the match on both boards (`match-stopped`), so a game
never forks. docs/protocol.md, "Remote games", has the messages.

The broker's network thread only queues what it hears; everything else happens in the loop's
thread, once a step (`poll`), where the referee lives.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import socket
import ssl
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from magboard.firmware.events import FaultSurvived, MatchStopped, Note
from magboard.firmware.games import Game
from magboard.firmware.referee import RemoteError, Turns, conflict, digest, replay

from .loop import BoardLoop

PROTOCOL = 1
"""The version of the match's messages (`v`)."""
PORTS = {"mqtt": 1883, "mqtts": 8883}
POLL = 0.05
"""On a real board, the longest the loop waits between two looks at what the broker sent."""
RECONNECT = (0.25, 5.0)
"""Seconds before trying the broker again after losing it: the first time, then at most."""
KEEPALIVE = 20
"""Seconds between signs of life: a broker gone silent is noticed within about half again."""
MAX_PAYLOAD = 256 * 1024
"""The longest message read; a longer one is refused as garbage."""
MAX_TEXT = 200
"""The longest action, seat name or reason read from a message."""
_MATCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class RemoteURLError(ValueError):
    """A `--remote` URL that can never work (scheme, host, match id)."""


class SeatError(ValueError):
    """A `--seat` that names no seat of the game, or leaves none to the other board."""


class MessageError(ValueError):
    """A message on the match's topics that is not one of its messages."""


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


# The messages.


@dataclass(frozen=True)
class LogMessage:
    """A board's log, retained on `<root>/log/<its seats>`: the game, and every settled turn
    with the position's digest after the last."""

    game: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    turns: Turns
    key: str

    @property
    def seq(self) -> int:
        return len(self.turns)

    def to_json(self) -> bytes:
        data = {
            "v": PROTOCOL,
            "game": self.game,
            "options": self.options,
            "seats": list(self.seats),
            "seq": self.seq,
            "turns": [list(turn) for turn in self.turns],
            "key": self.key,
        }
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, payload: bytes) -> LogMessage:
        data = _object(payload, {"v", "game", "options", "seats", "seq", "turns", "key"})
        turns = data["turns"]
        if not isinstance(turns, list) or not all(_words(turn) for turn in turns):
            raise MessageError("turns is not a list of lists of actions")
        if not isinstance(data["options"], dict):
            raise MessageError("options is not an object")
        if not _words(data["seats"]) or not _text(data["game"]) or not _text(data["key"]):
            raise MessageError("game, seats or key is not text")
        if data["seq"] != len(turns):
            raise MessageError(f"seq {data['seq']!r} does not count its {len(turns)} turns")
        return cls(
            data["game"],
            data["options"],
            tuple(data["seats"]),
            tuple(tuple(turn) for turn in turns),
            data["key"],
        )


@dataclass(frozen=True)
class StopMessage:
    """The match stopped, retained on `<root>/stop`: by whom, at which seq, why."""

    seats: tuple[str, ...]
    seq: int
    reason: str

    def to_json(self) -> bytes:
        data = {"v": PROTOCOL, "seats": list(self.seats), "seq": self.seq, "reason": self.reason}
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, payload: bytes) -> StopMessage:
        data = _object(payload, {"v", "seats", "seq", "reason"})
        if not _words(data["seats"]) or not _text(data["reason"]):
            raise MessageError("seats or reason is not text")
        if not isinstance(data["seq"], int) or isinstance(data["seq"], bool) or data["seq"] < 0:
            raise MessageError("seq is not a count")
        return cls(tuple(data["seats"]), data["seq"], data["reason"])


def _object(payload: bytes, keys: set[str]) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        raise MessageError(f"{len(payload)} bytes, more than {MAX_PAYLOAD}")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise MessageError(f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise MessageError("not a JSON object")
    if data.get("v") != PROTOCOL:
        raise MessageError(f"version {data.get('v')!r}, not {PROTOCOL}")
    if set(data) != keys:
        wrong = sorted(set(data) ^ keys)
        raise MessageError(f"fields {', '.join(wrong)} missing or unknown")
    return data


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_TEXT


def _words(value: Any) -> bool:
    return isinstance(value, list) and all(_text(v) for v in value)


# The broker.


@dataclass(frozen=True)
class Connected:
    """The broker took the connection (and the subscriptions are asked for)."""


@dataclass(frozen=True)
class Lost:
    """The broker cannot be reached, refused us, or the connection went."""

    detail: str


@dataclass(frozen=True)
class Heard:
    topic: str
    payload: bytes


Item = Connected | Lost | Heard


class Transport(Protocol):
    """What a match needs of a broker connection. It reconnects by itself; every callback
    only hands an item to `inbox`, from whatever thread it runs in."""

    def start(self, topics: Sequence[str], inbox: Callable[[Item], None]) -> None: ...

    def publish(self, topic: str, payload: bytes) -> bool:
        """Sends a retained QoS 1 message; False if it cannot be sent now."""
        ...

    def drop(self) -> None:
        """Severs the connection, as a network fault would (for fault injection)."""
        ...

    def close(self) -> None: ...


class PahoTransport:
    """A paho-mqtt client in its own network thread, reconnecting by itself."""

    def __init__(
        self, url: RemoteURL, client_id: str, reconnect: tuple[float, float] = RECONNECT
    ) -> None:
        self.url = url
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311
        )
        if url.user is not None:
            client.username_pw_set(url.user, url.password)
        if url.scheme == "mqtts":
            client.tls_set(ca_certs=url.ca, cert_reqs=ssl.CERT_REQUIRED)
        client.reconnect_delay_set(*reconnect)
        self._client = client
        self._topics: Sequence[str] = ()
        self._inbox: Callable[[Item], None] = _nowhere

    def start(self, topics: Sequence[str], inbox: Callable[[Item], None]) -> None:
        self._topics, self._inbox = topics, inbox
        client = self._client
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.connect_async(self.url.host, self.url.port, KEEPALIVE)
        client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            self._inbox(Lost(f"the broker refused the connection: {reason}"))
            return
        client.subscribe([(topic, 1) for topic in self._topics])
        self._inbox(Connected())

    def _on_connect_fail(self, client: mqtt.Client, userdata) -> None:
        self._inbox(Lost("the broker cannot be reached"))

    def _on_disconnect(self, client: mqtt.Client, userdata, flags, reason, properties) -> None:
        self._inbox(Lost(f"the connection to the broker went ({reason})"))

    def _on_message(self, client: mqtt.Client, userdata, message: mqtt.MQTTMessage) -> None:
        self._inbox(Heard(message.topic, bytes(message.payload)))

    def publish(self, topic: str, payload: bytes) -> bool:
        if not self._client.is_connected():
            return False
        info = self._client.publish(topic, payload, qos=1, retain=True)
        return info.rc == mqtt.MQTT_ERR_SUCCESS

    def drop(self) -> None:
        sock = self._client.socket()
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._client.disconnect()
        self._client.loop_stop()


def _nowhere(item: Item) -> None:
    pass


# The match.


class RemoteMatch:
    """Joins a board's loop to the other board of a match: a poll once a step, in the loop's
    thread, takes what the broker sent and publishes this board's log when it grew."""

    look_every = POLL
    """On a real board, the longest the loop may wait between two polls."""

    def __init__(
        self,
        url: RemoteURL | str,
        loop: BoardLoop,
        seats: Iterable[int],
        *,
        transport: Transport | None = None,
        wake: threading.Event | None = None,
        reconnect: tuple[float, float] = RECONNECT,
    ) -> None:
        self.url = url if isinstance(url, RemoteURL) else RemoteURL.parse(url)
        self.loop = loop
        self.referee = loop.referee
        self.seats = frozenset(seats)
        names = self.referee.game.seats
        self.names = tuple(names[seat] for seat in sorted(self.seats))
        self.tag = ",".join(self.names)
        root = self.url.root
        self.log_topic = f"{root}/log/{self.tag}"
        self.stop_topic = f"{root}/stop"
        self.wake = wake or threading.Event()
        """Set whenever the broker's thread queues something: a caller may wait on it."""
        self._inbox: deque[Item] = deque()
        self.connected = False
        self.stopped: str | None = None
        """Why the match stopped, once it has."""
        self.heard: dict[str, int] = {}
        """The seq each board's log had when last heard (by its seats), this one's included."""
        self.sent: Turns | None = None
        """The log as last handed to the broker."""
        self._stop_due: StopMessage | None = None
        self._down = False
        """In an outage: reported once, until connected again."""
        self.notes = 0
        """Messages set aside as not understood."""
        now = loop.board.clock.now()
        self.referee.play_remote_match(self.seats, now, loop.scanner.debouncer.debounced)
        loop.inputs.append(self.poll)
        client_id = f"magboard-{self.url.match}-{'-'.join(self.names)}-{secrets.token_hex(4)}"
        self.transport = transport or PahoTransport(self.url, client_id, reconnect)
        self.transport.start([f"{root}/log/+", self.stop_topic], self._queue)

    def _queue(self, item: Item) -> None:
        """The broker's thread: queue, and wake whoever waits. Nothing else."""
        self._inbox.append(item)
        self.wake.set()

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.loop.inputs.remove(self.poll)
        self.transport.close()

    def drop_connection(self) -> None:
        """Severs the connection as a network fault would; it comes back by itself."""
        self.transport.drop()

    # In the loop's thread.

    def poll(self, now: float) -> None:
        if self.stopped is None and self.loop.referee is not self.referee:
            self._stop(now, "another game was set up on this board")
        while self._inbox:
            item = self._inbox.popleft()
            if isinstance(item, Connected):
                self._connected(now)
            elif isinstance(item, Lost):
                self._lost(now, item.detail)
            else:
                self._heard(now, item)
        self._publish()

    def _connected(self, now: float) -> None:
        self.connected = True
        self.sent = None  # the broker may have lost it: say it again
        if self._down:
            self._down = False
            self.loop.emit(Note(now, f"remote: connected again to {self.url.shown}"))

    def _lost(self, now: float, detail: str) -> None:
        self.connected = False
        if not self._down:
            self._down = True
            detail = f"{detail}; trying again, and nothing played is lost meanwhile"
            self.loop.emit(FaultSurvived(now, "remote", self.url.shown, detail))

    def _publish(self) -> None:
        if not self.connected:
            return
        transport = self.transport
        if self._stop_due is not None and transport.publish(
            self.stop_topic, self._stop_due.to_json()
        ):
            self._stop_due = None
        if self.stopped is not None:
            return
        journal = self.loop.journal
        if journal is not None and journal.behind:
            return  # what is not on disk here is not sent: the other board waits
        log = self.referee.log
        if log == self.sent:
            return
        referee = self.referee
        key = digest(replay(referee.initial, log))
        message = LogMessage(referee.game.name, referee.options, self.names, log, key)
        if transport.publish(self.log_topic, message.to_json()):
            self.sent = log

    def _heard(self, now: float, item: Heard) -> None:
        if self.stopped is not None and item.topic != self.stop_topic:
            return
        try:
            if item.topic == self.stop_topic:
                stop = StopMessage.from_json(item.payload)
                if self.stopped is None:
                    by = ", ".join(stop.seats)
                    mine = stop.seats == self.names  # said before a restart here
                    reason = stop.reason if mine else f"stopped by the board of {by}: {stop.reason}"
                    self._stop(now, reason, send=False)
                return
            prefix = f"{self.url.root}/log/"
            if not item.topic.startswith(prefix):
                return
            self._compare(now, item.topic[len(prefix) :], LogMessage.from_json(item.payload))
        except MessageError as error:
            self.notes += 1
            text = f"remote: a message on {item.topic} was set aside: {error}"
            self.loop.emit(Note(now, text))

    def _compare(self, now: float, tag: str, message: LogMessage) -> None:
        """The other board's log (or this board's own, retained from before a restart) against
        this board's: the same game, the same turns as far as both go, the same position; then
        the turns this board lacks are made here."""
        referee = self.referee
        if (message.game, message.options) != (referee.game.name, referee.options):
            self._stop(now, f"the other board plays {message.game} {message.options}")
            return
        if tag != self.tag and set(message.seats) & set(self.names):
            self._stop(now, f"both boards play {', '.join(sorted(set(message.seats)))}")
            return
        try:
            position = replay(referee.initial, message.turns)
        except RemoteError as error:
            self._stop(now, f"the other board's {error}")
            return
        if digest(position) != message.key:
            self._stop(now, f"the boards disagree on the position after move {message.seq}")
            return
        self.heard[tag] = message.seq
        ours = referee.log
        differs = conflict(ours, message.turns)
        if differs is not None:
            self._stop(now, differs)
            return
        if message.seq <= len(ours):
            return
        debounced = self.loop.scanner.debouncer.debounced
        try:
            referee.remote_move(message.turns[len(ours) :], now, debounced)
        except RemoteError as error:
            self._stop(now, str(error))

    def _stop(self, now: float, reason: str, send: bool = True) -> None:
        """Stops the match here, and (unless it was the other board's word) there too."""
        seq = len(self.referee.log)
        self.stopped = reason
        self.referee.halt(now)
        self.loop.emit(MatchStopped(now, self.url.match, seq, reason))
        if send:
            self._stop_due = StopMessage(self.names, seq, reason)


def open_match(url: str, seat: str, loop: BoardLoop, **options: Any) -> RemoteMatch:
    """The match `--remote URL --seat SEAT` asks for; RemoteURLError or SeatError if it can
    never be."""
    parsed = RemoteURL.parse(url)
    referee = loop.referee
    seats = seats_of(referee.game, referee.initial.players, seat)
    return RemoteMatch(parsed, loop, seats, **options)
