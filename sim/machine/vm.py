"""Boots the emulated machine under QEMU and talks to its guest agent.

    with Machine(forward=[1883]) as machine:      # boots, waits for the agent's hello
        machine.run(["systemctl", "is-system-running", "--wait"])
        machine.ports[1883]                       # the host port forwarded to the guest's 1883
        machine.kill()                            # a cold power cut: QEMU killed with SIGKILL
        machine.boot()                            # and on again, on the same disk

The machine is the one `build.py` made for the current inputs (`make hil-machine`), run with
QEMU's TCG (no KVM): a q35 PC, or `virt` with a Cortex-A72 for arm64 (build.py), 1 GiB, two
CPUs, the kernel booted directly. Its disk is a qcow2
overlay over the cached image, made once per Machine, so a test never dirties the image but a
machine killed and booted again finds its disk as the power cut left it. The repository is
shared read-only over 9p (tag `magboard`, mounted at /srv/magboard), and so is the wheelhouse
the project is installed from (tag `magboard-wheels`, at /srv/wheels), guest TCP ports are
forwarded to free ports on the host's loopback (the guest reaches nothing else), and two
virtio-serial ports are unix sockets in the machine's directory: `org.magboard.agent`, the
agent's (agent.py), and `org.magboard.world`, left to the simulated board's control channel.
Everything the serial console prints, boot after boot, is appended to `console.log` there.
The kernel command line raises spidev's message size as r1's Pi has it (`spidev.bufsiz=65536`,
README, "Running on a real Pi"): hardware/real.py reads it before it sends a frame.

`python -m magboard.sim.machine.vm` boots it once and says what it found (`make hil-machine`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from magboard.sim.machine import build

REPO = Path(__file__).resolve().parents[2]
SPIDEV_BUFSIZ = 65536
"""spidev's largest message, as r1's Pi is told on its kernel command line."""


class MachineError(RuntimeError):
    """The machine did not do what was asked: it did not boot, died, or did not answer."""


class NotBuilt(MachineError):
    """No machine is built for the current inputs: `make hil-machine` builds it."""


@dataclass(frozen=True)
class Result:
    """What a command run in the guest did. `rc` is None when it timed out or did not start."""

    argv: tuple[str, ...]
    rc: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def check(self) -> Result:
        if not self.ok:
            raise MachineError(
                f"{' '.join(self.argv)}: rc {self.rc}"
                + (" (timed out)" if self.timed_out else "")
                + (f" ({self.error})" if self.error else "")
                + f"\nstdout: {self.stdout}\nstderr: {self.stderr}"
            )
        return self


def free_port() -> int:
    """A TCP port free on the host's loopback now (QEMU binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Machine:
    """One emulated machine and its disk: booted, run in, killed and booted again, closed."""

    def __init__(
        self,
        *,
        forward: Iterable[int] = (),
        kernel: Path | None = None,
        image: Path | None = None,
        share: Path | None = REPO,
        wheels: Path | None = None,
        workdir: Path | None = None,
        memory: int = 1024,
        cpus: int = 2,
        hello_timeout: float = 180.0,
        append: str = "",
    ) -> None:
        if kernel is None or image is None:
            found = build.built()
            if found is None:
                raise NotBuilt(
                    "the emulated machine is not built for the current kernel config, packages "
                    "and agent: `make hil-machine` builds it"
                )
            kernel, image = kernel or found.kernel, image or found.image
            wheels = wheels or found.wheels
        self.kernel, self.image, self.share, self.wheels = Path(kernel), Path(image), share, wheels
        self.memory, self.cpus, self.hello_timeout, self.append = (
            memory,
            cpus,
            hello_timeout,
            append,
        )
        self._own_workdir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="magboard-hil-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.disk = self.workdir / "disk.qcow2"
        self.console = self.workdir / "console.log"
        self.agent_socket = self.workdir / "agent.sock"
        self.world_socket = self.workdir / "world.sock"
        self.ports = {guest: free_port() for guest in forward}
        self.boot_seconds: float | None = None  # from starting QEMU to the agent's hello
        self.uptime_at_hello: float | None = None  # the guest's own count at its hello
        self._qemu: subprocess.Popen[bytes] | None = None
        self._agent: socket.socket | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._replies: dict[int, dict] = {}
        self._arrived = threading.Condition(self._lock)
        self._hello = threading.Event()
        self._next_id = 0

    # ------------------------------------------------------------------------------------------
    # Life cycle.

    def __enter__(self) -> Machine:
        self.boot()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def running(self) -> bool:
        return self._qemu is not None and self._qemu.poll() is None

    def command(self) -> list[str]:
        """The QEMU command line of this machine."""
        forwards = "".join(
            f",hostfwd=tcp:127.0.0.1:{host}-:{guest}" for guest, host in self.ports.items()
        )
        arch = build.arch()
        append = (
            f"root=/dev/vda rw console={arch.console} panic=-1 spidev.bufsiz={SPIDEV_BUFSIZ} "
            f"{self.append}"
        ).strip()
        command = [
            arch.qemu,
            "-accel", "tcg",
            *arch.board,
            "-m", str(self.memory),
            "-smp", str(self.cpus),
            "-nographic",
            "-monitor", "none",
            "-no-reboot",
            "-kernel", str(self.kernel),
            "-append", append,
            "-chardev", f"file,id=console,path={self.console},append=on",
            "-serial", "chardev:console",
            "-drive", f"if=none,id=disk,file={self.disk},format=qcow2",
            "-device", "virtio-blk-pci,drive=disk",
            "-netdev", f"user,id=net,restrict=on{forwards}",
            "-device", "virtio-net-pci,netdev=net",
            "-device", "virtio-rng-pci",
            "-device", "virtio-serial-pci,id=serial",
            "-chardev", f"socket,id=agent,path={self.agent_socket},server=on,wait=off",
            "-device", f"virtserialport,bus=serial.0,chardev=agent,name={build.AGENT_PORT}",
            "-chardev", f"socket,id=world,path={self.world_socket},server=on,wait=off",
            "-device", f"virtserialport,bus=serial.0,chardev=world,name={build.WORLD_PORT}",
        ]  # fmt: skip
        if self.share is not None:
            command += [
                "-fsdev",
                f"local,id=share,path={self.share},security_model=none,readonly=on",
                "-device",
                f"virtio-9p-pci,fsdev=share,mount_tag={build.SHARE_TAG}",
            ]
        if self.wheels is not None:
            command += [
                "-fsdev",
                f"local,id=wheels,path={self.wheels},security_model=none,readonly=on",
                "-device",
                f"virtio-9p-pci,fsdev=wheels,mount_tag={build.WHEELS_TAG}",
            ]
        return command

    def boot(self, timeout: float | None = None) -> float:
        """Starts the machine (on the disk as it was left) and waits for the agent's hello;
        returns the seconds that took."""
        if self.running:
            raise MachineError("the machine is already running")
        if not self.disk.exists():
            subprocess.run(
                [
                    "qemu-img",
                    "create",
                    "-q",
                    "-f",
                    "qcow2",
                    "-F",
                    "raw",
                    "-b",
                    str(self.image),
                    str(self.disk),
                ],
                check=True,
            )
        for path in (self.agent_socket, self.world_socket):
            path.unlink(missing_ok=True)
        with self.console.open("a") as console:
            console.write(f"\n==== magboard-hil: boot at {time.strftime('%H:%M:%S')} ====\n")
        self._hello.clear()
        start = time.monotonic()
        log = (self.workdir / "qemu.log").open("ab")
        self._qemu = subprocess.Popen(
            self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
        log.close()
        deadline = start + (timeout or self.hello_timeout)
        try:
            self._connect(deadline)
            while not self._hello.wait(0.2):
                self._check_alive("while booting")
                if time.monotonic() > deadline:
                    raise MachineError(
                        f"no hello from the agent in {timeout or self.hello_timeout:.0f} s\n"
                        + self.console_tail()
                    )
        except BaseException:
            self.kill()
            raise
        self.boot_seconds = time.monotonic() - start
        return self.boot_seconds

    def kill(self) -> None:
        """A cold power cut: QEMU killed at once; what the guest had not written is lost."""
        if self._qemu is not None:
            if self._qemu.poll() is None:
                self._qemu.send_signal(signal.SIGKILL)
            self._qemu.wait()
        self._disconnect()

    def poweroff(self, timeout: float = 60.0) -> None:
        """An orderly shutdown from inside the guest; waits for QEMU to exit."""
        if not self.running:
            return
        self._send({"id": self._new_id(), "run": ["systemctl", "poweroff"], "timeout": 10})
        assert self._qemu is not None
        try:
            self._qemu.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise MachineError(f"no poweroff in {timeout:.0f} s\n{self.console_tail()}") from None
        self._disconnect()

    def close(self) -> None:
        """Kills the machine and, unless a directory was given, throws its disk away."""
        self.kill()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def console_tail(self, lines: int = 40) -> str:
        try:
            text = self.console.read_text(errors="replace")
        except OSError:
            return ""
        return "console:\n" + "\n".join(text.splitlines()[-lines:])

    # ------------------------------------------------------------------------------------------
    # The agent.

    def run(
        self,
        argv: Sequence[str],
        timeout: float = 60.0,
        *,
        input: str = "",
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        check: bool = False,
    ) -> Result:
        """Runs a command in the guest (as root) and returns what it did."""
        ident = self._new_id()
        request: dict = {"id": ident, "run": list(argv), "input": input, "timeout": timeout}
        if env:
            request["env"] = env
        if cwd:
            request["cwd"] = cwd
        self._send(request)
        deadline = time.monotonic() + timeout + 30  # the agent answers a timeout itself
        with self._arrived:
            while ident not in self._replies:
                if not self.running or self._agent is None:
                    raise MachineError(f"the machine went down running {argv}")
                if time.monotonic() > deadline:
                    raise MachineError(f"no answer to {argv} from the agent")
                self._arrived.wait(0.5)
            reply = self._replies.pop(ident)
        result = Result(
            tuple(argv),
            reply.get("rc"),
            reply.get("stdout", ""),
            reply.get("stderr", ""),
            bool(reply.get("timeout")),
            reply.get("error", ""),
        )
        return result.check() if check else result

    def _new_id(self) -> int:
        with self._lock:
            self._next_id += 1
            return self._next_id

    def _send(self, message: dict) -> None:
        if self._agent is None:
            raise MachineError("the machine is not running")
        self._agent.sendall((json.dumps(message) + "\n").encode())

    def _connect(self, deadline: float) -> None:
        while True:
            self._check_alive("before its agent port opened")
            agent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                agent.connect(str(self.agent_socket))
                break
            except OSError:
                agent.close()
                if time.monotonic() > deadline:
                    raise MachineError("QEMU never opened the agent's socket") from None
                time.sleep(0.05)
        self._agent = agent
        self._reader = threading.Thread(target=self._read, args=(agent,), daemon=True)
        self._reader.start()

    def _disconnect(self) -> None:
        if self._agent is not None:
            with contextlib.suppress(OSError):
                self._agent.shutdown(socket.SHUT_RDWR)
            self._agent.close()
            self._agent = None
        if self._reader is not None:
            self._reader.join(5)
            self._reader = None
        with self._arrived:
            self._replies.clear()
            self._arrived.notify_all()

    def _read(self, agent: socket.socket) -> None:
        buffer = b""
        while True:
            try:
                chunk = agent.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if "hello" in message:
                    self.uptime_at_hello = message["hello"]
                    self._hello.set()
                elif isinstance(message.get("id"), int):
                    with self._arrived:
                        self._replies[message["id"]] = message
                        self._arrived.notify_all()
        with self._arrived:
            self._arrived.notify_all()

    def _check_alive(self, when: str) -> None:
        if self._qemu is not None and self._qemu.poll() is not None:
            qemu_log = (self.workdir / "qemu.log").read_text(errors="replace")[-2000:]
            raise MachineError(
                f"QEMU exited ({self._qemu.returncode}) {when}\n{qemu_log}\n{self.console_tail()}"
            )


def main(argv: list[str] | None = None) -> int:
    """Boots the machine once and shows what the hardware-in-the-loop tests rely on."""
    parser = argparse.ArgumentParser(
        prog="python -m magboard.sim.machine.vm", description=main.__doc__
    )
    parser.add_argument("--keep", type=Path, help="keep the machine's directory here")
    args = parser.parse_args(argv)
    checks = [
        ["systemctl", "is-system-running", "--wait"],
        ["systemctl", "--failed", "--no-legend"],
        ["sh", "-c", "ls /dev/cuse /dev/gpiochip* ; ls /sys/kernel/config"],
        ["findmnt", "-n", build.SHARE_MOUNT],
        ["findmnt", "-n", build.WHEELS_MOUNT],
        ["systemd-analyze"],
    ]
    try:
        with Machine(workdir=args.keep) as machine:
            print(
                f"hello from the agent {machine.boot_seconds:.1f} s after QEMU started "
                f"(guest uptime {machine.uptime_at_hello:.1f} s)"
            )
            failed = False
            for command in checks:
                result = machine.run(command, timeout=300)
                print(f"$ {' '.join(command)}  (rc {result.rc})")
                print((result.stdout + result.stderr).rstrip())
                failed |= command[:2] == checks[0][:2] and not result.ok
            print(f"console log: {machine.console}" if args.keep else "", end="")
            return 1 if failed else 0
    except MachineError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
