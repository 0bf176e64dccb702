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
import secrets
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

from magboard.firmware.events import FaultSurvived, MatchStopped, Note
from magboard.firmware.referee import RemoteError, Turns, conflict, digest, replay

from .loop import BoardLoop
from .remote_messages import MAX_PAYLOAD, LogMessage, MessageError, StopMessage
from .remote_transport import RECONNECT, Connected, Heard, Item, Lost, PahoTransport, Transport
from .remote_url import RemoteURL, RemoteURLError, SeatError, seats_of

__all__ = [
    "MAX_PAYLOAD",
    "Connected",
    "Heard",
    "LogMessage",
    "MessageError",
    "RemoteMatch",
    "RemoteURL",
    "RemoteURLError",
    "SeatError",
    "StopMessage",
    "open_match",
    "seats_of",
]

POLL = 0.05
"""On a real board, the longest the loop waits between two looks at what the broker sent."""


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
