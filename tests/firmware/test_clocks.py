"""Game clocks as players meet them: the turn's time first, then the reserve, the last seconds
counted down, a flag that falls, reserves refilled for a new bout, and nothing running while the
board waits for hands."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from magboard.firmware.clocks import GameClock, Stage, clock_for
from magboard.firmware.events import ClockChanged, LedFrame, Moved
from magboard.firmware.games import ClockRules, get_game, register
from magboard.sim.session import SimSession


@dataclass(frozen=True)
class Position:
    to_move: int = 0
    turn: int = 0
    bout: int = 1
    obligations: tuple = ()
    over: bool = False

    def outcome(self) -> object:
        return "over" if self.over else None


LANCE = get_game("lance-assembly").clocks["lance"]
CLASSIC = get_game("lance-assembly").clocks["classic"]


def stages(events) -> list[tuple[int | None, str]]:
    return [(e.seat, e.stage) for e in events]


def test_the_turn_time_runs_first_then_the_reserve_then_the_flag_falls():
    clock = GameClock(LANCE, 2)
    assert stages(clock.follow(Position(), 0.0)) == [(0, "turn")]
    assert clock.next_change(0.0) == 60.0
    assert clock.follow(Position(), 59.0) == []
    assert stages(clock.follow(Position(), 60.5)) == [(0, "reserve")]
    reading = clock.now(100.0)
    assert reading.turn_left == 0 and reading.reserves == (260.0, 300.0)
    assert clock.next_change(100.0) == pytest.approx(350.0)  # ten seconds before the end
    assert stages(clock.follow(Position(), 351.0)) == [(0, "last-seconds")]
    assert clock.fallen(359.9) is None
    assert clock.fallen(360.0) == 0
    assert stages(clock.follow(Position(), 360.0)) == [(0, "flag")]


def test_a_new_turn_starts_a_fresh_turn_time_and_keeps_what_the_reserve_lost():
    clock = GameClock(LANCE, 2)
    clock.follow(Position(), 0.0)
    clock.follow(Position(to_move=1, turn=1), 90.0)  # A took 30 s of reserve
    reading = clock.now(100.0)
    assert reading.running == 1 and reading.turn_left == 50.0
    assert reading.reserves == (270.0, 300.0)


def test_nothing_runs_while_the_board_waits_for_hands_or_after_the_game():
    clock = GameClock(CLASSIC, 2)
    clock.follow(Position(), 0.0)
    events = clock.follow(Position(to_move=1, turn=1, obligations=("clear",)), 10.0)
    assert stages(events) == [(None, "stopped")]
    assert clock.next_change(10.0) is None and clock.fallen(1000.0) is None
    clock.follow(Position(to_move=1, turn=1), 20.0)
    assert clock.now(30.0).turn_left == 110.0
    assert stages(clock.follow(Position(to_move=0, turn=2, over=True), 40.0)) == [(None, "stopped")]


def test_a_new_bout_refills_every_reserve():
    clock = GameClock(LANCE, 2)
    clock.follow(Position(), 0.0)
    clock.follow(Position(to_move=1, turn=1), 200.0)
    assert clock.now(200.0).reserves == (160.0, 300.0)
    clock.follow(Position(to_move=1, turn=7, bout=2), 300.0)
    assert clock.now(300.0).reserves == (300.0, 300.0)


def test_a_resumed_clock_keeps_the_journalled_reserves_in_the_same_bout():
    clock = GameClock(LANCE, 2)
    clock.resume((120.0, 45.5), bout=2)
    clock.follow(Position(to_move=1, turn=9, bout=2), 0.0)
    assert clock.now(0.0).reserves == (120.0, 45.5)
    assert clock.now(70.0).reserves == (120.0, 35.5)
    assert clock.stage(70.0) is Stage.RESERVE


def test_the_clock_option_picks_the_rules():
    assert clock_for({"clock": "none"}, 2) is None
    assert clock_for({}, 2) is None
    assert clock_for({"clock": "classic"}, 2).rules.per_turn == 120.0


def test_no_game_may_time_a_clock_value_another_game_times_otherwise():
    """`clock_for` reads the option's value alone, so one value means one clock everywhere."""
    other = replace(get_game("lance-assembly"), name="other", aliases=())
    other = replace(other, clocks={"lance": ClockRules(per_turn=1.0, reserve=1.0)})
    with pytest.raises(ValueError, match="clock 'lance' of other differs from lance-assembly's"):
        register(other)


# On the board: the loop runs the clock of the position it shows, in virtual time.


def seat_led(session, seat: int, at: float) -> str:
    """The colour (hex) of a seat's status LED in the last frame written before `at`."""
    index = session.spec.led_index[f"seat-{seat + 1}"]
    frames = [e for e in session.events if isinstance(e, LedFrame) and e.t <= at]
    return frames[-1].pixels[6 * index : 6 * index + 6]


def test_the_board_runs_the_clock_and_a_fallen_flag_loses_the_bout():
    session = SimSession("r1", "lance-assembly", {"clock": "lance"})
    session.lay_out()
    session.start()

    def seen():
        return stages(e for e in session.events if isinstance(e, ClockChanged))

    assert seen() == [(0, "turn")]
    session.run_for(60.5)
    assert seen()[-1] == (0, "reserve")
    blink = {seat_led(session, 0, session.clock.now() - t / 4) for t in range(4)}
    assert len(blink) == 2  # A's LED blinks on the reserve
    session.run_for(300 - 10)
    assert seen()[-1] == (0, "last-seconds")
    session.run_for(10)
    assert seen()[-2:] == [(0, "flag"), (None, "stopped")]
    flag = [e for e in session.events if isinstance(e, Moved)]
    assert [(e.player, e.actions) for e in flag] == [(0, ("flag A",))]
    assert session.state.score == (0, 1)
    fell = session.clock.now()
    session.run_for(31.0)  # a fallen flag double-flashes for 30 s, then holds still
    flashes = {seat_led(session, 0, fell + t / 16) for t in range(1, 17)}
    assert len(flashes) == 2  # lit and dark: the flag has a rhythm, not only a colour
    alert = seat_led(session, 0, session.clock.now())
    session.run_for(5.0)
    assert seat_led(session, 0, session.clock.now()) == alert != "000000"
    assert alert in flashes


