"""The broker connection of a remote match: paho-mqtt in its own network thread, handing
what it hears to the match as items. firmware/app/remote.py has the match."""

from __future__ import annotations

import contextlib
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from .remote_url import RemoteURL

RECONNECT = (0.25, 5.0)
"""Seconds before trying the broker again after losing it: the first time, then at most."""
KEEPALIVE = 20
"""Seconds between signs of life: a broker gone silent is noticed within about half again."""


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
