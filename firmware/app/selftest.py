"""The self-test: every square of a board checked with a person's help, on any `Board`.

For the operator of a board that runs unattended: before opening, or after a repair, it finds
what a game would stumble on, square by square, and says it in the board's own names.

1. Expanders that do not answer. The drivers set every chip up when the board opens; one that
   never acknowledges is blind in every scan (and named by an `expander-lost` fault). Its squares
   are listed under it rather than as fourteen dead sensors, and its sensors are left out of
   every later judgement: a square with all its sensors there is not lit (its LED waits for the
   re-test too), one with some elsewhere is checked on those. One lost during the test (a
   fault, and no `expander-back`) joins the list.
2. Stuck sensors. Every square is lit in one colour (`CLEAR`: the lights' "take it off" red) and
   the board must read empty for `SETTLE_SECONDS`; after `clear_seconds` every sensor that still
   reads a magnet is stuck. Stuck sensors are then ignored: a square with a stuck switch is
   still checked with its other switches.
3. Each square in turn, along the LED chain's serpentine (the person's hand goes back and forth,
   not back to the left edge every row), lit in `PLACE` (white: the most visible colour, so a
   dark square means a dead LED and not a dim one). The person puts a magnet on it and lifts it,
   as often as it takes: the square passes when every sensor of it in the tested channels has
   seen a magnet and all of them read nothing again. A switch sees only its own pole and radius
   (r1's cells have a north and a south centre switch and two rings), so a test puck with ring
   magnets, put down once on each face, proves them all; `channels` narrows the test for a
   person holding a plain magnet. When `square_seconds` run out:
   - sensors of the square that never saw a magnet are dead, unless a sensor elsewhere saw one
     while the square was lit: then the square is crossed, naming the sensors that did. That is
     the more useful reading because a dead switch and a swapped wire need different repairs, and
     a swapped pair shows as two crossings that name each other. A magnet that lands elsewhere
     and is then moved onto the lit square is a slip of the hand, and the square passes;
   - sensors that saw it but still read a magnet are stuck: the magnet was lifted, or the person
     has left it there, and either way the square must be looked at.
4. Dead LEDs. NeoPixels cannot be read back on this wiring, so the person tells: pressing the
   board's `menu` button (`new` on a board without one) while a square should be lit means "I
   cannot see it". The square's LED is dead, and its sensors are not checked: the person cannot
   tell which square is meant, so a guessed square would add false dead or crossed sensors to a
   square that fails anyway, and the re-test after the LED is replaced checks them. A board with
   no button cannot be told, and a dark square then shows as dead sensors.
5. The bus: every scan says how many I2C transactions it made and how many failed; retries hide
   errors from the frame, so the rate over the whole test is what shows a bus going bad.

Time is the board's clock throughout, so on the simulator the test runs in virtual time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from magboard.hardware.interface import RGB, Board, Scan
from magboard.hardware.spec import INPUT_PINS, BoardSpec, Expander, Place, Slot, place_label

from .selftest_report import Crossing, MissingExpander, SelfTestReport

DEFAULT_SQUARE_SECONDS = 10.0
DEFAULT_CLEAR_SECONDS = 30.0
DEFAULT_ERROR_RATE_LIMIT = 0.001
"""One failed transfer in a thousand: the retries still cover it, but a healthy bus shows none."""
SETTLE_SECONDS = 1.0
"""How long the board must read empty before the squares start: a hand still clearing it
would otherwise leave a magnet behind."""
POLL_SECONDS = 0.05
"""Between scans on a board with a chip that has no interrupt line."""
CLEAR: RGB = (160, 0, 0)
PLACE: RGB = (255, 255, 255)
DARK: RGB = (0, 0, 0)
BUTTONS = ("menu", "new")
"""The "I cannot see it" button, in order of preference: ones a player seldom needs."""


class SelfTestError(ValueError):
    """Options the board cannot take: a channel or button it does not have."""


@dataclass(frozen=True)
class SelfTestOptions:
    square_seconds: float = DEFAULT_SQUARE_SECONDS
    clear_seconds: float = DEFAULT_CLEAR_SECONDS
    channels: frozenset[str] | None = None
    """The cell channels the magnet must trip; None: all the board's channels."""
    button: str | None = None
    """The "I cannot see it" button; None: `default_button`."""
    error_rate_limit: float = DEFAULT_ERROR_RATE_LIMIT


def default_button(spec: BoardSpec) -> str | None:
    names = [b.name for b in spec.buttons]
    return next((name for name in BUTTONS if name in names), names[-1] if names else None)


