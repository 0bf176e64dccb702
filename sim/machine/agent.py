#!/usr/bin/python3
"""The guest agent: runs the host's commands inside the emulated machine.

It runs as the systemd unit magboard-hil-agent.service (build.py installs it), standard library
only, on the virtio-serial port named `org.magboard.agent`. It speaks newline-delimited JSON:

    host -> guest   {"id": 1, "run": ["argv", ...], "input": "...", "timeout": 30}
    guest -> host   {"id": 1, "rc": 0, "stdout": "...", "stderr": "..."}
    guest -> host   {"hello": 4.21}                 (uptime in seconds, on start and reconnect)

`input` (text for stdin), `timeout` (seconds, default 60), `env` (added to the environment) and
`cwd` are optional. A command still running at its timeout is killed and answered with rc null
and "timeout": true; one that cannot be started is answered with rc null and "error". Commands
run concurrently, each in a thread, so a slow one does not hold up the rest; replies go out
whole, one a line, in the order they finish.

It is copied into the image (build.py's last step, seconds to redo) rather than run from the
repository's 9p share: the agent is how a test looks into a machine whose boot went wrong, so it
must not depend on the share being mounted, nor change under a machine already built; and the
tests find no image built for an agent that changed, rather than an old agent in it.

The port is found by its name in /sys/class/virtio-ports rather than through udev's
/dev/virtio-ports symlink, so the agent answers before udev has run. When the host goes away
(reading gives end of file) the port is opened again and a new hello sent once the host is back.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

PORTS = Path("/sys/class/virtio-ports")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def find_port(name: str) -> Path | None:
    for port in sorted(PORTS.glob("*")) if PORTS.is_dir() else []:
        try:
            if (port / "name").read_text().strip() == name:
                return Path("/dev") / port.name
        except OSError:
            continue
    return None


def uptime() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


def run(request: dict) -> dict:
    reply: dict = {"id": request.get("id")}
    argv = request.get("run")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return {**reply, "rc": None, "stdout": "", "stderr": "", "error": "run: a list of strings"}
    env = {"PATH": PATH, "LANG": "C.UTF-8", "HOME": "/root", **request.get("env", {})}
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env=env,
            cwd=request.get("cwd", "/"),
            start_new_session=True,
        )
    except OSError as error:
        return {**reply, "rc": None, "stdout": "", "stderr": "", "error": str(error)}
    try:
        stdout, stderr = process.communicate(request.get("input", ""), request.get("timeout", 60))
    except subprocess.TimeoutExpired:
        # The whole session, so a child still holding the pipes does not keep the reply waiting.
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return {**reply, "rc": None, "stdout": stdout, "stderr": stderr, "timeout": True}
    return {**reply, "rc": process.returncode, "stdout": stdout, "stderr": stderr}


class Connection:
    """One opening of the port: requests read a line at a time, replies written whole."""

    def __init__(self, device: Path) -> None:
        self.fd = os.open(device, os.O_RDWR | os.O_NOCTTY)
        self.lock = threading.Lock()

    def send(self, message: dict) -> None:
        data = (json.dumps(message) + "\n").encode()
        with self.lock:
            while data:
                data = data[os.write(self.fd, data) :]

    def serve(self) -> None:
        self.send({"hello": uptime()})
        buffer = b""
        while chunk := os.read(self.fd, 65536):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.strip():
                    threading.Thread(target=self.answer, args=(line,), daemon=True).start()

    def answer(self, line: bytes) -> None:
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
        except ValueError as error:
            self.send({"id": None, "rc": None, "stdout": "", "stderr": "", "error": str(error)})
            return
        reply = run(request)
        with contextlib.suppress(OSError):  # the host went away; it will not read this reply
            self.send(reply)

    def close(self) -> None:
        os.close(self.fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", default="org.magboard.agent", help="virtio-serial port name")
    args = parser.parse_args(argv)
    while True:
        device = find_port(args.port)
        if device is None or not device.exists():
            time.sleep(0.1)
            continue
        try:
            connection = Connection(device)
        except OSError as error:
            print(f"cannot open {device}: {error}", file=sys.stderr)
            time.sleep(1)
            continue
        try:
            connection.serve()
        except OSError as error:
            print(f"{device}: {error}", file=sys.stderr)
        finally:
            connection.close()
        time.sleep(0.2)  # end of file: the host went away; wait for it to come back


if __name__ == "__main__":
    sys.exit(main())
