"""The simulator's web page's events: what a page needs to draw a simulated board, in the one
schema (firmware/events.py) and registered with it here. Only `magboard sim` sends these; a real
board never does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from magboard.firmware.events import Event, register


@dataclass(frozen=True)
class SimBoardInfo(Event):
    """A simulated board's layout and the games it can host, sent to a page when it connects
    and after every new game. Places are labels ("b2", "A3"); `leds` maps every cell, slot and
    status name to its LED in the chain."""

    TYPE = "sim-board"
    board: str
    title: str
    columns: int
    rows: int
    holes: tuple[str, ...]
    trays: tuple[dict, ...]
    """{"name", "side", "rows": slots per row, "slots": slot labels in order}"""
    buttons: tuple[dict, ...]
    """{"name", "label"}"""
    status: tuple[str, ...]
    """Names of the status LEDs (seat-1, ...)."""
    leds: dict[str, int]
    led_count: int
    expanders: tuple[str, ...]
    """Names of the I/O expanders (U1, U2, ...), for injecting faults."""
    games: tuple[dict, ...]
    """Games with a profile on this board: {"name", "title", "seats", "options": [{"name",
    "default", "choices", "minimum", "maximum", "help"}]}."""
    game: str
    options: dict[str, Any]
    players: tuple[str, ...]
    area: tuple[str, ...]
    """The cells the current game uses."""
    seat_colours: tuple[str, ...] = ()
    """The colour of each seat's lights ("#rrggbb"), in seat order."""
    overlay: tuple[dict, ...] = ()
    """What the game's printed overlay shows (Magnetmen; empty for other games): per picture,
    {"name", "cells": the cells it is printed on, "drawing": its shapes in a 100 x 100 box, y
    down, each {"d": SVG path data, "fill" and "stroke": "ink", "paper" or null, "width"}}."""
    game_trays: tuple[str, ...] = ()
    """The trays the game takes pieces from or puts them in (its supplies and piles): a page
    that shows the game alone leaves the others out."""


@dataclass(frozen=True)
class SimPieces(Event):
    """Where every piece of a simulated board is: place label -> its stack, bottom to top, and
    what the hand holds (the last one is what a `put` puts down), and the 2x2 grid tiles pieces
    stand on. A piece is {"id", "kind", "label", "size" (1-3), "owner" (seat or null), "colour"
    ("#rrggbb")}; a tile is {"id", "cells" (lower-left, lower-right, upper-left, upper-right),
    "key" (the cell over its key magnet, or null)}, its id kept as it shifts and turns."""

    TYPE = "sim-pieces"
    places: dict[str, list]
    hand: tuple[dict, ...] = ()
    tiles: tuple[dict, ...] = ()


@dataclass(frozen=True)
class SimScores(Event):
    """How a simulated game that keeps score stands now (Magnetmen): each seat's score if the
    game ended now, and its inventory as {type: icons held}, in seat order; and who holds each
    square collected, as {"place", "seat"}."""

    TYPE = "sim-scores"
    scores: tuple[int, ...]
    inventories: tuple[dict, ...]
    holders: tuple[dict, ...] = ()


@dataclass(frozen=True)
class SimLeds(Event):
    """What a simulated LED chain shows now: six hex digits of RGB per LED, chain order, decoded
    from the bytes sent down the data line (so after brightness scaling and the power cap), dark
    where an LED is dead."""

    TYPE = "sim-leds"
    pixels: str
    menu: tuple[dict, ...] = ()
    """While the LED menu is open, its squares: {"place", "label", "at" (the one pointed at),
    "chosen" (a value the game would start with)}; empty while it is closed."""


register(SimBoardInfo, SimPieces, SimScores, SimLeds)