def check_options(spec: BoardSpec, options: SelfTestOptions) -> None:
    """Raises `SelfTestError` for options this board cannot take, before anything is lit."""
    known = {c.name for c in spec.channels}
    if options.channels is not None and not options.channels <= known:
        unknown = ", ".join(sorted(options.channels - known))
        raise SelfTestError(
            f"board {spec.name} has no channel {unknown} (channels: {_names(spec.channels)})"
        )
    if options.button is not None and options.button not in {b.name for b in spec.buttons}:
        raise SelfTestError(
            f"board {spec.name} has no button {options.button!r} (buttons: {_names(spec.buttons)})"
        )
    for name in ("square_seconds", "clear_seconds", "error_rate_limit"):
        if not getattr(options, name) >= 0:
            raise SelfTestError(f"{name.replace('_', ' ')} must not be negative")


def squares_in_order(spec: BoardSpec) -> list[Place]:
    """Cells along a serpentine from a1, then each tray's slots: every square with a sensor."""
    sensed = {s.place for s in spec.sensors}
    cells: list[Place] = []
    for row in range(spec.rows):
        columns = range(spec.columns) if row % 2 == 0 else reversed(range(spec.columns))
        cells += [(c, row) for c in columns if (c, row) in sensed]
    return cells + [slot for slot in spec.slots if slot in sensed]


def run_selftest(
    board: Board,
    options: SelfTestOptions | None = None,
    alive: Callable[[float], object] | None = None,
) -> SelfTestReport:
    """The self-test; `alive` is called with the time at every scan (systemd's watchdog, when
    the service runs it at start-up: a self-test takes minutes)."""
    return _SelfTest(board, options or SelfTestOptions(), alive).run()


