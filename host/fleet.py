"""`magboard fleet mqtt://...`: every board on a broker at a glance, one line each, kept up to date.

A cafe or a museum runs many boards; whoever looks after them wants one screen that says which
are online, what each is playing, whose turn it is, the last move, the faults survived and the
games begun today, the software version. Boards publish all of that under
`magboard/<board-id>/` (firmware/app/mqtt.py); this subscribes to it and draws the table.
`--once SECONDS` collects for that long, prints the table once and exits, for scripts.

`magboard fleet forget BOARD-ID URL` clears a retired board's retained topics (its status,
availability, heartbeat, figures, last answer and Home Assistant's discovery configurations,
which removes the device there): otherwise the broker keeps them for ever, and the table and
every dashboard keep showing a board that is gone.

A message that does not read (another client's, a newer board's) is skipped: the table shows
what it can and never stops for one board's oddity.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.mqtt_settings import (
    Broker,
    MqttSettingError,
    check_board_id,
    check_discovery_prefix,
    parse_broker,
)

TOPICS = ("availability", "status", "heartbeat", "usage")
"""What each board publishes (retained) that the table shows."""
CONNECT_WAIT = 5.0
REDRAW = 0.5
"""Least seconds between two redraws of the live table."""
HEADER = ("board", "online", "game", "state", "turn", "last move", "faults", "today", "version")
QUIET = 0.5
"""Seconds without a message after which `forget` has every retained topic (the broker sends
them all at once, right after the subscription)."""
GATHER_WAIT = 5.0
"""Longest `forget` collects retained topics, however busy the broker."""


@dataclass(frozen=True)
class Row:
    """One board as last heard; None where it has not said."""

    board: str
    online: bool | None = None
    game: str | None = None
    phase: str | None = None
    turn: int | None = None
    to_move: str | None = None
    result: str | None = None
    last_move: str | None = None
    faults: int | None = None
    games_today: int | None = None
    version: str | None = None

    def cells(self) -> tuple[str, ...]:
        online = {True: "yes", False: "no", None: "?"}[self.online]
        if self.result is not None:
            turn = self.result
        elif self.turn is not None:
            turn = f"{self.turn}: {self.to_move}" if self.to_move else str(self.turn)
        else:
            turn = None
        return tuple(
            "-" if value is None else str(value)
            for value in (
                self.board,
                online,
                self.game,
                self.phase,
                turn,
                self.last_move,
                self.faults,
                self.games_today,
                self.version,
            )
        )


class Fleet:
    """Every board heard of, from the messages on `magboard/<board-id>/<topic>`."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}

    def take(self, topic: str, payload: bytes) -> bool:
        """Folds one message in; whether the table changed."""
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != "magboard" or parts[2] not in TOPICS:
            return False
        board, name = parts[1], parts[2]
        if not payload:  # cleared (`fleet forget`): the board is gone once its availability is
            return name == "availability" and self.rows.pop(board, None) is not None
        row = self.rows.get(board, Row(board))
        try:
            text = payload.decode("utf-8")
            changed = _read(row, name, text)
        except (UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError):
            return False  # not a board's message, or not one this reads: skipped
        if changed == row and board in self.rows:
            return False
        self.rows[board] = changed
        return True

    def lines(self) -> list[str]:
        if not self.rows:
            return ["no boards heard from yet"]
        table = [HEADER, *(self.rows[b].cells() for b in sorted(self.rows))]
        widths = [max(len(row[i]) for row in table) for i in range(len(HEADER))]
        return [
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in table
        ]


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()


def _read(row: Row, name: str, text: str) -> Row:
    if name == "availability":
        if text not in ("online", "offline"):
            raise ValueError(text)
        return replace(row, online=text == "online")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise TypeError(type(data).__name__)
    if name == "heartbeat":
        return replace(row, faults=_int(data["faults"]))
    if name == "usage":
        return replace(row, games_today=_int(data["started_today"]))
    result = data.get("result")
    last = data.get("last_move")
    return replace(
        row,
        game=_text(data["game"]),
        phase=_text(data["phase"]),
        turn=_int(data["turn"]),
        to_move=_text(data["to_move"]) if data.get("to_move") is not None else None,
        result=_result(result) if result else None,
        last_move=f"{last['player']} {' '.join(map(str, last['actions']))}" if last else None,
        version=_text(data["version"]) if data.get("version") is not None else None,
    )


def _result(result: dict[str, Any]) -> str:
    winners = result["winners"]
    if not winners:
        return "draw"
    return f"{' and '.join(map(str, winners))} won"


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(value)
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


