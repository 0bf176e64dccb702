"""`magboard demo`: a whole random game played on the simulated board, drawn step by step."""

from __future__ import annotations

import io

import pytest

from magboard.firmware.games import get_game
from magboard.host import cli
from magboard.sim.demo import Demo, brighten

TTT = get_game("tic-tac-toe")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("board", ["mini", "r1"])
def test_a_whole_game_in_plain_text_ends_with_the_result(capsys, board):
    status, out, err = run(capsys, "demo", "--board", board, "--seed", "3", "--speed", "0")
    assert status == 0, err
    assert "\x1b" not in out  # not a terminal: no colours in a log
    lines = out.rstrip("\n").splitlines()
    assert lines[0].startswith(f"magboard demo: Tic-tac-toe on {board}")
    assert lines[-1].startswith("Result: ")
    assert f"New game of Tic-tac-toe on {board}: X against O" in out
    assert "X lifted a piece from X's tray: put the piece down on " in out
    assert " wins: three in a row" in out or "a draw: " in out
    moves = [line for line in lines if " played " in line]
    assert 5 <= len(moves) <= 9
    assert "[" in out  # lit LEDs are marked
    assert "seat-1" in out


def test_the_same_seed_plays_the_same_game(capsys):
    first = run(capsys, "demo", "--seed", "11", "--speed", "0")[1]
    second = run(capsys, "demo", "--seed", "11", "--speed", "0")[1]
    assert first == second


def test_r1_shows_the_game_area_with_a_margin(capsys):
    out = run(capsys, "demo", "--board", "r1", "--seed", "1", "--speed", "0")[1]
    columns = [line.split() for line in out.splitlines() if line.strip() == "d  e  f  g  h"]
    assert columns, "the lattice is shown from d to h (e-g is the game, one cell each side)"


def test_on_a_terminal_cells_take_the_colour_of_their_led():
    out = io.StringIO()
    over = Demo("mini", TTT, {}, 4, speed=0, out=out, colour=True).run()
    text = out.getvalue()
    assert over is not None
    assert "\x1b[1;97;48;2;" in text or "\x1b[1;30;48;2;" in text
    assert text.rstrip().splitlines()[-1].startswith("Result: ")


def test_it_waits_in_real_time_at_the_speed_asked():
    waits: list[float] = []
    demo = Demo("mini", TTT, {}, 2, speed=4.0, out=io.StringIO(), sleep=waits.append)
    demo.run()
    assert waits and all(w >= 0 for w in waits)
    assert sum(waits) == pytest.approx(demo._shown_at / 4.0)


def test_dim_colours_are_brightened_in_order():
    dim, soft, full = brighten((0, 0, 19)), brighten((0, 0, 38)), brighten((0, 0, 127))
    assert 19 < dim[2] < soft[2] < full[2] <= 255
    assert brighten((0, 0, 0)) == (0, 0, 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("demo", "chess", "--speed", "0"), "no game called 'chess'"),
        (("demo", "--board", "nowhere", "--speed", "0"), "no board called 'nowhere'"),
        (("demo", "--option", "size=4", "--speed", "0"), "has no option 'size'"),
        (("demo", "--speed", "-1"), "--speed is 0"),
    ],
)
def test_bad_requests_get_one_line(capsys, argv, message):
    status, _out, err = run(capsys, *argv)
    assert status == 2
    assert message in err
    assert len(err.splitlines()) == 1
