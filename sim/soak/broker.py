"""The remote soak's broker: what the soak needs of one (a URL per user, a restart), and a
private Mosquitto of the soak's own for `magboard soak --remote`."""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Protocol

from magboard.firmware.app.errors import CommandError


class Broker(Protocol):
    """A broker the soak can restart: tests/support/broker.py's fixture, or `Mosquitto`."""

    def url(self, user: str) -> str: ...

    def restart(self) -> None: ...


class Mosquitto:
    """A private Mosquitto on a free port of this machine, with persistence, that can be
    restarted on the same port (Debian's `mosquitto`)."""

    def __init__(self) -> None:
        binary = shutil.which("mosquitto") or (
            "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
        )
        if binary is None:
            raise CommandError("the remote soak needs Mosquitto (apt-get install mosquitto)")
        self.binary = binary
        self.folder = Path(tempfile.mkdtemp(prefix="magboard-mosquitto-"))
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = self.folder / "mosquitto.conf"
        config.write_text(
            f"user {getpass.getuser()}\n"  # as root, mosquitto would drop to a user without
            f"listener {self.port} 127.0.0.1\n"  # access to its folder
            f"allow_anonymous true\npersistence true\npersistence_location {self.folder}/\n"
        )
        self.config = config
        self.process: subprocess.Popen | None = None
        self.start()

    def url(self, user: str) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.02)
        raise CommandError(f"Mosquitto did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