class Subscription:
    """A connection to the broker, subscribed to every board's topics; paho's thread only
    queues what arrives."""

    def __init__(
        self,
        broker: Broker,
        ca_file: Path | None = None,
        topics: tuple[str, ...] = tuple(f"magboard/+/{name}" for name in TOPICS),
    ) -> None:
        import paho.mqtt.client as paho
        from paho.mqtt.enums import CallbackAPIVersion

        self.messages: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
        self.retained: set[str] = set()
        """The topics heard with a retained message (paho's thread adds to it)."""
        self.topics = topics
        self._answered = threading.Event()
        self._refused: str | None = None
        client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv311)
        if broker.username:
            client.username_pw_set(broker.username, broker.password)
        if broker.tls:
            try:
                client.tls_set(ca_certs=str(ca_file) if ca_file else None)
            except (OSError, ValueError) as error:
                raise CommandError(
                    f"fleet: the CA file {ca_file} cannot be used ({error})"
                ) from None
        client.on_connect = self._on_connect
        client.on_message = self._on_message
        self.client = client
        try:
            client.connect(broker.host, broker.port, keepalive=30)
        except OSError as error:
            raise CommandError(f"fleet: cannot reach {broker.shown} ({error})") from None
        client.loop_start()
        if not self._answered.wait(CONNECT_WAIT):
            self.close()
            raise CommandError(f"fleet: {broker.shown} did not answer")
        if self._refused is not None:
            self.close()
            raise CommandError(f"fleet: {broker.shown} refused the connection ({self._refused})")

    def _on_message(self, client, userdata, message) -> None:
        if message.retain:
            self.retained.add(message.topic)
        self.messages.put((message.topic, bytes(message.payload)))

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._refused = str(reason_code)
            client.disconnect()
        else:  # again after every reconnect: the broker forgets a clean session's subscriptions
            client.subscribe([(topic, 1) for topic in self.topics])
        self._answered.set()

    def take(self, fleet: Fleet, timeout: float) -> bool:
        """Folds in what arrives within `timeout` seconds (at least one message's worth of
        waiting); whether the table changed."""
        changed = False
        try:
            topic, payload = self.messages.get(timeout=max(0.0, timeout))
            changed |= fleet.take(topic, payload)
            while True:
                topic, payload = self.messages.get_nowait()
                changed |= fleet.take(topic, payload)
        except queue.Empty:
            pass
        return changed

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def main(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    words = args.words
    if len(words) == 3 and words[0] == "forget":
        board_id, url = words[1], words[2]
    elif len(words) == 1:
        board_id, url = None, words[0]
    else:
        raise CommandError("fleet: magboard fleet URL, or magboard fleet forget BOARD-ID URL")
    try:
        broker = parse_broker(url)
        if board_id is not None:
            check_board_id(board_id)
            check_discovery_prefix(args.discovery_prefix)
    except MqttSettingError as error:
        raise CommandError(f"fleet: {error}") from None
    if board_id is not None:
        ca_file = Path(args.ca_file).expanduser() if args.ca_file else None
        return forget(broker, ca_file, board_id, args.discovery_prefix, out)
    if args.once is not None and not args.once >= 0:
        raise CommandError(f"fleet: --once is a number of seconds, 0 or more, not {args.once}")
    ca_file = Path(args.ca_file).expanduser() if args.ca_file else None
    subscription = Subscription(broker, ca_file)
    fleet = Fleet()
    try:
        if args.once is not None:
            deadline = time.monotonic() + args.once
            while (left := deadline - time.monotonic()) > 0:
                subscription.take(fleet, left)
            print("\n".join(fleet.lines()), file=out, flush=True)
            return 0
        _live(subscription, fleet, out)
    except KeyboardInterrupt:
        pass
    finally:
        subscription.close()
    return 0


def forget(broker: Broker, ca_file: Path | None, board_id: str, prefix: str, out: TextIO) -> int:
    """Clears every retained topic of a board that is not online (an empty retained payload
    each): 0 once cleared, 1 where the broker kept nothing of it."""
    topics = (f"magboard/{board_id}/#", f"{prefix}/+/magboard_{board_id}/+/config")
    subscription = Subscription(broker, ca_file, topics)
    try:
        kept = _gather(subscription)
        if kept.get(f"magboard/{board_id}/availability") == b"online":
            raise CommandError(
                f"fleet: {board_id} is online: stop it first (a board publishes its topics "
                "again whenever it connects)"
            )
        if not kept:
            print(f"nothing kept of {board_id} on {broker.shown}", file=out, flush=True)
            return 1
        client = subscription.client
        for topic in sorted(kept):
            client.publish(topic, b"", qos=1, retain=True).wait_for_publish(CONNECT_WAIT)
            print(f"cleared {topic}", file=out)
        print(f"forgot {board_id}: {len(kept)} retained topics cleared", file=out, flush=True)
        return 0
    finally:
        subscription.close()


def _gather(subscription: Subscription) -> dict[str, bytes]:
    """The retained messages the broker sends for the subscription (until QUIET seconds pass
    without one), by topic; empty ones are already cleared."""
    kept: dict[str, bytes] = {}
    deadline = time.monotonic() + GATHER_WAIT
    while time.monotonic() < deadline:
        try:
            topic, payload = subscription.messages.get(timeout=QUIET)
        except queue.Empty:
            break
        if topic in subscription.retained and payload:
            kept[topic] = payload
    return kept


def _live(subscription: Subscription, fleet: Fleet, out: TextIO) -> None:
    """Redraws the table whenever it changes (at most every REDRAW seconds): in place on a
    terminal, one table after another elsewhere."""
    terminal = out.isatty()
    drawn = None
    while True:
        subscription.take(fleet, REDRAW)
        lines = fleet.lines()
        if lines == drawn:
            continue
        drawn = lines
        stamp = time.strftime("%H:%M:%S")
        if terminal:
            out.write("\x1b[H\x1b[2J")
        out.write(f"magboard fleet, {stamp}\n" + "\n".join(lines) + "\n")
        if not terminal:
            out.write("\n")
        out.flush()
