"""A target root for the installer and the updater (hardware/install.py, hardware/update.py),
as `sudo hardware/install.sh --root DIR` sees it, and what it takes to install there offline."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL_SH = REPO / "hardware" / "install.sh"
SUDO_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""The PATH sudo gives a command on Debian and Raspberry Pi OS (secure_path)."""
OFFLINE = ["--system-site-packages", "--pip-args=--no-index --no-build-isolation --no-deps"]
SYSTEM_UNITS = Path("/usr/lib/systemd/system")
SEED = {
    "passwd": ("root:x:0:0:root:/root:/bin/bash\n", 0o644),
    "group": ("root:x:0:\n", 0o644),
    "shadow": ("root:*:19000:0:99999:7:::\n", 0o640),
    "gshadow": ("root:*::\n", 0o640),
}


def missing_tools() -> str | None:
    """Why the installer's system tools cannot run here, or None."""
    if os.geteuid() != 0:
        return "the installer must run as root (useradd, chown): run the tests as root"
    for tool in ("systemd-analyze", "useradd", "groupadd", "usermod"):
        if shutil.which(tool, path=SUDO_PATH) is None:
            return f"{tool} is missing (`make systemd` installs it)"
    return None


def missing_offline_build() -> str | None:
    """Why pip cannot build the project here without the network, or None."""
    python3 = shutil.which("python3", path=SUDO_PATH)
    probe = "import venv, ensurepip, setuptools, wheel, cffi"
    if python3 is None or subprocess.run([python3, "-c", probe], capture_output=True).returncode:
        return (
            f"the offline install builds with {python3 or 'python3'}'s own venv, setuptools, "
            "wheel and cffi: apt install python3-venv python3-wheel python3-cffi "
            "(`make systemd` does)"
        )
    return None


TOOLS_MISSING = missing_tools()
SKIP_INSTALL = TOOLS_MISSING or missing_offline_build()
needs_tools = pytest.mark.skipif(TOOLS_MISSING is not None, reason=str(TOOLS_MISSING))
needs_install = pytest.mark.skipif(SKIP_INSTALL is not None, reason=str(SKIP_INSTALL))


def seed(root: Path) -> Path:
    """A target root as a fresh system has it: the account files with root alone, and systemd's
    own units, which `systemd-analyze verify --root` resolves the unit's dependencies in."""
    (root / "etc").mkdir(parents=True)
    for name, (text, mode) in SEED.items():
        (root / "etc" / name).write_text(text)
        (root / "etc" / name).chmod(mode)
    if SYSTEM_UNITS.is_dir():
        shutil.copytree(SYSTEM_UNITS, root / SYSTEM_UNITS.relative_to("/"), symlinks=True)
    return root
