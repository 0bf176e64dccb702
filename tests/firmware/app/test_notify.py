"""The notify protocol against real datagram sockets, as systemd would receive it."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from magboard.firmware.app.notify import Delivery, Notifier

pytestmark = pytest.mark.backend_free

PID = 4242


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """A socket bound where NOTIFY_SOCKET points, as systemd binds one per service."""
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(1.0)
        yield sock, str(path)


@pytest.fixture
def abstract_listener() -> Iterator[tuple[socket.socket, str]]:
    name = f"magboard-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(1.0)
        yield sock, "@" + name


def received(sock: socket.socket) -> list[str]:
    """Every datagram waiting on `sock`, without waiting for more."""
    messages = []
    sock.setblocking(False)
    try:
        while True:
            messages.append(sock.recv(4096).decode())
    except BlockingIOError:
        return messages
    finally:
        sock.settimeout(1.0)


def notifier(address: str, **environ: str) -> Notifier:
    found = Notifier.from_environ({"NOTIFY_SOCKET": address, **environ}, pid=PID)
    assert found is not None
    return found


def test_no_notifier_without_notify_socket() -> None:
    assert Notifier.from_environ({}) is None
    assert Notifier.from_environ({"NOTIFY_SOCKET": ""}) is None
    assert Notifier.from_environ({"NOTIFY_SOCKET": "vsock:2:1234"}) is None


def test_ready_status_stopping_reach_a_path_socket(listener) -> None:
    sock, path = listener
    notify = notifier(path)
    assert notify.ready() is Delivery.SENT
    assert notify.status("tic-tac-toe: X to move") is Delivery.SENT
    assert notify.stopping() is Delivery.SENT
    assert received(sock) == ["READY=1", "STATUS=tic-tac-toe: X to move", "STOPPING=1"]


def test_status_is_one_line(listener) -> None:
    """A newline would start another assignment, which systemd would read as a second key."""
    sock, path = listener
    notifier(path).status("first\nREADY=1")
    assert received(sock) == ["STATUS=first READY=1"]


def test_abstract_namespace(abstract_listener) -> None:
    sock, address = abstract_listener
    notify = notifier(address, WATCHDOG_USEC="30000000")
    assert notify.ready() is Delivery.SENT
    assert notify.watchdog(0.0) is Delivery.SENT
    assert received(sock) == ["READY=1", "WATCHDOG=1"]


def test_watchdog_pings_at_most_once_per_half_interval(listener) -> None:
    sock, path = listener
    notify = notifier(path, WATCHDOG_USEC="30000000", WATCHDOG_PID=str(PID))
    assert notify.watchdog_interval == 30.0
    deliveries = {now: notify.watchdog(now) for now in (100.0, 100.1, 110.0, 114.999, 115.0)}
    assert deliveries == {
        100.0: Delivery.SENT,
        100.1: Delivery.NOT_DUE,
        110.0: Delivery.NOT_DUE,
        114.999: Delivery.NOT_DUE,
        115.0: Delivery.SENT,
    }
    assert notify.watchdog(129.0) is Delivery.NOT_DUE
    assert notify.watchdog(131.0) is Delivery.SENT
    assert received(sock) == ["WATCHDOG=1"] * 3


def test_watchdog_for_another_process_is_not_pinged(listener) -> None:
    """WATCHDOG_PID names the process systemd watches; a child that inherited it must not ping."""
    sock, path = listener
    notify = notifier(path, WATCHDOG_USEC="30000000", WATCHDOG_PID=str(PID + 1))
    assert notify.watchdog_interval is None
    assert [notify.watchdog(now) for now in (0.0, 20.0, 40.0)] == [Delivery.NOT_DUE] * 3
    assert notify.ready() is Delivery.SENT
    assert received(sock) == ["READY=1"]


@pytest.mark.parametrize("usec", ["", "0", "-5", "soon"])
def test_no_watchdog_without_a_valid_interval(listener, usec: str) -> None:
    sock, path = listener
    notify = notifier(path, WATCHDOG_USEC=usec)
    assert notify.watchdog(0.0) is Delivery.NOT_DUE
    assert received(sock) == []


def test_the_watchdog_pid_defaults_to_this_process(listener) -> None:
    _, path = listener
    environ = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid())}
    found = Notifier.from_environ(environ)
    assert found is not None and found.watchdog_interval == 1.0


def test_a_missing_socket_is_reported_not_raised(tmp_path: Path) -> None:
    notify = notifier(str(tmp_path / "gone"), WATCHDOG_USEC="2000000")
    assert notify.ready() is Delivery.FAILED
    assert notify.status("still here") is Delivery.FAILED
    assert notify.watchdog(0.0) is Delivery.FAILED
    assert notify.stopping() is Delivery.FAILED
    assert notifier("@magboard-test-nobody-" + uuid.uuid4().hex).ready() is Delivery.FAILED


def test_a_socket_that_vanishes_is_reported_and_a_failed_ping_is_retried(tmp_path: Path) -> None:
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    notify = notifier(str(path), WATCHDOG_USEC="10000000")
    assert notify.watchdog(0.0) is Delivery.SENT
    sock.close()
    path.unlink()
    assert notify.watchdog(5.0) is Delivery.FAILED
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as back:
        back.bind(str(path))
        assert notify.watchdog(5.1) is Delivery.SENT, "the failed ping was not counted"
        assert received(back) == ["WATCHDOG=1"]
    notify.close()


def test_a_full_socket_does_not_block(listener) -> None:
    """A receiver that stopped reading fills its queue; the sender gets FAILED, not a hang."""
    _, path = listener
    notify = notifier(path)
    results = {notify.status("x" * 1000) for _ in range(10_000)}
    assert Delivery.FAILED in results
