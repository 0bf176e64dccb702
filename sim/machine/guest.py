"""What the emulated machine is: its two architectures (how each is built, booted and
emulated), the names the guest and the host share (its hostname, the 9p shares, the
virtio-serial ports, the device groups), and the files the image adds to Debian's tree.
`build` makes the machine from these; `vm` runs it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
AGENT = HERE / "agent.py"
# The tag under which the repository is shared (vm.py), and where the guest mounts it.
SHARE_TAG = "magboard"
SHARE_MOUNT = "/srv/magboard"
# The same for the wheelhouse (the `wheels` step).
WHEELS_TAG = "magboard-wheels"
WHEELS_MOUNT = "/srv/wheels"
# The guest's Python, bookworm's python3 on glibc 2.36, as `pip download` is told it.
GUEST_PYTHON = "3.11"
# The groups that own the board's device nodes, as Raspberry Pi OS has them before anything is
# installed (hardware/install.py finds them there, as on a Pi).
DEVICE_GROUPS = ("gpio", "i2c", "spi")
# The virtio-serial port names (vm.py makes the ports; the agent opens its own by name).
AGENT_PORT = "org.magboard.agent"
WORLD_PORT = "org.magboard.world"
HOSTNAME = "magboard-hil"
# Units enabled in the image: the network (for forwarded ports) and the agent.
ENABLE = ("systemd-networkd.service", "magboard-hil-agent.service")


class BuildError(RuntimeError):
    """A step that cannot be built here, with what to do about it."""


@dataclass(frozen=True)
class Arch:
    """What differs between the machines: how the kernel is built and booted, what Debian and
    PyPI call the architecture, and how QEMU emulates it."""

    name: str  # the kernel's name (ARCH=), this project's
    debian: str  # Debian's (dpkg --print-architecture)
    cross_compile: str  # the cross compiler's prefix, empty for the host's own
    kernel_target: str  # what `make` builds, under arch/NAME/boot/
    kernel_dir: str  # the kernel's directory under arch/
    qemu: str
    board: tuple[str, ...]  # QEMU's machine and CPU
    console: str  # the serial console's device name in the guest
    wheel_machine: str  # the machine in a manylinux wheel's tag

    @property
    def fragment(self) -> Path:
        return HERE / f"kernel-{self.name}.config"

    @property
    def wheel_platforms(self) -> tuple[str, ...]:
        """Every manylinux tag a wheel for glibc 2.36 (bookworm's) may carry, newest first."""
        machine = self.wheel_machine
        return (
            *(f"manylinux_2_{minor}_{machine}" for minor in range(36, 16, -1)),
            *(f"{legacy}_{machine}" for legacy in ("manylinux2014", "manylinux2010", "manylinux1")),
        )


ARCHES = {
    "x86_64": Arch(
        name="x86_64",
        debian="amd64",
        cross_compile="",
        kernel_target="bzImage",
        kernel_dir="x86",
        qemu="qemu-system-x86_64",
        board=("-M", "q35", "-cpu", "max"),
        console="ttyS0",
        wheel_machine="x86_64",
    ),
    "arm64": Arch(
        name="arm64",
        debian="arm64",
        cross_compile="aarch64-linux-gnu-",
        kernel_target="Image",
        kernel_dir="arm64",
        qemu="qemu-system-aarch64",
        board=("-M", "virt", "-cpu", "cortex-a72"),
        console="ttyAMA0",
        wheel_machine="aarch64",
    ),
}


def arch() -> Arch:
    """The machine's architecture: `MAGBOARD_HIL_ARCH`, x86_64 unless it says arm64."""
    name = os.environ.get("MAGBOARD_HIL_ARCH") or "x86_64"
    if name not in ARCHES:
        raise BuildError(f"MAGBOARD_HIL_ARCH={name}: the machine is one of {', '.join(ARCHES)}")
    return ARCHES[name]


def image_files() -> list[tuple[str, int, str]]:
    """What the image adds to the tree: (path, mode, content); a path ending in / is a directory.
    The units in ENABLE are enabled in it afterwards."""
    agent_unit = f"""\
# The guest agent: runs the host's commands (vm.py) over the virtio-serial port
# {AGENT_PORT}. Started as early as possible and needing no network, so a machine whose boot
# went wrong can still be looked at; restarted whatever ends it.
[Unit]
Description=magboard HIL guest agent
DefaultDependencies=no
After=systemd-journald.socket
Before=sysinit.target shutdown.target
Conflicts=shutdown.target

[Service]
ExecStart=/usr/bin/python3 -u /usr/local/lib/magboard-hil/agent.py --port {AGENT_PORT}
Restart=always
RestartSec=1

[Install]
WantedBy=sysinit.target
"""
    return [
        ("etc/hostname", 0o644, f"{HOSTNAME}\n"),
        ("etc/hosts", 0o644, f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOSTNAME}\n::1\tlocalhost\n"),
        (
            "etc/fstab",
            0o644,
            "# The root file system is mounted read-write by the kernel (root=/dev/vda rw).\n"
            "/dev/vda\t/\text4\tdefaults\t0\t0\n"
            f"# The repository, shared read-only by the host (vm.py); nofail: a machine booted\n"
            f"# without it still comes up.\n"
            f"{SHARE_TAG}\t{SHARE_MOUNT}\t9p\t"
            "trans=virtio,version=9p2000.L,msize=262144,ro,nofail\t0\t0\n"
            "# The wheelhouse the project is installed from offline, shared read-only too.\n"
            f"{WHEELS_TAG}\t{WHEELS_MOUNT}\t9p\t"
            "trans=virtio,version=9p2000.L,msize=262144,ro,nofail\t0\t0\n",
        ),
        (f"{SHARE_MOUNT.lstrip('/')}/", 0o755, ""),
        (f"{WHEELS_MOUNT.lstrip('/')}/", 0o755, ""),
        (
            "etc/udev/rules.d/99-magboard-hil.rules",
            0o644,
            "# The board's device nodes for the groups that use them, as Raspberry Pi OS's\n"
            "# 99-com.rules (raspberrypi-sys-mods) gives them: the service reaches the hardware\n"
            "# through these groups, never as root. Here /dev/i2c-N and /dev/spidevB.C may be\n"
            "# CUSE devices (the simulated board), made at run time under the class cuse.\n"
            'SUBSYSTEM=="i2c-dev|cuse", KERNEL=="i2c-[0-9]*", GROUP="i2c", MODE="0660"\n'
            'SUBSYSTEM=="spidev|cuse", KERNEL=="spidev*", GROUP="spi", MODE="0660"\n'
            'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"\n',
        ),
        (
            "etc/mosquitto/conf.d/magboard-hil.conf",
            0o644,
            "# The board's broker: on every IPv4 address, so that the host reaches it through a\n"
            "# forwarded port (vm.Machine(forward=[1883])) as well as the board on localhost.\n"
            "# Anonymous: nothing but the host's loopback reaches the machine.\n"
            "listener 1883 0.0.0.0\nallow_anonymous true\n",
        ),
        (
            "etc/systemd/journald.conf.d/magboard-hil.conf",
            0o644,
            "# The journal kept on disk, synced every second, so what happened before a cold\n"
            "# power cut (vm.Machine.kill) can be read after the next boot.\n"
            "[Journal]\nStorage=persistent\nSyncIntervalSec=1s\n",
        ),
        (
            "etc/systemd/network/10-magboard-hil.network",
            0o644,
            "# QEMU's user-mode network: an address by DHCP, for ports forwarded from the host.\n"
            "[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\nIPv6AcceptRA=no\n",
        ),
        ("etc/systemd/system/magboard-hil-agent.service", 0o644, agent_unit),
        ("usr/local/lib/magboard-hil/agent.py", 0o755, AGENT.read_text()),
    ]
