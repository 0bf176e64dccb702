"""The LED chain driver: what reaches the LEDs, over SPI on GPIO10, through NeoPixel elsewhere."""

from __future__ import annotations

from dataclasses import replace

import neopixel_spi
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.hardware.leds import (
    SPI_BIT0,
    SPI_BIT1,
    SPI_FREQUENCY,
    SPI_RESET_SECONDS,
    LedChain,
    on_spi,
    spi_stream_bytes,
)
from magboard.hardware.spec import load_board
from magboard.sim.neopixel_wire import SimLedPin, install
from magboard.sim.spi import SimSPI
from magboard.sim.ws2812 import colours, from_spi

MINI = load_board("mini")
R1 = load_board("r1")
BLACK = (0, 0, 0)


def frame_with(spec, lit: dict[int, tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    frame = [BLACK] * spec.leds.count
    for led, colour in lit.items():
        frame[led] = colour
    return frame


def capped(colour: tuple[int, int, int], spec) -> tuple[int, ...]:
    """What an LED shows of `colour` under the board's brightness cap, as the driver scales."""
    return tuple(int(v * spec.power.max_brightness) for v in colour)


def test_both_reference_boards_drive_their_chain_over_spi():
    assert on_spi(MINI.leds) and on_spi(R1.leds)
    assert not on_spi(replace(MINI.leds, pin="D18"))


def test_a_frame_reaches_the_leds_over_spi_in_order_and_capped():
    spi = SimSPI(record=True)
    chain = LedChain(MINI, spi)
    frame = frame_with(MINI, {0: (200, 100, 50), 4: (255, 255, 255), 36: (0, 0, 255)})
    chain.show(frame)
    [write] = spi.writes  # one message per frame
    assert (write.baudrate, write.polarity, write.phase, write.bits) == (SPI_FREQUENCY, 0, 0, 8)
    assert len(write.data) == spi_stream_bytes(MINI.leds.count)
    # The line is held low before and after the frame, long enough to latch a WS2812B V5.
    reset = len(write.data) - len(write.data.lstrip(b"\0"))
    assert reset == len(write.data) - len(write.data.rstrip(b"\0"))
    assert reset * 8 / write.baudrate >= 280e-6
    received = from_spi(write.data)
    assert received[:3] == bytes([50, 100, 25]), "GRB: green first"
    assert colours(received, MINI.leds.order) == [capped(c, MINI) for c in frame]


def test_every_bit_goes_out_as_its_pattern():
    spi = SimSPI(record=True)
    LedChain(MINI, spi).show(frame_with(MINI, {0: (0, 254, 0)}))  # G 127 = 0b01111111
    body = spi.writes[0].data.strip(b"\0")
    assert body[:8] == bytes([SPI_BIT0] + [SPI_BIT1] * 7)
    assert set(body[8:]) == {SPI_BIT0}


def test_r1s_frame_is_one_message_longer_than_spidevs_default_buffer():
    spi = SimSPI(record=True)
    LedChain(R1, spi).show(frame_with(R1, {184: (255, 0, 0)}))
    [write] = spi.writes
    assert len(write.data) == spi_stream_bytes(185) > 4096  # spidev.bufsiz must be raised
    assert colours(from_spi(write.data), R1.leds.order)[184] == (127, 0, 0)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=37, max_size=37))
def test_the_table_encoder_sends_what_the_driver_itself_would(frame):
    ours, theirs = SimSPI(record=True), SimSPI(record=True)
    LedChain(MINI, ours).show(frame)
    driver = neopixel_spi.NeoPixel_SPI(
        theirs,
        MINI.leds.count,
        brightness=MINI.power.max_brightness,
        auto_write=False,
        pixel_order=MINI.leds.order,
        frequency=SPI_FREQUENCY,
        reset_time=SPI_RESET_SECONDS,
        bit0=SPI_BIT0,
        bit1=SPI_BIT1,
    )
    driver[:] = frame
    driver.show()
    assert ours.writes == theirs.writes


def test_closing_the_chain_leaves_it_dark():
    spi = SimSPI(record=True)
    chain = LedChain(MINI, spi)
    chain.show([(255, 255, 255)] * MINI.leds.count)
    chain.close()
    assert colours(from_spi(spi.writes[-1].data), MINI.leds.order) == [BLACK] * MINI.leds.count


def test_a_chain_on_another_pin_is_driven_by_neopixel():
    install()
    spec = replace(MINI, leds=replace(MINI.leds, pin="D18"))
    pin = SimLedPin("D18")
    chain = LedChain(spec, pin)
    chain.show(frame_with(spec, {1: (200, 100, 50)}))
    # neopixel_write gets the chain's own bytes (no SPI patterns, no reset).
    assert pin.last == bytes(3) + bytes([50, 100, 25]) + bytes(3 * (spec.leds.count - 2))
    chain.close()
    assert pin.last == bytes(3 * spec.leds.count)
