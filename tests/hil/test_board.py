"""The simulated board in the emulated machine: magboard-hil-board.service serves the expanders
at /dev/i2c-1, the LED chain at /dev/spidev0.0 and the INT and button lines on a gpio-sim chip,
and the host moves pieces, presses buttons, reads the LEDs and makes faults through the world
channel (sim/machine/world_link.py), while the guest sees it all through the kernel's devices.

Skipped unless asked for and built (tests/hil/conftest.py): `make hil`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from magboard.hardware.spec import load_board, place_label
from magboard.sim.machine.vm import Machine, Result
from magboard.sim.machine.world_link import (
    BOARD_SERVICE,
    PYTHONPATH,
    STATE_DIR,
    EmulatedBoard,
    WorldError,
    install_board_unit,
)

SPEC = load_board("r1")
SOUTH = next(s for s in SPEC.sensors if s.channel == "s")
"""A sensor a south-pole magnet trips: on expander 0, which shares its INT line with others."""
EXPANDER = SPEC.expanders[SOUTH.expander]
INT_GPIO = EXPANDER.interrupt
BUTTON = SPEC.buttons[0]

# Run in the guest with the project on its path: the service's side of the bus, by hand.
GUEST = """\
import fcntl, os, sys
from magboard.hardware.leds import SPI_RESET_BYTES, spi_patterns
from magboard.hardware.spec import load_board

I2C_SLAVE = 0x0703
spec = load_board("r1")

def expander(index):
    e = spec.expanders[index]
    fd = os.open("/dev/i2c-1", os.O_RDWR)
    if e.mux:
        mux = next(m for m in spec.muxes if m.name == e.mux)
        fcntl.ioctl(fd, I2C_SLAVE, mux.address)
        os.write(fd, bytes([1 << e.mux_channel]))
    fcntl.ioctl(fd, I2C_SLAVE, e.address)
    return fd

def read(fd, register, count=2):
    os.write(fd, bytes([register]))
    return os.read(fd, count)

command, *args = sys.argv[1:]
if command == "interrupts":   # as the service sets an expander up: pull-ups, INT on change
    fd = expander(int(args[0]))
    os.write(fd, bytes([0x0A, 0x44]))              # IOCON: MIRROR, ODR (open drain)
    os.write(fd, bytes([0x0C, 0xFF, 0xFF]))        # GPPUA/B: pull-ups
    os.write(fd, bytes([0x08, 0x00, 0x00]))        # INTCONA/B: against the previous level
    os.write(fd, bytes([0x04, 0x7F, 0x7F]))        # GPINTENA/B: the input pins
    print(read(fd, 0x12).hex())                    # GPIO: clears any interrupt
elif command == "gpio":
    print(read(expander(int(args[0])), 0x12).hex())
elif command == "leds":       # one frame of a few LEDs, as NeoPixel_SPI sends it
    patterns = spi_patterns()
    order = spec.leds.order
    pixels = [tuple(int(v) for v in arg.split(",")) for arg in args]
    body = b"".join(patterns[p["RGB".index(c)]] for p in pixels for c in order)
    fd = os.open("/dev/spidev0.0", os.O_RDWR)
    os.write(fd, bytes(SPI_RESET_BYTES) + body + bytes(SPI_RESET_BYTES))
"""


def guest(machine: Machine, *args: str, timeout: float = 60) -> Result:
    return machine.run(
        ["python3", "-", *args], input=GUEST, env={"PYTHONPATH": PYTHONPATH}, timeout=timeout
    )


def gpio_word(machine: Machine, expander: int) -> int:
    """GPIOA and GPIOB of an expander, read in the guest."""
    word = guest(machine, "gpio", str(expander)).check().stdout
    return int.from_bytes(bytes.fromhex(word), "little")


def level(machine: Machine, gpio: int) -> str:
    """What gpioget reads on a line of the board's GPIO chip."""
    return machine.run(["gpioget", chip_of(machine), str(gpio)], check=True).stdout.strip()


def watch(machine: Machine, gpio: int, events: int, *flags: str) -> str:
    """Starts gpiomon on a line in the background; returns the file its events go to, once it
    holds the line."""
    out = f"/tmp/gpiomon-{gpio}-{time.monotonic_ns()}"
    chip = chip_of(machine)
    command = f"timeout 60 gpiomon {' '.join(flags)} -n {events} {chip} {gpio} > {out} 2>&1 &"
    machine.run(["sh", "-c", command], check=True)
    deadline = time.monotonic() + 30
    while "gpiomon" not in machine.run(["gpioinfo", chip]).stdout:
        assert time.monotonic() < deadline, "gpiomon never took the line"
        time.sleep(0.2)
    return out


def events(machine: Machine, out: str, count: int, timeout: float = 20) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        lines = machine.run(["cat", out]).stdout.splitlines()
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


@pytest.fixture(scope="module")
def machine() -> Iterator[Machine]:
    with Machine() as booted:
        install_board_unit(booted)
        yield booted


def chip_of(machine: Machine) -> str:
    """The gpio-sim chip's name, as the daemon says it in the state directory."""
    return "gpiochip" + machine.run(["cat", f"{STATE_DIR}/gpiochip"], check=True).stdout.strip()


@pytest.fixture
def board(machine: Machine) -> Iterator[EmulatedBoard]:
    board = EmulatedBoard(machine.world_socket)
    board.wait_ready(60)
    board.clear()
    yield board
    board.release_bus()
    board.close()


