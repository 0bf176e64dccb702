"""Builds the emulated machine from Debian packages, each step cached outside the repository.

    python -m magboard.sim.machine.build [--print]

The machine is a PC (x86_64) unless `MAGBOARD_HIL_ARCH=arm64` asks for the Pi's architecture
(`make hil-arm64`): QEMU's `virt` board with a Cortex-A72, the Pi 4's core, its kernel built by
Debian's cross compiler and its root file system by mmdebstrap through qemu-user-static. Both run
under TCG; the PC is the default because emulating it on a PC is the faster of the two.

Four steps, each rebuilt only when its inputs change, in `$MAGBOARD_HIL_CACHE/ARCH` (by default
`~/.cache/magboard/hil/x86_64`), one directory a step named by the hash of its inputs:

- `kernel`: `kernel.config` and the architecture's own fragment (`kernel-ARCH.config`) merged
  onto `make tinyconfig` of Debian's linux-source and built. Inputs: the fragments, the
  linux-source package and version, the architecture, this step's code.
- `rootfs`: a Debian bookworm tree made by mmdebstrap from the archive the host's apt uses, as a
  tarball. Inputs: the suite, the architecture, the host's Debian sources, the package list, this
  step's code.
- `image`: the tree with the machine's own files (hostname, fstab, journald, network, the guest
  agent and its unit) written into an ext4 image. Inputs: the rootfs step, those files, the
  agent, this step's code. An agent change rebuilds only this step, in seconds.
- `wheels`: the wheelhouse the guest installs the project from, offline (it has no internet):
  every wheel `magboard[pi]` and its build system need, for the guest's Python (Debian 12's
  3.11) and architecture, fetched by `pip download`. Inputs: those requirements as
  pyproject.toml states them, the pip that fetches them, the guest's Python and platform, this
  step's code.

"This step's code" is the source of the functions that make it, so a change elsewhere in this
file (the command line, the messages) rebuilds nothing. The rootfs and image steps run as root
(mmdebstrap's root mode, files owned by the users the packages made).

The wheelhouse is shared with the guest read-only over a second 9p share (vm.py) rather than
baked into the image: the image stays the operating system alone, as a Pi's SD card is before
the project comes to it; a dependency that moves fetches a few megabytes again without
rebuilding the image; and the install cannot change the wheels it reads.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .guest import (
    AGENT_PORT,
    ARCHES,
    DEVICE_GROUPS,
    ENABLE,
    GUEST_PYTHON,
    SHARE_MOUNT,
    SHARE_TAG,
    WHEELS_MOUNT,
    WHEELS_TAG,
    WORLD_PORT,
    Arch,
    BuildError,
    arch,
    image_files,
)

__all__ = [  # the guest's names, which vm.py, deploy.py and the tests read from here
    "AGENT_PORT",
    "ARCHES",
    "SHARE_MOUNT",
    "SHARE_TAG",
    "WHEELS_MOUNT",
    "WHEELS_TAG",
    "WORLD_PORT",
    "Arch",
]

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FRAGMENT = HERE / "kernel.config"
SUITE = "bookworm"
# What the machine runs: systemd as init with udev and dbus; python3 with what a virtual
# environment of the project needs offline (venv, cffi, wheel); a C compiler, the C library's
# headers and Python's, to build the project's cffi extension as a Pi does at install
# (README, "Running on a real Pi"); the MQTT broker the board talks to; kmod and procps because
# systemd's units call them; iproute2 to look at the network; gpiod's tools to look at the
# simulated GPIO chips by hand.
PACKAGES = (
    "systemd",
    "systemd-sysv",
    "udev",
    "dbus",
    "python3",
    "python3-venv",
    "python3-cffi",
    "python3-wheel",
    "gcc",
    "libc6-dev",
    "python3-dev",
    "mosquitto",
    "kmod",
    "iproute2",
    "procps",
    "gpiod",
)
# Free room in the image beyond what the tree takes: journals, a virtual environment, test data.
IMAGE_FREE = 1536 * 1024 * 1024


def cache_root() -> Path:
    return Path(os.environ.get("MAGBOARD_HIL_CACHE") or Path.home() / ".cache/magboard/hil")


def cache_dir() -> Path:
    """The cache of the architecture's machine; Debian's kernel source, extracted, is shared."""
    return cache_root() / arch().name


# ----------------------------------------------------------------------------------------------
# Inputs.


def linux_source() -> tuple[Path, str]:
    """Debian's linux-source tarball and `package version`, newest first if several."""
    tarballs = sorted(Path("/usr/src").glob("linux-source-*.tar.xz"), reverse=True)
    if not tarballs:
        raise BuildError("no /usr/src/linux-source-*.tar.xz: install Debian's linux-source")
    tarball = tarballs[0]
    package = tarball.name.removesuffix(".tar.xz")
    version = _output("dpkg-query", "-W", "-f=${Version}", package).strip()
    return tarball, f"{package} {version}"


