"""A real Mosquitto broker for tests: password-protected, with a TLS listener signed by a test CA.

`broker` (a fixture, one fresh broker a test) yields a `Broker`: `.host`, `.port`, `.tls_port`,
`.ca_file`, `.users` (board1, board2, board3 and fleet, with their passwords), `.url(user)`,
`.tls_url(user)`, `.anonymous_url()` (on a broker made with `anonymous=True`), `.restart()`
(the same ports, retained messages and sessions kept) and `.stop()`. Tests that use it are
skipped, saying why, where mosquitto is not installed (`make mosquitto` installs it where it
can).

The test CA and the server's certificate are made once a session with the openssl command; where
there is none, the broker has no TLS listener, `.tls_port` and `.ca_file` are None, and
`.tls_url()` skips the test that asks for it.

`Listener(broker, user, topics)` is a client that keeps what arrives, for a test to wait on.
"""

from __future__ import annotations

import contextlib
import getpass
import secrets
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HOST = "127.0.0.1"
USERS = ("board1", "board2", "board3", "fleet")
START_WAIT = 10.0
"""Longest wait for a started broker to accept connections."""


def _tool(name: str) -> str | None:
    """A program on PATH, or in the sbin directories Debian puts mosquitto in."""
    found = shutil.which(name)
    if found:
        return found
    for folder in ("/usr/sbin", "/usr/local/sbin", "/sbin"):
        path = Path(folder) / name
        if path.is_file():
            return str(path)
    return None


MOSQUITTO = _tool("mosquitto")
MOSQUITTO_PASSWD = _tool("mosquitto_passwd")
OPENSSL = _tool("openssl")
MISSING = (
    "mosquitto is not installed (make mosquitto installs it): MQTT tests skipped"
    if MOSQUITTO is None or MOSQUITTO_PASSWD is None
    else None
)


@dataclass(frozen=True)
class Certificates:
    ca_file: Path
    cert_file: Path
    key_file: Path


def make_certificates(folder: Path) -> Certificates | None:
    """A test CA and a server certificate for 127.0.0.1 and localhost, with the openssl command
    (None where there is none). EC keys: made in milliseconds."""
    if OPENSSL is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca_cert = folder / "ca.key", folder / "ca.crt"
    key, request, cert = folder / "server.key", folder / "server.csr", folder / "server.crt"
    extensions = folder / "server.ext"
    extensions.write_text(
        "basicConstraints=CA:FALSE\n"
        "keyUsage=digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\n"
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
    )
    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ca_subject = ["-subj", "/CN=magboard test CA"]
    signing = ["-CA", ca_cert, "-CAkey", ca_key, "-CAcreateserial", "-days", "2"]
    steps = [
        [OPENSSL, "req", "-x509", *curve, *ca_subject, "-keyout", ca_key, "-out", ca_cert],
        [OPENSSL, "req", "-new", *curve, "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1"],
        [OPENSSL, "x509", "-req", "-in", request, *signing, "-out", cert, "-extfile", extensions],
    ]
    for step in steps:
        subprocess.run([str(part) for part in step], check=True, capture_output=True)
    return Certificates(ca_cert, cert, key)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def accepts(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=0.2):
        return True
    return False


