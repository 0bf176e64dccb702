"""The world channel's requests on a daemon's world (sim/chardev/world_channel.py), the daemon's
real-time clock, and the gpio-sim bridge on a stand-in for configfs and sysfs."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from magboard.hardware.leds import SPI_RESET_BYTES, spi_patterns
from magboard.hardware.spec import load_board, place_label
from magboard.sim.chardev.clock import RealTimeClock
from magboard.sim.chardev.daemon import Daemon
from magboard.sim.chardev.gpiosim import GpioSimChip, bridge
from magboard.sim.chardev.spidev import SpiTransfer
from magboard.sim.mcp23017 import Register


@pytest.fixture
def daemon():
    daemon = Daemon(load_board("r1"))  # on virtual time: the tests let it pass
    yield daemon
    daemon.stop()


def ask(daemon: Daemon, op: str, **fields) -> dict:
    reply = daemon.control.handle({"id": 7, "op": op, **fields})
    assert reply["id"] == 7
    return reply


def result(daemon: Daemon, op: str, **fields):
    reply = ask(daemon, op, **fields)
    assert "error" not in reply, reply
    return reply["result"]


def pin(daemon: Daemon, expander: int, pin: int) -> int:
    return daemon.electronics.chips[expander].pin_level(pin)


def test_a_piece_put_lifted_and_moved_shows_on_the_expander_pins(daemon: Daemon) -> None:
    sensor = next(s for s in daemon.spec.sensors if s.channel == "s" and s.place != (1, 1))
    label = place_label(sensor.place)
    chip = daemon.electronics.chips[sensor.expander]
    chip.write(bytes([Register.GPPUA, 0xFF, 0xFF]))  # pull-ups, as the service sets them
    chip.stop()
    assert pin(daemon, sensor.expander, sensor.pin) == 1
    assert result(daemon, "put", place=label, kind="X", magnets=["s"]) == {
        "piece": "X#1",
        "place": label,
    }
    assert pin(daemon, sensor.expander, sensor.pin) == 0
    assert result(daemon, "pieces") == {"board": {label: ["X#1"]}, "hand": []}
    assert result(daemon, "lift", place=label) == {"piece": "X#1"}
    assert pin(daemon, sensor.expander, sensor.pin) != 0
    assert result(daemon, "pieces")["hand"] == ["X#1"]
    result(daemon, "put", place=label)  # the held piece, again
    result(daemon, "put", place="b2", kind="X")  # the kind is known now
    result(daemon, "move", **{"from": "b2", "to": "c2"})
    assert result(daemon, "pieces")["board"] == {label: ["X#1"], "c2": ["X#2"]}
    assert result(daemon, "clear") == {"removed": 2}
    assert result(daemon, "pieces") == {"board": {}, "hand": []}


def test_bad_requests_get_errors_and_the_channel_goes_on(daemon: Daemon) -> None:
    control = daemon.control
    assert "not JSON" in control.handle_line(b"{nope")["error"]
    assert "JSON object" in control.handle([1, 2])["error"]
    assert "unknown op 'fly'" in ask(daemon, "fly")["error"]
    assert "no place 'z99'" in ask(daemon, "put", place="z99", kind="X", magnets=["s"])["error"]
    assert "is new" in ask(daemon, "put", place="a1", kind="Y")["error"]
    assert "not a channel" in ask(daemon, "put", place="a1", kind="Y", magnets=["q"])["error"]
    assert "no piece on a1" in ask(daemon, "lift", place="a1")["error"]
    assert "no button" in ask(daemon, "press", button="seat-9")["error"]
    assert "seconds" in ask(daemon, "press", button="seat-1", hold=-1)["error"]
    assert "expanders 0.." in ask(daemon, "kill_expander", expander=99)["error"]
    assert result(daemon, "pieces") == {"board": {}, "hand": []}


def test_a_press_with_a_hold_lets_go_when_its_time_has_passed(daemon: Daemon) -> None:
    line = daemon.electronics.button_lines["seat-1"]
    result(daemon, "press", button="seat-1", hold=0.2)
    assert line.level == 0
    assert result(daemon, "status")["buttons"]["seat-1"] == {"gpio": 5, "held": True}
    daemon.world.clock.sleep(0.5)
    assert line.level == 1
    result(daemon, "press", button="seat-2")
    daemon.world.clock.sleep(0.3)
    assert daemon.electronics.button_lines["seat-2"].level == 0
    result(daemon, "release", button="seat-2")
    assert daemon.electronics.button_lines["seat-2"].level == 1


def test_the_leds_are_the_last_spi_frame_decoded(daemon: Daemon) -> None:
    assert result(daemon, "leds") == {"frames": 0, "age": None, "colours": None}
    spec = daemon.spec
    patterns = spi_patterns()
    pixels = [(i % 256, 7, 200) for i in range(spec.leds.count)]
    body = b"".join(patterns[pixel["RGB".index(c)]] for pixel in pixels for c in spec.leds.order)
    stream = bytes(SPI_RESET_BYTES) + body + bytes(SPI_RESET_BYTES)
    daemon.electronics.led_wire.receive(
        SpiTransfer(stream, 6_400_000, 0, False, 0, time.monotonic())
    )
    leds = result(daemon, "leds")
    assert leds["frames"] == 1 and 0 <= leds["age"] < 5
    assert [tuple(c) for c in leds["colours"]] == pixels
    daemon.electronics.led_wire.receive(SpiTransfer(b"\x01\x02", 6_400_000, 0, False, 0, 0.0))
    leds = result(daemon, "leds")
    assert leds["frames"] == 2 and leds["colours"] is None and "no WS2812 bit" in leds["malformed"]


def test_faults_through_the_channel(daemon: Daemon) -> None:
    result(daemon, "hang_i2c")
    assert result(daemon, "status")["i2c_hung"] == [daemon.spec.buses[0].name]
    result(daemon, "release_i2c")
    assert result(daemon, "status")["i2c_hung"] == []
    for op in ("kill_expander", "revive_expander", "reset_expander"):
        result(daemon, op, expander=0)
    result(daemon, "i2c_errors", expander=0, count=2)


def test_the_real_time_clock_runs_callbacks_in_order_under_its_lock() -> None:
    lock = threading.RLock()
    clock = RealTimeClock(lock)
    seen: list[tuple[str, bool]] = []
    try:
        start = clock.now()
        clock.call_later(0.2, lambda: seen.append(("b", lock._is_owned())))
        clock.call_later(0.1, lambda: seen.append(("a", lock._is_owned())))
        clock.call_later(0.15, lambda: seen.append(("never", True))).cancel()
        assert clock.pending() == 2
        clock.sleep(0.4)
        assert seen == [("a", True), ("b", True)]
        assert clock.now() - start >= 0.4
    finally:
        clock.stop()


class FakeConfigfs:
    """configfs and sysfs as gpio-sim makes them, as far as GpioSimChip touches them."""

    def __init__(self, root: Path) -> None:
        self.configfs = root / "config"
        self.platform = root / "platform"
        self.configfs.mkdir()

    def go_live(self, chip: GpioSimChip) -> None:
        (chip.dir / "dev_name").write_text("gpio-sim.0\n")
        (chip.dir / "bank0" / "chip_name").write_text("gpiochip3\n")
        for k in range(chip.lines):
            line = self.platform / "gpio-sim.0" / "gpiochip3" / f"sim_gpio{k}"
            line.mkdir(parents=True, exist_ok=True)
            (line / "pull").write_text("pull-down")


def test_the_bridge_follows_int_and_button_lines(tmp_path: Path, monkeypatch) -> None:
    fake = FakeConfigfs(tmp_path)
    chip = GpioSimChip("t", configfs=fake.configfs, platform=fake.platform)
    real_write = Path.write_text

    def write_text(path: Path, text: str, *args, **kwargs):
        done = real_write(path, text, *args, **kwargs)
        if path.name == "live" and text.strip() == "1":
            fake.go_live(chip)
        return done

    monkeypatch.setattr(Path, "write_text", write_text)
    chip.create()
    assert chip.number == 3
    assert (chip.dir / "bank0" / "line17" / "name").read_text() == "GPIO17\n"
    daemon = Daemon(load_board("r1"))
    bridge(chip, daemon.gpio_lines())
    pull = lambda k: (fake.platform / "gpio-sim.0/gpiochip3" / f"sim_gpio{k}/pull").read_text()  # noqa: E731
    assert pull(5) == "pull-up" and pull(0) == "pull-down"
    daemon.electronics.press("seat-1")
    assert pull(5) == "pull-down"
    daemon.electronics.release("seat-1")
    assert pull(5) == "pull-up"
    gpio, line = next(iter(daemon.electronics.interrupt_lines.items()))
    assert pull(gpio) == "pull-up"
    driver = line.add_driver("test")
    driver.drive(0)
    assert pull(gpio) == "pull-down"
    monkeypatch.setattr(Path, "rmdir", shutil.rmtree)  # configfs drops attributes
    chip.remove()
    assert not chip.dir.exists() and chip.chip is None


def test_a_slide_moves_on_as_time_passes(daemon: Daemon) -> None:
    result(daemon, "put", place="a1", kind="X", magnets=["s"])
    ends_in = result(daemon, "slide", path=["a2", "a3"], step=0.1, **{"from": "a1"})["ends_in"]
    assert 0.1 < ends_in <= 0.2
    assert result(daemon, "pieces")["board"] == {"a1": ["X#1"]}
    daemon.world.clock.sleep(ends_in + 0.3)
    assert result(daemon, "pieces")["board"] == {"a3": ["X#1"]}
    assert "neighbouring" in ask(daemon, "slide", path=["c5"], **{"from": "a3"})["error"]


def test_the_pieces_stay_on_the_board_through_a_restart(tmp_path: Path) -> None:
    """With a pieces file, what stands where is kept as it changes and put back, instantly,
    when the daemon starts again (pieces stay on a board through a power cut)."""
    kept = tmp_path / "state" / "pieces.json"
    first = Daemon(load_board("mini"), clock=RealTimeClock(), pieces=kept)
    try:
        result(first, "put", place="A1", kind="X", magnets=["s"])
        result(first, "put", place="A2", kind="X")
        result(first, "put", place="B1", kind="O", magnets=["s"])
        result(first, "move", **{"from": "A1", "to": "b2"})
        result(first, "lift", place="A2", away=True)
        ask(first, "leds")  # a query: nothing written
    finally:
        first.stop()
    second = Daemon(load_board("mini"), clock=RealTimeClock(), pieces=kept)
    try:
        assert second.control.restore_pieces() == 2
        board = result(second, "pieces")["board"]
        kinds = {place: [name.split("#")[0] for name in stack] for place, stack in board.items()}
        assert kinds == {"b2": ["X"], "B1": ["O"]}
        # The kinds are known again: a new X needs no magnets said.
        result(second, "put", place="c3", kind="X")
        assert second.world.pieces_at(SPEC_MINI_C3)[0].kind.signature == {"s"}
    finally:
        second.stop()
    other = Daemon(load_board("r1"), clock=RealTimeClock(), pieces=kept)
    try:
        assert other.control.restore_pieces() == 0  # mini's pieces, not r1's
    finally:
        other.stop()
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    third = Daemon(load_board("mini"), clock=RealTimeClock(), pieces=broken)
    try:
        assert third.control.restore_pieces() == 0
    finally:
        third.stop()


SPEC_MINI_C3 = next(c for c in load_board("mini").cells if place_label(c) == "c3")
