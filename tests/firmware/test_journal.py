"""The journal keeps the game in progress across a power cut."""

from __future__ import annotations

from magboard.firmware.events import GameOver, GameStarted, LedFrame, Moved, Partial, TakenBack
from magboard.firmware.journal import Journal, Resume


def test_a_game_is_resumed_with_every_action_including_a_turn_in_progress(tmp_path):
    journal = Journal(tmp_path / "game.jsonl")
    journal.record(GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O")))
    journal.record(Moved(1.0, 0, ("b2",), 1))
    journal.record(LedFrame(1.0, "000000"))  # not kept: it does not change the game
    journal.record(Moved(2.0, 1, ("a1",), 2))
    journal.record(TakenBack(3.0, 1, ("a1",)))
    journal.record(Moved(4.0, 1, ("c3",), 2))
    journal.record(Partial(5.0, 0, ("a3",)))
    assert journal.load() == Resume("tic-tac-toe", {}, "mini", ("b2", "c3", "a3"))
    assert len(journal.path.read_text().splitlines()) == 6


def test_a_new_game_starts_a_new_file(tmp_path):
    journal = Journal(tmp_path / "game.jsonl")
    journal.record(GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O")))
    journal.record(Moved(1.0, 0, ("b2",), 1))
    journal.record(GameOver(2.0, (0,), ("X",), "three in a row"))
    journal.record(GameStarted(3.0, "tic-tac-toe", {}, "mini", ("X", "O")))
    assert journal.load().actions == ()
    assert len(journal.path.read_text().splitlines()) == 1


def test_a_resumed_game_can_be_taken_back_past_its_resume_point(tmp_path):
    journal = Journal(tmp_path / "game.jsonl")
    journal.record(GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O"), ("b2", "a1")))
    journal.record(TakenBack(1.0, 1, ("a1",)))
    assert journal.load().actions == ("b2",)


def test_a_torn_last_line_loses_only_itself(tmp_path):
    journal = Journal(tmp_path / "game.jsonl")
    journal.record(GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O")))
    journal.record(Moved(1.0, 0, ("b2",), 1))
    with journal.path.open("a") as file:
        file.write('{"type":"move","t":2.0,"pla')
    assert journal.load().actions == ("b2",)


def test_no_journal_or_an_unreadable_one_means_a_fresh_game(tmp_path):
    assert Journal(tmp_path / "none.jsonl").load() is None
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\xff\xfe not json")
    assert Journal(garbage).load() is None


def test_a_turn_in_progress_at_a_resume_is_told_again_not_doubled(tmp_path):
    """The board resumed in the middle of B's turn (a slide, the neutral tile still to come)
    and B then finished it: the journal holds that turn once."""
    journal = Journal(tmp_path / "game.jsonl")
    options = {"starter": "A", "clock": "none", "max_turns": 300}
    so_far = ("d4", "a2", "end", "b2", "a2^1:4", "b2>1:1")
    journal.record(GameStarted(0.0, "lance-assembly", options, "r1", ("A", "B"), so_far))
    assert journal.load().actions == so_far
    journal.record(Moved(1.0, 1, ("b2>1:1", "Nc3"), 4))
    assert journal.load().actions == (*so_far, "Nc3")
