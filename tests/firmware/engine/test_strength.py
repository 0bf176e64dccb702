"""`magboard strength`: the table of how well strong plays, and the mistakes it refuses."""

from __future__ import annotations

from magboard.firmware.engine.strength import format_report, measure
from magboard.host import cli


def test_every_seat_meets_both_rivals_and_the_table_says_who_passed():
    result = measure(random_games=3, easy_games=2, budget=0.01, names=("tic-tac-toe",), jobs=1)
    rows = [(s["seat"], s["rival"], s["games"]) for s in result["standings"]]
    assert rows == [("X", "random", 3), ("X", "easy", 2), ("O", "random", 3), ("O", "easy", 2)]
    for standing in result["standings"]:
        assert standing["wins"] + standing["draws"] + standing["losses"] == standing["games"]
        assert standing["losses"] == 0  # strong never loses tic-tac-toe
    report = format_report(result).splitlines()
    below = sum(not s["passed"] for s in result["standings"])
    assert len(report) == 2 + 4 + 1
    assert report[-1] == ("all pass" if not below else f"{below} below the mark")


def test_no_games_or_no_time_is_one_line_and_status_2(capsys):
    assert cli.main(["strength", "--games", "0"]) == 2
    assert cli.main(["strength", "--budget", "0"]) == 2
    assert cli.main(["strength", "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 3 and "no game called 'chess'" in err
