"""`magboard perft`: each depth printed as it is counted, bounded memory, and depths past a
game's length refused."""

from __future__ import annotations

import pytest

from magboard.firmware.games import get_game
from magboard.firmware.games import perft as perft_module
from magboard.firmware.games.perft import perft_series, perft_stream
from magboard.host import cli

TTT = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


def test_perft_stream_yields_each_depth_before_counting_the_next(monkeypatch):
    state = get_game("tic-tac-toe").new_state()
    stream = perft_stream(state, 100_000)
    assert next(stream) == 9  # the first depth comes at once, whatever depth was asked for
    assert next(stream) == 72


@pytest.mark.slow
def test_perft_memo_is_bounded_and_counts_stay_right(monkeypatch):
    monkeypatch.setattr(perft_module, "MEMO_LIMIT", 50)
    memo: dict = {}
    assert perft_module.perft(get_game("tic-tac-toe").new_state(), 5, memo) == TTT[4]
    assert len(memo) <= 50
    assert perft_series(get_game("tic-tac-toe").new_state(), 9) == TTT


def test_perft_past_the_end_of_tic_tac_toe_is_one_line_and_status_2(capsys):
    status = cli.main(["perft", "ttt", "100000"])
    out, err = capsys.readouterr()
    assert status == 2
    assert out.splitlines() == [f"perft {d}: {n}" for d, n in enumerate(TTT, start=1)]
    assert err == "magboard: perft depth 100000 is past the longest tic-tac-toe game (9 turns)\n"


@pytest.mark.parametrize("game", ["meep-tac-toe", "meeple-maneuver"])
def test_perft_past_a_declared_bound_is_refused_before_counting(capsys, game):
    status = cli.main(["perft", game, "11", "--option", "max_turns=10"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err == f"magboard: perft depth 11 is past the longest {game} game (10 turns)\n"
