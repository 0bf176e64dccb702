"""Tic-tac-toe refereed by the real service in the emulated machine, on the simulated mini board
with its INT lines wired: hands move the pieces through the world channel, the host reads the
events over MQTT and the LEDs off the wire; then the faults a board meets in a cafe, each seen
as the host sees it: the service killed, the power cut, the bus hung, an expander gone and back
or reset, a button held at start-up, and the operator's self-test.

The tests share one machine (conftest.py's `referee`); each starts its own game. With
`MAGBOARD_HIL_PI=user@host` they play on a real Pi instead, a person at its board making each
move and fault asked for; what that bench cannot do or see skips (docs/hil.md).

Skipped unless asked for and built (tests/hil/conftest.py): `make hil`.
"""

from __future__ import annotations

import json
import time

from magboard.hardware.spec import load_board, place_label
from magboard.sim.machine import deploy
from magboard.sim.session import SimSession

SPEC = load_board("mini")
CELLS = {place_label(cell): cell for cell in SPEC.cells}
"""mini's cells by label, a1..c3."""
WIN = [("A1", "b2"), ("B1", "a2"), ("A2", "a1"), ("B2", "c1"), ("A3", "c3")]
"""X takes the diagonal a1-b2-c3 (tests/scenarios/win-mini.toml)."""
DARK = (0, 0, 0)
WATCHDOG = "magboard.service: Watchdog timeout (limit 30s)!"
"""systemd's line when the service's loop stopped feeding the watchdog."""


def simulated_leds(moves: list[str], frames: int = 8) -> list[tuple]:
    """The colours the in-process simulator shows after `moves`, a few frames apart (the
    winning line is animated)."""
    session = SimSession("mini", "tic-tac-toe")
    session.lay_out()
    session.start()
    for move in moves:
        session.perform(session.state.parse_action(move))
        session.settle()
    shown = []
    for _ in range(frames):
        session.run_for(0.35)
        shown.append(tuple(session.board.visible_leds()))
    return shown


def test_a_game_played_to_a_win(referee) -> None:
    started = referee.new_game()
    assert (started["game"], started["board"], started["players"]) == (
        "tic-tac-toe",
        "mini",
        ["X", "O"],
    )
    mark = referee.events.mark()
    for turn, (src, dst) in enumerate(WIN, start=1):
        move = referee.play(src, dst, turn)
        assert move["player"] == (turn - 1) % 2
    over = referee.events.wait(mark, 60, type="game-over")
    assert (over["winners"], over["names"], over["line"]) == ([0], ["X"], ["a1", "b2", "c3"])
    assert [e for e in referee.events.since(mark) if e["type"] in ("illegal", "fault")] == []

    time.sleep(2)
    view = referee.board.leds()
    assert view.colours is not None and view.age is not None and view.age < 5
    expected = simulated_leds([dst for _, dst in WIN])
    index = SPEC.led_index
    lit = {label for label in CELLS if view.colours[index[CELLS[label]]] != DARK}
    assert lit == {"a1", "b2", "c3"}, view.colours
    for label in lit:
        colour = view.colours[index[CELLS[label]]]
        assert colour in {frame[index[CELLS[label]]] for frame in expected}, (label, colour)
    status = [view.colours[index[name]] for name in ("seat-1", "seat-2")]
    assert status == list(expected[-1][35:37])


# Faults, each in a game of its own.

OPENING = WIN[:2]
"""X on b2, O on a2: a game in progress."""


def opening(referee) -> int:
    """A new game with the opening played; returns the mark of the events after it."""
    referee.new_game()
    for turn, (src, dst) in enumerate(OPENING, start=1):
        referee.play(src, dst, turn)
    return referee.events.mark()


def resumed(referee, since: float) -> list[dict]:
    """The `game-started` events the service printed (its stdout, in the guest's journal) since
    `since` seconds of the guest's clock ago, oldest first."""
    said = referee.journal("-o", "cat", "_COMM=magboard", "--since", f"-{since:.0f}s")
    return [
        event
        for event in map(_json, said.splitlines())
        if event is not None and event.get("type") == "game-started"
    ]


def kinds(pieces: dict[str, list[str]]) -> dict[str, list[str]]:
    """What stands where, by kind (X#3 is an X): a piece put back is a new one to the world."""
    return {place: [name.split("#")[0] for name in stack] for place, stack in pieces.items()}


def _json(line: str) -> dict | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def test_the_service_killed_mid_game_is_restarted_and_resumes_it(referee) -> None:
    mark = opening(referee)
    before = referee.restarts()
    start = time.monotonic()
    referee.machine.run(["systemctl", "kill", "-s", "KILL", "magboard"], check=True)
    again = referee.events.wait(mark, 120, type="game-started")
    referee.wait_active()
    recovered = time.monotonic() - start
    assert again["actions"] == ["b2", "a2"]
    assert referee.restarts() == before + 1
    assert "status=9/KILL" in referee.journal("-n", "40")
    # The next move continues the game: X's third piece, turn 3.
    referee.play("A2", "a1", 3)
    referee.timings.append(
        f"SIGKILL mid-game: restarted and READY again {recovered:.1f} s later "
        f"(NRestarts {before} -> {before + 1}), 2 moves resumed"
    )


