"""`magboard watch` and `magboard send` on one board at once, over a `listen://` link, and the
`tcp://` spelling of pyserial's `socket://` on both sides."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import sys
import threading

import pytest

from magboard.firmware.app.ports import LinkURLError, ListenPort, open_port, socket_url

CLI = (sys.executable, "-m", "magboard.host.cli")


def _lines_until(stream, wanted, limit=200):
    """Reads lines until one contains `wanted` (bounded by the stream's own end)."""
    seen = []
    for _ in range(limit):
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if wanted in line:
            return seen
    raise AssertionError(f"{wanted!r} never came: {seen}")


def _reader(stream) -> queue.Queue:
    """The stream's lines, as they come, to wait for with a bound."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in stream], daemon=True).start()
    return lines


def _wait_for(lines: queue.Queue, wanted: str, seconds: float = 20.0) -> str:
    while True:
        line = lines.get(timeout=seconds)  # queue.Empty fails the test: it never came
        if wanted in line:
            return line


@pytest.mark.slow
def test_watch_and_send_share_a_board_on_a_listen_link(tmp_path):
    board = subprocess.Popen(
        [
            *CLI,
            *("run", "--sim", "--board", "mini", "--game", "tic-tac-toe"),
            *("--journal", str(tmp_path / "magboard.db"), "--link", "listen://127.0.0.1:0"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    watch = None
    try:
        note = json.loads(_lines_until(board.stdout, "listening on")[-1])
        url = note["text"].split()[3]
        assert url.startswith("tcp://127.0.0.1:")
        drain = threading.Thread(target=board.stdout.read, daemon=True)  # never a full pipe
        drain.start()
        watch = subprocess.Popen(
            [*CLI, "watch", url, "--for", "20"], stdout=subprocess.PIPE, text=True
        )
        watched = _reader(watch.stdout)
        for _ in range(30):  # until watch is connected: a press at the board reaches it
            board.stdin.write("press seat-2\n")
            board.stdin.flush()
            try:
                _wait_for(watched, "seat-2", seconds=1.0)
                break
            except queue.Empty:
                continue
        board.stdin.write("play b2\n")  # a move made at the board, while watch is connected
        board.stdin.flush()
        assert "played b2" in _wait_for(watched, "played b2")
        sent = subprocess.run(
            [*CLI, "send", url, "press", "seat-1", "--wait", "2"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert sent.returncode == 0, sent.stderr
        assert "seat-1" in sent.stdout  # the press was carried out: its button events came back
        assert "seat-1" in _wait_for(watched, "seat-1")  # and watch saw them too
        hello = subprocess.run(
            [*CLI, "send", url, "hello"], capture_output=True, text=True, timeout=30
        )
        assert "hello: board mini, game tic-tac-toe" in hello.stdout
        assert watch.poll() is None  # watch is still printing
    finally:
        if watch is not None:
            watch.kill()
            watch.wait(timeout=30)
        board.stdin.close()
        assert board.wait(timeout=60) == 0


def test_listen_port_sends_every_host_everything_and_reads_whole_lines():
    port = ListenPort("127.0.0.1", 0)
    host, number = port.address.rsplit(":", 1)
    try:
        one = socket.create_connection((host, int(number)), timeout=5)
        two = socket.create_connection((host, int(number)), timeout=5)
        for _ in range(1000):  # bounded: each read lets in the hosts that are waiting
            port.read(4096)
            if port.clients == 2:
                break
        assert port.clients == 2
        port.write(b'{"type":"note"}\n')
        assert one.recv(100) == b'{"type":"note"}\n' == two.recv(100)
        one.sendall(b'{"do": "he')
        two.sendall(b'{"do": "state"}\n')
        one.sendall(b'llo"}\n')
        got = b""
        for _ in range(1000):
            got += port.read(4096)
            if got.count(b"\n") == 2:
                break
        assert sorted(got.splitlines()) == [b'{"do": "hello"}', b'{"do": "state"}']
        one.close()
        for _ in range(1000):
            port.read(4096)
            if port.clients == 1:
                break
        assert port.clients == 1  # a host leaving is not the link failing
        two.close()
    finally:
        port.close()


def test_tcp_urls_are_socket_urls():
    assert socket_url("tcp://10.0.0.5:7000") == "socket://10.0.0.5:7000"
    assert socket_url("/dev/ttyACM0") == "/dev/ttyACM0"
    with pytest.raises(LinkURLError):
        open_port("tcp://nowhere")
    with pytest.raises(LinkURLError):
        open_port("listen://127.0.0.1:http")


@pytest.mark.slow
def test_board_connects_out_over_tcp_and_the_host_reads_tcp():
    """`--link tcp://HOST:PORT` connects out as `socket://` does; `BoardLink("tcp://...")` too."""
    from magboard.host.link import BoardLink

    server = socket.create_server(("127.0.0.1", 0))
    host, number = server.getsockname()[:2]
    try:
        port = open_port(f"tcp://{host}:{number}")
        client, _ = server.accept()
        port.write(b"hi\n")
        assert client.recv(10) == b"hi\n"
        port.close()
        client.close()
        with BoardLink(f"tcp://{host}:{number}") as link:
            accepted, _ = server.accept()
            accepted.sendall(b'{"type":"note","t":1.0,"text":"hello"}\n')
            events = list(link.events(timeout=1.0))
            accepted.close()
        assert [e.text for e in events] == ["hello"]
    finally:
        server.close()


def test_listen_port_cuts_an_over_long_line_so_it_never_runs_into_another_hosts():
    port = ListenPort("127.0.0.1", 0)
    host, number = port.address.rsplit(":", 1)
    try:
        one = socket.create_connection((host, int(number)), timeout=5)
        two = socket.create_connection((host, int(number)), timeout=5)
        for _ in range(1000):
            port.read(4096)
            if port.clients == 2:
                break
        one.sendall(b"x" * 3000)
        two.sendall(b'{"do": "hello"}\n')
        one.sendall(b"y" * 10 + b'\n{"do": "state"}\n')
        got = b""
        for _ in range(1000):
            got += port.read(4096)
            if got.count(b"\n") == 3:
                break
        lines = got.splitlines()
        assert sorted(lines) == [b"x" * 1025, b'{"do": "hello"}', b'{"do": "state"}']
        one.close()
        two.close()
    finally:
        port.close()
