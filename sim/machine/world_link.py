"""The simulated board in the emulated machine, from the host: `EmulatedBoard`.

    with Machine() as machine:
        install_board_unit(machine)             # the daemon, as magboard-hil-board.service
        board = EmulatedBoard(machine.world_socket)
        board.put("c3", "X", magnets=["s"])
        board.press("seat-1", hold=0.2)
        board.leds().colours

The daemon (`python -m magboard.sim.chardev`, sim/chardev/world_channel.py) serves the world
channel on the virtio-serial port `org.magboard.world`, whose host end is the machine's unix
socket `world.sock`. `WorldLink` speaks its protocol (a JSON object a line, an `id` and an `op`
out, the same `id` and `result` or `error` back); `EmulatedBoard` is `hands.PhysicalBoard` on
it, and says what else the channel can (`status`, `request`).

The daemon runs in the guest as `magboard-hil-board.service` (`board_unit`), before
magboard.service, from the repository's share: it needs Python's standard library and the
project only, so it runs on the guest's python3 with PYTHONPATH at a directory whose `magboard`
is a link to the share. It makes the gpio-sim chip the service's GPIO lines are on and writes
its number in /run/magboard-hil (`gpiochip`, and `gpio.env` for an EnvironmentFile=), and
keeps the pieces in `PIECES`, put back when it starts again (after a power cut, say).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .build import SHARE_MOUNT
from .hands import RGB, LedView

BOARD_SERVICE = "magboard-hil-board.service"
STATE_DIR = "/run/magboard-hil"
PYTHONPATH = f"{STATE_DIR}/python"
PIECES = "/var/lib/magboard-hil/pieces.json"
"""Where the daemon keeps the world's pieces, which stay on the board through a power cut."""


def board_unit(board: str = "r1") -> str:
    """The daemon's unit, serving reference board `board`."""
    return f"""\
# The simulated board beneath the service: the expanders at /dev/i2c-1 and the LED chain at
# /dev/spidev0.0 (CUSE), the INT and button lines on a gpio-sim chip, the world's orders on
# the virtio-serial port org.magboard.world. Ready (Type=notify) once all of it is there, so
# the service, ordered after it, finds its board. The pieces are kept in {PIECES} and
# put back at start: they stay on a board through a power cut.
[Unit]
Description=magboard HIL simulated board
RequiresMountsFor={SHARE_MOUNT}
Wants=sys-kernel-config.mount
After=sys-kernel-config.mount systemd-udevd.service
Before=magboard.service

[Service]
Type=notify
NotifyAccess=main
RuntimeDirectory=magboard-hil
RuntimeDirectoryPreserve=no
StateDirectory=magboard-hil
ExecStartPre=/bin/mkdir -p {PYTHONPATH}
ExecStartPre=/bin/ln -sfn {SHARE_MOUNT} {PYTHONPATH}/magboard
Environment=PYTHONPATH={PYTHONPATH} PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
ExecStart=/usr/bin/python3 -m magboard.sim.chardev --board {board} --state-dir {STATE_DIR} \\
    --pieces {PIECES}
KillSignal=SIGTERM
TimeoutStopSec=15

[Install]
WantedBy=multi-user.target
"""


BOARD_UNIT = board_unit()


class WorldError(RuntimeError):
    """The board refused an action (its `error`), or the channel did not answer."""


class WorldLink:
    """One connection to the world channel: requests sent, replies matched by id."""

    def __init__(self, path: Path | str, timeout: float = 30.0) -> None:
        self.path, self.timeout = Path(path), timeout
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def connect(self) -> None:
        if self._sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(self.path))
            self._sock, self._buffer = sock, b""

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None

    def __enter__(self) -> WorldLink:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, op: str, timeout: float | None = None, **fields: Any) -> dict:
        """The whole reply to one request (with `result` or `error`)."""
        with self._lock:
            self.connect()
            assert self._sock is not None
            ident = next(self._ids)
            self._sock.sendall((json.dumps({"id": ident, "op": op, **fields}) + "\n").encode())
            return self._await(ident, timeout or self.timeout)

    def send_raw(self, line: bytes, timeout: float | None = None) -> dict:
        """Sends a line as it is (a test's malformed request) and returns the next reply."""
        with self._lock:
            self.connect()
            assert self._sock is not None
            self._sock.sendall(line.rstrip(b"\n") + b"\n")
            return self._await(None, timeout or self.timeout, any_id=True)

    def _await(self, ident: object, timeout: float, any_id: bool = False) -> dict:
        assert self._sock is not None
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue
                if any_id or (isinstance(reply, dict) and reply.get("id") == ident):
                    return reply
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorldError(f"no reply from the world channel in {timeout:.0f} s")
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                self.close()
                raise WorldError("the world channel closed")
            self._buffer += chunk


