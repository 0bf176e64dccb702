"""The world channel: the board's physical side, controlled from outside the machine.

Newline-delimited JSON on the virtio-serial port `org.magboard.world` (the host's end is a unix
socket of `sim.machine.vm.Machine`). Each request is an object with an `id` (any JSON value,
given back) and an `op`; each reply has the same `id` and either `result` or `error` (a message
saying what was wrong). A bad request gets an error reply; nothing a request says stops the
daemon. Requests are answered in order, one at a time.

Places are written as the rest of the project writes them (`hardware.spec.place_label`): cells
`a1`..`l12`, tray slots `A1`, `B18`. A piece is of a kind with a name and the channels its
magnets trip (`magnets`, as `sim.world.PieceKind`'s signature); a kind's magnets are given the
first time it is used, and the name is enough afterwards.

    {"id": 1, "op": "put", "place": "c3", "kind": "X", "magnets": ["s"]}   a new piece put down
    {"id": 2, "op": "put", "place": "d4"}         the piece in the hand (last lifted) put down
    {"id": 3, "op": "lift", "place": "c3"}        the top piece taken into the hand
    {"id": 4, "op": "move", "from": "c3", "to": "d4"}
    {"id": 5, "op": "slide", "from": "c3", "path": ["c4", "c5"], "step": 0.12}
    {"id": 6, "op": "press", "button": "seat-1"}  held until "release"
    {"id": 7, "op": "press", "button": "seat-1", "hold": 0.2}   let go after 0.2 s
    {"id": 8, "op": "release", "button": "seat-1"}
    {"id": 9, "op": "clear"}                      every piece and tile off the board and the hand
    {"id": 10, "op": "hang_i2c", "bus": "main", "timeout": null}    and "release_i2c"
    {"id": 11, "op": "kill_expander", "expander": 0}   "revive_expander", "reset_expander"
    {"id": 12, "op": "i2c_errors", "expander": 0, "count": 3}
    {"id": 13, "op": "leds"}      {"frames": n, "age": s, "colours": [[r, g, b], ...]}
    {"id": 14, "op": "pieces"}    {"board": {"c3": ["X#1"], ...}, "hand": [...]}
    {"id": 15, "op": "status"}    the board, the clock, the lines' levels, held buttons, gpiochip

The world runs on the daemon's clock, real time in the machine, so a press with a hold lets go
and a slide moves on while the channel answers other requests.

Pieces stay on a real board through a power cut. So with a `pieces` file (the daemon's
`--pieces`), what stands where is written there after every request that may change it, and put
back, instantly, when the daemon starts again: the board the service finds after a reboot is
the one it left. A slide still under way is written where it started.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from magboard.hardware.spec import BoardSpec, Place, place_label
from magboard.sim.world import PieceKind, World, WorldError
from magboard.sim.ws2812 import MalformedStreamError, colours, from_spi

from .electronics import BoardElectronics
from .stall import Stall

log = logging.getLogger(__name__)

PORT_NAME = "org.magboard.world"
CHANGES = frozenset({"put", "lift", "move", "slide", "clear"})
"""The requests that may change what stands where."""
PORTS = Path("/sys/class/virtio-ports")


class RequestError(ValueError):
    """A request that cannot be carried out: its reply's `error`."""


class ControlledBoard(Protocol):
    """What the channel works on: the daemon's world, its electronics and the faults it can
    cause. Declared here, so the channel needs nothing of the daemon that serves it."""

    spec: BoardSpec
    world: World
    electronics: BoardElectronics
    stalls: dict[str, Stall]

    def hang_i2c(self, bus: str | None = None, timeout: float | None = None) -> None: ...

    def release_i2c(self, bus: str | None = None) -> None: ...

    def kill_expander(self, expander: int) -> None: ...

    def revive_expander(self, expander: int) -> None: ...


