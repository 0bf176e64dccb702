"""`python -m magboard.sim.chardev`: serve a board at `/dev/i2c-1` and `/dev/spidev0.0`.

Needs `/dev/cuse` (and the right to open it: root, usually), so it runs in the emulated
machine, not in a container. Runs until SIGINT or SIGTERM. Where the kernel has gpio-sim, the
board's INT and button lines are lines of a gpio-sim chip (`--gpio-sim`), whose number goes in
`--state-dir` (`gpiochip`, and `gpio.env` with RPI_LGPIO_CHIP=N); the world takes its orders on
the virtio-serial port `--world-port` (world_channel.py). The world runs in real time. Under
systemd (Type=notify) it says READY=1 once the devices and the GPIO chip are there. SIGUSR1
hangs the I2C bus (the service's transfers block) and SIGUSR2 lets it go again, for trying the
fault by hand.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
from pathlib import Path

from magboard.hardware.spec import BoardSpecError, load_board

from .clock import RealTimeClock
from .daemon import CUSE_PATH, SPI_DEVICE, Daemon, open_cuse
from .gpiosim import CONFIGFS, GpioSimChip, GpioSimError
from .world_channel import PORT_NAME


def notify(state: str) -> None:
    """Tells systemd (a Type=notify unit's $NOTIFY_SOCKET) `state`; nothing outside systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return
    if address.startswith("@"):
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.sendto(state.encode(), address)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m magboard.sim.chardev",
        description="Serve a simulated board at the kernel's I2C and SPI character devices.",
    )
    parser.add_argument("--board", default="r1", help="board name or file (default r1)")
    parser.add_argument("--cuse", default=CUSE_PATH, help=f"the CUSE device ({CUSE_PATH})")
    parser.add_argument(
        "--spi",
        default=SPI_DEVICE,
        help=f"the LED chain's SPI device name ({SPI_DEVICE}; 'none' for no LED chain)",
    )
    parser.add_argument(
        "--spi-bufsiz",
        type=int,
        default=None,
        help="the largest SPI message, in bytes (default: this kernel's spidev.bufsiz, or 4096)",
    )
    parser.add_argument(
        "--gpio-sim",
        default="auto",
        help="the gpio-sim chip to make for the INT and button lines ('auto': 'magboard' where "
        "the kernel has gpio-sim; 'none': no GPIO chip)",
    )
    parser.add_argument(
        "--world-port",
        default=PORT_NAME,
        help=f"the virtio-serial port of the world channel ({PORT_NAME}; 'none': no channel)",
    )
    parser.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        help="where to say which gpiochip the lines are on (files gpiochip, gpio.env)",
    )
    parser.add_argument(
        "--pieces",
        type=Path,
        default=None,
        help="a file to keep the world's pieces in: written as they move, put back at start "
        "(pieces stay on a board through a power cut)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the world's random seed")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(threadName)s %(levelname)s %(message)s",
    )
    try:
        spec = load_board(args.board)
    except BoardSpecError as error:
        parser.error(str(error))
    spi = None if args.spi == "none" else args.spi
    gpio = None
    if args.gpio_sim == "auto":
        gpio = GpioSimChip() if CONFIGFS.is_dir() else None
    elif args.gpio_sim != "none":
        gpio = GpioSimChip(args.gpio_sim)
    daemon = Daemon(
        spec,
        spi_device=spi,
        spi_bufsiz=args.spi_bufsiz,
        seed=args.seed,
        open_channel=lambda: open_cuse(args.cuse),
        clock=RealTimeClock(),
        gpio=gpio,
        world_port=None if args.world_port == "none" else args.world_port,
        state_dir=args.state_dir,
        pieces=args.pieces,
    )
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGUSR1, lambda *_: daemon.hang_i2c())
    signal.signal(signal.SIGUSR2, lambda *_: daemon.release_i2c())
    try:
        daemon.start()
    except GpioSimError as error:
        print(error, file=sys.stderr)
        return 1
    except OSError as error:
        print(f"cannot open {args.cuse}: {error.strerror}", file=sys.stderr)
        return 1
    try:
        if not daemon.wait_ready(10):
            print("the kernel never asked for the devices (CUSE_INIT)", file=sys.stderr)
            return 1
        names = ", ".join(f"/dev/{s.device.name}" for s in daemon.served)
        if gpio is not None:
            names += f", GPIO0-27 on /dev/{gpio.chip}"
        print(f"serving {spec.name} at {names}", flush=True)
        notify("READY=1")
        while not done.wait(1.0):
            if not any(s.thread.is_alive() for s in daemon.served):
                print("every connection ended", file=sys.stderr)
                return 1
        return 0
    finally:
        daemon.stop()


if __name__ == "__main__":
    sys.exit(main())