class _SelfTest:
    """One run: the masks of what is known so far, and the findings."""

    def __init__(
        self, board: Board, options: SelfTestOptions, alive: Callable[[float], object] | None
    ) -> None:
        self.alive = alive
        spec = board.spec
        check_options(spec, options)
        self.board = board
        self.spec = spec
        self.options = options
        self.channels = tuple(
            c.name for c in spec.channels if options.channels is None or c.name in options.channels
        )
        channels = set(self.channels)
        self.button = options.button or default_button(spec)
        self.squares = squares_in_order(spec)
        self.sensors = _mask(s.bit for s in spec.sensors)
        self.bits_of: dict[Place, int] = {}
        self.required: dict[Place, int] = {}
        for s in spec.sensors:
            self.bits_of[s.place] = self.bits_of.get(s.place, 0) | 1 << s.bit
            if isinstance(s.place, Slot) or s.channel in channels:
                self.required[s.place] = self.required.get(s.place, 0) | 1 << s.bit
        self.chip_bits = {
            e.index: ((1 << len(INPUT_PINS)) - 1) << (e.index * len(INPUT_PINS))
            for e in spec.expanders
        }
        self.by_label = {e.label: e for e in spec.expanders}
        # Every board polls where a chip has no INT line: waiting on the line alone could miss it.
        self.polled = any(e.interrupt is None for e in spec.expanders)
        # What is known so far.
        self.stuck = 0
        self.missing: list[Expander] = []
        self.lost: set[int] = set()
        self.dead = 0
        self.dead_leds: list[Place] = []
        self.crossed: list[Crossing] = []
        self.transfers = 0
        self.errors = 0

    # -- the procedure ---------------------------------------------------------------------------

    def run(self) -> SelfTestReport:
        started = self.board.clock.now()
        self.board.button_events()  # presses from before the test mean nothing to it
        self._clear_board()
        for square in self.squares:
            self._visit(square)
        self._show({})
        return self._report(started, self.board.clock.now())

    def _clear_board(self) -> None:
        clock = self.board.clock
        self._show(dict.fromkeys(self.squares, CLEAR))
        deadline = clock.now() + self.options.clear_seconds
        blind_throughout = -1
        clear_since: float | None = None
        while True:
            scan = self._scan()
            blind_throughout &= scan.blind
            on = self._reading(scan)
            now = clock.now()
            if on:
                clear_since = None
            elif clear_since is None:
                clear_since = now
            if clear_since is not None and now - clear_since >= SETTLE_SECONDS:
                break
            if now >= deadline:
                break
            until = deadline if clear_since is None else min(deadline, clear_since + SETTLE_SECONDS)
            self._wait(until - now)
        self.stuck |= on
        self.missing = [
            e for e in self.spec.expanders if (self.chip_bits[e.index] & ~blind_throughout) == 0
        ]

    def _visit(self, square: Place) -> None:
        clock = self.board.clock
        required = self.required.get(square, 0) & ~self.stuck & ~self._unreadable()
        if not required:
            return  # nothing left to prove: the stuck or missing findings say why
        self._show({square: PLACE})
        lit_at = clock.now()
        deadline = lit_at + self.options.square_seconds
        here = self.bits_of[square]
        scan = self._scan()
        on = self._reading(scan)
        # A sensor already reading when the square lit says nothing about this magnet (it may
        # be the last square's, not yet lifted): it counts once it has read nothing.
        fresh = ~on
        elsewhere = on & ~here
        seen = foreign = 0
        while True:
            if self._cannot_see(lit_at):
                self.dead_leds.append(square)
                return
            seen |= on & required & fresh
            fresh |= ~on
            elsewhere &= on
            foreign |= on & ~here & ~elsewhere
            live = here & ~self.stuck & ~self._unreadable()
            if seen == required and not on & live:
                return
            now = clock.now()
            if now >= deadline:
                break
            self._wait(deadline - now)
            scan = self._scan()
            on = self._reading(scan)
        missing = required & ~seen & ~self._unreadable()
        if not missing:
            self.stuck |= on & live
        elif foreign:
            self.crossed.append(
                Crossing(place_label(square), self._labels(foreign), self._labels(missing))
            )
        else:
            self.dead |= missing

    # -- the board -------------------------------------------------------------------------------

    def _scan(self) -> Scan:
        scan = self.board.scan()
        if self.alive is not None:
            self.alive(self.board.clock.now())
        self.transfers += scan.transfers
        self.errors += scan.errors
        for fault in scan.faults:
            expander = self.by_label.get(fault.where)
            if expander is None:
                continue
            if fault.kind == "expander-lost":
                self.lost.add(expander.index)
            elif fault.kind == "expander-back":
                self.lost.discard(expander.index)
        return scan

    def _reading(self, scan: Scan) -> int:
        """Sensors reading a magnet; blind bits hold an old value and say nothing."""
        return scan.frame & ~scan.blind & self.sensors

    def _unreadable(self) -> int:
        chips = {e.index for e in self.missing} | self.lost
        return _mask_of(self.chip_bits[i] for i in chips)

    def _wait(self, seconds: float) -> None:
        if self.polled:
            seconds = min(seconds, POLL_SECONDS)
        self.board.wait_for_change(max(0.0, seconds))

    def _cannot_see(self, since: float) -> bool:
        presses = [e for e in self.board.button_events() if e.pressed and e.at >= since]
        return any(e.button == self.button for e in presses)

    def _show(self, colours: dict[Place, RGB]) -> None:
        pixels = [DARK] * self.spec.leds.count
        for square, colour in colours.items():
            pixels[self.spec.led_index[square]] = colour
        self.board.show(pixels)

    # -- the findings ------------------------------------------------------------------------

    def _labels(self, bits: int) -> tuple[str, ...]:
        return tuple(s.label for s in self.spec.sensors if bits >> s.bit & 1)

    def _report(self, started: float, finished: float) -> SelfTestReport:
        lost = [self.spec.expanders[i] for i in sorted(self.lost)]
        missing = [*self.missing, *(e for e in lost if e not in self.missing)]
        return SelfTestReport(
            board=self.spec.name,
            squares=len(self.squares),
            channels=self.channels,
            missing_expanders=tuple(self._missing(e) for e in missing),
            stuck=self._labels(self.stuck),
            dead_sensors=self._labels(self.dead),
            dead_leds=tuple(place_label(s) for s in self.dead_leds),
            crossed=tuple(self.crossed),
            i2c_errors=self.errors,
            i2c_transfers=self.transfers,
            error_rate_limit=self.options.error_rate_limit,
            started=started,
            finished=finished,
        )

    def _missing(self, expander: Expander) -> MissingExpander:
        bits = self.chip_bits[expander.index]
        in_board_order = [*self.spec.cells, *self.spec.slots]  # as a person reads the board
        squares = [s for s in in_board_order if self.bits_of.get(s, 0) & bits]
        wiring = expander.bus + (
            f" via {expander.mux} ch{expander.mux_channel}" if expander.mux else ""
        )
        return MissingExpander(
            f"U{expander.index + 1}",
            expander.address,
            wiring,
            tuple(place_label(s) for s in squares),
        )


def _mask(bits: Iterable[int]) -> int:
    return _mask_of(1 << bit for bit in bits)


def _mask_of(masks: Iterable[int]) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out


def _names(items: Sequence) -> str:
    return ", ".join(item.name for item in items) or "none"


def instructions(spec: BoardSpec) -> str:
    button = default_button(spec)
    tell = (
        f"; press {button} when a square should be lit and you see none"
        if button
        else "; this board has no button to say a square's LED is dark"
    )
    return (
        "Self-test: take everything off the board while every square is red. Then put the "
        "test magnet on the white square and lift it, on both faces, until the light moves on"
        f"{tell}."
    )
