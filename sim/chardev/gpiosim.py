"""The Pi's header GPIO lines as a gpio-sim chip, driven by the board's INT and button lines.

A Pi's INT and button inputs are pins of its GPIO chip, which the service requests through the
GPIO character device (rpi-lgpio: pull-ups, FALLING edges on INT lines, BOTH on buttons). In the
emulated machine the kernel's gpio-sim stands for that chip: made through configfs
(`/sys/kernel/config/gpio-sim`), one bank of 28 lines named GPIO0..GPIO27 as on the Pi's header,
each line's level set from outside by its `pull` in sysfs
(`/sys/devices/platform/<dev>/<gpiochipN>/sim_gpioK/pull`). A line reads what its pull says, so
the board's side of a wire is written as a pull: "pull-up" while nothing drives it low,
"pull-down" while an expander asserts INT on it or its button is held.

`GpioSimChip` makes and removes the chip; `bridge` follows the electronics' lines (sim/gpio.py's
`GpioLine`, as `BoardElectronics` wires them) onto it.

A consumer asking for a bias (rpi-lgpio's pull-up on every INT and button line) sets gpio-sim's
pull too, so a line held low by the board (a button held as the service starts) would read high
from then on, where on a Pi the outside driver wins over the weak internal pull. `BiasGuard`
watches the lines' requests and reconfigurations on the chip's character device (the GPIO v2
line-info watch) and puts the board's level back each time; between the two, for the moment it
takes to notice, the line reads what the consumer's bias says.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import select
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from magboard.sim.gpio import GpioLine

log = logging.getLogger(__name__)

CONFIGFS = Path("/sys/kernel/config/gpio-sim")
PLATFORM = Path("/sys/devices/platform")
LINES = 28
"""GPIO0..GPIO27, the Pi's header lines."""
LABEL = "pinctrl-bcm2711"
"""What a Raspberry Pi 4's header GPIO chip calls itself."""


class GpioSimError(RuntimeError):
    """The chip could not be made (no gpio-sim in this kernel, configfs not mounted, no root)."""


class GpioSimChip:
    """One live gpio-sim chip of `lines` lines named GPIO0.. in one bank."""

    def __init__(
        self,
        name: str = "magboard",
        *,
        lines: int = LINES,
        label: str = LABEL,
        configfs: Path = CONFIGFS,
        platform: Path = PLATFORM,
    ) -> None:
        self.name, self.lines, self.label = name, lines, label
        self.configfs, self.platform = configfs, platform
        self.dir = configfs / name
        self.device: str | None = None
        """The platform device (gpio-sim.N) once live."""
        self.chip: str | None = None
        """The GPIO chip's name (gpiochipN) once live."""
        self._pulls: dict[int, str] = {}

    @property
    def number(self) -> int:
        """N of /dev/gpiochipN (what rpi-lgpio's RPI_LGPIO_CHIP names)."""
        if self.chip is None:
            raise GpioSimError("the chip is not live")
        return int(self.chip.removeprefix("gpiochip"))

    def create(self) -> None:
        """Makes the chip live; one left behind by a daemon that was killed is removed first."""
        if not self.configfs.is_dir():
            raise GpioSimError(
                f"no {self.configfs}: this kernel has no gpio-sim, or configfs is not mounted"
            )
        if self.dir.exists():
            log.info("removing the gpio-sim chip %s left behind", self.name)
            self.remove()
        try:
            bank = self.dir / "bank0"
            bank.mkdir(parents=True)
            (bank / "num_lines").write_text(f"{self.lines}\n")
            (bank / "label").write_text(f"{self.label}\n")
            for k in range(self.lines):
                line = bank / f"line{k}"
                line.mkdir()
                (line / "name").write_text(f"GPIO{k}\n")
            (self.dir / "live").write_text("1\n")
            self.device = (self.dir / "dev_name").read_text().strip()
            self.chip = (bank / "chip_name").read_text().strip()
        except OSError as error:
            with contextlib.suppress(OSError, GpioSimError):
                self.remove()
            raise GpioSimError(f"cannot make the gpio-sim chip {self.name}: {error}") from error

    def set(self, line: int, level: int, *, force: bool = False) -> None:
        """The line reads `level` (1: pulled up, 0: pulled down); `force` writes it even when
        it was the last written (a consumer's bias may have changed it since)."""
        pull = "pull-up" if level else "pull-down"
        if self._pulls.get(line) == pull and not force:
            return
        (self._sysfs(line) / "pull").write_text(pull)
        self._pulls[line] = pull

    def get(self, line: int) -> int:
        """What the line reads now, as the chip's side says."""
        return int((self._sysfs(line) / "value").read_text())

    def remove(self) -> None:
        """Takes the chip down and removes its configfs tree."""
        if (self.dir / "live").exists():
            with contextlib.suppress(OSError):
                (self.dir / "live").write_text("0\n")
        for directory in self._tree():
            with contextlib.suppress(FileNotFoundError):
                directory.rmdir()
        self.device = self.chip = None
        self._pulls.clear()

    def _tree(self) -> Iterator[Path]:
        """The chip's configfs directories, deepest first."""
        if not self.dir.is_dir():
            return
        for bank in sorted(self.dir.glob("bank*")):
            for sub in sorted(bank.glob("line*")):
                yield from sorted(sub.glob("hog"))
                yield sub
            yield bank
        yield self.dir

    def _sysfs(self, line: int) -> Path:
        if self.device is None or self.chip is None:
            raise GpioSimError("the chip is not live")
        if not 0 <= line < self.lines:
            raise GpioSimError(f"the chip has no line {line}")
        return self.platform / self.device / self.chip / f"sim_gpio{line}"


