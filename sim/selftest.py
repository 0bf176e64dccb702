"""`magboard selftest --sim`: the self-test on a simulated board, broken as asked, with a
simulated person following its lights.

The breakages sit where the real ones do: a stuck sensor is an expander pin held low, a dead
expander an I2C target that never acknowledges (from power-on, so the drivers meet it dead), a
dead LED one that stays dark to the person's eyes while its bytes still go down the chain.
Names are the board's own (`c3`, `c3.n`, `A4`; `U11`, `0x22`, `ch1:0x22`); one the board does
not have is a bad request, one line and status 2, before anything runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.selftest import default_button
from magboard.firmware.app.selftest_command import main as selftest_main
from magboard.hardware.interface import Board
from magboard.hardware.spec import BoardSpec, Expander, Place, Sensor, load_board, place_label

from .board import SimBoard
from .selftest_person import SelfTestPerson


def main(args: argparse.Namespace) -> int:
    return selftest_main(args, open_board=opener(load_board(args.board), args))


def opener(spec: BoardSpec, args: argparse.Namespace) -> Callable[[BoardSpec], Board]:
    """Reads the breakages (a bad name raises `CommandError`) and gives what opens the board."""
    stuck = [sensor_named(spec, name).bit for name in args.stuck]
    dead_leds = [spec.led_index[square_named(spec, name)] for name in args.dead_led]
    dead_expanders = [expander_named(spec, name).index for name in args.dead_expander]

    def open_board(spec: BoardSpec) -> Board:
        board = SimBoard(spec, dead_expanders=dead_expanders)
        for bit in stuck:
            board.stick_sensor(bit)
        for led in dead_leds:
            board.kill_led(led)
        SelfTestPerson(board, default_button(spec))
        return board

    return open_board


def square_named(spec: BoardSpec, name: str) -> Place:
    squares = {place_label(p): p for p in (*spec.cells, *spec.slots)}
    if name not in squares:
        raise CommandError(
            f"board {spec.name} has no square {name!r} "
            f"(cells {place_label(spec.cells[0])}-{place_label(spec.cells[-1])}"
            + "".join(f", tray {t.name}1-{t.name}{len(t.slots)}" for t in spec.trays)
            + ")"
        )
    return squares[name]


def sensor_named(spec: BoardSpec, name: str) -> Sensor:
    """`c3.n` is that sensor; a bare square is its first sensor (a slot's only one)."""
    for sensor in spec.sensors:
        if sensor.label == name:
            return sensor
    square = square_named(spec, name.partition(".")[0])
    sensors = [s for s in spec.sensors if s.place == square]
    if "." in name or not sensors:
        channels = ", ".join(c.name for c in spec.channels)
        raise CommandError(f"board {spec.name} has no sensor {name!r} (channels: {channels})")
    return sensors[0]


def expander_named(spec: BoardSpec, name: str) -> Expander:
    """By name (`U11`), address (`0x22`) where only one chip has it, or `chN:0x22` (with the
    mux's name first, `mux.ch1:0x22`, where a board has several muxes)."""
    text = name.strip().lower()
    matches = [e for e in spec.expanders if text in _names_of(e, len(spec.muxes) > 1)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        where = ", ".join(f"{_segment_name(e, len(spec.muxes) > 1)}:{name}" for e in matches)
        raise CommandError(
            f"board {spec.name} has {len(matches)} expanders at {name}: say which ({where})"
        )
    known = ", ".join(f"U{e.index + 1}" for e in spec.expanders[:1] + spec.expanders[-1:])
    raise CommandError(
        f"board {spec.name} has no expander {name!r} (U-numbers {known.replace(', ', '-')}, "
        "or an address such as 0x20)"
    )


def _names_of(expander: Expander, several_muxes: bool) -> set[str]:
    address = f"0x{expander.address:02x}"
    names = {f"u{expander.index + 1}", address}
    names.add(f"{_segment_name(expander, several_muxes)}:{address}")
    return names


def _segment_name(expander: Expander, several_muxes: bool) -> str:
    if not expander.mux:
        return expander.bus
    channel = f"ch{expander.mux_channel}"
    return f"{expander.mux}.{channel}" if several_muxes else channel
