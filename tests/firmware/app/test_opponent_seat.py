"""Asking for the board as an opponent: `--ai` and `--ai-budget` on run, play and sim, and `ai`
and `ai_budget` in the configuration file; every mistake is one line and status 2, before
anything opens. And the terminal game against the board (`magboard play --ai`)."""

from __future__ import annotations

import argparse
import io

import pytest

from magboard.firmware.app.board_player import stepped_clock
from magboard.firmware.app.config import ConfigError, load_config
from magboard.firmware.app.run import request_of
from magboard.firmware.engine.opponent import AiSeat, Level
from magboard.firmware.games import get_game
from magboard.firmware.play import play
from magboard.host.cli import main as cli


def refused(capsys, argv: list[str]) -> str:
    assert cli(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["run", "--ai", "Z"], "--ai 'Z': Tic-tac-toe has no seat 'z'"),
        (["run", "--ai", "O:genius"], "no level 'genius' (levels: easy, normal, strong)"),
        (["run", "--ai", "3"], "has no seat '3'"),
        (["run", "--ai", "O", "--ai-budget", "0"], "--ai-budget is a number of seconds, more"),
        (["run", "--ai-budget", "1"], "give --ai SEAT too"),
        (["run", "--game", "lance-assembly", "--ai", "O"], "Lance Assembly has no seat 'o'"),
        (["run", "--game", "magnetmen", "--option", "players=2", "--ai", "C"], "played by A, B"),
        (["play", "tic-tac-toe", "--ai", "Q"], "--ai 'Q'"),
        (["play", "tic-tac-toe", "--ai-budget", "2"], "give --ai SEAT too"),
        (["sim", "--ai", "O:hard"], "no level 'hard'"),
    ],
)
def test_a_bad_ai_is_one_line_and_status_2(capsys, tmp_path, argv, said):
    if argv[0] == "run":
        argv = [*argv, "--journal", str(tmp_path / "j.db")]
    err = refused(capsys, argv)
    assert err.startswith("magboard: ") and said in err, err


def test_run_and_remote_do_not_go_together(capsys, tmp_path):
    argv = ["run", "--ai", "O", "--remote", "mqtt://h/m", "--seat", "X"]
    err = refused(capsys, [*argv, "--journal", str(tmp_path / "j.db")])
    assert "--ai and --remote" in err


def run_args(tmp_path, config: str | None = None, **given) -> argparse.Namespace:
    path = None
    if config is not None:
        path = tmp_path / "magboard.toml"
        path.write_text(config)
    fields = dict(
        config=str(path) if path else None,
        board=None,
        game=None,
        option=[],
        journal=str(tmp_path / "j.db"),
        no_takeback=False,
        link=None,
        ai=None,
        ai_budget=None,
    )
    return argparse.Namespace(**{**fields, **given})


def test_the_file_names_the_seat_and_the_flag_wins(tmp_path):
    request = request_of(run_args(tmp_path, 'ai = "O:strong"\nai_budget = 2.5\n'))
    assert request.ai == AiSeat(1, Level.STRONG) and request.ai_budget == 2.5
    request = request_of(run_args(tmp_path, 'ai = "O:strong"\n', ai="X:easy", ai_budget=0.5))
    assert request.ai == AiSeat(0, Level.EASY) and request.ai_budget == 0.5
    request = request_of(run_args(tmp_path))
    assert request.ai is None and request.ai_budget is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("ai = 2\n", "ai is text, not 2"),
        ('ai = ""\n', "ai is empty"),
        ('ai_budget = "1"\n', "ai_budget is a number of seconds, not '1'"),
        ("ai_budget = -1\n", "ai_budget is a number of seconds, more than 0, not -1"),
        ("ai_budget = true\n", "ai_budget is a number of seconds, not True"),
    ],
)
def test_the_file_refuses_a_bad_ai_in_one_line(tmp_path, text, said):
    path = tmp_path / "magboard.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}: {said}"


def test_a_seat_the_files_game_lacks_names_the_file_and_key(tmp_path):
    args = run_args(tmp_path, 'game = "lance-assembly"\nai = "O"\n')
    with pytest.raises(Exception) as raised:
        request_of(args)
    assert str(raised.value).startswith(f"{args.config}: ai 'O': Lance Assembly has no seat")


def test_a_budget_in_the_file_without_a_seat_is_refused(tmp_path):
    with pytest.raises(Exception, match="give --ai SEAT too"):
        request_of(run_args(tmp_path, "ai_budget = 2\n"))


# The terminal game.


def terminal(ai: AiSeat, lines: list[str]) -> str:
    out = io.StringIO()
    game = get_game("tic-tac-toe")
    stdin = io.StringIO("".join(f"{line}\n" for line in lines))
    status = play(game, game.new_state({}), stdin, out, ai, clock=stepped_clock(), seed=1)
    assert status == 0
    return out.getvalue()


def test_play_against_the_board_prints_its_turns_and_ends_the_game():
    squares = [f"{c}{r}" for r in "123" for c in "abc"]
    out = terminal(AiSeat(1, Level.NORMAL), squares)
    replies = [line for line in out.splitlines() if line.startswith("The board plays O")]
    assert replies and all(line.startswith("The board plays O (normal): ") for line in replies)
    assert "O to move" not in out  # the board never asks for its own move
    assert out.rstrip().splitlines()[-1].endswith(".")  # a result: a win or a draw
    assert "wins" in out.splitlines()[-1] or "Draw" in out.splitlines()[-1]


def test_the_board_opens_when_it_plays_the_first_seat_and_undo_skips_its_reply():
    out = terminal(AiSeat(0, Level.EASY), ["moves", "undo", "quit"])
    lines = out.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith("The board plays X"))
    assert "O to move" in lines[first + 1 : first + 8]  # its move is drawn, then O is asked
    assert "Nothing to take back." in out  # the board's opening alone is not the person's
