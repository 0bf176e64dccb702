"""The MCP23017 emulator against the datasheet (DS20001952C), spoken to in raw I2C bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.sim.gpio import GpioLine
from magboard.sim.i2c import SimI2C
from magboard.sim.mcp23017 import Iocon, NotEmulatedError, SimMCP23017
from magboard.sim.mcp23017 import Register as R

# Power-on reset and the register map.


def test_power_on_reset_sets_iodir_and_clears_everything_else(chip):
    snap = chip.snapshot()
    assert snap[R.IODIRA] == snap[R.IODIRB] == 0xFF
    assert all(snap[r] == 0 for r in R if r not in (R.IODIRA, R.IODIRB))
    assert snap.pointer == 0


def test_power_on_reset_restores_defaults_after_configuration(chip, raw):
    raw.write(R.IODIRA, 0x0F, 0xF0, 0xAA, 0x55)
    raw.write(R.IOCON, Iocon.SEQOP | Iocon.ODR)
    raw.write(R.GPPUA, 0xFF, 0xFF)
    chip.power_on_reset()
    assert chip.snapshot() == SimMCP23017(0x21).snapshot()
    # The pointer is back at 0 and increments again (SEQOP was lost).
    assert raw.read_on(3) == bytes([0xFF, 0xFF, 0x00])


def test_address_must_be_one_the_address_pins_can_select():
    with pytest.raises(ValueError, match=r"0x20\.\.0x27"):
        SimMCP23017(0x30)


def test_iocon_is_one_register_at_two_addresses_and_bit0_reads_zero(chip, raw):
    raw.write(R.IOCON_ALIAS, 0x7F)
    assert raw.read(R.IOCON) == bytes([0x7E])
    assert chip.peek(R.IOCON_ALIAS) == 0x7E


def test_bank_1_is_refused_not_silently_misemulated(chip, raw):
    with pytest.raises(NotEmulatedError, match="BANK = 1"):
        raw.write(R.IOCON, Iocon.BANK | Iocon.MIRROR)
    assert chip.peek(R.IOCON) == 0


def test_register_address_beyond_the_map_is_refused(raw):
    with pytest.raises(NotEmulatedError, match="0x16"):
        raw.write(0x16, 0x00)


def test_intf_and_intcap_ignore_writes(chip, raw):
    raw.write(R.INTFA, 0xFF, 0xFF, 0xFF, 0xFF)
    assert chip.snapshot().registers[R.INTFA : R.GPIOA] == bytes(4)


def test_empty_write_touches_nothing(chip, raw):
    raw.read(R.OLATA)
    before = chip.snapshot()
    raw.bus.writeto(chip.address, b"")
    assert chip.snapshot() == before


# Sequential and byte mode (3.2.1).


def test_seqop0_writes_and_reads_walk_across_registers(chip, raw):
    raw.write(R.IODIRA, 0x01, 0x02, 0x03, 0x04)  # IODIRA, IODIRB, IPOLA, IPOLB
    assert [chip.peek(r) for r in (R.IODIRA, R.IODIRB, R.IPOLA, R.IPOLB)] == [1, 2, 3, 4]
    assert raw.read(R.IODIRA, 22) == chip.snapshot().registers


def test_seqop0_pointer_rolls_over_from_olatb_to_iodira(chip, raw):
    raw.write(R.OLATA, 0x11, 0x22, 0x0F)  # OLATA, OLATB, then IODIRA
    assert chip.peek(R.IODIRA) == 0x0F
    assert raw.read(R.OLATB, 2) == bytes([0x22, 0x0F])


def test_pointer_survives_the_stop_and_continues(chip, raw):
    raw.write(R.DEFVALA, 0x12, 0x34, 0x56)
    assert raw.read(R.DEFVALA, 1) == bytes([0x12])
    assert raw.read_on(2) == bytes([0x34, 0x56])


def test_seqop1_toggles_between_the_a_b_pair(chip, raw):
    chip.set_inputs({0: 0, 8: 0})
    raw.write(R.GPPUA, 0xFF, 0xFF)
    raw.write(R.IOCON, Iocon.SEQOP)
    assert raw.read(R.GPIOA, 2) == bytes([0xFE, 0xFE])
    chip.set_inputs({0: None, 1: 0, 8: None, 9: 0})
    # Pointer left on GPIOA: plain two-byte reads keep returning GPIOA, GPIOB.
    assert raw.read_on(2) == bytes([0xFD, 0xFD])
    assert raw.read_on(4) == bytes([0xFD, 0xFD, 0xFD, 0xFD])
    assert chip.snapshot().pointer == R.GPIOA


def test_seqop1_writes_toggle_too(chip, raw):
    raw.write(R.IOCON, Iocon.SEQOP)
    raw.write(R.OLATB, 0x01, 0x02, 0x03)  # OLATB, OLATA, OLATB
    assert (chip.peek(R.OLATA), chip.peek(R.OLATB)) == (0x02, 0x03)


# The port: inputs, pull-ups, polarity, outputs.


def test_released_input_reads_pullup_or_floats_low(chip, raw):
    raw.write(R.GPPUA, 0x0F)
    assert raw.read(R.GPIOA) == bytes([0x0F])
    chip.set_input(0, 0)
    chip.set_input(4, 1)
    assert raw.read(R.GPIOA) == bytes([0x1E])
    chip.set_input(4, None)
    assert raw.read(R.GPIOA) == bytes([0x0E])


def test_ipol_inverts_inputs_only(chip, raw):
    chip.set_inputs({0: 1, 1: 0})
    raw.write(R.IODIRA, 0xF0)  # pins 0..3 outputs
    raw.write(R.OLATA, 0x05)
    raw.write(R.IPOLA, 0xFF)
    # Outputs read OLAT as it is; released inputs float to 0 and read 1 inverted.
    assert raw.read(R.GPIOA) == bytes([0xF5])


def test_outputs_read_back_olat_and_gpio_writes_olat(chip, raw):
    raw.write(R.IODIRA, 0x00, 0x0F)
    raw.write(R.GPIOA, 0xA5, 0x30)
    assert raw.read(R.OLATA, 2) == bytes([0xA5, 0x30])
    assert raw.read(R.GPIOA, 2) == bytes([0xA5, 0x30])
    assert [chip.pin_level(p) for p in range(8)] == [1, 0, 1, 0, 0, 1, 0, 1]
    chip.set_input(0, 0)  # the chip's output wins over the world
    assert raw.read(R.GPIOA) == bytes([0xA5])


def test_gpa7_and_gpb7_are_output_only(chip):
    for pin in (7, 15):
        with pytest.raises(ValueError, match="output-only"):
            chip.set_input(pin, 0)
        chip.set_input(pin, None)


def test_pin_and_level_are_checked(chip):
    with pytest.raises(ValueError, match="pin"):
        chip.set_input(16, 0)
    with pytest.raises(ValueError, match="level"):
        chip.set_input(3, 2)


@settings(max_examples=60, deadline=None)
@given(
    driven=st.dictionaries(
        st.sampled_from([p for p in range(16) if p not in (7, 15)]), st.sampled_from([0, 1, None])
    ),
    gppu=st.integers(0, 0xFFFF),
    ipol=st.integers(0, 0xFFFF),
)
def test_gpio_is_level_or_pullup_then_polarity(driven, gppu, ipol):
    bus = SimI2C()
    chip = bus.attach(SimMCP23017(0x20))
    chip.set_inputs(driven)
    bus.writeto(0x20, bytes([R.IPOLA, ipol & 0xFF, ipol >> 8]))
    bus.writeto(0x20, bytes([R.GPPUA, gppu & 0xFF, gppu >> 8]))
    expected = 0
    for pin in range(16):
        level = driven.get(pin)
        if level is None:
            level = (gppu >> pin) & 1
        expected |= (level ^ ((ipol >> pin) & 1)) << pin
    buffer = bytearray(2)
    bus.writeto_then_readfrom(0x20, bytes([R.GPIOA]), buffer)
    assert buffer[0] | buffer[1] << 8 == expected


# Interrupt-on-change (3.6).


def _enable_change_interrupts(raw, mask_a, mask_b=0):
    raw.write(R.GPPUA, 0xFF, 0xFF)
    raw.write(R.INTCONA, 0x00, 0x00)
    raw.write(R.GPINTENA, mask_a, mask_b)


def test_change_latches_intf_and_intcap_and_asserts_inta(chip, raw):
    _enable_change_interrupts(raw, 0x03)
    assert chip.inta == 1  # POR: push-pull, active low, idle high
    chip.set_input(1, 0)
    assert raw.read(R.INTFA) == bytes([0x02])
    assert raw.read(R.INTCAPA) == bytes([0xFD])
    assert chip.inta == 1  # reading INTCAP cleared it


def test_only_the_first_event_is_latched_until_cleared(chip, raw):
    _enable_change_interrupts(raw, 0x03)
    chip.set_input(0, 0)
    chip.set_input(1, 0)  # a second pin while pending: neither INTF nor INTCAP move
    assert chip.peek(R.INTFA) == 0x01
    assert chip.peek(R.INTCAPA) == 0xFE
    assert raw.read(R.GPIOA) == bytes([0xFC])
    assert chip.peek(R.INTFA) == 0
    assert chip.peek(R.INTCAPA) == 0xFE  # INTCAP keeps its value until the next event
    assert chip.inta == 1


def test_reading_intf_does_not_clear_and_peek_never_clears(chip, raw):
    _enable_change_interrupts(raw, 0x01)
    chip.set_input(0, 0)
    raw.read(R.INTFA, 2)
    chip.peek(R.GPIOA)
    chip.snapshot()
    assert chip.peek(R.INTFA) == 0x01
    assert chip.inta == 0


@pytest.mark.parametrize("clearing_register", [R.GPIOA, R.INTCAPA])
def test_reading_gpio_or_intcap_clears_and_resets_the_reference(chip, raw, clearing_register):
    _enable_change_interrupts(raw, 0x01)
    chip.set_input(0, 0)
    raw.read(clearing_register)
    assert chip.peek(R.INTFA) == 0
    assert chip.inta == 1
    chip.set_input(0, 0)  # no change: nothing
    assert chip.peek(R.INTFA) == 0
    chip.set_input(0, None)  # back to 1 through the pull-up: a new change
    assert chip.peek(R.INTFA) == 0x01
    assert chip.peek(R.INTCAPA) == 0xFF


def test_writes_do_not_clear_an_interrupt(chip, raw):
    _enable_change_interrupts(raw, 0x01)
    chip.set_input(0, 0)
    raw.write(R.GPIOA, 0x00)
    raw.write(R.INTCAPA, 0x00)
    assert chip.peek(R.INTFA) == 0x01


def test_change_that_reverts_while_pending_shows_only_in_intcap(chip, raw):
    _enable_change_interrupts(raw, 0x01)
    chip.set_input(0, 0)
    chip.set_input(0, None)
    assert raw.read(R.INTCAPA) == bytes([0xFE])
    assert raw.read(R.GPIOA) == bytes([0xFF])
    assert chip.peek(R.INTFA) == 0  # reference reset on clear: no second interrupt


def test_pins_changing_together_are_flagged_together(chip, raw):
    _enable_change_interrupts(raw, 0x0F)
    chip.set_inputs({0: 0, 2: 0, 5: 0})  # pin 5 is not enabled
    assert chip.peek(R.INTFA) == 0x05
    assert chip.peek(R.INTCAPA) == 0xDA


def test_outputs_and_disabled_pins_never_interrupt(chip, raw):
    raw.write(R.GPINTENA, 0xFF)
    raw.write(R.IODIRA, 0x0F)  # upper four pins outputs
    raw.write(R.OLATA, 0xF0)
    raw.write(R.GPINTENA, 0x0F)  # lower four enabled
    raw.write(R.GPPUA, 0x30)
    chip.set_inputs({0: 0})
    raw.read(R.GPIOA)
    raw.write(R.GPINTENA, 0x0E)
    chip.set_input(0, 1)
    assert chip.peek(R.INTFA) == 0
    assert chip.inta == 1


def test_defval_mismatch_persists_and_fires_again_after_clearing(chip, raw):
    raw.write(R.GPPUA, 0x01)
    raw.write(R.DEFVALA, 0x01)
    raw.write(R.INTCONA, 0x01)
    raw.write(R.GPINTENA, 0x01)
    assert chip.peek(R.INTFA) == 0  # matching DEFVAL: quiet
    chip.set_input(0, 0)
    assert (chip.peek(R.INTFA), chip.peek(R.INTCAPA)) == (0x01, 0x00)
    assert raw.read(R.GPIOA) == bytes([0x00])
    assert chip.peek(R.INTFA) == 0x01  # still mismatched: fired again at once
    assert chip.inta == 0
    chip.set_input(0, None)
    assert chip.inta == 0  # still pending until read
    raw.read(R.INTCAPA)
    assert chip.peek(R.INTFA) == 0
    assert chip.inta == 1


def test_enabling_defval_compare_on_a_mismatched_pin_fires_at_once(chip, raw):
    raw.write(R.DEFVALB, 0x01)  # GPB0 floats low; DEFVAL expects high
    raw.write(R.INTCONB, 0x01)
    raw.write(R.GPINTENB, 0x01)
    assert chip.peek(R.INTFB) == 0x01
    assert chip.intb == 0
    assert chip.inta == 1


def test_ports_interrupt_and_clear_independently(chip, raw):
    _enable_change_interrupts(raw, 0x01, 0x01)
    chip.set_inputs({0: 0, 8: 0})
    assert (chip.inta, chip.intb) == (0, 0)
    raw.read(R.GPIOA)
    assert (chip.inta, chip.intb) == (1, 0)
    assert chip.peek(R.INTFB) == 0x01
    raw.read(R.GPIOB)
    assert (chip.inta, chip.intb) == (1, 1)


def test_two_byte_gpio_read_clears_both_ports(chip, raw):
    _enable_change_interrupts(raw, 0x01, 0x01)
    chip.set_inputs({0: 0, 8: 0})
    assert raw.read(R.GPIOA, 2) == bytes([0xFE, 0xFE])
    assert (chip.peek(R.INTFA), chip.peek(R.INTFB)) == (0, 0)


# INT outputs (3.6.1, IOCON).


def test_mirror_ors_both_ports_onto_both_pins(chip, raw):
    _enable_change_interrupts(raw, 0x00, 0x01)
    raw.write(R.IOCON, Iocon.MIRROR)
    chip.set_input(8, 0)
    assert (chip.inta, chip.intb) == (0, 0)
    raw.read(R.GPIOA)  # port A had nothing to clear; B still pending
    assert (chip.inta, chip.intb) == (0, 0)
    raw.read(R.GPIOB)
    assert (chip.inta, chip.intb) == (1, 1)


def test_unmirrored_int_pins_follow_their_own_port(chip, raw):
    _enable_change_interrupts(raw, 0x00, 0x01)
    chip.set_input(8, 0)
    assert (chip.inta, chip.intb) == (1, 0)


@pytest.mark.parametrize(
    ("iocon", "idle", "active"),
    [
        (0, 1, 0),  # push-pull, active low (POR)
        (Iocon.INTPOL, 0, 1),  # push-pull, active high
        (Iocon.ODR, None, 0),  # open drain: released when idle
        (Iocon.ODR | Iocon.INTPOL, None, 0),  # ODR overrides INTPOL
    ],
)
def test_int_output_drive(chip, raw, iocon, idle, active):
    _enable_change_interrupts(raw, 0x01)
    raw.write(R.IOCON, iocon)
    assert chip.inta == idle
    chip.set_input(0, 0)
    assert chip.inta == active
    raw.read(R.GPIOA)
    assert chip.inta == idle


def test_int_pin_drives_a_gpio_line_with_edges(chip, raw):
    line = GpioLine("GPIO17", pull="up")
    edges = []
    line.add_edge_callback(lambda _line, level: edges.append(level))
    chip.connect_int("A", line)
    _enable_change_interrupts(raw, 0x01)
    raw.write(R.IOCON, Iocon.ODR)
    assert line.level == 1 and edges == []
    chip.set_input(0, 0)
    assert line.level == 0
    raw.read(R.GPIOA)
    assert line.level == 1
    assert edges == [0, 1]


def test_an_int_pin_connects_once(chip):
    chip.connect_int("B", GpioLine("a"))
    with pytest.raises(ValueError, match="already connected"):
        chip.connect_int("B", GpioLine("b"))
    with pytest.raises(ValueError, match="port"):
        chip.connect_int("C", GpioLine("c"))


def test_reset_returns_int_to_push_pull_and_forgets_a_pending_interrupt(chip, raw):
    line = GpioLine("GPIO27", pull="up")
    chip.connect_int("A", line)
    _enable_change_interrupts(raw, 0x01)
    raw.write(R.IOCON, Iocon.ODR)
    chip.set_input(0, 0)
    assert line.level == 0
    chip.power_on_reset()
    assert chip.inta == 1
    assert line.level == 1
    assert chip.peek(R.INTFA) == 0
