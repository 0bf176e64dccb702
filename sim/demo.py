"""`magboard demo`: a random legal game played by hand on a simulated board, drawn as it goes.

Every step is drawn in the terminal: the part of the lattice the game uses (the whole lattice on
a small board), the trays beside it, and the status LEDs. Each cell and tray slot shows its piece
on the colour of the LED beneath it, read back from the bytes sent to the NeoPixel chain. LEDs run
at a fraction of full power and dim meanings (a legal target) are darker still, so colours are
brightened for the screen (gamma 0.4, hue kept). Under each drawing, one line per thing the
referee said. Without a terminal (a log, a pipe) the drawing is plain text: a lit LED is shown as
brackets around its place.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from magboard.firmware.app.errors import CommandError
from magboard.firmware.events import (
    Event,
    GameOver,
    LedFrame,
)
from magboard.firmware.games import Action, Game, get_game
from magboard.firmware.words import Describer
from magboard.hardware.spec import BoardSpec, Place, Slot, cell_label, load_board

from .session import SimSession

RGB = tuple[int, int, int]
MARGIN = 1
"""Cells shown around the game's area on a large board."""
WHOLE = 64
"""A lattice of at most this many cells is shown whole."""
OFF_BACKGROUND: RGB = (30, 30, 30)
"""A dark LED, so the grid stays visible."""
GAMMA = 0.4
END_PAUSE = 1.5
"""Virtual seconds the final position is left to show its winning line."""


def brighten(colour: RGB) -> RGB:
    """An LED colour as the eye sees it on the board, for a screen: gamma-lifted."""
    return tuple(round(255 * (c / 255) ** GAMMA) for c in colour)  # type: ignore[return-value]


def _ansi(text: str, background: RGB) -> str:
    r, g, b = background
    light = 0.299 * r + 0.587 * g + 0.114 * b > 140
    fg = "30" if light else "97"
    return f"\x1b[1;{fg};48;2;{r};{g};{b}m{text}\x1b[0m"


class Picture:
    """Draws a board: its pieces (from the world) on the colours of its LEDs."""

    def __init__(self, session: SimSession, colour: bool) -> None:
        self.session = session
        self.spec: BoardSpec = session.spec
        self.colour = colour
        spec = self.spec
        if spec.columns * spec.rows <= WHOLE:
            cols, rows = range(spec.columns), range(spec.rows)
        else:
            width, height = session.profile.game.board
            x0, y0 = session.profile.origin
            cols = range(max(0, x0 - MARGIN), min(spec.columns, x0 + width + MARGIN))
            rows = range(max(0, y0 - MARGIN), min(spec.rows, y0 + height + MARGIN))
        self.columns, self.rows = cols, rows

    def _place(self, place: Place, leds: Sequence[RGB]) -> str:
        stack = self.session.world.pieces_at(place) if self._exists(place) else ()
        if not stack:
            label = "·" if self.colour else "."
        else:
            label = stack[-1].kind.name[:2]
            if len(stack) > 1 and len(label) == 1:
                label += str(len(stack))
        led = self.spec.led_index.get(place)
        lit = led is not None and any(leds[led])
        if self.colour:
            background = brighten(leds[led]) if lit else OFF_BACKGROUND
            return _ansi(label.center(3), background)
        return f"[{label:^1}]" if lit else f" {label:^1} "

    def _exists(self, place: Place) -> bool:
        return isinstance(place, Slot) or place not in self.spec.holes

    def _lattice(self, leds: Sequence[RGB]) -> list[str]:
        lines = []
        for row in reversed(self.rows):
            cells = "".join(self._place((col, row), leds) for col in self.columns)
            lines.append(f"{row + 1:>2} {cells}")
        letters = "".join(cell_label((col, 0))[0].center(3) for col in self.columns)
        lines.append(f"   {letters}")
        return lines

    def _tray(self, name: str, leds: Sequence[RGB]) -> list[str]:
        tray = self.spec.tray(name)
        lines = [f"tray {name}"]
        number = 1
        for count in tray.rows:
            slots = [Slot(name, n) for n in range(number, number + count)]
            lines.append("".join(self._place(slot, leds) for slot in slots))
            number += count
        return lines

    def _status(self, leds: Sequence[RGB]) -> str:
        parts = []
        for name, led in self.spec.led_index.items():
            if not isinstance(name, str):
                continue
            colour = leds[led]
            if self.colour:
                swatch = _ansi("   ", brighten(colour) if any(colour) else OFF_BACKGROUND)
            else:
                swatch = "[on]" if any(colour) else "[  ]"
            parts.append(f"{name} {swatch}")
        return "   ".join(parts)

    def draw(self) -> str:
        leds = self.session.board.visible_leds()
        blocks: list[list[str]] = []
        for tray in self.spec.trays:
            if tray.side == "left":
                blocks.append(self._tray(tray.name, leds))
        blocks.append(self._lattice(leds))
        for tray in self.spec.trays:
            if tray.side != "left":
                blocks.append(self._tray(tray.name, leds))
        lines = _side_by_side(blocks, self.colour)
        status = self._status(leds)
        if status:
            lines.append(f"   {status}")
        hand = self.session.world.hand
        if hand:
            lines.append(f"   in the hand: {' '.join(p.kind.name for p in hand)}")
        return "\n".join(lines)