class WorldControl:
    """Answers the channel's requests on a daemon's world, electronics and faults."""

    def __init__(
        self,
        daemon: ControlledBoard,
        gpiochip: Callable[[], int | None] = lambda: None,
        pieces: Path | None = None,
    ) -> None:
        self.daemon = daemon
        self.pieces_file = pieces
        self.spec = daemon.spec
        self.world = daemon.world
        self.electronics = daemon.electronics
        self._gpiochip = gpiochip
        self._places: dict[str, Place] = {
            place_label(place): place for place in (*self.spec.cells, *self.spec.slots)
        }
        self._kinds: dict[str, PieceKind] = {}
        self._buttons = {b.name: b.gpio for b in self.spec.buttons}
        self._ops: dict[str, Callable[[dict], Any]] = {
            name.removeprefix("op_"): getattr(self, name)
            for name in dir(self)
            if name.startswith("op_")
        }

    def handle(self, request: object) -> dict:
        """The reply to one request (already parsed from JSON)."""
        if not isinstance(request, dict):
            return {"id": None, "error": "a request is a JSON object with an id and an op"}
        reply: dict = {"id": request.get("id")}
        op = request.get("op")
        handler = self._ops.get(op) if isinstance(op, str) else None
        if handler is None:
            return {**reply, "error": f"unknown op {op!r}; ops: {', '.join(sorted(self._ops))}"}
        try:
            with self.electronics.lock:
                result = handler(request)
        except (RequestError, WorldError) as error:
            return {**reply, "error": str(error)}
        except (KeyError, ValueError, TypeError) as error:
            return {**reply, "error": f"{op}: {error}"}
        except Exception as error:  # a bug: said, logged, and the channel goes on
            log.exception("op %s failed", op)
            return {**reply, "error": f"{op} failed: {type(error).__name__}: {error}"}
        finally:
            if op in CHANGES:
                self.save_pieces()
        return {**reply, "result": result}

    # The pieces kept through a power cut.

    def save_pieces(self) -> None:
        """Writes what stands where to the pieces file (atomically), if there is one."""
        if self.pieces_file is None:
            return
        with self.electronics.lock:
            kinds = {name: sorted(kind.signature) for name, kind in self._kinds.items()}
            board = {
                place_label(place): [piece.kind.name for piece in stack]
                for place, stack in self.world.occupied().items()
            }
        text = json.dumps(
            {"name": self.spec.name, "kinds": kinds, "board": board}, indent=1, sort_keys=True
        )
        temporary = self.pieces_file.with_name(f".{self.pieces_file.name}.tmp")
        try:
            self.pieces_file.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "w") as file:
                file.write(text + "\n")
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.pieces_file)
        except OSError as error:
            log.error("cannot keep the pieces in %s: %s", self.pieces_file, error)

    def restore_pieces(self) -> int:
        """Puts back, instantly, the pieces the file says stood on the board; how many (none
        from another board's file)."""
        if self.pieces_file is None or not self.pieces_file.exists():
            return 0
        try:
            saved = json.loads(self.pieces_file.read_text())
            if saved.get("name", self.spec.name) != self.spec.name:
                log.info("%s is board %s's, not this one's", self.pieces_file, saved["name"])
                return 0
            count = 0
            with self.electronics.lock:
                for name, magnets in saved["kinds"].items():
                    self._kinds.setdefault(name, PieceKind(name, frozenset(magnets)))
                for label, stack in saved["board"].items():
                    for name in stack:
                        self.world.add(self._kinds[name], self._places[label])
                        count += 1
        except (OSError, ValueError, KeyError, TypeError, WorldError) as error:
            log.error("cannot put back the pieces of %s: %s", self.pieces_file, error)
            return 0
        return count

    def handle_line(self, line: bytes) -> dict:
        try:
            request = json.loads(line)
        except ValueError as error:
            return {"id": None, "error": f"not JSON: {error}"}
        return self.handle(request)

    # Hands.

    def op_put(self, request: dict) -> dict:
        place = self._place(request, "place")
        if request.get("kind") is None:
            piece = self.world.put(place)
        else:
            piece = self.world.add(self._kind(request), None)
            try:
                self.world.put(place, piece)
            except WorldError:
                self.world.put_away(piece)
                raise
        return {"piece": str(piece), "place": place_label(place)}

    def op_lift(self, request: dict) -> dict:
        place = self._place(request, "place")
        piece = self.world.lift(place)
        if request.get("away", False):
            self.world.put_away(piece)
        return {"piece": str(piece)}

    def op_move(self, request: dict) -> dict:
        src, dst = self._place(request, "from"), self._place(request, "to")
        return {"piece": str(self.world.move(src, dst))}

    def op_slide(self, request: dict) -> dict:
        src = self._place(request, "from")
        path = request.get("path")
        if not isinstance(path, list) or not path:
            raise RequestError("slide: 'path' is a list of cells to slide across")
        cells = [self._label(label, "path") for label in path]
        step = self._number(request, "step", 0.12)
        end = self.world.slide(src, cells, step)  # type: ignore[arg-type]
        return {"ends_in": max(0.0, end - self.world.clock.now())}

    def op_press(self, request: dict) -> dict:
        button = self._button(request)
        hold = request.get("hold")
        if hold is None:
            self.electronics.press(button)
        else:
            self.world.press(button, self._number(request, "hold"))
        return {"button": button}

    def op_release(self, request: dict) -> dict:
        button = self._button(request)
        self.electronics.release(button)
        return {"button": button}

    def op_clear(self, request: dict) -> dict:
        removed = 0
        for place, stack in self.world.occupied().items():
            for _ in stack:
                self.world.put_away(self.world.lift(place))
                removed += 1
        while self.world.hand:
            self.world.put_away()
            removed += 1
        for tile in list(self.world.tiles):
            self.world.take_tile(tile)
        return {"removed": removed}

    # Faults.

    def op_hang_i2c(self, request: dict) -> dict:
        timeout = request.get("timeout")
        self.daemon.hang_i2c(request.get("bus"), None if timeout is None else float(timeout))
        return {}

    def op_release_i2c(self, request: dict) -> dict:
        self.daemon.release_i2c(request.get("bus"))
        return {}

    def op_kill_expander(self, request: dict) -> dict:
        self.daemon.kill_expander(self._expander(request))
        return {}

    def op_revive_expander(self, request: dict) -> dict:
        self.daemon.revive_expander(self._expander(request))
        return {}

    def op_reset_expander(self, request: dict) -> dict:
        self.world.reset_expander(self._expander(request))
        return {}

    def op_i2c_errors(self, request: dict) -> dict:
        count = request.get("count", 1)
        if not isinstance(count, int) or count < 1:
            raise RequestError(f"i2c_errors: 'count' is a number of errors, not {count!r}")
        self.world.inject_i2c_errors(self._expander(request), count)
        return {}

    # Queries.

    def op_leds(self, request: dict) -> dict:
        """The colours of the last SPI transfer as the LED chain decodes it."""
        wire = self.electronics.led_wire
        leds = self.spec.leds
        result: dict = {"frames": wire.count, "age": None, "colours": None}
        if not wire.transfers:
            return result
        last = wire.transfers[-1]
        result["age"] = time.monotonic() - last.at
        try:
            data = from_spi(last.data, leds.colours)
            result["colours"] = [list(c) for c in colours(data, leds.order)]
        except (MalformedStreamError, ValueError) as error:
            result["malformed"] = str(error)
        return result

    def op_pieces(self, request: dict) -> dict:
        board = {
            place_label(place): [str(piece) for piece in stack]
            for place, stack in self.world.occupied().items()
        }
        return {"board": board, "hand": [str(piece) for piece in self.world.hand]}

    def op_status(self, request: dict) -> dict:
        electronics = self.electronics
        return {
            "board": self.spec.name,
            "time": self.world.clock.now(),
            "gpiochip": self._gpiochip(),
            "interrupts": {
                f"GPIO{gpio}": line.level for gpio, line in electronics.interrupt_lines.items()
            },
            "buttons": {
                name: {"gpio": self._buttons[name], "held": line.level == 0}
                for name, line in electronics.button_lines.items()
            },
            "i2c_hung": sorted(name for name, stall in self.daemon.stalls.items() if stall.engaged),
        }

    # Reading requests.

    def _place(self, request: dict, key: str) -> Place:
        return self._label(request.get(key), key)

    def _label(self, label: object, key: str) -> Place:
        if not isinstance(label, str):
            raise RequestError(f"'{key}' is a place like a1 or A1, not {label!r}")
        try:
            return self._places[label]
        except KeyError:
            raise RequestError(f"board {self.spec.name} has no place {label!r}") from None

    def _kind(self, request: dict) -> PieceKind:
        name = request["kind"]
        if not isinstance(name, str) or not name:
            raise RequestError(f"'kind' is a piece kind's name, not {name!r}")
        magnets = request.get("magnets")
        known = self._kinds.get(name)
        if magnets is None:
            if known is None:
                raise RequestError(
                    f"piece kind {name!r} is new: say which channels its magnets trip "
                    f"('magnets', of {', '.join(c.name for c in self.spec.channels)})"
                )
            return known
        if not isinstance(magnets, list) or not all(isinstance(m, str) for m in magnets):
            raise RequestError(f"'magnets' is a list of channel names, not {magnets!r}")
        kind = PieceKind(name, frozenset(magnets))
        if known is not None and known.signature != kind.signature:
            raise RequestError(
                f"piece kind {name!r} trips {', '.join(sorted(known.signature))}, "
                f"not {', '.join(sorted(kind.signature))}"
            )
        self.world._check_kind(kind)
        self._kinds[name] = known or kind
        return self._kinds[name]

    def _button(self, request: dict) -> str:
        button = request.get("button")
        if button not in self._buttons:
            raise RequestError(
                f"board {self.spec.name} has no button {button!r} ({', '.join(self._buttons)})"
            )
        return button

    def _expander(self, request: dict) -> int:
        expander = request.get("expander")
        if not isinstance(expander, int) or not 0 <= expander < len(self.spec.expanders):
            raise RequestError(
                f"board {self.spec.name} has expanders 0..{len(self.spec.expanders) - 1}, "
                f"not {expander!r}"
            )
        return expander

    @staticmethod
    def _number(request: dict, key: str, default: float | None = None) -> float:
        value = request.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RequestError(f"'{key}' is a number of seconds, not {value!r}")
        if not math.isfinite(value) or value < 0:
            raise RequestError(f"'{key}' is a number of seconds, not {value!r}")
        return float(value)


