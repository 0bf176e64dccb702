"""The board at the kernel's character devices: `/dev/i2c-N` for each bus, `/dev/spidev0.0` for
the LED chain, each served by its own CUSE connection on its own thread.

`Daemon` owns the electronics (`BoardElectronics`), the world standing on them (`World`), the
devices and their servers. The world's own methods (`daemon.world.put(...)`, `.lift`, `.press`)
are the hooks for the physical side; faults are methods here: `hang_i2c` (the bus stops
answering, so the service's transfer blocks), `kill_expander` / `revive_expander` (a chip gone
and back) and `reset_expander` (a chip that lost its registers).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from magboard.hardware.spec import BoardSpec
from magboard.sim.world import World

from .electronics import BoardElectronics
from .i2cdev import I2cDev
from .server import CharDevice, CuseServer
from .spidev import BUFSIZ, Sink, SpiDev
from .stall import Stall

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
    ) -> None:
        """`spi_device` None serves no LED chain; `spi_bufsiz` is its largest message (by
        default what this kernel's spidev says, so that the service's check of it holds);
        `sink` replaces the electronics' LED wire as what hears the SPI bytes; `open_channel`
        makes a connection (a test's socket pair)."""
        self.spec = spec
        self.electronics = BoardElectronics(spec)
        self.world = World(self.electronics, seed)
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
        except BaseException:
            self.stop()
            raise

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Whether every device was named to the kernel (CUSE_INIT answered) within `timeout`."""
        return all(s.server.initialised.wait(timeout) for s in self.served)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving: the devices disappear when their connections close."""
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