def bridge(chip: GpioSimChip, lines: dict[int, GpioLine]) -> None:
    """Each electronics line (by GPIO number) sets the chip's line of that number, now and on
    every edge, in whichever thread makes the edge (a transfer that reads INT away, the world
    channel pressing a button)."""
    for gpio, line in lines.items():
        chip.set(gpio, line.level)

        def follow(_line: GpioLine, level: int, gpio: int = gpio) -> None:
            if chip.chip is None:
                return  # taken down: the daemon is stopping
            try:
                chip.set(gpio, level)
            except (OSError, GpioSimError) as error:
                log.error("GPIO%d: cannot set the gpio-sim line: %s", gpio, error)

        line.add_edge_callback(follow, edge="both")


def write_state(directory: Path, chip: GpioSimChip) -> None:
    """Says where the chip is, for the machine's units: `gpiochip` (its number), `gpio.env`
    (RPI_LGPIO_CHIP=N, for a unit's EnvironmentFile=)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("gpiochip", f"{chip.number}\n"),
        ("gpio.env", f"RPI_LGPIO_CHIP={chip.number}\n"),
    ):
        temporary = directory / f".{name}.tmp"
        temporary.write_text(text)
        os.replace(temporary, directory / name)


# GPIO v2 character device ABI (linux/gpio.h).
_LINE_INFO = struct.Struct("=32s32sIIQ160x16x")
"""struct gpio_v2_line_info: name, consumer, offset, num_attrs, flags, attrs[10], padding."""
_INFO_CHANGED = struct.Struct(f"={_LINE_INFO.size}sQI20x")
"""struct gpio_v2_line_info_changed: info, timestamp_ns, event_type, padding."""
_LINEINFO_WATCH = 0xC0000000 | _LINE_INFO.size << 16 | 0xB4 << 8 | 0x06
_EVENTS = {1: "requested", 2: "released", 3: "reconfigured"}


class BiasGuard:
    """Puts the board's level back on a line whenever a consumer requests or reconfigures it
    (its bias rewrote the line's pull): watches the chip's line info on a thread of its own."""

    def __init__(
        self,
        chip: GpioSimChip,
        lines: dict[int, GpioLine],
        lock: threading.RLock,
        dev: Path = Path("/dev"),
    ) -> None:
        self.chip, self.lines, self.lock, self.dev = chip, lines, lock, dev
        self._stop = threading.Event()
        self._fd: int | None = None
        self.thread = threading.Thread(target=self._run, name="gpio bias guard", daemon=True)
        self.restored: Callable[[int, str], None] | None = None
        """Called (gpio, what the consumer did) after a line's level was put back (tests)."""

    def start(self) -> None:
        if self.chip.chip is None:
            raise GpioSimError("the chip is not live")
        self._fd = os.open(self.dev / self.chip.chip, os.O_RDWR | os.O_CLOEXEC)
        for gpio in self.lines:
            fcntl.ioctl(self._fd, _LINEINFO_WATCH, bytearray(_LINE_INFO.pack(b"", b"", gpio, 0, 0)))
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self.thread.is_alive():
            self.thread.join(5)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _run(self) -> None:
        assert self._fd is not None
        while not self._stop.is_set():
            ready, _, _ = select.select([self._fd], [], [], 0.5)
            if not ready:
                continue
            try:
                data = os.read(self._fd, _INFO_CHANGED.size * 16)
            except OSError as error:
                log.error("the GPIO line-info watch stopped: %s", error)
                return
            for at in range(0, len(data) - _INFO_CHANGED.size + 1, _INFO_CHANGED.size):
                info, _, event = _INFO_CHANGED.unpack_from(data, at)
                gpio = _LINE_INFO.unpack(info)[2]
                line = self.lines.get(gpio)
                if line is None or event not in _EVENTS:
                    continue
                with self.lock:
                    if self.chip.chip is None:
                        return
                    try:
                        self.chip.set(gpio, line.level, force=True)
                    except (OSError, GpioSimError) as error:
                        log.error("GPIO%d: cannot set the gpio-sim line: %s", gpio, error)
                        continue
                if self.restored is not None:
                    self.restored(gpio, _EVENTS[event])