def test_a_move_in_time_starts_the_other_clock_and_a_power_cut_keeps_the_reserves(tmp_path):
    session = SimSession(
        "r1", "lance-assembly", {"clock": "lance"}, journal=tmp_path / "magboard.db"
    )
    session.lay_out()
    session.start()
    session.run_for(70.0)  # A spends 10 s of its reserve, then places
    session.perform(session.state.parse_action("c3"))
    session.settle()
    last = [e for e in session.events if isinstance(e, ClockChanged)][-1]
    assert (last.seat, last.stage) == (1, "turn")
    assert last.reserves[0] == pytest.approx(290.0, abs=1.0) and last.reserves[1] == 300.0
    again = session.restart()
    started = next(e for e in again.events if isinstance(e, ClockChanged))
    assert started.seat == 1 and started.reserves == last.reserves


def test_a_press_at_the_instant_a_tile_lands_ends_the_turn_with_it():
    session = SimSession("r1", "lance-assembly", {"clock": "none"})
    session.lay_out()
    session.start()
    session.perform(session.state.parse_action("c3"))
    session.settle()
    tile = session.take("B")
    session.run_for(0.2)
    session.world.put(session.board_cell((3, 3)), tile)  # d4...
    session.world.press("seat-2")  # ...and the button in the same instant
    session.settle()
    moves = [(e.player, e.actions) for e in session.events if isinstance(e, Moved)]
    assert moves == [(0, ("c3",)), (1, ("d4", "end"))]


def test_a_stopped_clock_starts_the_turn_again_with_the_reserves_as_they_stood():
    """The board closed or went out of order mid-turn: no time passes for anybody meanwhile."""
    clock = GameClock(LANCE, 2)
    clock.follow(Position(), 0.0)
    assert stages([clock.stop(100.0)]) == [(None, "stopped")]  # 40 s into A's reserve
    assert clock.stop(101.0) is None and clock.fallen(10_000.0) is None
    assert stages(clock.follow(Position(), 5000.0)) == [(0, "turn")]
    reading = clock.now(5010.0)
    assert reading.turn_left == 50.0 and reading.reserves == (260.0, 300.0)


def test_a_paused_clock_goes_on_with_the_time_that_was_left():
    clock = GameClock(LANCE, 2)
    clock.follow(Position(), 0.0)
    paused = clock.pause(50.0)  # 10 s of A's turn time left
    assert paused is not None and (paused.seat, paused.stage) == (None, "stopped")
    assert paused.turn_left == 10.0 and paused.reserves == (300.0, 300.0)
    assert clock.pause(51.0) is None  # already paused
    assert clock.follow(Position(), 500.0) == [] and clock.next_change(500.0) is None
    assert clock.fallen(10_000.0) is None
    resumed = clock.go_on(1000.0)
    assert resumed is not None and (resumed.seat, resumed.stage) == (0, "turn")
    assert resumed.turn_left == 10.0
    assert clock.next_change(1000.0) == 1010.0
    assert stages(clock.follow(Position(), 1010.0)) == [(0, "reserve")]
    assert clock.go_on(1011.0) is None  # not paused


def test_a_clock_paused_on_the_reserve_keeps_the_reserve_and_its_stage():
    clock = GameClock(LANCE, 2)
    clock.follow(Position(), 0.0)
    clock.pause(355.0)  # A's last five seconds
    resumed = clock.go_on(2000.0)
    assert (resumed.seat, resumed.stage) == (0, "last-seconds")
    assert resumed.turn_left == 0.0 and resumed.reserves == (5.0, 300.0)
    assert clock.fallen(2004.9) is None and clock.fallen(2005.0) == 0


def test_the_clock_stands_still_while_the_led_menu_is_open():
    session = SimSession("r1", "lance-assembly", {"clock": "lance"})
    session.lay_out()
    session.start()

    def press(button: str) -> None:
        session.board.press(button)
        session.run_for(0.1)
        session.board.release(button)
        session.run_for(0.1)

    def changes() -> list[ClockChanged]:
        return [e for e in session.events if isinstance(e, ClockChanged)]

    session.run_for(20.0)  # 40 s of A's turn time left
    press("menu")
    opened = changes()[-1]
    assert (opened.seat, opened.stage) == (None, "stopped")
    assert opened.turn_left == pytest.approx(40.0, abs=0.2)
    session.run_for(120.0)  # longer than A had: no flag, no reserve spent
    assert changes()[-1] == opened
    press("new")  # leaves the menu
    resumed = changes()[-1]
    assert (resumed.seat, resumed.stage) == (0, "turn")
    assert resumed.turn_left == pytest.approx(opened.turn_left, abs=0.01)
    assert resumed.reserves == (300.0, 300.0)
    session.run_until(resumed.t + resumed.turn_left + 0.5)
    reserve = changes()[-1]
    assert (reserve.seat, reserve.stage) == (0, "reserve")
    assert reserve.t == pytest.approx(resumed.t + resumed.turn_left, abs=0.01)
    assert not [e for e in session.events if isinstance(e, Moved)]
