"""The referee loop: scan, debounce, judge, light, report; one step at a time.

One thread runs it and owns the board. Every input (a stable frame, a debounced change, a button,
a fault) turns into referee calls and events; every step ends by bringing the LEDs up to date.
Nothing here raises for what the hardware or the players do: faults become events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from magboard.firmware.clocks import GameClock, Stage
from magboard.firmware.events import (
    ButtonPressed,
    Event,
    FaultSurvived,
    HoursChanged,
    LedFrame,
    MaintenanceChanged,
    Note,
)
from magboard.firmware.games import Game, GameError
from magboard.firmware.journal import Journal
from magboard.firmware.lights import LedWriter, Rhythms, View
from magboard.firmware.referee import Referee
from magboard.firmware.referee.status import Phase
from magboard.firmware.sensing import Debouncer, Scanner
from magboard.hardware.interface import RGB, Board
from magboard.hardware.spec import BoardSpec

from .board_player import BoardPlayer, Thinking
from .closing import Schedule, Shut
from .hours import Outside
from .maintenance import MaintenanceWatch, OutOfOrder
from .menu import MENU, Menu
from .notify import Notifier
from .selftest import instructions, run_selftest
from .selftest_report import SelfTestReport
from .unattended import Idle, Unattended

if TYPE_CHECKING:
    from magboard.firmware.engine.opponent import AiSeat

FAULT_SHOWN = 5.0
"""Seconds the alert LED stays on after a fault the board survived."""

HAND_HINT_AFTER = 15.0
"""Seconds a piece may stay in the hand before the board says what may be wrong: a piece put
down where the sensors cannot see it (on a piece as large, in Tic-Tac-Cap) looks held for ever."""

JOURNAL_RETRY = 10.0
"""Seconds between tries to write a journal the disk refused (the alert is lit meanwhile)."""


def _wave(area: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(area, key=lambda cell: (cell[0] + cell[1], cell[0])))


def _cross(area: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The places of the area on its two diagonals (corner to corner, rounded to the nearest
    place where the area is not square): the out-of-order cross."""
    cells = set(area)
    if not cells:
        return ()
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    x0, y0, width, height = min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)
    found = set()
    if width >= height:
        for dx in range(width + 1):
            dy = round(dx * height / width) if width else 0
            found |= {(x0 + dx, y0 + dy), (x0 + dx, y0 + height - dy)}
    else:
        for dy in range(height + 1):
            dx = round(dy * width / height)
            found |= {(x0 + dx, y0 + dy), (x0 + width - dx, y0 + dy)}
    return tuple(sorted(found & cells))


def pixels_hex(pixels: Iterable[RGB]) -> str:
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in pixels)


RefereeFor = Callable[
    [BoardSpec, Game, Mapping[str, Any] | None, bool], tuple[Referee, GameClock | None]
]
"""Sets a game (with options) up on a board: its referee and game clock (wiring.referee_for)."""


