"""The self-test on simulated boards, broken at the lowest boundary, with a simulated person
following the lights in virtual time; and the `magboard selftest` command around it."""

from __future__ import annotations

import json

import pytest

from magboard.firmware.app.selftest import (
    SelfTestError,
    SelfTestOptions,
    default_button,
    run_selftest,
    squares_in_order,
)
from magboard.firmware.app.selftest_report import (
    Crossing,
    MissingExpander,
    SelfTestReport,
    SelfTestReportError,
)
from magboard.hardware.spec import load_board
from magboard.host import cli
from magboard.sim.board import SimBoard
from magboard.sim.selftest_person import SelfTestPerson


@pytest.fixture(scope="module")
def r1():
    return load_board("r1")


@pytest.fixture(scope="module")
def mini():
    return load_board("mini")


def bit_of(spec, label: str) -> int:
    return next(s.bit for s in spec.sensors if s.label == label)


def with_person(board: SimBoard) -> SelfTestPerson:
    return SelfTestPerson(board, default_button(board.spec))


def findings(report: SelfTestReport) -> dict:
    return {
        "missing": [e.name for e in report.missing_expanders],
        "stuck": list(report.stuck),
        "dead": list(report.dead_sensors),
        "dark": list(report.dead_leds),
        "crossed": [c.lit for c in report.crossed],
    }


NOTHING = {"missing": [], "stuck": [], "dead": [], "dark": [], "crossed": []}


def test_a_clean_board_passes_every_square(r1):
    board = SimBoard(r1)
    person = with_person(board)
    report = run_selftest(board)
    assert findings(report) == NOTHING
    assert report.passed and report.squares == 180 == len(squares_in_order(r1))
    assert set(person.tries) == set(squares_in_order(r1)), "every square was lit and visited"
    assert report.i2c_errors == 0 and report.i2c_transfers > 0
    assert report.lines()[-1] == "verdict: all 180 squares passed"
    assert report.finished - report.started < 180 * 3, "about two seconds a square"


def test_a_stuck_sensor_and_a_dead_expander_are_named_and_nothing_else(r1):
    board = SimBoard(r1, dead_expanders=[10])
    board.stick_sensor(bit_of(r1, "c3.n"))
    with_person(board)
    report = run_selftest(board)
    on_u11 = {s.place for s in r1.sensors if s.expander == 10}
    assert findings(report) == {**NOTHING, "missing": ["U11"], "stuck": ["c3.n"]}
    (missing,) = report.missing_expanders
    assert (missing.address, missing.wiring) == (0x22, "i2c1 via mux ch1")
    assert missing.squares == ("l3", "a4", "b4", "c4") and len(on_u11) == 4
    assert report.i2c_errors == 0
    assert not report.passed
    lines = report.lines()
    assert "missing expander U11 at 0x22 (i2c1 via mux ch1): not answering; " in lines[1]
    assert lines[2] == "stuck sensor c3.n: reads a magnet with nothing there"
    assert lines[-1] == (
        "verdict: FAILED: 175 of 180 squares passed; 1 missing expander, 1 stuck sensor"
    )


def test_a_dead_led_is_named_and_nothing_else(r1):
    board = SimBoard(r1)
    board.kill_led(r1.led_index[(4, 6)])  # e7
    person = with_person(board)
    report = run_selftest(board)
    assert findings(report) == {**NOTHING, "dark": ["e7"]}
    assert person.presses == 1
    assert "dead LED e7: not seen lit; its sensors not checked" in report.lines()


def test_a_dead_sensor_is_named(mini):
    board = SimBoard(mini)
    board.kill_sensor(bit_of(mini, "b2.m"))
    with_person(board)
    report = run_selftest(board, SelfTestOptions(square_seconds=4.0))
    assert findings(report) == {**NOTHING, "dead": ["b2.m"]}


def test_swapped_wires_show_as_two_crossings_naming_each_other(mini):
    board = SimBoard(mini)
    board.cross_sensors(bit_of(mini, "a1.s"), bit_of(mini, "b1.s"))
    with_person(board)
    report = run_selftest(board, SelfTestOptions(square_seconds=4.0))
    assert report.crossed == (
        Crossing("a1", read=("b1.s",), missing=("a1.s",)),
        Crossing("b1", read=("a1.s",), missing=("b1.s",)),
    )
    assert findings(report) == {**NOTHING, "crossed": ["a1", "b1"]}


def test_a_magnet_put_on_the_wrong_square_then_the_right_one_is_a_slip(mini):
    board = SimBoard(mini)
    with_person(board)
    wrong = bit_of(mini, "c3.s")
    # The first square lights once the empty board has settled, a second in; the person's own
    # magnet comes down on it at about 1.8 s.
    board.clock.call_at(1.2, lambda: board.set_sensors({wrong: True}))
    board.clock.call_at(1.5, lambda: board.set_sensors({wrong: False}))
    report = run_selftest(board)
    assert findings(report) == NOTHING and report.passed


def test_a_plain_magnet_tests_only_the_channels_asked_for(r1):
    board = SimBoard(r1)
    board.kill_sensor(bit_of(r1, "a1.s"))
    person = with_person(board)
    person.faces = person.faces[:1]  # a north-down magnet with rings, never turned over
    report = run_selftest(board, SelfTestOptions(channels=frozenset({"n", "o"})))
    assert report.channels == ("n", "o")
    assert findings(report) == NOTHING, "a1.s was not asked for"