def debian_sources(suite: str = SUITE) -> list[str]:
    """The host apt's Debian sources for `suite` (and its -updates, -security), one-line style.

    Other repositories the host has (a vendor's, nodesource) are left out: the machine is made
    of Debian's archive only, as the host sees it (the same mirror, snapshot or proxy)."""
    entries: list[tuple[str, str, str, str]] = []  # (options, uri, suite, components)
    apt = Path("/etc/apt")
    files = [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*"))]
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text()
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields: dict[str, str] = {}
                for line in stanza.splitlines():
                    if line.startswith("#") or ":" not in line or line[:1].isspace():
                        continue
                    key, _, value = line.partition(":")
                    fields[key.strip().lower()] = value.strip()
                if fields.get("enabled", "yes") == "no" or "deb" not in fields.get("types", ""):
                    continue
                options = f"[signed-by={fields['signed-by']}] " if "signed-by" in fields else ""
                for uri in fields.get("uris", "").split():
                    for s in fields.get("suites", "").split():
                        entries.append((options, uri, s, fields.get("components", "")))
        elif path.suffix == ".list" or path.name == "sources.list":
            for line in text.splitlines():
                match = re.match(r"\s*deb\s+(\[[^]]*\]\s+)?(\S+)\s+(\S+)\s*(.*)", line)
                if match:
                    options, uri, s, components = match.groups()
                    options = f"{options.strip()} " if options else ""
                    entries.append((options, uri, s, components))
    chosen = [entry for entry in entries if entry[2].split("/")[0].split("-")[0] == suite]
    if not any(entry[2] == suite for entry in chosen):
        raise BuildError(f"the host's apt has no Debian {suite} source to build the machine from")
    lines = [
        f"deb {options}{uri} {s} {components}".strip() for options, uri, s, components in chosen
    ]
    return lines


# ----------------------------------------------------------------------------------------------
# The steps.


@dataclass(frozen=True)
class Step:
    """One cached step: its directory is `CACHE/name/KEY`, complete once `done` exists there."""

    name: str
    key: str

    @property
    def dir(self) -> Path:
        return cache_dir() / self.name / self.key

    @property
    def done(self) -> bool:
        return (self.dir / "done").exists()


def _key(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()[:16]


def _code(*functions: Callable[..., object]) -> str:
    return "\n".join(inspect.getsource(function) for function in functions)


def kernel_step() -> Step:
    _, source = linux_source()
    return Step(
        "kernel",
        _key(
            FRAGMENT.read_bytes(),
            arch().fragment.read_bytes(),
            source,
            repr(arch()),
            _code(build_kernel, _check_config),
        ),
    )


def rootfs_step() -> Step:
    return Step(
        "rootfs",
        _key(
            SUITE,
            arch().name,
            "\n".join(debian_sources()),
            "\n".join(PACKAGES),
            _code(build_rootfs),
        ),
    )


def image_step(rootfs: Step | None = None) -> Step:
    rootfs = rootfs or rootfs_step()
    files = "\n".join(f"{path}\n{mode:o}\n{content}" for path, mode, content in image_files())
    return Step(
        "image",
        _key(
            rootfs.key,
            files,
            "\n".join(ENABLE),
            "\n".join(DEVICE_GROUPS),
            _code(build_image, image_files),
        ),
    )


def requirements(pyproject: Path = REPO / "pyproject.toml") -> list[str]:
    """What the guest's `pip install '.[pi]'` fetches: the build system's requirements (pip
    builds the project in isolation, as on a Pi), the dependencies and the pi extra."""
    project = tomllib.loads(pyproject.read_text())
    return [
        *project["build-system"]["requires"],
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["pi"],
    ]


def pip_version() -> str:
    return _output(sys.executable, "-m", "pip", "--version").split()[1]


def wheels_step() -> Step:
    return Step(
        "wheels",
        _key(
            "\n".join(requirements()),
            pip_version(),
            GUEST_PYTHON,
            "\n".join(arch().wheel_platforms),
            _code(build_wheels),
        ),
    )


@dataclass(frozen=True)
class Artifacts:
    kernel: Path
    image: Path
    wheels: Path


def artifacts() -> Artifacts:
    """Where the machine for the current inputs is (whether or not it is built yet)."""
    return _artifacts(kernel_step(), image_step(), wheels_step())


def _artifacts(kernel: Step, image: Step, wheels: Step) -> Artifacts:
    return Artifacts(
        kernel.dir / arch().kernel_target, image.dir / "rootfs.ext4", wheels.dir / "wheels"
    )


def built() -> Artifacts | None:
    """The machine for the current inputs, or None when `make hil-machine` has not built it."""
    try:
        kernel, image, wheels = kernel_step(), image_step(), wheels_step()
    except (BuildError, OSError, subprocess.CalledProcessError):
        return None
    if kernel.done and image.done and wheels.done:
        return _artifacts(kernel, image, wheels)
    return None


def build_kernel(step: Step, log: Path) -> None:
    """Extracts linux-source once per version (shared by the architectures) and builds in one
    object tree per version, so a change of a fragment rebuilds only what it touches."""
    tarball, source = linux_source()
    target = arch()
    tag = source.replace(" ", "_")
    src = cache_root() / "kernel-source" / tag
    if not (src / "Makefile").exists():
        partial = src.with_name(src.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        _run(["tar", "-xJf", str(tarball), "-C", str(partial), "--strip-components=1"], log)
        partial.rename(src)
    obj = cache_dir() / "kernel" / f"obj-{tag}"
    obj.mkdir(parents=True, exist_ok=True)
    make = ["nice", "make", "-C", str(src), f"O={obj}", f"ARCH={target.name}"]
    if target.cross_compile:
        make.append(f"CROSS_COMPILE={target.cross_compile}")
    _run([*make, "tinyconfig"], log)
    _run(
        [
            str(src / "scripts/kconfig/merge_config.sh"),
            "-m",
            "-O",
            str(obj),
            str(obj / ".config"),
            str(FRAGMENT),
            str(target.fragment),
        ],
        log,
        cwd=src,
    )
    _run([*make, "olddefconfig"], log)
    _check_config(obj / ".config")
    _run([*make, f"-j{os.cpu_count() or 1}", target.kernel_target], log)
    step.dir.mkdir(parents=True, exist_ok=True)
    boot = obj / "arch" / target.kernel_dir / "boot" / target.kernel_target
    shutil.copy2(boot, step.dir / target.kernel_target)
    shutil.copy2(obj / ".config", step.dir / "config")


def _check_config(config: Path) -> None:
    """Every option of the fragment as the fragment says, or the build stops: Kconfig drops an
    option silently when a dependency is missing."""
    merged: dict[str, str] = {}
    for line in config.read_text().splitlines():
        if match := re.match(r"(CONFIG_\w+)=(.*)", line):
            merged[match[1]] = match[2]
    missing = []
    for line in (FRAGMENT.read_text() + arch().fragment.read_text()).splitlines():
        if match := re.match(r"(CONFIG_\w+)=(.*)", line):
            if merged.get(match[1]) != match[2]:
                missing.append(f"{match[1]}={match[2]} (got {merged.get(match[1], 'unset')})")
        elif (match := re.match(r"# (CONFIG_\w+) is not set", line)) and match[1] in merged:
            missing.append(f"{match[1]} unset (got {merged[match[1]]})")
    if missing:
        raise BuildError("the kernel config lost options of the fragment: " + ", ".join(missing))


def build_rootfs(step: Step, log: Path) -> None:
    """mmdebstrap's minbase (Essential: yes and apt) plus the machine's packages, as a tarball.
    Documentation, man pages and translations are left out: nobody reads them in the machine."""
    host = _output("dpkg", "--print-architecture").strip()
    runs = subprocess.run(["arch-test", arch().debian], capture_output=True).returncode == 0
    if arch().debian != host and not runs:
        raise BuildError(
            f"this {host} host cannot run {arch().debian} programs, which mmdebstrap needs: "
            "qemu-user-static registered with binfmt_misc (update-binfmts --enable)"
        )
    step.dir.mkdir(parents=True, exist_ok=True)
    excludes = ["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/info/*", "/usr/share/locale/*"]
    command = [
        "mmdebstrap",
        "--mode=root",
        f"--architectures={arch().debian}",
        "--variant=minbase",
        "--include=" + ",".join(PACKAGES),
        *(f"--dpkgopt=path-exclude={pattern}" for pattern in excludes),
        "--dpkgopt=path-include=/usr/share/doc/*/copyright",
        SUITE,
        str(step.dir / "rootfs.tar"),
        *debian_sources(),
    ]
    _run(command, log)


def build_wheels(step: Step, log: Path) -> None:
    """Binary wheels only, for the guest's Python and platform whatever the host's: nothing is
    compiled on the host for the guest, and every dependency has such a wheel on PyPI."""
    wheels = step.dir / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--disable-pip-version-check",
        "--no-input",
        "--dest",
        str(wheels),
        "--only-binary=:all:",
        "--implementation=cp",
        f"--python-version={GUEST_PYTHON}",
        f"--abi=cp{GUEST_PYTHON.replace('.', '')}",
        *(f"--platform={platform}" for platform in arch().wheel_platforms),
        *requirements(),
    ]
    _run(command, log)


def build_image(step: Step, log: Path, rootfs: Step) -> None:
    """The rootfs tarball unpacked, the machine's files written over it, and the tree copied into
    a sparse ext4 image by mke2fs -d (no loop mount, no root needed beyond unpacking as root)."""
    tree = step.dir / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    try:
        _run(
            [
                "tar",
                "-xf",
                str(rootfs.dir / "rootfs.tar"),
                "-C",
                str(tree),
                "--numeric-owner",
                "--xattrs",
                "--xattrs-include=*",
            ],
            log,
        )
        for path, mode, content in image_files():
            target = tree / path
            if path.endswith("/"):
                target.mkdir(parents=True, exist_ok=True)
                target.chmod(mode)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink() or target.exists():
                target.unlink()
            target.write_text(content)
            target.chmod(mode)
        for group in DEVICE_GROUPS:
            _run(["groupadd", f"--root={tree}", "--system", group], log)
        _run(["systemctl", f"--root={tree}", "enable", *ENABLE], log)
        used = int(_output("du", "-sb", str(tree)).split()[0])
        size = (used * 5 // 4 + IMAGE_FREE) // (1 << 20)
        image = step.dir / "rootfs.ext4"
        image.unlink(missing_ok=True)
        _run(
            [
                "mke2fs",
                "-q",
                "-t",
                "ext4",
                "-L",
                "magboard-hil",
                "-d",
                str(tree),
                str(image),
                f"{size}M",
            ],
            log,
        )
    finally:
        shutil.rmtree(tree, ignore_errors=True)


# ----------------------------------------------------------------------------------------------
# Running.


def _output(*command: str) -> str:
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def _run(command: list[str], log: Path, cwd: Path | None = None) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
    if done.returncode:
        tail = "".join(log.read_text().splitlines(keepends=True)[-30:])
        raise BuildError(f"{command[0]} failed ({done.returncode}); end of {log}:\n{tail}")


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One build at a time in a cache (another worktree may build the same machine)."""
    cache_root().mkdir(parents=True, exist_ok=True)
    with (cache_root() / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _prune(step: Step, keep: int = 2) -> None:
    """Keeps the newest `keep` builds of a step (this one among them): the cache stays bounded."""
    parent = step.dir.parent
    builds = sorted(
        (d for d in parent.iterdir() if d.is_dir() and (d / "done").exists()),
        key=lambda d: (d / "done").stat().st_mtime,
        reverse=True,
    )
    for old in builds[keep:]:
        if old != step.dir:
            shutil.rmtree(old, ignore_errors=True)


def _do(step: Step, build: Callable[..., None], *args: object, say=print) -> None:
    if step.done:
        say(f"{step.name}: cached ({step.dir})")
        return
    shutil.rmtree(step.dir, ignore_errors=True)
    step.dir.mkdir(parents=True)
    log = step.dir / "build.log"
    say(f"{step.name}: building ({log})")
    start = time.monotonic()
    build(step, log, *args)
    elapsed = time.monotonic() - start
    (step.dir / "done").write_text(f"{elapsed:.1f}\n")
    _prune(step)
    say(f"{step.name}: built in {elapsed:.0f} s")


def build(say=print) -> Artifacts:
    """Builds whatever is missing and says what each step took, or that it was cached."""
    with _locked():
        start = time.monotonic()
        kernel = kernel_step()
        _do(kernel, build_kernel, say=say)
        wheels = wheels_step()
        _do(wheels, build_wheels, say=say)
        rootfs = rootfs_step()
        image = image_step(rootfs)
        if image.done:
            say("rootfs: cached" if rootfs.done else "rootfs: not needed (the image is cached)")
        else:
            if os.geteuid() != 0:
                raise BuildError(
                    "the root file system is built as root (mmdebstrap's root mode, mke2fs of a "
                    "tree owned by the image's users): run this as root"
                )
            _do(rootfs, build_rootfs, say=say)
        _do(image, build_image, rootfs, say=say)
        say(f"machine: ready in {time.monotonic() - start:.1f} s")
        return _artifacts(kernel, image, wheels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m magboard.sim.machine.build",
        description=(
            "Build the emulated machine for the hardware-in-the-loop tests (kernel, Debian root "
            f"file system, disk image), cached in {cache_dir()}."
        ),
    )
    parser.add_argument(
        "--print",
        action="store_true",
        help="print where the kernel and the image are, building nothing",
    )
    args = parser.parse_args(argv)
    if args.print:
        found = built()
        wanted = artifacts()
        print(
            f"kernel {wanted.kernel}\nimage  {wanted.image}\nwheels {wanted.wheels}\n"
            f"built  {'yes' if found else 'no'}"
        )
        return 0 if found else 1
    try:
        result = build()
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"kernel {result.kernel}\nimage  {result.image}\nwheels {result.wheels}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