def _visible_width(text: str, colour: bool) -> int:
    if not colour:
        return len(text)
    width, escape = 0, False
    for char in text:
        if char == "\x1b":
            escape = True
        elif escape:
            escape = char != "m"
        else:
            width += 1
    return width


def _side_by_side(blocks: Sequence[list[str]], colour: bool, gap: int = 4) -> list[str]:
    height = max(len(block) for block in blocks)
    widths = [max(_visible_width(line, colour) for line in block) for block in blocks]
    lines = []
    for i in range(height):
        parts = []
        for block, width in zip(blocks, widths, strict=True):
            line = block[i] if i < len(block) else ""
            parts.append(line + " " * (width - _visible_width(line, colour)))
        lines.append((" " * gap).join(parts).rstrip())
    return lines


class Demo:
    """Plays one random game on a simulated board, drawing each step as the referee answers."""

    def __init__(
        self,
        board: str | BoardSpec,
        game: Game,
        options: dict[str, Any],
        seed: int,
        *,
        speed: float = 4.0,
        out: TextIO | None = None,
        colour: bool | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.out = out or sys.stdout
        self.colour = self.out.isatty() if colour is None else colour
        self.speed = speed
        self.sleep = sleep
        self.game = game
        self.seed = seed
        self.rng = random.Random(seed)
        self.words = Describer()
        self.session = SimSession(board, game.name, options, seed=seed, sinks=[self._on_event])
        self.picture = Picture(self.session, self.colour)
        self._pending: list[str] = []
        self._shown_at = 0.0
        self.over: GameOver | None = None

    def _on_event(self, event: Event) -> None:
        if isinstance(event, GameOver):
            self.over = event
        if isinstance(event, LedFrame):
            if self._pending:
                self._show(event.t)
            return
        line = None if isinstance(event, LedFrame) else self.words.text(event)
        if line is not None:
            self._pending.append(f"{event.t:7.2f}s  {line}")

    def _show(self, now: float) -> None:
        """Draws the board under what happened since the last drawing, at the pace asked."""
        if self.speed > 0 and now > self._shown_at:
            self.sleep((now - self._shown_at) / self.speed)
        self._shown_at = now
        text = "\n".join([*self._pending, self.picture.draw(), ""])
        self._pending = []
        self.out.write(text + "\n")
        self.out.flush()

    def _choose(self) -> Action | None:
        state = self.session.state
        profile = self.session.profile
        physical = [a for a in state.legal_actions() if profile.plan(state, a)]
        return self.rng.choice(physical) if physical else None

    def run(self) -> GameOver | None:
        session, spec = self.session, self.session.spec
        self.out.write(
            f"magboard demo: {self.game.title} on {spec.name} ({spec.title}), seed {self.seed}\n"
            + (
                "Cells and tray slots show their pieces on the colour of the LED beneath,"
                " brightened for the screen.\n\n"
                if self.colour
                else "Cells and tray slots show their pieces; [ ] marks a lit LED.\n\n"
            )
        )
        session.lay_out()
        session.start()
        session.settle()
        while session.state.outcome() is None:
            action = self._choose()
            if action is None:
                break
            session.perform(action)
            session.settle()
            if self._pending:
                self._show(session.clock.now())
        session.run_for(END_PAUSE)
        if self._pending:
            self._show(session.clock.now())
        if self.over is not None:
            self.out.write(f"Result: {self.words.result}.\n")
        else:
            self.out.write("Result: the game stopped without an end.\n")
        self.out.flush()
        return self.over


def main(args: argparse.Namespace) -> int:
    if args.speed < 0:
        raise CommandError(f"--speed is 0 (no waiting) or more, not {args.speed}")
    game = get_game(args.game)
    options = game.parse_options(args.option)
    spec = load_board(args.board)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    try:
        Demo(spec, game, options, seed, speed=args.speed).run()
    except BrokenPipeError:  # the reader went away (`| head`): nothing left to show
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
