"""The real board on a Raspberry Pi: Blinka's I2C, the RPi.GPIO API, adafruit_neopixel.

Only this module imports the board's pins, RPi.GPIO and the NeoPixel pin; it is never imported in
CI. On Raspberry Pi OS Bookworm (kernel 6.6+) RPi.GPIO's edge detection fails and on a Pi 5 it
cannot start: install the `pi` extra, which brings rpi-lgpio, the same `RPi.GPIO` module on
lgpio (it conflicts with the RPi.GPIO package: have only one).

Threads: RPi.GPIO calls edge callbacks on its own thread; they only set an event and queue button
events. The buses are touched only by the thread that calls `scan` and `show`.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from .expanders import ExpanderArray
from .interface import RGB, ButtonEvent, Fault, Scan
from .leds import LedChain
from .spec import BoardSpec

BUTTON_BOUNCE_MS = 20


class HardwareUnavailableError(RuntimeError):
    """This machine cannot drive a real board (not a Pi, or a library is missing)."""


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


class PiBoard:
    """Implements `hardware.interface.Board` on a Raspberry Pi."""

    def __init__(self, spec: BoardSpec) -> None:
        # Blinka may offer to pip-install platform packages at `import board` on a terminal.
        os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
        try:
            import board
            import busio
            import RPi.GPIO as GPIO
        except (ImportError, RuntimeError, NotImplementedError) as error:
            raise HardwareUnavailableError(
                f"cannot drive a real board here ({error}); on a Pi install the pi extra "
                "(pip install 'magboard[pi]'), elsewhere run with --sim"
            ) from error
        self.spec = spec
        self.clock = MonotonicClock()
        self._gpio = GPIO
        self._wake = threading.Event()
        self._events: deque[ButtonEvent] = deque()
        self.buses: dict[str, Any] = {
            bus.name: busio.I2C(
                getattr(board, bus.scl), getattr(board, bus.sda), frequency=bus.frequency
            )
            for bus in spec.buses
        }
        self.expanders = ExpanderArray(spec, self.buses, self.clock)
        GPIO.setmode(GPIO.BCM)
        self._interrupts = sorted({e.interrupt for e in spec.expanders if e.interrupt is not None})
        for pin in self._interrupts:
            GPIO.setup(pin, GPIO.IN, pull_up_down=GPIO.PUD_UP)
            GPIO.add_event_detect(pin, GPIO.FALLING, callback=self._on_interrupt)
        self._buttons = {b.gpio: b.name for b in spec.buttons}
        for pin in self._buttons:
            GPIO.setup(pin, GPIO.IN, pull_up_down=GPIO.PUD_UP)
            GPIO.add_event_detect(
                pin, GPIO.BOTH, callback=self._on_button, bouncetime=BUTTON_BOUNCE_MS
            )
        self.leds = LedChain(spec, getattr(board, spec.leds.pin))

    def _on_interrupt(self, pin: int) -> None:
        self._wake.set()

    def _on_button(self, pin: int) -> None:
        pressed = self._gpio.input(pin) == 0
        self._events.append(ButtonEvent(self._buttons[pin], pressed, self.clock.now()))
        self._wake.set()

    def scan(self) -> Scan:
        return self.expanders.scan()

    def verify(self) -> tuple[Fault, ...]:
        return self.expanders.verify()

    def wait_for_change(self, timeout: float) -> bool:
        if not self._interrupts:  # no INT line wired: a poll, woken early only by a button
            self._wake.wait(timeout)
            self._wake.clear()
            return True
        # Level first: an INT line still low means a change not yet read, edge or no edge.
        if any(self._gpio.input(pin) == 0 for pin in self._interrupts):
            return True
        fired = self._wake.wait(timeout)
        self._wake.clear()
        return fired

    def show(self, pixels: Sequence[RGB]) -> None:
        self.leds.show(pixels)

    def button_events(self) -> list[ButtonEvent]:
        events = []
        while self._events:
            events.append(self._events.popleft())
        return events

    def held_buttons(self) -> frozenset[str]:
        return frozenset(name for pin, name in self._buttons.items() if self._gpio.input(pin) == 0)

    def close(self) -> None:
        self.leds.close()
        self._gpio.cleanup([*self._interrupts, *self._buttons])
        for bus in self.buses.values():
            bus.deinit()