class BoardLoop:
    def __init__(
        self,
        board: Board,
        referee: Referee,
        sinks: Iterable[Callable[[Event], None]] = (),
        *,
        debounce: float | None = None,
        game_clock: GameClock | None = None,
        journal: Journal | None = None,
        unattended: Unattended | None = None,
        hours: Schedule | None = None,
        maintenance: MaintenanceWatch | None = None,
        referee_for: RefereeFor,
    ) -> None:
        self.board = board
        self.referee_for = referee_for
        """How a game is set up on a board (wiring's), for `set_game`: wiring builds loops, so
        the loop is handed it rather than importing it."""
        self.journal = journal
        """Hears every event first: a move is on disk before anyone hears of it."""
        self._journal_retry = 0.0
        self._hinted: float | None = None
        """The in-hand status (by its start) already told it has lasted a while."""
        self.idle = Idle(unattended, board.clock.now()) if unattended else None
        self.touched_at: float | None = None
        """When a piece last moved or a button was pressed (None: not since the start)."""
        self.hours = hours
        """The opening hours against the calendar, if the board keeps any."""
        self.maintenance = maintenance
        """The operator's out-of-order file, if the board has a state directory."""
        self.shut: Shut | None = None
        """Why refereeing waits now (closed, out of order), if it does."""
        self._shut_since = 0.0
        self._open = True
        self._out_of_order: OutOfOrder | None = None
        self._attract_places = _wave(referee.profile.area)
        """The game's squares, diagonal by diagonal: the way attract mode's wave runs."""
        self.referee = referee
        self.game_clock = game_clock
        self._clock_stage: Stage | None = None
        self._flagged: int | None = None
        """The seat whose flag fell, lit as such until its bout is cleared away."""
        self.sinks = list(sinks)
        profile = referee.profile
        debouncer = Debouncer(board.spec, settle=profile.settle)
        if debounce is not None:
            debouncer.debounce = debounce
        self.scanner = Scanner(board, debouncer)
        self.writer = LedWriter(board, board.spec)
        self.rhythms = Rhythms()
        """Each light's meaning counted from the event that started it, whatever came after."""
        self._fault_until = -1.0
        self.inputs: list[Callable[[float], None]] = []
        """Called once a step with the time, after the scan's buttons and before the judging:
        other ways in (the serial link) press buttons and ask things here, in the loop's thread."""
        self.watchdog: Notifier | None = None
        """systemd's watchdog, pinged at the end of each step: only a loop that still scans
        and judges keeps the service alive."""
        self.menu = Menu(board.spec)
        """The LED menu the `menu` button opens: another game chosen with the buttons alone."""
        self.thinking = Thinking()
        """How the board thinks when it plays a seat (`set_opponent`)."""
        self.player: BoardPlayer | None = None
        """The seat the board plays, if any: its turn is chosen as soon as it is due."""
        referee.emit = self.emit

    def set_opponent(self, seat: AiSeat | None, now: float | None = None) -> None:
        """The board plays `seat` from now on (None: people play every seat). Given `now`, in
        a running game, its turn is chosen at once if it is due."""
        self.player = None if seat is None else BoardPlayer(seat, self.thinking)
        if self.player is None:
            self.referee.board_plays(())
            return
        if not self.player.fits(self.referee):
            raise ValueError(f"{self.referee.game.title} has no seat {seat.seat + 1}")
        self.player.join(self.referee)
        if now is not None:
            self._board_plays(now)

    def _board_plays(self, now: float) -> None:
        """The board's own turn, if it is due and the menu is not in the way. A turn the rules
        refuse (a fault of the search, never of the players) must not stop the board: it says
        so and leaves the seat to people."""
        player = self.player
        if player is None or self.menu.open:
            return
        try:
            player.play(self.referee, now, self.scanner.debouncer.debounced)
        except (GameError, ValueError) as error:
            seat = self.referee.game.seats[player.seat.seat]
            reason = str(error).splitlines()[0]
            self.emit(Note(now, f"the board stops playing {seat} ({reason}): people play it"))
            self.set_opponent(None)

    def emit(self, event: Event) -> None:
        journal = self.journal
        if journal is not None:
            journal.record(event)
        for sink in self.sinks:
            sink(event)
        if journal is not None:
            self._journal_news(event.t)

    def _journal_news(self, now: float) -> None:
        """The journal's troubles (and its recovery) as fault events, with the alert lit."""
        for detail in self.journal.news():
            self._fault_until = now + FAULT_SHOWN
            self.emit(FaultSurvived(now, "journal", str(self.journal.path), detail))

    def start(self, actions: Iterable[str] = (), reserves: tuple[float, ...] | None = None) -> None:
        """Starts (or resumes) the game and says at once if the pieces do not match it. A
        resumed game's clock starts the turn in progress again with the journalled reserves."""
        now = self.board.clock.now()
        self.referee.start(now, tuple(actions))
        if self.game_clock is not None and reserves is not None:
            self.game_clock.resume(reserves, self.referee.position.bout)
        self._follow_shut(now)
        if self.shut is None:
            self._look_afresh(now)
        else:
            self._light(now)

    def _look_afresh(self, now: float) -> None:
        """Reads the board as it stands and says at once what differs from the game."""
        first = self.board.scan()
        self.scanner.debouncer.reset(first.frame, now)
        self.referee.check_board(first.frame, now)
        self._board_plays(now)
        self._follow_clock(now, first.frame)
        self._light(now)

    def selftest(self) -> SelfTestReport:
        """The self-test in the middle of a run (the `menu` button held at start-up, or a
        command from afar): refereeing waits while a person follows the test's lights; the
        report goes out as notes and into the journal; then the game goes on from the board as
        it stands, lighting what to put back."""
        self.emit(Note(self.board.clock.now(), instructions(self.board.spec)))
        report = run_selftest(self.board, alive=self.watchdog.watchdog if self.watchdog else None)
        now = self.board.clock.now()
        for line in report.lines():
            self.emit(Note(now, f"self-test: {line}"))
        if self.journal is not None:
            self.journal.keep_selftest(report.to_dict())
            self._journal_news(now)
        self.writer.forget()  # the chain shows the test's last frame, not the game's
        self._look_afresh(now)
        return report

    def step(self, until: float | None = None) -> None:
        """One wake-up and what follows from it (a scan, if the board can have changed);
        waits no later than `until` if given."""
        game_clock, now = self.game_clock, self.board.clock.now()
        hours_change = self.hours.next_wake() if self.hours is not None else None
        deadlines = (self.writer.next_deadline(), until, hours_change)
        if self.shut is None:  # while shut, nothing of the game moves on by itself
            clock_change = game_clock.next_change(now) if game_clock is not None else None
            idle_change = self.idle.next_wake(now) if self.idle is not None else None
            deadlines += (clock_change, idle_change, self._hand_hint_at(), self.referee.wake_at)
        wakes = [t for t in deadlines if t is not None]
        wake = min(wakes, default=None)
        reading = self.scanner.step(wake_at=wake)
        now = reading.now
        for fault in reading.faults:
            self._fault_until = now + FAULT_SHOWN
            self.emit(FaultSurvived(fault.at, fault.kind, fault.where, fault.detail))
        was_shut = self.shut
        self._follow_shut(now)
        referee = self.referee
        for button in reading.buttons:
            self.button(button.button, button.pressed, button.at, now)
        for poll in self.inputs:
            poll(now)
        self._follow_shut(now)  # a command from afar may have changed it
        journal = self.journal
        if journal is not None and journal.behind and now >= self._journal_retry:
            self._journal_retry = now + JOURNAL_RETRY
            journal.catch_up()
            self._journal_news(now)
        if reading.blind:
            self._fault_until = max(self._fault_until, now + FAULT_SHOWN)
        if self.shut is not None or was_shut is not None:
            # Shut, or just reopened (and looked afresh): nothing seen meanwhile is judged.
            self._light(now)
            if self.watchdog is not None:
                self.watchdog.watchdog(now)
            return
        if reading.changed:
            self._touched(now)
            referee.judge(reading.debounced, now, stable=False)
        if reading.stable is not None:
            referee.judge(reading.stable, now, stable=True)
        referee.wake(now)
        self._board_plays(now)
        self._follow_clock(now, reading.debounced)
        self._left_alone(now)
        self._hand_hint(now)
        self._light(now)
        if self.watchdog is not None:
            self.watchdog.watchdog(now)
        if reading.changed and reading.stable is None:
            referee.search_ahead()  # the lights are out: the settle time is spare

    def _hand_hint_at(self) -> float | None:
        """When to say that a piece has been held a while, if it is held and not yet said."""
        status = self.referee.status
        if status.phase is not Phase.IN_HAND or self._hinted == status.since:
            return None
        return status.since + HAND_HINT_AFTER

    def _hand_hint(self, now: float) -> None:
        at = self._hand_hint_at()
        if at is not None and now >= at:
            self._hinted = self.referee.status.since
            self.emit(
                Note(
                    now,
                    "a piece has been in the hand a while: if it is down already, the board "
                    "cannot see it where it is (on a piece as large, say): put it on a lit square",
                )
            )

    def _left_alone(self, now: float) -> None:
        """A finished game left standing long enough gives way to a new one."""
        idle = self.idle
        if idle is None:
            return
        idle.follow(self.referee.position.outcome() is not None, now)
        if idle.reset_due(now):
            self.emit(Note(now, "the finished game was left standing: a new game begins"))
            self.new_game(now)
            idle.follow(False, now)

    def button(self, name: str, pressed: bool, at: float, now: float) -> None:
        """A button went down or up (at `at`): reported, and a press goes to the referee. A
        virtual button (the serial link's `press`) comes through here too, so it is the same."""
        self.emit(ButtonPressed(at, name, pressed))
        if self.shut is not None:
            return  # closed or out of order: buttons do nothing to the game
        self._touched(now)
        if self.menu.open:
            self.menu.button(self, name, pressed, at, now)
            return
        if pressed and name == MENU and self.menu.entries and not self.referee.choice_pending():
            self.menu.start(self, now)
            return
        if pressed:
            self.referee.press(name, now, self.scanner.debouncer.debounced)
            if name == "new":
                self.scanner.debouncer.forget_stable()

    def _touched(self, now: float) -> None:
        self.touched_at = now
        if self.idle is not None:
            self.idle.touched(now)

    def _follow_shut(self, now: float) -> None:
        """Closes or opens the board for its hours, and takes it out of order or back, as the
        calendar and the maintenance file say; on leaving both, looks afresh at the board."""
        hours, watch = self.hours, self.maintenance
        is_open = hours.look(now) if hours is not None else True
        out = watch.look(now) if watch is not None else None
        if is_open != self._open:
            self._open = is_open
            until = hours.changes_at if hours is not None else None
            stamp = until.isoformat(timespec="minutes") if until is not None else None
            self.emit(HoursChanged(now, is_open, stamp))
        if out != self._out_of_order:
            if (out is None) != (self._out_of_order is None):
                self.emit(MaintenanceChanged(now, out is not None, out.reason if out else ""))
            self._out_of_order = out
        shut = Shut.OUT_OF_ORDER if out is not None else None if is_open else Shut.CLOSED
        if shut == self.shut:
            return
        before, self.shut = self.shut, shut
        if shut is None:
            self.writer.forget()
            self._look_afresh(now)  # what changed meanwhile is shown to be put right
            return
        self._shut_since = now
        if before is None and self.game_clock is not None:
            stopped = self.game_clock.stop(now)
            if stopped is not None:
                self.emit(stopped)

    def _shut_view(self, view: View) -> View:
        """What the lights show while the board is shut: a steady red cross out of order;
        dark or the attract wave while closed, as configured."""
        plain = View(players=view.players, fault=view.fault)
        if self.shut is Shut.OUT_OF_ORDER:
            return replace(plain, out_of_order=_cross(self.referee.profile.area))
        if self.hours is not None and self.hours.hours.outside is Outside.ATTRACT:
            return replace(plain, attract=self._attract_places, attract_since=self._shut_since)
        return plain

    def choose(self, text: str, now: float) -> None:
        """A choice the rules leave to a player, made on the page or over the link (a
        ValueError says why it is refused)."""
        self.referee.choose(text, now)

    def new_game(self, now: float) -> None:
        """Starts the game again, as the `new` button does (without the button)."""
        self.referee.new_game(now, self.scanner.debouncer.debounced)
        self.scanner.debouncer.forget_stable()
        self._board_plays(now)

    def set_game(self, game: Game, options: Mapping[str, Any] | None, now: float) -> Referee:
        """Sets `game` up on this board in place of the one it referees, as `new` starts a
        game. GameError or ProfileError, before anything changes, if it cannot be."""
        referee, game_clock = self.referee_for(
            self.board.spec, game, options, self.referee.takeback
        )
        self.change_game(referee, game_clock, now)
        return referee

    def change_game(self, referee: Referee, game_clock: GameClock | None, now: float) -> None:
        """Another game, or the same with other options, on this board at once (a command from
        afar: `set_game` builds the referee). It starts as `new` starts one: pieces
        left standing are lit until cleared, and nothing of the old game carries over."""
        self.referee = referee
        referee.emit = self.emit
        player = self.player
        if player is not None and player.fits(referee):
            player.join(referee)
        elif player is not None:
            self.player = None
            self.emit(
                Note(
                    now,
                    f"the board plays no one: {referee.game.title} has no seat "
                    f"{player.seat.seat + 1}",
                )
            )
        self.game_clock = game_clock
        self._clock_stage = None
        self._flagged = None
        self._attract_places = _wave(referee.profile.area)
        debouncer = self.scanner.debouncer
        debouncer.settle = referee.profile.settle
        referee.new_game(now, debouncer.debounced)
        debouncer.forget_stable()
        self._board_plays(now)

    def _follow_clock(self, now: float, raw: int) -> None:
        """Keeps the game clock in step with the position; a fallen flag is the rules' to
        judge (after the board as it stands, as for a press). While the LED menu is open
        nobody can play, so the clock is paused, and goes on from where it stood once the menu
        closes."""
        clock = self.game_clock
        if clock is None:
            return
        held = clock.pause(now) if self.menu.open else clock.go_on(now)
        if held is not None:
            self.emit(held)
        events = clock.follow(self.referee.position, now)
        fallen = clock.fallen(now)
        for event in events:
            self.emit(event)
        if fallen is not None:
            self.referee.time_up(now, raw)
            self._flagged = fallen
            for event in clock.follow(self.referee.position, now):
                self.emit(event)
        self._clock_stage = clock.stage(now)
        if self._clock_stage is not None:
            self._flagged = None

    def _light(self, now: float) -> None:
        behind = self.journal is not None and self.journal.behind
        view = self.referee.view(fault=now < self._fault_until or behind)
        if self.game_clock is not None:
            stage = self._clock_stage
            view = replace(view, clock=stage.value if stage else None, flagged=self._flagged)
        view = self.rhythms.timed(view, now, self.referee.status.phase)
        attract = self.idle.attract_since(now) if self.idle is not None else None
        if self.shut is not None:
            view = self._shut_view(view)
        elif self.menu.open:
            view = replace(self.menu.view(view.players), fault=view.fault)
        elif attract is not None:
            view = replace(view, attract=self._attract_places, attract_since=attract)
        pixels = self.writer.update(view, now)
        if pixels is not None:
            self.emit(LedFrame(now, pixels_hex(pixels)))

    def run_until(self, end: float, look_every: float | None = None) -> None:
        """Steps until the board's clock reaches `end` (virtual time in the simulator; for ever
        on a Pi), waking at `end` rather than sleeping past it, and at least every `look_every`
        seconds where an input (the serial link) is polled."""
        clock = self.board.clock
        while clock.now() < end:
            wake = end if look_every is None else min(end, clock.now() + look_every)
            self.step(until=wake)