def find_port(name: str = PORT_NAME, ports: Path = PORTS) -> Path | None:
    """The /dev/vportNpM of the virtio-serial port called `name` (found by the name the host
    gave it, without waiting for udev's /dev/virtio-ports links)."""
    for port in sorted(ports.glob("*")) if ports.is_dir() else []:
        try:
            if (port / "name").read_text().strip() == name:
                return Path("/dev") / port.name
        except OSError:
            continue
    return None


class PortServer:
    """Serves a `WorldControl` on the virtio-serial port `name` until stopped, opening the port
    again whenever the host's end goes away (reading gives end of file)."""

    def __init__(self, control: WorldControl, name: str = PORT_NAME, ports: Path = PORTS) -> None:
        self.control, self.name, self.ports = control, name, ports
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="world channel", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        said = False
        while not self._stop.is_set():
            device = find_port(self.name, self.ports)
            if device is None or not device.exists():
                if not said:
                    log.info("waiting for the virtio-serial port %s", self.name)
                    said = True
                self._stop.wait(0.5)
                continue
            try:
                fd = os.open(device, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
            except OSError as error:
                log.error("cannot open %s: %s", device, error)
                self._stop.wait(1.0)
                continue
            try:
                self.serve(fd)
            except OSError as error:
                log.warning("%s: %s", device, error)
            finally:
                os.close(fd)
            self._stop.wait(0.2)  # end of file: the host went away; wait for it to come back

    def serve(self, fd: int) -> None:
        """Answers requests from `fd` until end of file."""
        buffer = b""
        while chunk := os.read(fd, 65536):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if not line.strip():
                    continue
                reply = self.control.handle_line(line)
                data = (json.dumps(reply) + "\n").encode()
                with contextlib.suppress(OSError):  # the host went away: it will not read it
                    while data:
                        data = data[os.write(fd, data) :]
