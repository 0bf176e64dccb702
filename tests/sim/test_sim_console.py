"""`magboard run --sim` at a terminal: readable help, LED frames only when asked for, and the
last typed move judged before the end of input ends it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from magboard.sim.commands import HELP


def run_sim(tmp_path, script: str, *flags: str) -> list[str]:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "magboard.host.cli", "run", "--sim", "--board", "mini"),
            *("--journal", str(tmp_path / "magboard.db"), *flags),
        ],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def events(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines if line.startswith("{")]


def test_help_is_text_not_an_escaped_note(tmp_path):
    lines = run_sim(tmp_path, "help\n")
    assert "\n".join(HELP.splitlines()) in "\n".join(lines)
    assert not any("lift PLACE" in e.get("text", "") for e in events(lines))


def test_the_last_move_is_judged_at_the_end_of_input_and_leds_are_hidden(tmp_path):
    got = events(run_sim(tmp_path, "play b2\n"))
    assert [e["actions"] for e in got if e["type"] == "move"] == [["b2"]]
    assert not any(e["type"] == "leds" for e in got)


def test_leds_prints_the_led_frames(tmp_path):
    got = events(run_sim(tmp_path, "play b2\nquit\n", "--leds"))
    assert any(e["type"] == "leds" for e in got)
    assert [e["actions"] for e in got if e["type"] == "move"] == [["b2"]]


def test_the_simulated_board_keeps_its_games_apart_from_the_real_boards(tmp_path):
    """Without --journal, `run --sim` must not resume or count into the real board's journal."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "MAGBOARD_STATE"} | {"HOME": str(home)}
    real = home / ".local/state/magboard/magboard.db"
    command = [sys.executable, "-m", "magboard.host.cli", "run", "--sim", "--board", "mini"]
    first = subprocess.run(
        command, input="play b2\n", env=env, capture_output=True, text=True, timeout=60
    )
    assert first.returncode == 0, first.stderr
    assert not real.exists()
    assert (home / ".local/state/magboard/sim/magboard.db").is_file()
    again = subprocess.run(command, input="", env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    resumed = [e for e in events(again.stdout.splitlines()) if e["type"] == "game-started"]
    assert resumed and resumed[0]["actions"] == ["b2"], "its own journal resumes its own game"
    assert not real.exists()
