"""render: a view, a board and a moment, to the colour of every LED in the chain.

A pure function of its inputs. Meanings are painted most urgent first (`PRECEDENCE`); the first
to reach an LED owns it. Status LEDs, addressed by name, say whose turn it is, who won, and
whether the hardware had a fault.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from magboard.hardware.interface import RGB
from magboard.hardware.spec import BoardSpec, Place

from .animation import (
    attract_levels,
    clock_meaning,
    draw_level,
    error_blinking,
    fast_on,
    flag_flashing,
    level,
    win_head,
)
from .palette import DEFAULT, OFF, PRECEDENCE, Meaning, Palette, dimmed
from .view import View

_SEAT_NAME = re.compile(r"seat-([1-9][0-9]*)")
ALERT = "alert"


@dataclass(frozen=True)
class Layout:
    """What rendering needs from a BoardSpec, worked out once per spec."""

    count: int
    index: Mapping[Place | str, int]
    """LED of each place (and status name)."""
    seats: Mapping[int, int]
    """LED of each seat (0-based) from the status LEDs named seat-1, seat-2 ..."""
    alert: int | None

    @classmethod
    def of(cls, spec: BoardSpec) -> Layout:
        seats = {}
        for name, led in spec.led_index.items():
            if isinstance(name, str) and (found := _SEAT_NAME.fullmatch(name)):
                seats[int(found[1]) - 1] = led
        return cls(spec.leds.count, spec.led_index, seats, spec.led_index.get(ALERT))


_layouts: dict[int, tuple[BoardSpec, Layout]] = {}
"""By identity of the spec: hashing a whole BoardSpec on every frame would cost more than
rendering. The spec is kept with its layout, so its id cannot be reused while cached."""


def layout(spec: BoardSpec) -> Layout:
    cached = _layouts.get(id(spec))
    if cached is not None and cached[0] is spec:
        return cached[1]
    if len(_layouts) >= 16:
        _layouts.clear()
    found = Layout.of(spec)
    _layouts[id(spec)] = (spec, found)
    return found


Layer = Callable[[View, float, Palette], Iterable[tuple[Place, RGB]]]


def _error(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not error_blinking(view, now, palette):
        return ()
    colour = dimmed(palette.error, palette.blink_level) if fast_on(view, now, palette) else OFF
    return ((place, colour) for place in view.error)


def _remove(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.remove:
        return ()
    colour = dimmed(palette.remove, level(view, now, Meaning.REMOVE, palette))
    return ((place, colour) for place in view.remove)


def _put_back(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.put_back:
        return ()
    shown = level(view, now, Meaning.PUT_BACK, palette)
    return ((place, dimmed(palette.players[seat], shown)) for place, seat in view.put_back)


def _obligation(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.obligation:
        return ()
    colour = dimmed(palette.obligation, level(view, now, Meaning.OBLIGATION, palette))
    return ((place, colour) for place in view.obligation)


def _win(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.win:
        return ()
    colour = palette.players[view.winner]
    line = dimmed(colour, palette.win_line_level)
    head = win_head(view, now, palette)
    bright = dimmed(colour, palette.blink_level)
    return ((place, bright if i == head else line) for i, place in enumerate(view.win))


def _due(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.due:
        return ()
    colour = dimmed(palette.players[view.to_move], palette.due_level)
    return ((place, colour) for place in view.due)


def _targets(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.targets:
        return ()
    colour = dimmed(palette.players[view.to_move], palette.target_level)
    return ((place, colour) for place in view.targets)


def _last_move(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.last_move:
        return ()
    seat = view.last_mover
    colour = dimmed(palette.players[seat], palette.last_move_level)
    return ((place, colour) for place in view.last_move)


def _attract(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.attract:
        return ()
    levels = attract_levels(view, now, palette)
    return (
        (place, dimmed(palette.players[seat], level))
        for place, (seat, level) in zip(view.attract, levels, strict=True)
    )


def _out_of_order(view: View, now: float, palette: Palette) -> Iterable[tuple[Place, RGB]]:
    if not view.out_of_order:
        return ()
    colour = dimmed(palette.alert, palette.out_of_order_level)
    return ((place, colour) for place in view.out_of_order)


LAYERS: Mapping[str, Layer] = {
    "out_of_order": _out_of_order,
    "error": _error,
    "remove": _remove,
    "put_back": _put_back,
    "obligation": _obligation,
    "win": _win,
    "due": _due,
    "targets": _targets,
    "last_move": _last_move,
    "attract": _attract,
}
_ORDERED = tuple(LAYERS[name] for name in PRECEDENCE)


def render(view: View, spec: BoardSpec, now: float, palette: Palette = DEFAULT) -> list[RGB]:
    """The frame for `view` at `now`, one colour per LED in chain order, before any power cap
    and at the colours' full scale (the driver applies the board's brightness)."""
    if view.players > len(palette.players):
        raise ValueError(
            f"the palette has colours for {len(palette.players)} seats, "
            f"not the {view.players} players of this view"
        )
    board = layout(spec)
    frame = [OFF] * board.count
    owned: set[int] = set()
    index = board.index
    for paint in _ORDERED:
        for place, colour in paint(view, now, palette):
            led = index.get(place)
            if led is not None and led not in owned:
                owned.add(led)
                frame[led] = colour
    _status(frame, view, now, palette, board)
    return frame


def _status(frame: list[RGB], view: View, now: float, palette: Palette, board: Layout) -> None:
    """Seat LEDs of the seats in play: the winner's colour on all at a win, each seat's own
    colour breathing at a draw, else the mover's alone. Steady while play goes on, so a board
    where nothing happens needs no writes."""
    for seat in range(view.players):
        led = board.seats.get(seat)
        if led is None:
            continue
        if view.winner is not None:
            frame[led] = dimmed(palette.players[view.winner], palette.blink_level)
        elif view.draw:
            frame[led] = dimmed(palette.players[seat], draw_level(view, now, palette))
        elif seat == view.flagged:
            flashing = flag_flashing(view, now, palette)
            flag = Meaning.FLAGGED
            shown = level(view, now, flag, palette) if flashing else palette.pattern(flag).levels[0]
            frame[led] = dimmed(palette.alert, shown)
        elif seat == view.to_move:
            shown = level(view, now, clock_meaning(view), palette)
            frame[led] = dimmed(palette.players[seat], shown)
    if view.fault and board.alert is not None:
        frame[board.alert] = dimmed(palette.alert, level(view, now, Meaning.ALERT, palette))
