"""The board at the kernel's character devices: `/dev/i2c-N` for each bus, `/dev/spidev0.0` for
the LED chain, each served by its own CUSE connection on its own thread.

`Daemon` owns the electronics (`BoardElectronics`), the world standing on them (`World`), the
devices and their servers. The world's own methods (`daemon.world.put(...)`, `.lift`, `.press`)
are the hooks for the physical side; faults are methods here: `hang_i2c` (the bus stops
answering, so the service's transfer blocks), `kill_expander` / `revive_expander` (a chip gone
and back) and `reset_expander` (a chip that lost its registers).

In the emulated machine it also gives the board's wires to the Pi's GPIO chip (`gpio`, a
gpio-sim chip the INT and button lines are bridged onto, gpiosim.py) and takes the world's
orders from outside (`world_port`, the virtio-serial port of world_channel.py); `state_dir`
gets the files saying where the GPIO chip is.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from magboard.hardware.spec import BoardSpec
from magboard.sim.clock import VirtualClock
from magboard.sim.gpio import GpioLine
from magboard.sim.world import World

from .clock import RealTimeClock
from .electronics import BoardElectronics
from .gpiosim import BiasGuard, GpioSimChip, bridge, write_state
from .i2cdev import I2cDev
from .server import CharDevice, CuseServer
from .spidev import BUFSIZ, Sink, SpiDev
from .stall import Stall
from .world_channel import PortServer, WorldControl

log = logging.getLogger(__name__)

CUSE_PATH = "/dev/cuse"
SPI_DEVICE = "spidev0.0"
"""The chip select the LED chain's SPI data goes out on: SPI0 CE0, MOSI on GPIO10 (D10)."""
SPIDEV_BUFSIZ = Path("/sys/module/spidev/parameters/bufsiz")
"""Where the running kernel says how large its own spidev's messages may be."""


def kernel_spidev_bufsiz(path: Path = SPIDEV_BUFSIZ) -> int:
    """The message size this kernel's spidev takes (its `bufsiz`, which the service reads to
    check the LED chain's frame fits, from the same file); spidev's default where it has none."""
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return BUFSIZ


def open_cuse(path: str = CUSE_PATH) -> int:
    """A new CUSE connection: one per device served."""
    return os.open(path, os.O_RDWR | os.O_CLOEXEC)


@dataclass(frozen=True, slots=True)
class Served:
    """One device being served: its server, its thread and its channel."""

    device: CharDevice
    server: CuseServer
    thread: threading.Thread
    fd: int


