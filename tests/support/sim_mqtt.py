"""A simulated board reporting to a broker over MQTT, for tests: the board runs in virtual time,
the network in real time, so waits for what the board publishes step the board and poll."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from magboard.firmware.app.mqtt import MqttLink
from magboard.firmware.app.mqtt_settings import settings
from magboard.sim.session import SimSession


class Board:
    """A simulated board on the broker, driven in virtual time."""

    def __init__(self, url: str, board_id: str, tmp_path: Path, wall=None, **changes) -> None:
        """`changes`: to the MQTT settings; `wall`: the time of day the link reads (the real
        one unless given)."""
        self.session = SimSession("mini", "tic-tac-toe", journal=tmp_path / f"{board_id}.db")
        self.session.lay_out()
        thermal = tmp_path / f"{board_id}-temp"
        thermal.write_text("48312\n")
        chosen = dataclasses.replace(settings(url, board_id), **changes)
        timed = {"wall": wall} if wall is not None else {}
        self.link = MqttLink(chosen, self.session.loop, thermal=thermal, **timed)
        self.session.start()

    @property
    def events(self):
        return self.session.events

    def play(self, *moves: str) -> None:
        for move in moves:
            self.session.perform(self.session.state.parse_action(move))
            self.session.settle()

    def until(self, seen, timeout: float = 5.0, step: float = 0.1):
        """Steps the board `step` virtual seconds at a time until `seen()` says something
        (None after `timeout` wall seconds); between steps, waits (briefly) for the broker to
        say something to the board, so virtual time does not race ahead of the network."""
        deadline = time.monotonic() + timeout
        heard = self.link.heard
        while time.monotonic() < deadline:
            heard.clear()
            self.session.run_for(step)
            found = seen()
            if found:
                return found
            heard.wait(0.05)
        return None

    def close(self) -> None:
        self.link.close()
