"""The emulated machine itself: it boots, its agent answers, the kernel has what the board needs
(CUSE, gpio-sim through configfs), systemd's hardening works, the repository is shared read-only,
guest ports reach the host, the world's port carries bytes, and a cold power cut leaves a disk
that boots again with the journal of the boot it cut.

Skipped unless asked for and built (tests/hil/conftest.py): `make hil`.
"""

from __future__ import annotations

import shlex
import socket
import time
import urllib.request
from collections.abc import Iterator

import pytest

from magboard.sim.machine.vm import Machine

# The hardening of hardware/magboard.service, and what else a unit may ask of the kernel
# (namespaces, seccomp, BPF device and IP filters): a service with all of it must start.
HARDENING = [
    "ProtectSystem=full",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "NoNewPrivileges=yes",
    "RestrictSUIDSGID=yes",
    "ProtectKernelModules=yes",
    "ProtectControlGroups=yes",
    "RestrictRealtime=yes",
    "RestrictNamespaces=yes",
    "LockPersonality=yes",
    "PrivateDevices=yes",
    "ProtectClock=yes",
    "ProtectKernelTunables=yes",
    "ProtectKernelLogs=yes",
    "ProtectHostname=yes",
    "PrivateNetwork=yes",
    "PrivateUsers=yes",
    "PrivateIPC=yes",
    "MemoryDenyWriteExecute=yes",
    "SystemCallFilter=@system-service",
    "IPAddressDeny=any",
    "TasksMax=64",
    "MemoryMax=64M",
]


@pytest.fixture(scope="module")
def machine() -> Iterator[Machine]:
    with Machine(forward=[8000]) as booted:
        booted.run(["systemctl", "is-system-running", "--wait"], timeout=300)
        yield booted


def test_the_agent_says_hello_and_runs_commands(machine: Machine) -> None:
    assert machine.uptime_at_hello is not None and machine.uptime_at_hello > 0
    result = machine.run(["sh", "-c", "cat; echo err >&2; exit 3"], input="piped\n")
    assert (result.rc, result.stdout, result.stderr) == (3, "piped\n", "err\n")
    assert machine.run(["hostname"], check=True).stdout.strip() == "magboard-hil"


def test_a_command_past_its_timeout_is_killed(machine: Machine) -> None:
    result = machine.run(["sh", "-c", "sleep 30 & sleep 30"], timeout=1)
    assert result.timed_out and result.rc is None


def test_systemd_boots_with_no_failed_unit(machine: Machine) -> None:
    state = machine.run(["systemctl", "is-system-running"])
    failed = machine.run(["systemctl", "--failed", "--no-legend", "--plain"]).stdout
    assert state.stdout.strip() == "running", failed
    assert machine.run(["systemctl", "is-active", "magboard-hil-agent"]).stdout.strip() == "active"


def test_a_hardened_unit_starts(machine: Machine) -> None:
    properties = [arg for setting in HARDENING for arg in ("-p", setting)]
    script = "test -w /tmp && ! touch /etc/hardened 2>/dev/null && ! test -e /root/.profile"
    result = machine.run(
        ["systemd-run", "--wait", "--pipe", "--quiet", *properties, "sh", "-c", script], timeout=120
    )
    assert result.ok, result.stderr


def test_the_kernel_has_cuse_configfs_i2c_and_spidev(machine: Machine) -> None:
    assert machine.run(["test", "-c", "/dev/cuse"]).ok
    assert machine.run(["test", "-d", "/sys/kernel/config/gpio-sim"]).ok
    config = machine.run(["sh", "-c", "zcat /proc/config.gz"], check=True).stdout
    for option in ("GPIO_SIM", "GPIO_CDEV", "I2C_CHARDEV", "SPI_SPIDEV", "CUSE", "9P_FS"):
        assert f"CONFIG_{option}=y" in config


def test_a_gpio_sim_chip_made_through_configfs_is_a_gpiochip(machine: Machine) -> None:
    chip = "/sys/kernel/config/gpio-sim/test"
    make = (
        f"mkdir -p {chip}/bank0 && echo 8 > {chip}/bank0/num_lines && "
        f"echo 1 > {chip}/live && cat {chip}/dev_name {chip}/bank0/chip_name"
    )
    device, name = machine.run(["sh", "-c", make], check=True).stdout.split()
    try:
        assert machine.run(["test", "-c", f"/dev/{name}"]).ok
        assert "8 lines" in machine.run(["gpioinfo", name], check=True).stdout
        # The test's side of a simulated line: pull it up, and the chip's reader sees it high.
        pull = f"/sys/devices/platform/{device}/{name}/sim_gpio3/pull"
        machine.run(["sh", "-c", f"echo pull-up > {pull}"], check=True)
        assert machine.run(["gpioget", name, "3"], check=True).stdout.strip() == "1"
        machine.run(["sh", "-c", f"echo pull-down > {pull}"], check=True)
        assert machine.run(["gpioget", name, "3"], check=True).stdout.strip() == "0"
    finally:
        machine.run(["sh", "-c", f"echo 0 > {chip}/live; rmdir {chip}/bank0 {chip}"], check=True)


def test_the_repository_is_shared_read_only(machine: Machine) -> None:
    assert "magboard" in machine.run(["cat", "/srv/magboard/pyproject.toml"], check=True).stdout
    assert not machine.run(["touch", "/srv/magboard/written-by-the-guest"]).ok


def test_a_guest_port_is_forwarded_to_the_host(machine: Machine) -> None:
    serve = ["python3", "-m", "http.server", "--directory", "/srv/magboard", "8000"]
    machine.run(["systemd-run", "--unit=hil-web", *serve], check=True)
    url = f"http://127.0.0.1:{machine.ports[8000]}/pyproject.toml"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                assert b"magboard" in response.read()
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    machine.run(["systemctl", "stop", "hil-web"], check=True)


def test_the_world_port_carries_bytes_from_the_host(machine: Machine) -> None:
    with socket.socket(socket.AF_UNIX) as world:
        world.connect(str(machine.world_socket))
        world.sendall(b"ping\n")
        port = "/dev/virtio-ports/org.magboard.world"
        assert machine.run(["head", "-n", "1", port], timeout=20).stdout == "ping\n"


def test_a_cold_power_cut_boots_again_with_the_cut_boot_in_the_journal() -> None:
    with Machine() as machine:
        machine.run(["systemctl", "is-system-running", "--wait"], timeout=300)
        marker = "magboard-hil power cut marker"
        machine.run(["sh", "-c", f"logger {shlex.quote(marker)}; echo kept > /root/kept; sync"])
        # What journald has by its next sync (SyncIntervalSec=1s) survives the cut.
        machine.run(["sleep", "2"])
        machine.kill()
        assert not machine.running
        machine.boot()
        assert machine.run(["cat", "/root/kept"], check=True).stdout == "kept\n"
        boots = machine.run(["journalctl", "--list-boots", "--no-pager"], check=True).stdout
        assert len(boots.strip().splitlines()) >= 2, boots
        before = machine.run(["journalctl", "-b", "-1", "--no-pager", "-o", "cat"], check=True)
        assert marker in before.stdout
