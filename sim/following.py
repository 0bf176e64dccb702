"""Simulated hands that make a move the board asks for by reading its lights alone: a turn
played on another board of a remote match, or the board's own turn when it plays a seat.

A person sees red blink where to take a piece from and a seat's colour where to put one, and does
that; nothing here reads the referee, so a test that uses these hands checks what the lights say.
"""

from __future__ import annotations

from collections.abc import Sequence

from magboard.firmware.lights.palette import DEFAULT
from magboard.hardware.interface import RGB
from magboard.hardware.spec import Place, place_label

from .session import HAND_PAUSE, SimSession

WATCH = 1.0
"""Virtual seconds a person watches the lights before acting: a slow blink's whole period."""


def shows(seen: RGB, colour: RGB) -> bool:
    """Whether an LED shows `colour` at some brightness: dark for "off"; else lit, with every
    channel in the colour's proportions (the driver's brightness and rounding aside)."""
    if max(colour) == 0:
        return max(seen) == 0
    if max(seen) == 0:
        return False
    scale = max(seen) / max(colour)
    tolerance = max(2.0, 0.06 * max(seen))
    return all(abs(s - c * scale) <= tolerance for s, c in zip(seen, colour, strict=True))


def follow_lights(session: SimSession, places: Sequence[str], pause: float = HAND_PAUSE) -> int:
    """What a person does who sees the board ask for a move made elsewhere: watches the LEDs
    under `places` for a blink's period, then takes a piece from each place blinking red and
    puts it on each place blinking in a seat's colour (a piece already in the hand first; with
    nothing to take, one from the game's box no sensor sees).
    Returns how many pieces were put down."""
    spec = session.spec
    by_label = {place_label(p): p for p in spec.led_index if not isinstance(p, str)}
    watched = [by_label[label] for label in places if label in by_label]
    take: list[Place] = []
    put: list[Place] = []
    for _ in range(round(WATCH / 0.1)):
        leds = session.board.visible_leds()
        for place in watched:
            seen = leds[spec.led_index[place]]
            if shows(seen, DEFAULT.remove) and place not in take:
                take.append(place)
            elif place not in put and any(shows(seen, c) for c in DEFAULT.players):
                put.append(place)
        session.run_for(0.1)
    # A place that blinked red is one to take from, whatever it showed before the lights caught
    # up with the board (a last move's soft colour, as a takeback under way begins).
    put = [place for place in put if place not in take]
    world, done = session.world, 0
    for target in put:
        if world.hand:
            piece = world.hand[-1]
        elif take:
            piece = world.lift(take.pop(0))
            session.run_for(pause / 2)
        elif (box := _box(session)) is not None:
            piece = session.take(box)
        else:
            break
        world.put(target, piece)
        session.run_for(pause / 2)
        done += 1
    for source in take:  # taken off, nowhere to go: into the box
        world.put_away(world.lift(source))
        session.run_for(pause / 2)
    return done


def _box(session: SimSession) -> str | None:
    """Where a hand takes a piece no light tells it to take: the game's first box no sensor
    sees (Magnetmen's tokens, put down collected side up), if it has one."""
    return next((s.name for s in session.profile.supplies if not s.sensed), None)