def test_the_daemon_serves_i2c_spi_and_a_gpio_chip(machine: Machine, board: EmulatedBoard) -> None:
    assert machine.run(["systemctl", "is-active", BOARD_SERVICE]).stdout.strip() == "active"
    assert machine.run(["test", "-c", "/dev/i2c-1"]).ok
    assert machine.run(["test", "-c", "/dev/spidev0.0"]).ok
    number = machine.run(["cat", f"{STATE_DIR}/gpiochip"], check=True).stdout.strip()
    env = machine.run(["cat", f"{STATE_DIR}/gpio.env"], check=True).stdout
    assert env == f"RPI_LGPIO_CHIP={number}\n"
    chip = chip_of(machine)
    info = machine.run(["gpioinfo", chip], check=True).stdout
    assert "28 lines" in info and '"GPIO0"' in info and '"GPIO27"' in info
    assert f"{chip} [pinctrl-bcm2711] (28 lines)" in machine.run(["gpiodetect"]).stdout
    status = board.status()
    assert status["board"] == "r1" and status["gpiochip"] == int(number)
    # Nothing asserts INT and no button is held: every wired line reads high.
    for gpio in [INT_GPIO, *(b.gpio for b in SPEC.buttons)]:
        assert level(machine, gpio) == "1"


def test_a_piece_put_shows_on_the_expander_and_pulls_its_int_line_low(
    machine: Machine, board: EmulatedBoard
) -> None:
    guest(machine, "interrupts", str(SOUTH.expander)).check()
    bit = 1 << SOUTH.pin
    assert gpio_word(machine, SOUTH.expander) & bit
    out = watch(machine, INT_GPIO, 1, "-f")
    place = place_label(SOUTH.place)
    piece = board.put(place, "B", magnets=["s"])
    assert piece.startswith("B#") and board.pieces() == {place: [piece]}
    seen = events(machine, out, 1)
    assert len(seen) == 1 and "FALLING EDGE" in seen[0], seen
    assert level(machine, INT_GPIO) == "0"
    # Reading the port (as the service's scan does) lets INT go; the pin reads the magnet.
    assert not gpio_word(machine, SOUTH.expander) & bit
    assert level(machine, INT_GPIO) == "1"
    board.lift(place, away=True)
    assert gpio_word(machine, SOUTH.expander) & bit


def test_a_button_press_and_release_give_both_edges(machine: Machine, board: EmulatedBoard) -> None:
    out = watch(machine, BUTTON.gpio, 2)
    board.press(BUTTON.name, hold=0.5)
    seen = events(machine, out, 2)
    assert [line.split()[1:3] for line in seen] == [["FALLING", "EDGE"], ["RISING", "EDGE"]], seen
    # Held until let go.
    board.press(BUTTON.name)
    time.sleep(1)
    assert level(machine, BUTTON.gpio) == "0"
    assert board.status()["buttons"][BUTTON.name]["held"]
    board.release(BUTTON.name)
    assert level(machine, BUTTON.gpio) == "1"


def test_a_consumers_pull_up_does_not_lift_a_held_button(
    machine: Machine, board: EmulatedBoard
) -> None:
    # gpio-sim takes a consumer's bias as the line's pull; the daemon puts the board's back.
    board.press(BUTTON.name)
    try:
        chip = chip_of(machine)
        machine.run(["gpioget", "-B", "pull-up", chip, str(BUTTON.gpio)], check=True)
        time.sleep(1)
        assert level(machine, BUTTON.gpio) == "0"
    finally:
        board.release(BUTTON.name)
    assert level(machine, BUTTON.gpio) == "1"


def test_an_spi_frame_written_in_the_guest_reads_back_as_colours(
    machine: Machine, board: EmulatedBoard
) -> None:
    before = board.leds().frames
    guest(machine, "leds", "255,0,0", "0,128,0", "1,2,3").check()
    leds = board.leds()
    assert leds.frames == before + 1
    assert leds.colours == ((255, 0, 0), (0, 128, 0), (1, 2, 3))
    assert leds.age is not None and 0 <= leds.age < 30


def test_a_hung_bus_blocks_a_transfer_until_it_is_released(
    machine: Machine, board: EmulatedBoard
) -> None:
    board.hang_bus()
    done: list[Result] = []
    reader = threading.Thread(target=lambda: done.append(guest(machine, "gpio", "0")))
    reader.start()
    time.sleep(5)
    assert not done, "the transfer went through a hung bus"
    board.release_bus()
    reader.join(60)
    assert done and done[0].ok, done


def test_a_dead_expander_is_not_acknowledged_until_revived(
    machine: Machine, board: EmulatedBoard
) -> None:
    board.kill_expander(0)
    result = guest(machine, "gpio", "0")
    assert not result.ok and "Remote I/O error" in result.stderr
    board.revive_expander(0)
    guest(machine, "gpio", "0").check()


def test_a_bad_request_gets_an_error_and_the_daemon_goes_on(board: EmulatedBoard) -> None:
    assert "not JSON" in board.link.send_raw(b"{not json")["error"]
    assert "unknown op" in board.link.call("fly")["error"]
    with pytest.raises(WorldError, match="no place 'z99'"):
        board.put("z99", "B", magnets=["s"])
    with pytest.raises(WorldError, match="no piece on a1"):
        board.lift("a1")
    assert board.status()["board"] == "r1"


def test_stopping_the_daemon_takes_the_board_away(machine: Machine) -> None:
    machine.run(["systemctl", "stop", BOARD_SERVICE], timeout=60, check=True)
    try:
        assert not machine.run(["test", "-e", "/dev/i2c-1"]).ok
        assert not machine.run(["test", "-e", "/sys/kernel/config/gpio-sim/magboard"]).ok
        assert not machine.run(["test", "-e", f"{STATE_DIR}/gpiochip"]).ok
    finally:
        machine.run(["systemctl", "start", BOARD_SERVICE], timeout=120, check=True)
