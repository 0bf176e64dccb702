"""The journal keeps the game in progress across a power cut, and the usage figures."""

from __future__ import annotations

import sqlite3

from magboard.firmware.events import (
    FaultSurvived,
    GameOver,
    GameStarted,
    Illegal,
    LedFrame,
    Moved,
    Partial,
    TakenBack,
)
from magboard.firmware.journal import Journal, Resume

TTT = GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O"))


def reopened(journal: Journal) -> Resume | None:
    """What a restarted board reads: a new Journal on the same file."""
    journal.close()
    return Journal(journal.path).load()


def test_a_game_is_resumed_with_every_action_including_a_turn_in_progress(tmp_path):
    journal = Journal(tmp_path / "magboard.db")
    journal.record(TTT)
    journal.record(Moved(1.0, 0, ("b2",), 1))
    journal.record(LedFrame(1.0, "000000"))  # not kept: it does not change the game
    journal.record(Moved(2.0, 1, ("a1",), 2))
    journal.record(TakenBack(3.0, 1, ("a1",)))
    journal.record(Moved(4.0, 1, ("c3",), 2))
    journal.record(Partial(5.0, 0, ("a3",)))
    assert reopened(journal) == Resume("tic-tac-toe", {}, "mini", ("b2", "c3", "a3"))
    with sqlite3.connect(journal.path) as db:
        assert db.execute("SELECT count(*) FROM records").fetchone() == (6,)


def test_a_new_game_after_a_finished_one_starts_afresh(tmp_path):
    journal = Journal(tmp_path / "magboard.db")
    journal.record(TTT)
    journal.record(Moved(1.0, 0, ("b2",), 1))
    journal.record(GameOver(2.0, (0,), ("X",), "three in a row"))
    journal.record(GameStarted(3.0, "tic-tac-toe", {}, "mini", ("X", "O")))
    assert reopened(journal).actions == ()


def test_a_resumed_game_continues_its_record_and_can_be_taken_back_past_its_resume_point(
    tmp_path,
):
    journal = Journal(tmp_path / "magboard.db")
    journal.record(TTT)
    journal.record(Moved(1.0, 0, ("b2",), 1))
    journal.record(Moved(2.0, 1, ("a1",), 2))
    restarted = Journal(journal.path)
    assert restarted.load().actions == ("b2", "a1")
    restarted.record(GameStarted(3.0, "tic-tac-toe", {}, "mini", ("X", "O"), ("b2", "a1")))
    restarted.record(TakenBack(4.0, 1, ("a1",)))
    assert reopened(restarted).actions == ("b2",)
    with sqlite3.connect(journal.path) as db:
        assert db.execute("SELECT count(*), min(result) FROM games").fetchone() == (1, None)


def test_no_journal_means_a_fresh_game(tmp_path):
    assert Journal(tmp_path / "none.db").load() is None


def test_a_turn_in_progress_at_a_resume_is_told_again_not_doubled(tmp_path):
    """The board resumed in the middle of B's turn (a slide, the neutral tile still to come)
    and B then finished it: the journal holds that turn once."""
    journal = Journal(tmp_path / "magboard.db")
    options = {"starter": "A", "clock": "none", "max_turns": 300}
    so_far = ("d4", "a2", "end", "b2", "a2^1:4", "b2>1:1")
    journal.record(GameStarted(0.0, "lance-assembly", options, "r1", ("A", "B"), so_far))
    assert reopened(journal).actions == so_far
    journal = Journal(journal.path)
    journal.load()
    journal.record(GameStarted(0.0, "lance-assembly", options, "r1", ("A", "B"), so_far))
    journal.record(Moved(1.0, 1, ("b2>1:1", "Nc3"), 4))
    assert reopened(journal).actions == (*so_far, "Nc3")


def test_the_figures_of_each_game_are_kept(tmp_path):
    journal = Journal(tmp_path / "magboard.db")
    journal.record(TTT)
    journal.record(Moved(1.0, 0, ("b2",), 1))
    journal.record(Illegal(2.0, 1, ("b2",), (), "two pieces moved"))
    journal.record(Moved(3.0, 1, ("a1",), 2))
    journal.record(TakenBack(4.0, 1, ("a1",)))
    journal.record(FaultSurvived(5.0, "i2c-error", "0x20", "retried"))
    journal.record(GameStarted(6.0, "tic-tac-toe", {}, "mini", ("X", "O")))  # abandons it
    for n, move in enumerate(("a1", "b1", "b2", "c1", "c3"), start=1):
        journal.record(Moved(6.0 + n, (n - 1) % 2, (move,), n))
    journal.record(GameOver(12.0, (0,), ("X",), "three in a row"))
    journal.close()
    with sqlite3.connect(journal.path) as db:
        rows = db.execute(
            "SELECT result, turns, mistakes, takebacks, faults, winners FROM games ORDER BY id"
        ).fetchall()
    assert rows == [("abandoned", 1, 1, 1, 1, None), ("finished", 5, 0, 0, 0, "[0]")]


def test_a_game_resumes_into_its_own_remote_match_only(tmp_path):
    path = tmp_path / "magboard.db"
    journal = Journal(path, match="table-7")
    journal.record(TTT)
    journal.record(Moved(1.0, 0, ("b2",), 1))
    journal.close()
    resume = Journal(path).load()
    assert (resume.actions, resume.match) == (("b2",), "table-7")
    other = Journal(path, match="table-8")  # another match: its game is a new one
    other.record(TTT)
    other.close()
    assert Journal(path).load() == Resume("tic-tac-toe", {}, "mini", (), None, "table-8")