class Broker:
    """One mosquitto process and what a test needs to reach it."""

    def __init__(
        self, folder: Path, certificates: Certificates | None, *, anonymous: bool = False
    ) -> None:
        """`anonymous`: clients without a user name may connect too (as a board without
        credentials does to a broker that lets it)."""
        assert MOSQUITTO is not None and MOSQUITTO_PASSWD is not None, MISSING
        self.folder = folder
        self.host = HOST
        self.port = free_port()
        self.tls_port: int | None = free_port() if certificates else None
        self.ca_file: Path | None = certificates.ca_file if certificates else None
        self.users: dict[str, str] = {user: secrets.token_hex(8) for user in USERS}
        self.log = folder / "mosquitto.log"
        self._process: subprocess.Popen | None = None
        passwords = folder / "passwd"
        passwords.touch(mode=0o600)
        for user, password in self.users.items():
            subprocess.run(
                [MOSQUITTO_PASSWD, "-b", str(passwords), user, password],
                check=True,
                capture_output=True,
            )
        (folder / "data").mkdir()
        lines = [
            # As root, mosquitto would become a user who cannot read the test's folder.
            f"user {getpass.getuser()}",
            "persistence true",
            f"persistence_location {folder / 'data'}/",
            f"allow_anonymous {'true' if anonymous else 'false'}",
            f"password_file {passwords}",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"listener {self.port} {HOST}",
        ]
        if certificates is not None:
            lines += [
                f"listener {self.tls_port} {HOST}",
                f"cafile {certificates.ca_file}",
                f"certfile {certificates.cert_file}",
                f"keyfile {certificates.key_file}",
            ]
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text("\n".join(lines) + "\n")
        self.start()

    def url(self, user: str) -> str:
        return f"mqtt://{user}:{self.users[user]}@{self.host}:{self.port}"

    def anonymous_url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def tls_url(self, user: str) -> str:
        if self.tls_port is None:
            pytest.skip("no openssl command to make the test CA: TLS not tested")
        return f"mqtts://{user}:{self.users[user]}@{self.host}:{self.tls_port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Starts mosquitto and waits (polling a connect) until every listener accepts."""
        if self.running:
            return
        self._process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.conf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        ports = [p for p in (self.port, self.tls_port) if p is not None]
        deadline = time.monotonic() + START_WAIT
        while not all(accepts(p) for p in ports):
            if self._process.poll() is not None:
                said = (
                    self._process.stderr.read().decode(errors="replace")
                    if self._process.stderr
                    else ""
                )
                log = self.log.read_text(errors="replace") if self.log.exists() else ""
                raise RuntimeError(f"mosquitto did not start: {said}{log}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"mosquitto did not accept connections in {START_WAIT} s")
            time.sleep(0.01)  # polling the listeners, bounded by the deadline

    def stop(self) -> None:
        """Stops mosquitto as a service manager would (SIGTERM): it saves what it keeps."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()

    def restart(self) -> None:
        """Stops and starts again on the same ports; retained messages and QoS 1 messages for
        kept sessions survive (persistence)."""
        self.stop()
        self.start()


@dataclass(frozen=True)
class Message:
    topic: str
    payload: str
    retained: bool


class Listener:
    """A client of the broker that keeps every message on the topics it subscribed to, for a
    test to wait on (bounded waits on what the network delivers, never a blind sleep)."""

    def __init__(
        self,
        broker: Broker,
        user: str | None = "fleet",
        topics: Iterable[str] = ("magboard/#", "homeassistant/#"),
        *,
        password: str | None = None,
        tls: bool = False,
        timeout: float = 5.0,
    ) -> None:
        import paho.mqtt.client as paho
        from paho.mqtt.enums import CallbackAPIVersion

        self.messages: list[Message] = []
        self._changed = threading.Condition()
        self._connected = threading.Event()
        self._subscribed = threading.Event()
        self.refused: str | None = None
        client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{secrets.token_hex(4)}")
        if user is not None:
            client.username_pw_set(user, broker.users.get(user) if password is None else password)
        if tls:
            client.tls_set(ca_certs=str(broker.ca_file))
        client.on_connect = self._on_connect
        client.on_subscribe = lambda *args: self._subscribed.set()
        client.on_message = self._on_message
        self.client = client
        client.connect(broker.host, broker.tls_port if tls else broker.port)
        client.loop_start()
        if not self._connected.wait(timeout):
            raise TimeoutError("no answer to CONNECT")
        topics = list(topics)
        if self.refused is None and topics:
            client.subscribe([(topic, 1) for topic in topics])
            if not self._subscribed.wait(timeout):
                raise TimeoutError("no answer to SUBSCRIBE")

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        self.refused = str(reason_code) if reason_code.is_failure else None
        if self.refused is not None:
            client.disconnect()  # a refused client is not to try again
        self._connected.set()

    def _on_message(self, client, userdata, message) -> None:
        with self._changed:
            self.messages.append(
                Message(message.topic, message.payload.decode(errors="replace"), message.retain)
            )
            self._changed.notify_all()

    def on(self, topic: str) -> list[str]:
        with self._changed:
            return [m.payload for m in self.messages if m.topic == topic]

    def wait_for(
        self,
        topic: str,
        match: Callable[[str], bool] = lambda payload: True,
        timeout: float = 5.0,
        after: int = 0,
    ) -> str | None:
        """The first payload on `topic` (of those received from message number `after` on)
        that `match`es, waiting for it up to `timeout` seconds; None if none came."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for message in self.messages[after:]:
                    if message.topic == topic and match(message.payload):
                        return message.payload
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture(scope="session")
def broker_certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates | None:
    if MISSING:
        pytest.skip(MISSING)
    return make_certificates(tmp_path_factory.mktemp("mqtt-ca"))


@pytest.fixture
def broker(tmp_path_factory: pytest.TempPathFactory, broker_certificates) -> Iterator[Broker]:
    """A fresh broker for one test (nothing retained from another test), stopped after it."""
    if MISSING:
        pytest.skip(MISSING)
    running = Broker(tmp_path_factory.mktemp("mosquitto"), broker_certificates)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def listener(broker: Broker) -> Iterator[Listener]:
    """A listener on the boards' and Home Assistant's topics of the test's broker."""
    found = Listener(broker)
    yield found
    found.close()


def topic(board: str, name: str) -> str:
    """A board's topic: `magboard/<board-id>/<name>` (docs/protocol.md, "MQTT")."""
    return f"magboard/{board}/{name}"