class Daemon:
    """Serves a board's buses and LED chain at the kernel's character devices."""

    def __init__(
        self,
        spec: BoardSpec,
        *,
        spi_device: str | None = SPI_DEVICE,
        spi_bufsiz: int | None = None,
        sink: Sink | None = None,
        seed: int = 0,
        open_channel: Callable[[], int] = open_cuse,
        clock: VirtualClock | None = None,
        gpio: GpioSimChip | None = None,
        world_port: str | None = None,
        state_dir: Path | None = None,
        pieces: Path | None = None,
    ) -> None:
        """`spi_device` None serves no LED chain; `spi_bufsiz` is its largest message (by
        default what this kernel's spidev says, so that the service's check of it holds);
        `sink` replaces the electronics' LED wire as what hears the SPI bytes; `open_channel`
        makes a connection (a test's socket pair); `clock` is the world's (a `VirtualClock` by
        default; a `RealTimeClock` runs the world's callbacks under the electronics' lock);
        `gpio` a chip to bridge the INT and button lines onto, made live by `start`;
        `world_port` the virtio-serial port to take the world channel's requests on; `pieces`
        the file the world's pieces are kept in through a restart (world_channel.py)."""
        self.spec = spec
        lock = clock.lock if isinstance(clock, RealTimeClock) else None
        self.electronics = BoardElectronics(spec, clock, lock)
        self.world = World(self.electronics, seed)
        self.gpio = gpio
        self.bias_guard: BiasGuard | None = None
        self.state_dir = state_dir
        self.control = WorldControl(self, gpiochip=self._gpiochip, pieces=pieces)
        self.port = None if world_port is None else PortServer(self.control, world_port)
        self._open_channel = open_channel
        self.stalls: dict[str, Stall] = {}
        self.devices: list[CharDevice] = []
        for bus in spec.buses:
            name = f"i2c-{self.electronics.linux_bus_number(bus.name)}"
            stall = self.stalls[bus.name] = Stall(name)
            self.devices.append(
                I2cDev(
                    name, self.electronics.buses[bus.name], lock=self.electronics.lock, stall=stall
                )
            )
        if spi_device is not None:
            stall = self.stalls["spi"] = Stall(spi_device)
            self.devices.append(
                SpiDev(
                    spi_device,
                    sink or self.electronics.led_wire.receive,
                    lock=self.electronics.lock,
                    stall=stall,
                    bufsiz=kernel_spidev_bufsiz() if spi_bufsiz is None else spi_bufsiz,
                )
            )
        self.served: list[Served] = []

    # Running.

    def start(self) -> None:
        """Open a connection per device and serve each on a thread of its own."""
        if self.served:
            raise RuntimeError("the daemon is already serving")
        try:
            restored = self.control.restore_pieces()
            if restored:
                log.info("put back %d pieces from %s", restored, self.control.pieces_file)
            if self.gpio is not None:
                self.gpio.create()
                with self.electronics.lock:
                    bridge(self.gpio, self.gpio_lines())
                self.bias_guard = BiasGuard(self.gpio, self.gpio_lines(), self.electronics.lock)
                self.bias_guard.start()
                if self.state_dir is not None:
                    write_state(self.state_dir, self.gpio)
            for device in self.devices:
                fd = self._open_channel()
                server = CuseServer(fd, device)
                for stall in self.stalls.values():
                    if getattr(device, "stall", None) is stall:
                        server.watch(stall)
                thread = threading.Thread(
                    target=self._serve, args=(server,), name=f"cuse {device.name}", daemon=True
                )
                self.served.append(Served(device, server, thread, fd))
                thread.start()
            if self.port is not None:
                self.port.start()
        except BaseException:
            self.stop()
            raise

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Whether every device was named to the kernel (CUSE_INIT answered) within `timeout`."""
        return all(s.server.initialised.wait(timeout) for s in self.served)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving: the devices disappear when their connections close, the GPIO chip
        is taken down."""
        if self.port is not None:
            self.port.stop()
        if self.bias_guard is not None:
            self.bias_guard.stop()
            self.bias_guard = None
        if self.gpio is not None and self.gpio.chip is not None:
            with self.electronics.lock:
                self.gpio.remove()
            if self.state_dir is not None:
                for name in ("gpiochip", "gpio.env"):
                    (self.state_dir / name).unlink(missing_ok=True)
        if isinstance(self.electronics.clock, RealTimeClock):
            self.electronics.clock.stop()
        served, self.served = self.served, []
        for entry in served:
            entry.server.stop()
        for entry in served:
            entry.thread.join(timeout)
            os.close(entry.fd)
            entry.server.close()
        for stall in self.stalls.values():
            stall.release()

    def __enter__(self) -> Daemon:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def gpio_lines(self) -> dict[int, GpioLine]:
        """The board's wires to the Pi's GPIO pins, by GPIO number: INT lines and buttons."""
        lines = dict(self.electronics.interrupt_lines)
        for button in self.spec.buttons:
            lines[button.gpio] = self.electronics.button_lines[button.name]
        return lines

    def _gpiochip(self) -> int | None:
        return None if self.gpio is None or self.gpio.chip is None else self.gpio.number

    @staticmethod
    def _serve(server: CuseServer) -> None:
        try:
            server.serve()
        except Exception:
            log.exception("%s: the server stopped", server.device.name)

    # Faults.

    def hang_i2c(self, bus: str | None = None, timeout: float | None = None) -> None:
        """The bus stops answering (a target holding SDA low): the service's next transfer on
        it blocks until `release_i2c`, or fails with ETIMEDOUT after `timeout` seconds."""
        self._stall(bus).engage(timeout)

    def release_i2c(self, bus: str | None = None) -> None:
        """The bus answers again; the transfers it held go through, in order."""
        self._stall(bus).release()

    def kill_expander(self, expander: int) -> None:
        self.electronics.kill_expander(expander)

    def revive_expander(self, expander: int) -> None:
        self.electronics.revive_expander(expander)

    def reset_expander(self, expander: int) -> None:
        self.electronics.reset_expander(expander)

    def _stall(self, bus: str | None) -> Stall:
        if bus is None:
            if len(self.spec.buses) != 1:
                raise ValueError(f"{self.spec.name} has several buses: name one")
            bus = self.spec.buses[0].name
        try:
            return self.stalls[bus]
        except KeyError:
            raise KeyError(f"{self.spec.name} has no bus {bus!r}") from None