def test_an_expander_lost_during_the_test_is_missing_not_dead(mini):
    board = SimBoard(mini)
    with_person(board)
    board.clock.call_at(10.0, lambda: board.kill_expander(3))
    report = run_selftest(board, SelfTestOptions(square_seconds=4.0))
    assert [e.name for e in report.missing_expanders] == ["U4"]
    assert report.dead_sensors == () and report.stuck == ()
    assert report.i2c_errors == 3, "the reads that found it gone"


def test_i2c_errors_are_counted_against_transfers(mini):
    board = SimBoard(mini)
    with_person(board)
    board.clock.call_at(5.0, lambda: board.inject_i2c_errors(0, 2))
    report = run_selftest(board)
    assert findings(report) == NOTHING
    assert report.i2c_errors == 2
    assert report.error_rate == pytest.approx(2 / report.i2c_transfers)
    assert not report.passed, f"{report.error_rate:.2%} is above the 0.1% a bus may fail"
    assert "I2C errors above 0.100%" in report.lines()[-1]
    relaxed = run_selftest(SimBoard(mini), SelfTestOptions(error_rate_limit=0.05))
    assert relaxed.error_rate_limit == 0.05


def test_options_the_board_cannot_take_are_refused(mini):
    board = SimBoard(mini)
    with pytest.raises(SelfTestError, match="no channel n"):
        run_selftest(board, SelfTestOptions(channels=frozenset({"n"})))
    with pytest.raises(SelfTestError, match="no button 'menu'"):
        run_selftest(board, SelfTestOptions(button="menu"))


def test_the_report_round_trips_through_json(r1):
    report = SelfTestReport(
        board="r1",
        squares=180,
        channels=("n", "s", "i", "o"),
        missing_expanders=(MissingExpander("U11", 0x22, "i2c1 via mux ch1", ("l3", "a4")),),
        stuck=("c3.n",),
        dead_sensors=("d4.s", "A2"),
        dead_leds=("e7",),
        crossed=(Crossing("a1", ("b1.s",), ("a1.s",)),),
        i2c_errors=2,
        i2c_transfers=4000,
        error_rate_limit=0.001,
        started=12.5,
        finished=400.25,
    )
    data = json.loads(json.dumps(report.to_dict()))
    assert SelfTestReport.from_dict(data) == report
    assert data["error_rate"] == 0.0005 and data["passed"] is False
    assert report.failed_squares == {"l3", "a4", "c3", "d4", "A2", "e7", "a1"}
    with pytest.raises(SelfTestReportError):
        SelfTestReport.from_dict({**data, "stuck": "c3.n"})
    with pytest.raises(SelfTestReportError):
        SelfTestReport.from_dict({k: v for k, v in data.items() if k != "board"})


# -- the command ---------------------------------------------------------------------------------


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_command_prints_the_findings_and_fails(capsys):
    status, out, err = run(
        capsys, "selftest", "--sim", "--board", "r1", "--stuck", "c3.n", "--dead-expander", "U11"
    )
    assert status == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("self-test of board r1: 180 squares")
    assert lines[1].startswith("missing expander U11 at 0x22 (i2c1 via mux ch1)")
    assert lines[2] == "stuck sensor c3.n: reads a magnet with nothing there"
    assert lines[-1].startswith("verdict: FAILED: 175 of 180 squares passed")


def test_the_command_passes_a_clean_board(capsys):
    status, out, _ = run(capsys, "selftest", "--sim", "--board", "mini")
    assert status == 0
    assert out.splitlines()[-1] == "verdict: all 35 squares passed"


def test_the_command_speaks_json_that_round_trips(capsys):
    status, out, _ = run(
        capsys,
        *("selftest", "--sim", "--board", "mini", "--json"),
        *("--dead-led", "a1", "--dead-expander", "0x21", "--stuck", "A2"),
    )
    assert status == 1
    data = json.loads(out)
    report = SelfTestReport.from_dict(data)
    assert report.to_dict() == data
    assert findings(report) == {**NOTHING, "missing": ["U2"], "stuck": ["A2"], "dark": ["a1"]}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--stuck", "z9"], "board r1 has no square 'z9'"),
        (["--stuck", "c3.x"], "board r1 has no sensor 'c3.x'"),
        (["--dead-led", "m1"], "board r1 has no square 'm1'"),
        (["--dead-expander", "0x21"], "board r1 has 6 expanders at 0x21: say which"),
        (["--dead-expander", "0x30"], "board r1 has no expander '0x30'"),
        (["--channels", "x"], "board r1 has no channel x"),
    ],
)
def test_a_bad_request_is_one_line_and_status_2(capsys, argv, message):
    status, out, err = run(capsys, "selftest", "--sim", *argv)
    assert status == 2 and out == ""
    assert err.startswith(f"magboard: {message}") and err.count("\n") == 1


def test_breaking_the_board_needs_the_simulator(capsys):
    status, _, err = run(capsys, "selftest", "--stuck", "a1")
    assert (status, err) == (2, "magboard: --stuck, --dead-expander and --dead-led need --sim\n")