class EmulatedBoard:
    """`hands.PhysicalBoard` on the simulated board in the emulated machine."""

    def __init__(self, world_socket: Path | str, timeout: float = 30.0) -> None:
        self.link = WorldLink(world_socket, timeout)

    def close(self) -> None:
        self.link.close()

    def request(self, op: str, **fields: Any) -> Any:
        """The result of one request; the board's `error` raised as `WorldError`."""
        reply = self.link.call(op, **fields)
        if "error" in reply:
            raise WorldError(reply["error"])
        return reply.get("result")

    def wait_ready(self, timeout: float = 60.0) -> dict:
        """Waits until the daemon answers on the channel (it opens the port as it starts);
        returns its status."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.request("status")
            except (WorldError, OSError):
                self.link.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def status(self) -> dict:
        """The board's name, the world's clock, the INT and button lines' levels, the held
        buttons, the gpiochip's number and the hung buses."""
        return self.request("status")

    # Hands.

    def put(self, place: str, kind: str | None = None, magnets: Sequence[str] = ()) -> str:
        fields: dict[str, Any] = {"place": place}
        if kind is not None:
            fields["kind"] = kind
            if magnets:
                fields["magnets"] = list(magnets)
        return self.request("put", **fields)["piece"]

    def lift(self, place: str, *, away: bool = False) -> str:
        return self.request("lift", place=place, away=away)["piece"]

    def move(self, src: str, dst: str) -> str:
        return self.request("move", **{"from": src, "to": dst})["piece"]

    def slide(self, src: str, path: Sequence[str], step: float = 0.12) -> float:
        return self.request("slide", path=list(path), step=step, **{"from": src})["ends_in"]

    def press(self, button: str, hold: float | None = None) -> None:
        self.request("press", button=button, hold=hold)

    def release(self, button: str) -> None:
        self.request("release", button=button)

    def clear(self) -> int:
        return self.request("clear")["removed"]

    # Eyes.

    def leds(self) -> LedView:
        result = self.request("leds")
        shown = result.get("colours")
        colours: tuple[RGB, ...] | None = (
            None if shown is None else tuple((r, g, b) for r, g, b in shown)
        )
        return LedView(colours, result["frames"], result.get("age"))

    def pieces(self) -> dict[str, list[str]]:
        return self.request("pieces")["board"]

    # Faults.

    def hang_bus(self, bus: str | None = None) -> None:
        self.request("hang_i2c", bus=bus)

    def release_bus(self, bus: str | None = None) -> None:
        self.request("release_i2c", bus=bus)

    def kill_expander(self, expander: int) -> None:
        self.request("kill_expander", expander=expander)

    def revive_expander(self, expander: int) -> None:
        self.request("revive_expander", expander=expander)

    def reset_expander(self, expander: int) -> None:
        self.request("reset_expander", expander=expander)

    def i2c_errors(self, expander: int, count: int) -> None:
        self.request("i2c_errors", expander=expander, count=count)


def install_board_unit(
    machine: Any, board: str = "r1", *, start: bool = True, timeout: float = 120.0
) -> None:
    """Writes the daemon's unit for `board` into the guest (vm.Machine), enabled so that it
    comes back after a reboot, and, with `start`, starts it and waits until it is ready."""
    script = (
        f"cat > /etc/systemd/system/{BOARD_SERVICE} && systemctl daemon-reload && "
        f"systemctl enable --quiet {BOARD_SERVICE}"
    )
    machine.run(["sh", "-c", script], input=board_unit(board), check=True)
    if start:
        machine.run(["systemctl", "start", BOARD_SERVICE], timeout=timeout, check=True)