def test_a_power_cut_mid_game_comes_back_with_every_move(referee) -> None:
    opening(referee)
    referee.play("A2", "a1", 3)
    pieces = referee.board.pieces()
    start = time.monotonic()
    boot = referee.power_cut()
    # The pieces stayed on the board (the daemon put them back from its file).
    assert kinds(referee.board.pieces()) == kinds(pieces)
    referee.wait_active()
    referee.events.wait_connected()
    recovered = time.monotonic() - start
    games = resumed(referee, 600)
    assert games and games[-1]["actions"] == ["b2", "a2", "a1"], games
    referee.play("B2", "c1", 4)
    referee.timings.append(
        f"power cut mid-game: booted in {boot:.1f} s, the service READY {recovered:.1f} s after "
        f"the cut, 3 moves resumed, {sum(map(len, pieces.values()))} pieces put back"
    )


def test_a_hung_bus_is_cut_short_by_the_watchdog(referee) -> None:
    mark = opening(referee)
    before = referee.restarts()
    start = time.monotonic()
    referee.board.hang_bus()
    try:
        deadline = start + 180
        while WATCHDOG not in (said := referee.journal("-o", "cat", "--since", "-300s")):
            assert time.monotonic() < deadline, said
            time.sleep(1)
        killed = time.monotonic() - start
    finally:
        referee.board.release_bus()
    released = time.monotonic()
    again = referee.events.wait(mark, 180, type="game-started")
    referee.wait_active()
    back = time.monotonic() - released
    after = referee.restarts()
    assert again["actions"] == ["b2", "a2"]
    assert after > before
    referee.play("A2", "a1", 3)
    referee.timings.append(
        f"hung I2C bus: the watchdog killed the service {killed:.1f} s after the hang "
        f"(NRestarts {before} -> {after}), READY {back:.1f} s after the release, 2 moves resumed"
    )


def test_an_expander_gone_and_back(referee) -> None:
    mark = opening(referee)
    start = time.monotonic()
    referee.board.kill_expander(0)
    lost = referee.events.wait(mark, 60, type="fault", kind="expander-lost")
    seen_lost = time.monotonic() - start
    start = time.monotonic()
    referee.board.revive_expander(0)
    back = referee.events.wait(mark, 60, type="fault", kind="expander-back")
    seen_back = time.monotonic() - start
    assert "0x20" in lost["where"] and "0x20" in back["where"], (lost, back)
    referee.play("A2", "a1", 3)
    referee.timings.append(
        f"expander 0x20 gone: expander-lost over MQTT {seen_lost:.1f} s after, "
        f"expander-back {seen_back:.1f} s after it answered again; play went on"
    )


def test_an_expander_reset(referee) -> None:
    mark = opening(referee)
    start = time.monotonic()
    referee.board.reset_expander(0)
    reset = referee.events.wait(mark, 60, type="fault", kind="expander-reset")
    seen = time.monotonic() - start
    assert "0x20" in reset["where"], reset
    referee.play("A2", "a1", 3)
    referee.timings.append(
        f"expander 0x20 reset: expander-reset over MQTT {seen:.1f} s after; play went on"
    )


def test_the_new_button_held_at_start_up_starts_the_self_test(referee) -> None:
    machine = referee.machine
    machine.run(["systemctl", "stop", "magboard"], timeout=120, check=True)
    referee.lay_out()
    referee.board.press("new")
    try:
        mark = referee.events.mark()
        referee.start()
        note = referee.events.wait(mark, 60, type="note")
        assert note["text"].startswith("Self-test: take everything off the board"), note
        assert note["text"].endswith("press new when a square should be lit and you see none.")
    finally:
        referee.board.release("new")
    # Every square red while the board is cleared.
    time.sleep(2)
    view = referee.board.leds()
    assert view.colours is not None
    cells = [view.colours[SPEC.led_index[cell]] for cell in CELLS.values()]
    assert all(r > 0 and g == b == 0 for r, g, b in cells), cells
    assert referee.show("ActiveState")["ActiveState"] == "active"


def test_the_operators_self_test_finds_every_expander(referee) -> None:
    referee.only_emulated("it reads the simulated board's gpiochip from /run/magboard-hil")
    machine = referee.machine
    machine.run(["systemctl", "stop", "magboard"], timeout=120, check=True)
    referee.board.clear()
    chip = machine.run(["cat", "/run/magboard-hil/gpiochip"], check=True).stdout.strip()
    environment = [f"{name}={value}" for name, value in deploy.pi_environment(int(chip)).items()]
    command = [
        "runuser", "-u", "magboard", "--", "env", "BLINKA_SKIP_DEPENDENCY_CHECK=1", *environment,
        f"{deploy.VENV}/bin/magboard", "selftest", "--board", "mini", "--json",
        "--square-seconds", "0.2", "--clear-seconds", "1",
    ]  # fmt: skip
    start = time.monotonic()
    result = machine.run(command, cwd="/tmp", timeout=600)
    took = time.monotonic() - start
    assert result.stdout, f"rc {result.rc}{' (timed out)' * result.timed_out}: {result.stderr}"
    report = json.loads(result.stdout)
    assert report["board"] == "mini" and report["missing_expanders"] == [], report
    assert report["squares"] == 9 + 26
    # Nobody put the test magnet down: every square's sensor is dead, none stuck, and the report
    # fails for that alone.
    assert report["stuck"] == [] and result.rc == 1
    referee.timings.append(f"magboard selftest on the real backend: {took:.1f} s, 4 expanders")
