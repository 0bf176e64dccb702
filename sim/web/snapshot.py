"""What a page needs to draw a simulated board, as events of the one schema (`sim-board`,
`sim-pieces`, `sim-scores`, `sim-leds`), read off a running `SimSession`."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from magboard.firmware.app.menu import Menu
from magboard.firmware.games import Game, State, all_games
from magboard.firmware.lights.palette import DEFAULT as PALETTE
from magboard.firmware.profiles import PieceKind, ProfileError, profile_for
from magboard.hardware.spec import BoardSpec, Place, Slot, cell_label, place_label

from ..commands import BOX
from ..session import SimSession
from ..world import Piece, World
from .events import SimBoardInfo, SimLeds, SimPieces, SimScores


def hosted_games(spec: BoardSpec) -> list[Game]:
    """The registered games that have a profile on this board, in registry order."""
    found = []
    for game in all_games():
        try:
            profile_for(game, spec)
        except ProfileError:
            continue
        found.append(game)
    return found


def _option(option: Any) -> dict[str, Any]:
    return {
        "name": option.name,
        "default": option.default,
        "choices": list(option.choices),
        "minimum": option.minimum,
        "maximum": option.maximum,
        "help": option.help,
    }


def game_summary(game: Game) -> dict[str, Any]:
    """A game as a page offers it: its name, title, seats and options."""
    return {
        "name": game.name,
        "title": game.title,
        "seats": list(game.seats),
        "options": [_option(o) for o in game.options],
    }


def board_info(session: SimSession, games: list[Game]) -> SimBoardInfo:
    spec = session.spec
    width, height = session.profile.extent or session.profile.game.board
    x0, y0 = session.profile.origin
    area = tuple(
        cell_label((x, y))
        for y in range(y0, y0 + height)
        for x in range(x0, x0 + width)
        if (x, y) not in spec.holes
    )
    return SimBoardInfo(
        t=session.clock.now(),
        board=spec.name,
        title=spec.title,
        columns=spec.columns,
        rows=spec.rows,
        holes=tuple(sorted(cell_label(c) for c in spec.holes)),
        trays=tuple(
            {
                "name": tray.name,
                "side": tray.side,
                "rows": list(tray.rows),
                "slots": [str(slot) for slot in tray.slots],
            }
            for tray in spec.trays
        ),
        buttons=tuple({"name": b.name, "label": b.label} for b in spec.buttons),
        status=tuple(name for name in spec.led_index if isinstance(name, str)),
        leds={_label(place): led for place, led in spec.led_index.items()},
        led_count=spec.leds.count,
        expanders=tuple(f"U{e.index + 1}" for e in spec.expanders),
        games=tuple(game_summary(game) for game in games),
        game=session.game.name,
        options=dict(session.options),
        players=tuple(session.game.seats[: session.initial.players]),
        area=area,
        seat_colours=tuple(_hex(colour) for colour in PALETTE.players),
        overlay=overlay(session),
        game_trays=tuple(
            sorted({slot.tray for supply in session.profile.supplies for slot in supply.slots})
        ),
    )


def overlay(session: SimSession) -> tuple[dict[str, Any], ...]:
    """The pictures the game's printed overlay shows, each with the board's cells it is printed
    on and its drawing; none for a game without one."""
    to_board = session.profile.to_board
    return tuple(
        {
            "name": picture.name,
            "cells": [cell_label(to_board(cell)) for cell in picture.cells],
            "drawing": list(picture.drawing),
        }
        for picture in session.initial.pictures()
    )


def standings(session: SimSession) -> SimScores | None:
    """How a game that keeps score stands: every seat's running score and inventory, and who
    holds each cell taken; None for a game that does not keep score."""
    shown = session.state.standings()
    if shown is None:
        return None
    held = holders(session.initial, session.referee.actions_played)
    return SimScores(
        session.clock.now(),
        shown.scores,
        tuple(dict(inventory) for inventory in shown.inventories),
        tuple(
            {"place": cell_label(session.profile.to_board(cell)), "seat": seat}
            for cell, seat in sorted(held.items())
        ),
    )


@lru_cache(maxsize=4)
def holders(initial: State, played: tuple[str, ...]) -> dict[tuple[int, int], int]:
    """`State.holders`, kept for the last few games: each update of the page asks again, and a
    game may work it out by playing every action again from the start."""
    return initial.holders(played)


def _hex(colour: tuple[int, int, int]) -> str:
    r, g, b = colour
    return f"#{r:02x}{g:02x}{b:02x}"


def _label(place: Any) -> str:
    return place if isinstance(place, str) else place_label(place)


class PieceDrawing:
    """How each piece of a session is drawn: the profile's label, size and owner for its kind,
    the world's colour; and how many pieces of each kind there are to wait in a box no sensor
    sees."""

    def __init__(self, session: SimSession) -> None:
        self.kinds: dict[str, PieceKind] = {kind.name: kind for kind in session.profile.kinds}
        start = session.profile.layout(session.initial)
        on_cells = Counter(kind.name for stack in start.cells.values() for kind in stack)
        width, height = session.profile.extent or session.profile.game.board
        self.boxes: dict[str, tuple[Piece, int]] = {
            f"{BOX}{supply.name}": (
                Piece(0, session.kinds[supply.kinds[0].name]),
                start.supplies.get(supply.name, width * height) + on_cells[supply.kinds[0].name],
            )
            for supply in session.profile.supplies
            if not supply.sensed
        }
        """Per box, as `supply:NAME`: the piece it holds (id 0: out of the world until a hand
        takes it) and how many of that kind the game has: as its layout counts them, or, where
        it does not (tokens that mark the cells taken), enough to cover every cell of the game's
        area."""

    def piece(self, piece: Piece) -> dict[str, Any]:
        kind = self.kinds.get(piece.kind.name)
        return {
            "id": piece.id,
            "kind": piece.kind.name,
            "label": (kind.label if kind else "") or piece.kind.name[:1],
            "size": max(1, min(3, kind.size if kind else 1)),
            "owner": kind.owner if kind else None,
            "colour": _hex(piece.kind.colour),
            **({"single": kind.single} if kind and kind.single else {}),
        }


def tiles(world: World) -> tuple[dict[str, Any], ...]:
    """Every tile where it lies, by id: ids stay with a tile as it shifts and turns, so a page
    keeps the tile a person picked."""
    found = []
    for tile in sorted(world.tiles, key=lambda t: t.id):
        key = world.key_of(tile)
        found.append(
            {
                "id": tile.id,
                "cells": [cell_label(cell) for cell in world.tile_cells(tile)],
                "key": None if key is None else cell_label(key),
            }
        )
    return tuple(found)


def pieces(session: SimSession, drawing: PieceDrawing | None = None) -> SimPieces:
    """Every piece where it stands, and in the boxes no sensor sees (each listed, even empty):
    those of their kind that are neither on the board nor in the hand; and the tiles."""
    drawing = drawing or PieceDrawing(session)
    world = session.world
    occupied = world.occupied()
    places = {
        place_label(place): [drawing.piece(piece) for piece in occupied[place]]
        for place in sorted(occupied, key=_order)
        if occupied[place]
    }
    held = [*world.hand, *(piece for stack in occupied.values() for piece in stack)]
    out = Counter(piece.kind.name for piece in held)
    for box, (piece, count) in drawing.boxes.items():
        places[box] = [drawing.piece(piece)] * max(0, count - out[piece.kind.name])
    return SimPieces(
        session.clock.now(),
        places,
        tuple(drawing.piece(piece) for piece in world.hand),
        tiles(world),
    )


def _order(place: Place) -> tuple[int, str, int, int]:
    """Cells row by row, then tray slots by tray and number."""
    if isinstance(place, Slot):
        return (1, place.tray, place.number, 0)
    return (0, "", place[1], place[0])


def leds(session: SimSession) -> SimLeds:
    """The LEDs, and while the LED menu is open what its lit squares mean: the lights alone do
    not say which square is which game or level."""
    pixels = session.board.visible_leds()
    return SimLeds(
        session.clock.now(),
        "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in pixels),
        menu_squares(session.loop.menu),
    )


def menu_squares(menu: Menu) -> tuple[dict[str, Any], ...]:
    """The squares of the LED menu's page shown, each with what taking it does; none while
    the menu is closed."""
    if not menu.open:
        return ()
    return tuple(
        {
            "place": _label(entry.place),
            "label": entry.label,
            "at": i == menu.at,
            "chosen": menu.chosen(entry),
        }
        for i, entry in enumerate(menu.entries)
    )
