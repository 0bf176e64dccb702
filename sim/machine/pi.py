"""A real Pi from the host, for the hardware-in-the-loop suite: `PiOverSsh`.

    pi = PiOverSsh("pi@board.local", PersonAtBoard())
    pi.run(["systemctl", "is-active", "magboard"]).stdout
    pi.kill(); pi.boot()                        # the person pulls the plug and puts it back

It has the methods the tests use on the emulated machine (`vm.Machine`): commands run as root
(`ssh -o BatchMode=yes HOST -- sudo ...`, so a key and passwordless sudo, never a prompt),
the same `vm.Result` back, a power cut and a boot. A power cut is a person's: the Pi has no
QEMU to kill. Its broker is reached directly, so `ports` maps 1883 to 1883 and `host` names it.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Sequence
from typing import Protocol

from .vm import MachineError, Result

MQTT = 1883
SSH_OPTIONS = ("-o", "BatchMode=yes", "-o", "ConnectTimeout=10")


class PowerSwitch(Protocol):
    """Whoever can cut the Pi's power and give it back: a person (`bench.PersonAtBoard`), or a
    relay on its supply."""

    def power_cut(self) -> None: ...

    def power_on(self) -> None: ...


class PiOverSsh:
    """The service side of a real Pi: commands over ssh, power through the person at it."""

    def __init__(self, target: str, person: PowerSwitch, ssh: str = "ssh") -> None:
        self.target = target
        """`user@host` (or an ssh config's name) as ssh takes it."""
        self.host = target.rsplit("@", 1)[-1]
        """The Pi's host name, where its broker listens."""
        self.person = person
        self.ssh = ssh
        self.ports = {MQTT: MQTT}

    def command(
        self, argv: Sequence[str], env: dict[str, str] | None = None, cwd: str | None = None
    ) -> list[str]:
        """The ssh command line running `argv` as root on the Pi, with `env` added and in
        `cwd` (changed to as root, as in the emulated machine). The remote shell splits what
        ssh sends it again, so every word is quoted for it."""
        remote = ["sudo"]
        if env:
            remote += ["env", *(f"{key}={value}" for key, value in env.items())]
        if cwd:
            remote += ["sh", "-c", 'cd "$0" && exec "$@"', cwd]
        remote += list(argv)
        return [self.ssh, *SSH_OPTIONS, self.target, "--", shlex.join(remote)]

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
        """Runs a command on the Pi as root and returns what it did; `rc` None if it timed out
        (the ssh client is killed; the remote command may go on)."""
        try:
            done = subprocess.run(
                self.command(argv, env, cwd),
                input=input,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as expired:
            result = Result(
                tuple(argv), None, _text(expired.stdout), _text(expired.stderr), timed_out=True
            )
        except OSError as error:
            result = Result(tuple(argv), None, "", "", error=str(error))
        else:
            result = Result(tuple(argv), done.returncode, done.stdout, done.stderr)
        return result.check() if check else result

    def answers(self) -> bool:
        """Whether ssh gets through and sudo runs (the Pi is up and reachable)."""
        return self.run(["true"], timeout=15).ok

    def kill(self) -> None:
        """A cold power cut: the person at the board pulls the plug."""
        self.person.power_cut()

    def boot(self, timeout: float | None = None) -> float:
        """Asks for the power back on and waits until ssh answers; returns the seconds from the
        person's Enter to the first answer."""
        self.person.power_on()
        start = time.monotonic()
        limit = 300.0 if timeout is None else timeout
        while not self.answers():
            if time.monotonic() - start > limit:
                raise MachineError(f"{self.target} did not answer over ssh in {limit:.0f} s")
            time.sleep(2)
        return time.monotonic() - start


def _text(output: bytes | str | None) -> str:
    if output is None:
        return ""
    return output if isinstance(output, str) else output.decode(errors="replace")
