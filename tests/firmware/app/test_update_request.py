"""The update command over MQTT: checked, refused over an unauthenticated connection or when the
wheel's checksum differs (nothing left behind), and otherwise the wheel and the request left in
the state directory for root's magboard-update.service. The wheel is served over real HTTP."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from broker import Listener
from sim_mqtt import Board

from magboard.firmware.app.mqtt_commands import Refused, carry_out, read_command
from magboard.firmware.app.update_request import UpdateAsked
from magboard.hardware import update
from magboard.sim.session import SimSession

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]  # a real broker each

WHEEL = "magboard-0.2.0-cp311-cp311-linux_aarch64.whl"
CONTENT = b"PK\x03\x04 a wheel's bytes, as served"
SHA256 = hashlib.sha256(CONTENT).hexdigest()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A web server with the wheel at /WHEEL; its base URL."""
    site = tmp_path / "site"
    site.mkdir()
    (site / WHEEL).write_bytes(CONTENT)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=str(site), **kwargs)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The service's state directory, as the unit names it."""
    found = tmp_path / "state"
    found.mkdir()
    monkeypatch.setenv("MAGBOARD_STATE", str(found))
    return found


def command(url: str, sha256: str = SHA256) -> bytes:
    return json.dumps({"do": "update", "url": url, "sha256": sha256}).encode()


def everything_under(directory: Path) -> list[str]:
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*"))


def test_an_update_command_is_read_whole() -> None:
    url = f"https://example.org/dist/{WHEEL}"
    assert read_command(command(url)) == UpdateAsked(url, SHA256)
    refusals = {
        b'{"do": "update", "sha256": "' + SHA256.encode() + b'"}': "url is the http",
        command("ftp://example.org/" + WHEEL): "url is the http",
        command("https://example.org/setup.py"): "url names no magboard wheel",
        command(f"https://example.org/{WHEEL}", "ABC"): "sha256 is the wheel's SHA-256",
        command(f"https://example.org/{WHEEL}", SHA256.upper()): "sha256 .* 64 lowercase",
    }
    for payload, said in refusals.items():
        with pytest.raises(Refused, match=f"^update: {said}"):
            read_command(payload)


def test_unauthenticated_it_is_refused_and_nothing_is_fetched(served, state) -> None:
    session = SimSession("mini", "tic-tac-toe", {})
    asked = read_command(command(f"{served}/{WHEEL}"))
    with pytest.raises(Refused, match="authenticated broker connection"):
        carry_out(asked, session.loop, 0.0)
    assert everything_under(state) == []


def test_a_checksum_that_differs_is_refused_and_nothing_is_left(served, state) -> None:
    session = SimSession("mini", "tic-tac-toe", {})
    asked = read_command(command(f"{served}/{WHEEL}", "0" * 64))
    with pytest.raises(Refused, match=f"sha256 is {SHA256}, not 0000"):
        carry_out(asked, session.loop, 0.0, authenticated=True)
    assert everything_under(state) in ([], ["update"])
    assert not list(state.rglob("*.whl")) and not list(state.rglob(".download-*"))


def test_a_wheel_that_cannot_be_fetched_is_refused(served, state) -> None:
    session = SimSession("mini", "tic-tac-toe", {})
    missing = WHEEL.replace("0.2.0", "0.9.0")
    asked = read_command(command(f"{served}/{missing}"))
    with pytest.raises(Refused, match=f"cannot download {served}/{missing}"):
        carry_out(asked, session.loop, 0.0, authenticated=True)
    assert not list(state.rglob("*.whl"))


def test_a_good_one_leaves_the_wheel_and_the_request_root_takes(served, state) -> None:
    session = SimSession("mini", "tic-tac-toe", {})
    url = f"{served}/{WHEEL}"
    carry_out(read_command(command(url)), session.loop, 0.0, authenticated=True)
    assert everything_under(state) == ["update", f"update/{WHEEL}", "update/request.json"]
    assert (state / "update" / WHEEL).read_bytes() == CONTENT
    assert json.loads((state / "update/request.json").read_text()) == {
        "wheel": WHEEL,
        "sha256": SHA256,
        "url": url,
    }
    # A second one waits for the first to be taken.
    with pytest.raises(Refused, match="already waiting"):
        carry_out(read_command(command(url)), session.loop, 0.0, authenticated=True)
    # What magboard-update.service does with it: the request taken (gone), the wheel checked.
    request = update.take_request(state)
    assert (request.wheel, request.url) == (state / "update" / WHEEL, url)
    assert not (state / "update/request.json").exists()


def test_root_checks_the_wheel_again(served, state) -> None:
    session = SimSession("mini", "tic-tac-toe", {})
    carry_out(read_command(command(f"{served}/{WHEEL}")), session.loop, 0.0, authenticated=True)
    (state / "update" / WHEEL).write_bytes(CONTENT + b" changed since")
    with pytest.raises(update.UpdateError, match=f"not the {SHA256} asked for"):
        update.take_request(state)
    assert not (state / "update/request.json").exists(), "taken, so the path unit stops"


def test_over_the_broker_the_board_leaves_the_request(broker, served, state, tmp_path) -> None:
    listener = Listener(broker, "fleet", ["magboard/#"])
    board = Board(broker.url("board1"), "board1", tmp_path, heartbeat=5.0)
    try:
        online = "magboard/board1/availability"
        assert board.until(lambda: listener.on(online))
        listener.publish("magboard/board1/command", command(f"{served}/{WHEEL}"))
        assert board.until(lambda: (state / "update/request.json").exists())
        assert (state / "update" / WHEEL).read_bytes() == CONTENT
        listener.publish("magboard/board1/command", command(f"{served}/{WHEEL}", "1" * 64))
        refused = board.until(
            lambda: listener.wait_for(
                "magboard/board1/events", lambda p: "already waiting" in p, 0.05
            )
        )
        assert refused is not None
    finally:
        board.close()
        listener.close()
