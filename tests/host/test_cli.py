"""The `magboard` command as a person types it."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from magboard.firmware.games import get_game
from magboard.firmware.play import play
from magboard.host import cli


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_perft_prints_one_line_per_depth(capsys):
    status, out, _ = run(capsys, "perft", "tic-tac-toe", "9")
    assert status == 0
    assert out.splitlines() == [
        f"perft {d}: {n}"
        for d, n in enumerate([9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872], start=1)
    ]


def test_games_lists_names_and_aliases(capsys):
    status, out, _ = run(capsys, "games")
    assert status == 0
    assert "tic-tac-toe (also: ttt, noughts-and-crosses)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("perft", "chess", "2"), "no game called 'chess'"),
        (("perft", "ttt", "2", "--option", "size=4"), "tic-tac-toe has no option 'size'"),
        (("perft", "ttt", "2", "--option", "size"), "an option is NAME=VALUE"),
        (("perft", "ttt", "0"), "depth is 1 or more"),
        (
            ("perft", "magnetmen", "1", "--option", "players=7"),
            "option players is at most 4, not 7",
        ),
        (("perft", "magnetmen", "1", "--option", "seed=-3"), "option seed is at least 0, not -3"),
        (("perft", "magnetmen", "1", "--option", "seed=x"), "option seed takes a whole number"),
    ],
)
def test_bad_requests_get_one_clear_line(capsys, argv, message):
    status, _out, err = run(capsys, *argv)
    assert status == 2
    assert message in err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1


def test_play_answers_illegal_input_and_ends_with_the_winner():
    moves = "b2\nb2\nnonsense\nmoves\na1\nc3\nundo\na3\nb1\nc1\n"
    out = io.StringIO()
    game = get_game("tic-tac-toe")
    status = play(game, game.new_state(), io.StringIO(moves), out)
    text = out.getvalue()
    assert status == 0
    assert "Not accepted: b2: b2 is already taken by X" in text
    assert "'nonsense' is not a cell" in text
    assert "Legal moves: a1 b1 c1 a2 c2 a3 b3 c3" in text
    assert text.rstrip().endswith("X wins: three in a row.")


def test_play_stops_cleanly_at_end_of_input():
    game = get_game("tic-tac-toe")
    assert play(game, game.new_state(), io.StringIO("b2\n"), io.StringIO()) == 0


def test_bench_lines_json_is_machine_readable():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "magboard.host.cli",
            "bench",
            "lines",
            "--json",
            "--min-time",
            "0.01",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    assert {entry["shape"] for entry in result["shapes"]} == {
        "3x3 run 3",
        "6x6 run 5",
        "12x12 run 3 holes",
    }


@pytest.mark.parametrize("name", ["r1", "mini"])
def test_board_show_prints_maps_and_budgets(capsys, name):
    status, out, _ = run(capsys, "board", "show", name)
    assert status == 0
    for heading in ("Pin map", "LED map", "Budgets:", "scan at 100 kHz", "scan at 400 kHz"):
        assert heading in out


def test_a_broken_board_file_gets_one_line_naming_the_field(capsys, tmp_path):
    from magboard.hardware.spec import BOARDS_DIR

    text = (BOARDS_DIR / "mini.toml").read_text().replace("count = 37", 'count = "many"')
    broken = tmp_path / "broken.toml"
    broken.write_text(text)
    status, _, err = run(capsys, "board", "show", str(broken))
    assert status == 2
    assert err.strip() == "magboard: broken.toml: leds.count: must be int, not 'many'"


def test_listing_the_games_loads_no_driver_and_no_simulator():
    code = (
        "import sys\n"
        "from magboard.host.cli import main\n"
        "main(['games'])\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "tic-tac-toe" in done.stdout
    loaded = done.stderr.split()
    heavy = ("adafruit", "busio", "board", "RPi", "neopixel", "serial", "starlette", "uvicorn")
    assert [m for m in loaded if m.startswith(heavy)] == []
    assert [
        m for m in loaded if m.startswith("magboard.sim.") and m != "magboard.sim.subcommands"
    ] == []
    assert "magboard.hardware.expanders" not in loaded


def test_every_command_is_there(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for command in (
        "games",
        "perft",
        "play",
        "board",
        "run",
        "watch",
        "send",
        "scenario",
        "demo",
        "sim",
        "soak",
        "bench",
        "strength",
    ):
        assert f"\n    {command} " in out
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    out = capsys.readouterr().out
    for flag in ("--board", "--game", "--option", "--sim", "--journal", "--no-takeback", "--link"):
        assert flag in out
    with pytest.raises(SystemExit):
        cli.main(["bench", "--help"])
    assert "{lines,perft,ai,thinking,pipeline,scan,journal}" in capsys.readouterr().out


def test_version_prints_the_installed_version_and_exits_0(capsys):
    from importlib import metadata

    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    out, _ = capsys.readouterr()
    assert exited.value.code == 0
    assert out == f"magboard {metadata.version('magboard')}\n"
    assert out.split()[1][0].isdigit()
