"""Register-level emulator of the Microchip MCP23017 I/O expander (datasheet DS20001952C).

It answers on a `SimI2C` the way the chip answers on the wire, so the real
`adafruit_mcp230xx` driver runs on it. Section numbers below are the datasheet's.

What is emulated, and how the datasheet was read:

- Register map with IOCON.BANK = 0 (Table 3-5): 22 registers, A/B pairs at even/odd
  addresses, IOCON at both 0x0A and 0x0B. Power-on reset (1.2 and the POR column of Table 3-5):
  IODIRA/B = 0xFF, every other register 0, address pointer 0. Setting BANK = 1 raises
  `NotEmulatedError` (the project never sets it, and the Adafruit driver masks it off); so does
  a register address beyond 0x15, whose behaviour the datasheet leaves undefined.
- Address pointer (3.2.1, 3.2.2.3): the first byte of a write phase sets it; each data byte
  written or read then moves it. SEQOP = 0 increments it and rolls over from 0x15 to 0x00;
  SEQOP = 1 with BANK = 0 toggles it between the A/B pair, so repeated two-byte reads with the
  pointer left on GPIOA return GPIOA, GPIOB every time. A STOP does not reset it.
- Port (3.5.1, 3.5.2, 3.5.7, 3.5.10, 3.5.11): an input reads its external level; a released
  (undriven) input reads 1 with its GPPU pull-up and floats without it, read here as 0. IPOL
  inverts inputs only. An output pin carries OLAT and GPIO reads that back; writing GPIO writes
  OLAT. If the world also drives an output pin, the chip's output wins here.
- Interrupt-on-change (3.6): only pins that are inputs with GPINTEN set take part. INTCON = 0
  compares with the previous port value, INTCON = 1 with DEFVAL. The first event on a port sets
  INTF for the pins that caused it and copies the whole port into INTCAP (3.5.9); while that
  interrupt is pending, further events change neither INTF nor INTCAP (3.6.4: "subsequent
  interrupt conditions on the port will not cause an interrupt"), so INTF never accumulates
  pins that changed later. Pins changed by one call of `set_inputs` change together and are
  flagged together. Reading GPIO or INTCAP of the port clears it after the byte is sent (3.6.4);
  writes do not. The "previous value" reference is reset when the interrupt occurs and when it
  is cleared (3.6.5 item 1), so a change that happened and reverted while an interrupt was
  pending is only visible in INTCAP. A DEFVAL mismatch that still exists when cleared fires
  again at once, re-latching INTCAP (3.6.5 item 2, Figure 3-9). INTF clears with the interrupt
  (Register 3-7) and reads of INTF clear nothing. INTCAP keeps its value until the next event.
- Which value the interrupt logic sees: the datasheet calls INTCAP "the GPIO port value at the
  time the interrupt occurred" (3.5.9); this emulator takes the GPIO value (after IPOL) as the
  value compared with DEFVAL and with the previous value, and captured into INTCAP. The project
  does not invert inputs, so this reading does not matter to it.
- INT outputs (3.6.1, Register 3-6 IOCON): INTA follows port A and INTB port B; MIRROR ORs the
  two onto both pins, each port still cleared only by its own GPIO/INTCAP read. ODR = 1 makes
  them open-drain, active low, and overrides INTPOL; ODR = 0 drives push-pull with INTPOL
  giving the active level. After power-on reset that is push-pull, active low, driving high.
- GPA7 and GPB7 are output-only in current datasheet revisions (see the project's hardware
  notes), so the world may not drive them.
- A fault on a pin's wire outside the chip (`hold`): the pin keeps one level whatever the world
  drives, as the output of a Hall switch that is stuck on (held low) or dead (released).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Literal

from .gpio import GpioLine, LineDriver

FIRST_ADDRESS = 0x20  # 0b0100 A2 A1 A0 (3.3.1)
LAST_ADDRESS = 0x27
PIN_COUNT = 16
OUTPUT_ONLY_PINS = frozenset({7, 15})  # GPA7, GPB7


class Register(IntEnum):
    """Register addresses with IOCON.BANK = 0 (Table 3-5)."""

    IODIRA = 0x00
    IODIRB = 0x01
    IPOLA = 0x02
    IPOLB = 0x03
    GPINTENA = 0x04
    GPINTENB = 0x05
    DEFVALA = 0x06
    DEFVALB = 0x07
    INTCONA = 0x08
    INTCONB = 0x09
    IOCON = 0x0A
    IOCON_ALIAS = 0x0B  # the same IOCON register, reachable at both addresses
    GPPUA = 0x0C
    GPPUB = 0x0D
    INTFA = 0x0E
    INTFB = 0x0F
    INTCAPA = 0x10
    INTCAPB = 0x11
    GPIOA = 0x12
    GPIOB = 0x13
    OLATA = 0x14
    OLATB = 0x15


class Iocon(IntFlag):
    """IOCON bits (Register 3-6); bit 0 is unimplemented and reads 0."""

    BANK = 0x80
    MIRROR = 0x40
    SEQOP = 0x20
    DISSLW = 0x10
    HAEN = 0x08
    ODR = 0x04
    INTPOL = 0x02


REGISTER_COUNT = len(Register)

_IODIR = int(Register.IODIRA)
_IPOL = int(Register.IPOLA)
_GPINTEN = int(Register.GPINTENA)
_DEFVAL = int(Register.DEFVALA)
_INTCON = int(Register.INTCONA)
_IOCON = int(Register.IOCON)
_IOCON_ALIAS = int(Register.IOCON_ALIAS)
_GPPU = int(Register.GPPUA)
_INTF = int(Register.INTFA)
_INTCAP = int(Register.INTCAPA)
_GPIO = int(Register.GPIOA)
_OLAT = int(Register.OLATA)
_LAST = int(Register.OLATB)
_READ_ONLY = frozenset({Register.INTFA, Register.INTFB, Register.INTCAPA, Register.INTCAPB})
_IOCON_WRITABLE = 0xFE
_MIRROR = int(Iocon.MIRROR)
_SEQOP = int(Iocon.SEQOP)
_ODR = int(Iocon.ODR)
_INTPOL = int(Iocon.INTPOL)
_BANK = int(Iocon.BANK)

Port = Literal["A", "B"]


class NotEmulatedError(NotImplementedError):
    """The chip was asked for something this emulator deliberately does not model."""


@dataclass(frozen=True, slots=True)
class RegisterSnapshot:
    """Every register value (indexed by BANK = 0 address) and the address pointer."""

    registers: bytes
    pointer: int

    def __getitem__(self, register: int) -> int:
        return self.registers[register]


class SimMCP23017:
    """One MCP23017 on a simulated bus: an I2C target with pins the world drives.

    The world sets pin levels with `set_input` / `set_inputs` (pins 0..7 are GPA0..GPA7, 8..15
    are GPB0..GPB7, as in the Adafruit driver); the INT outputs drive `GpioLine`s connected with
    `connect_int`. `peek` and `snapshot` read registers without the side effects of a bus read.
    """

    def __init__(self, address: int = FIRST_ADDRESS) -> None:
        if not FIRST_ADDRESS <= address <= LAST_ADDRESS:
            raise ValueError(
                f"an MCP23017 answers at 0x{FIRST_ADDRESS:02x}..0x{LAST_ADDRESS:02x}"
                f" (set by A2..A0), not 0x{address:02x}"
            )
        self.address = address
        # The world's side of the pins survives a chip reset.
        self._driven = 0  # bit set: the world drives this pin
        self._levels = 0  # the level driven, where driven
        # A fault on the wire outside the chip (`hold`): these pins ignore the world.
        self._held = 0
        self._held_driven = 0
        self._held_levels = 0
        self._int_drivers: list[LineDriver | None] = [None, None]
        self._int_levels: list[int | None] = [None, None]
        self.power_on_reset()

    # Power and wiring.

    def power_on_reset(self) -> None:
        """Registers back to their POR values (Table 3-5), as after a power glitch."""
        self._reg = bytearray(REGISTER_COUNT)
        self._reg[Register.IODIRA] = self._reg[Register.IODIRB] = 0xFF
        self._pointer = 0
        self._previous = [0, 0]
        self._refresh_port()
        self._previous = [self._reg[_GPIO], self._reg[_GPIO + 1]]
        self._drive_int_pins()

    def connect_int(self, port: Port, line: GpioLine, diode: bool = False) -> LineDriver:
        """Wire INTA (`port="A"`) or INTB to `line`, directly or through a diode (cathode at
        the pin); returns the driver it drives."""
        index = _port_index(port)
        if self._int_drivers[index] is not None:
            raise ValueError(f"{self!r}: INT{port} is already connected")
        driver = line.add_driver(f"MCP23017@0x{self.address:02x}.INT{port}", diode)
        self._int_drivers[index] = driver
        driver.drive(self._int_levels[index])
        return driver

    @property
    def inta(self) -> int | None:
        """What the INTA pin does now: 0 or 1 driven, None released (open drain, inactive)."""
        return self._int_levels[0]

    @property
    def intb(self) -> int | None:
        return self._int_levels[1]

    # The world's side of the pins.

    def set_input(self, pin: int, level: int | None) -> None:
        """Drive one pin from outside to 0 or 1, or release it (None)."""
        self.set_inputs({pin: level})

    def set_inputs(self, levels: Mapping[int, int | None]) -> None:
        """Drive many pins at once; they change together, as one interrupt event."""
        driven, driven_levels = self._driven, self._levels
        for pin, level in levels.items():
            if not 0 <= pin < PIN_COUNT:
                raise ValueError(f"pin must be 0..{PIN_COUNT - 1}, not {pin}")
            bit = 1 << pin
            if level is None:
                driven &= ~bit
                driven_levels &= ~bit
                continue
            if pin in OUTPUT_ONLY_PINS:
                port = "AB"[pin // 8]
                raise ValueError(f"pin {pin} (GP{port}7) is output-only; nothing may drive it")
            if level == 1:
                driven |= bit
                driven_levels |= bit
            elif level == 0:
                driven |= bit
                driven_levels &= ~bit
            else:
                raise ValueError(f"a pin level is 0, 1 or None, not {level!r}")
        if driven == self._driven and driven_levels == self._levels:
            return
        self._driven, self._levels = driven, driven_levels
        self._port_changed()

    def hold(self, pin: int, level: int | None) -> None:
        """A fault outside the chip: the pin stays at `level` (0 or 1 driven, None released to
        its pull-up) whatever the world drives, as a Hall switch whose output is stuck on or
        has died. The world's later levels are remembered and come back with `let_go`."""
        self._check_drivable(pin, level)
        bit = 1 << pin
        self._held |= bit
        self._held_driven = self._held_driven & ~bit | (bit if level is not None else 0)
        self._held_levels = self._held_levels & ~bit | (bit if level == 1 else 0)
        self._port_changed()

    def let_go(self, pin: int) -> None:
        """The pin follows the world again."""
        self._check_drivable(pin, None)
        bit = 1 << pin
        self._held &= ~bit
        self._held_driven &= ~bit
        self._held_levels &= ~bit
        self._port_changed()

    @property
    def held(self) -> frozenset[int]:
        """Pins held by `hold`."""
        return frozenset(p for p in range(PIN_COUNT) if self._held >> p & 1)

    def _check_drivable(self, pin: int, level: int | None) -> None:
        if not 0 <= pin < PIN_COUNT:
            raise ValueError(f"pin must be 0..{PIN_COUNT - 1}, not {pin}")
        if pin in OUTPUT_ONLY_PINS:
            port = "AB"[pin // 8]
            raise ValueError(f"pin {pin} (GP{port}7) is output-only; nothing may drive it")
        if level not in (0, 1, None):
            raise ValueError(f"a pin level is 0, 1 or None, not {level!r}")

    def pin_level(self, pin: int) -> int:
        """The level on the pin itself: OLAT for an output, the input level otherwise."""
        if not 0 <= pin < PIN_COUNT:
            raise ValueError(f"pin must be 0..{PIN_COUNT - 1}, not {pin}")
        return (self._pins >> pin) & 1

    # Inspection without side effects.

    def peek(self, register: int) -> int:
        """A register's value, without the clearing a bus read of GPIO or INTCAP does."""
        if not 0 <= register <= _LAST:
            raise ValueError(f"no register at 0x{register:02x} with BANK = 0")
        return self._reg[register]

    def snapshot(self) -> RegisterSnapshot:
        return RegisterSnapshot(bytes(self._reg), self._pointer)

    # The I2C target protocol.

    def write(self, data: bytes) -> None:
        """A write phase: register address, then data bytes at the moving pointer (3.2.2.1)."""
        if not data:
            return  # a quick write, as a scan or the driver's probe sends: no register touched
        pointer = data[0]
        if pointer > _LAST:
            raise NotEmulatedError(
                f"{self!r}: register address 0x{pointer:02x} is beyond the BANK = 0 map"
            )
        for value in data[1:]:
            self._write_register(pointer, value)
            pointer = self._next(pointer)
        self._pointer = pointer

    def read(self, count: int) -> bytes:
        """A read phase: `count` bytes from the moving pointer; GPIO/INTCAP reads clear."""
        reg = self._reg
        out = bytearray(count)
        pointer = self._pointer
        toggle = reg[_IOCON] & _SEQOP
        for i in range(count):
            out[i] = reg[pointer]
            if _INTCAP <= pointer <= _GPIO + 1 and reg[_INTF + (pointer & 1)]:
                self._clear_interrupt(pointer & 1)
            if toggle:
                pointer ^= 1
            else:
                pointer = pointer + 1 if pointer < _LAST else 0
        self._pointer = pointer
        return bytes(out)

    def stop(self) -> None:
        """A STOP changes nothing on this chip: the pointer stays where it is."""

    # Internals.

    def _next(self, pointer: int) -> int:
        if self._reg[_IOCON] & _SEQOP:
            return pointer ^ 1
        return pointer + 1 if pointer < _LAST else 0

    def _write_register(self, register: int, value: int) -> None:
        reg = self._reg
        if register in _READ_ONLY:
            return  # INTF and INTCAP ignore writes (Registers 3-7, 3-9)
        if register in (_IOCON, _IOCON_ALIAS):
            if value & _BANK:
                raise NotEmulatedError(
                    f"{self!r}: IOCON.BANK = 1 not emulated (the register map would move)"
                )
            reg[_IOCON] = reg[_IOCON_ALIAS] = value & _IOCON_WRITABLE
            self._drive_int_pins()
            return
        if register in (_GPIO, _GPIO + 1):
            register += _OLAT - _GPIO  # writing GPIO writes OLAT (3.5.10)
        reg[register] = value
        self._port_changed()

    def _refresh_port(self) -> None:
        """Recompute the pins and the GPIO values from the world and the registers."""
        reg = self._reg
        iodir = reg[_IODIR] | reg[_IODIR + 1] << 8
        gppu = reg[_GPPU] | reg[_GPPU + 1] << 8
        ipol = reg[_IPOL] | reg[_IPOL + 1] << 8
        olat = reg[_OLAT] | reg[_OLAT + 1] << 8
        held = self._held
        driven = (self._driven & ~held) | self._held_driven
        levels = (self._levels & ~held) | self._held_levels
        inputs = (levels & driven) | (gppu & ~driven)
        pins = ((inputs & iodir) | (olat & ~iodir)) & 0xFFFF
        gpio = pins ^ (ipol & iodir)
        self._pins = pins
        reg[_GPIO] = gpio & 0xFF
        reg[_GPIO + 1] = gpio >> 8

    def _port_changed(self) -> None:
        self._refresh_port()
        self._evaluate(0)
        self._evaluate(1)
        self._drive_int_pins()

    def _evaluate(self, port: int) -> None:
        """Raise the port's interrupt if an enabled input mismatches (3.6.2, 3.6.3)."""
        reg = self._reg
        if reg[_INTF + port]:
            return  # pending: only the first event is latched (3.6.4)
        current = reg[_GPIO + port]
        enabled = reg[_GPINTEN + port] & reg[_IODIR + port]
        against_defval = reg[_INTCON + port]
        fired = enabled & (
            (against_defval & (current ^ reg[_DEFVAL + port]))
            | (~against_defval & (current ^ self._previous[port]))
        )
        self._previous[port] = current
        if fired:
            reg[_INTF + port] = fired & 0xFF
            reg[_INTCAP + port] = current

    def _clear_interrupt(self, port: int) -> None:
        """A read of GPIO or INTCAP clears the port (3.6.4) and resets the reference (3.6.5)."""
        self._reg[_INTF + port] = 0
        self._previous[port] = self._reg[_GPIO + port]
        self._evaluate(port)  # a persisting DEFVAL mismatch fires again at once
        self._drive_int_pins()

    def _drive_int_pins(self) -> None:
        reg = self._reg
        iocon = reg[_IOCON]
        active_a = reg[_INTF] != 0
        active_b = reg[_INTF + 1] != 0
        if iocon & _MIRROR:
            active_a = active_b = active_a or active_b
        if iocon & _ODR:
            levels = (0 if active_a else None, 0 if active_b else None)
        else:
            on = 1 if iocon & _INTPOL else 0
            levels = (on if active_a else on ^ 1, on if active_b else on ^ 1)
        for index in (0, 1):
            level = levels[index]
            if self._int_levels[index] != level:
                self._int_levels[index] = level
                driver = self._int_drivers[index]
                if driver is not None:
                    driver.drive(level)

    def __repr__(self) -> str:
        return f"SimMCP23017(0x{self.address:02x})"


def _port_index(port: Port) -> int:
    if port == "A":
        return 0
    if port == "B":
        return 1
    raise ValueError(f"port must be 'A' or 'B', not {port!r}")
