"""The board files: `load_board` reads a reference board by name or any board file by path
(`spec_reader` checks it) into a `BoardSpec`, whose values (`board_spec`) are exported from
here too, as every module that reads a board imports them from here.

No driver library is imported here: the referee may use the spec on any machine.
"""

from __future__ import annotations

from pathlib import Path

from .board_spec import (
    BOARDS_DIR,
    EXPANDER_ADDRESSES,
    FILL_GROUPS,
    I2C_GPIOS,
    INPUT_PINS,
    LAYOUTS,
    MAX_BOARD_MM,
    MAX_CHANNEL_MA,
    MAX_FILE_BYTES,
    MAX_FRAME_SECONDS,
    MAX_SIDE,
    MAX_SUPPLY_AMPS,
    MIN_PITCH_MM,
    MUX_ADDRESSES,
    MUX_SELECT_BITS,
    PI_GPIOS,
    SENSES,
    SEQOP_READ_BITS,
    WS2812_BIT_US,
    WS2812_LATCH_US,
    BoardSpec,
    BoardSpecError,
    Bus,
    Button,
    Cell,
    Channel,
    Expander,
    Leds,
    LedSegment,
    Mux,
    Place,
    Power,
    Sensor,
    Slot,
    Tray,
    cell_label,
    chain_seconds,
    max_leds,
    place_label,
    place_label_any,
)
from .spec_reader import read_board

__all__ = [
    "BOARDS_DIR",
    "EXPANDER_ADDRESSES",
    "FILL_GROUPS",
    "I2C_GPIOS",
    "INPUT_PINS",
    "LAYOUTS",
    "MAX_BOARD_MM",
    "MAX_CHANNEL_MA",
    "MAX_FILE_BYTES",
    "MAX_FRAME_SECONDS",
    "MAX_SIDE",
    "MAX_SUPPLY_AMPS",
    "MIN_PITCH_MM",
    "MUX_ADDRESSES",
    "MUX_SELECT_BITS",
    "PI_GPIOS",
    "SENSES",
    "SEQOP_READ_BITS",
    "WS2812_BIT_US",
    "WS2812_LATCH_US",
    "BoardSpec",
    "BoardSpecError",
    "Bus",
    "Button",
    "Cell",
    "Channel",
    "Expander",
    "LedSegment",
    "Leds",
    "Mux",
    "Place",
    "Power",
    "Sensor",
    "Slot",
    "Tray",
    "board_names",
    "cell_label",
    "chain_seconds",
    "load_board",
    "max_leds",
    "place_label",
    "place_label_any",
]


def load_board(name_or_path: str | Path) -> BoardSpec:
    """A reference board by name (`r1`, `mini`) or any board file by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        candidate = BOARDS_DIR / f"{name_or_path}.toml"
        if not candidate.exists():
            known = ", ".join(board_names())
            raise BoardSpecError(f"no board called {name_or_path!r} (boards: {known})")
        path = candidate
    return read_board(path)


def board_names() -> list[str]:
    return sorted(p.stem for p in BOARDS_DIR.glob("*.toml"))
