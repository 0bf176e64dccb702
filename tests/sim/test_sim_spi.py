"""The simulated SPI bus and the LED chain's data line read back from it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from magboard.hardware.leds import SPI_BIT0, SPI_BIT1, spi_patterns
from magboard.hardware.spec import load_board
from magboard.sim.board import SimBoard
from magboard.sim.i2c import BusClosedError, BusLockError
from magboard.sim.neopixel_wire import SimLedPin
from magboard.sim.spi import SimSPI
from magboard.sim.ws2812 import MalformedStreamError, SpiLedWire, colours, from_spi

MINI = load_board("mini")
RESET = bytes(240)
RESET_LEN = len(RESET)


def stream_of(data: bytes) -> bytes:
    """The SPI stream that sends `data` to a chain: each bit as its pattern, between resets."""
    patterns = spi_patterns(SPI_BIT0, SPI_BIT1)
    return RESET + b"".join(patterns[b] for b in data) + RESET


@given(st.binary(max_size=60).map(lambda b: b[: len(b) - len(b) % 3]))
def test_a_stream_reads_back_as_the_bytes_it_sends(data):
    assert from_spi(stream_of(data)) == data


def test_a_stream_needs_no_reset_at_its_ends():
    data = bytes([0x12, 0x34, 0x56])
    assert from_spi(stream_of(data).strip(b"\0")) == data
    assert from_spi(RESET) == b"" == from_spi(b"")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda s: s[:250] + b"\xff" + s[251:], "SPI byte 250 of 528 is 0xff: no WS2812 bit"),
        (lambda s: s[:250] + b"\x00" + s[251:], "0x00: the line held low inside a frame"),
        (lambda s: s[: -RESET_LEN - 8], "40 bits is not a whole number of 3-byte pixels"),
        (lambda s: s[: -RESET_LEN - 3], "45 bits is not a whole number of 3-byte pixels"),
    ],
)
def test_a_malformed_stream_is_refused_and_says_why(damage, message):
    stream = stream_of(bytes([0x12, 0x34, 0x56, 0, 0, 0]))
    with pytest.raises(MalformedStreamError, match=message.replace("(", r"\(")):
        from_spi(damage(stream))


def test_colours_undo_the_pixel_order():
    assert colours(bytes([1, 2, 3, 4, 5, 6]), "GRB") == [(2, 1, 3), (5, 4, 6)]
    assert colours(bytes([1, 2, 3, 9]), "RGBW") == [(1, 2, 3)]
    with pytest.raises(ValueError, match="not a whole number of GRB pixels"):
        colours(bytes(4), "GRB")


def test_the_wire_keeps_each_frame_the_chain_received():
    spi = SimSPI()
    wire = SpiLedWire(spi)
    heard = []
    wire.listeners.append(heard.append)
    assert wire.last == b""
    spi.write(stream_of(bytes([1, 2, 3])))
    spi.write(bytearray(stream_of(bytes([4, 5, 6]))), 0, None)
    assert wire.frames == heard == [bytes([1, 2, 3]), bytes([4, 5, 6])]
    assert wire.last == bytes([4, 5, 6])
    with pytest.raises(MalformedStreamError):
        spi.write(b"\x01")
    assert wire.frames == heard == [bytes([1, 2, 3]), bytes([4, 5, 6])], "refused, not kept"


def test_the_bus_behaves_as_blinkas():
    spi = SimSPI(record=True)
    with pytest.raises(RuntimeError, match="try_lock"):
        spi.configure(baudrate=1_000_000)
    assert spi.try_lock()
    with pytest.raises(BusLockError):
        spi.try_lock()
    spi.configure(baudrate=1_000_000, polarity=1, phase=1)
    assert spi.frequency == 1_000_000
    spi.write(b"abcdef", 2, 4)
    spi.unlock()
    assert [(w.data, w.baudrate, w.polarity, w.phase) for w in spi.writes] == [(b"cd", 10**6, 1, 1)]
    assert spi.wire_seconds == pytest.approx(16 / 1e6)
    with spi:
        pass
    with pytest.raises(BusClosedError):
        spi.write(b"x")


def test_the_simulated_board_reads_its_leds_from_the_spi_wire():
    board = SimBoard(MINI)
    assert isinstance(board.led_wire, SpiLedWire) and board.spi is not None
    board.show([(0, 0, 0)] * 8 + [(10, 20, 30)] + [(0, 0, 0)] * 28)
    assert board.visible_leds()[8] == (5, 10, 15)
    assert board.led_wire.last[24:27] == bytes([10, 5, 15])


def test_a_simulated_board_with_its_chain_on_another_pin_captures_neopixel():
    spec = replace(MINI, leds=replace(MINI.leds, pin="D18"))
    board = SimBoard(spec)
    assert isinstance(board.led_wire, SimLedPin) and board.spi is None
    board.show([(0, 0, 0)] * 8 + [(10, 20, 30)] + [(0, 0, 0)] * 28)
    assert board.visible_leds()[8] == (5, 10, 15)
