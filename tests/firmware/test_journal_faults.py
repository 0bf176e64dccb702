"""The journal on a worn SD card, a full or read-only disk, a directory in its place: no
traceback, no accepted move lost, a fault event, the alert lit; what cannot be read is set aside
and kept."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest

from magboard.firmware.app.loop import JOURNAL_RETRY
from magboard.firmware.events import FaultSurvived, GameStarted, Moved
from magboard.firmware.journal import Journal
from magboard.sim.session import SimSession

MOVES = ("a1", "b1", "b2", "c1")
"""Four tic-tac-toe turns, no line."""


def journalled(path: Path, moves: tuple[str, ...] = MOVES) -> Journal:
    journal = Journal(path)
    journal.record(GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O")))
    for n, move in enumerate(moves, start=1):
        journal.record(Moved(float(n), (n - 1) % 2, (move,), n))
    return journal


def spoil(path: Path, marker: bytes) -> None:
    """A worn card: one byte of the record holding `marker` turned to 0xff."""
    data = bytearray(path.read_bytes())
    at = data.index(marker)
    assert data.count(marker) == 1, "the marker must name one record"
    data[at + 1] = 0xFF
    path.write_bytes(bytes(data))


def set_aside(path: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT seq, set_aside FROM records WHERE set_aside IS NOT NULL"
        ).fetchall()


def test_a_bad_byte_in_a_record_costs_no_move_and_the_record_is_kept(tmp_path):
    journal = journalled(tmp_path / "magboard.db")
    journal.close()
    spoil(journal.path, b'"type":"move","t":2.0')
    restarted = Journal(journal.path)
    assert restarted.load().actions == MOVES  # the later records hold the game again
    (news,) = restarted.news()
    assert "set aside" in news and "resumes" in news
    (kept,) = set_aside(journal.path)
    assert "unreadable" in kept[1]


def test_a_bad_byte_in_the_last_record_costs_at_most_that_move(tmp_path):
    journal = journalled(tmp_path / "magboard.db")
    journal.close()
    data = bytearray(journal.path.read_bytes())
    last = data.rindex(b'"tail":["a1","b1","b2","c1"]')
    data[last + 9] = 0xFF
    journal.path.write_bytes(bytes(data))
    restarted = Journal(journal.path)
    assert restarted.load().actions == MOVES[:-1]
    assert "set aside" in restarted.news()[0]


def test_a_record_that_does_not_replay_is_set_aside_and_the_good_part_resumes(tmp_path):
    journal = journalled(tmp_path / "magboard.db")
    journal.close()
    with sqlite3.connect(journal.path) as db:  # valid JSON, but b2 is taken
        db.execute(
            "INSERT INTO records (game_id, t, wall, event, snapshot) VALUES (1, 5, 0, ?, ?)",
            (
                Moved(5.0, 0, ("b2",), 5).to_json(),
                '{"game":"tic-tac-toe","options":{},"board":"mini",'
                '"done":["a1","b1","b2","c1","b2"],"partial":[],"reserves":null}',
            ),
        )
    restarted = Journal(journal.path)
    assert restarted.load().actions == MOVES
    assert "does not replay" in restarted.news()[0]
    assert [seq for seq, _ in set_aside(journal.path)] == [6]


def test_a_file_that_is_not_a_database_is_set_aside_and_a_new_one_begun(tmp_path):
    path = tmp_path / "magboard.db"
    path.write_bytes(b"\xff\xfe worn out " * 400)
    journal = Journal(path)
    assert journal.load() is None
    (news,) = journal.news()
    (aside,) = tmp_path.glob("magboard.db.unreadable-*")
    assert str(aside) in news and aside.read_bytes().startswith(b"\xff\xfe worn out")
    journalled(path, ("b2",)).close()
    assert Journal(path).load().actions == ("b2",)


def test_a_directory_in_the_journals_place_plays_on_in_memory_and_catches_up(tmp_path):
    path = tmp_path / "magboard.db"
    path.mkdir()
    journal = journalled(path)
    assert journal.behind and "is a directory" in journal.news()[0]
    path.rmdir()
    journal.catch_up()
    assert not journal.behind and "written again" in journal.news()[0]
    assert Journal(path).load().actions == MOVES


class Disk:
    """A small file system the test can fill and turn read-only: a tmpfs where it can mount
    one (root), else a directory whose permissions refuse writes (not root)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.mounted = False
        if os.geteuid() == 0:
            mount = ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(root)]
            found = subprocess.run(mount, capture_output=True, text=True)
            if found.returncode != 0:
                pytest.skip(f"root, but no tmpfs can be mounted here: {found.stderr.strip()}")
            self.mounted = True

    def read_only(self, on: bool) -> None:
        if self.mounted:
            option = "remount,ro" if on else "remount,rw"
            subprocess.run(["mount", "-o", option, str(self.root)], check=True)
            return
        for item in [self.root, *self.root.iterdir()]:
            item.chmod((0o555 if item.is_dir() else 0o444) if on else 0o755)

    def fill(self) -> Path:
        """Fills the file system, and tops it up again when called again: a card kept full by
        other writers, which take the room the journal frees when it closes its files."""
        if not self.mounted:
            pytest.skip("filling a file system takes a small tmpfs, which only root can mount")
        filler = self.root / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass  # full
        finally:
            os.close(fd)
        return filler

    def close(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "--lazy", str(self.root)], check=False)
        else:
            self.read_only(False)


@pytest.fixture
def disk(tmp_path):
    root = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    root.mkdir()
    found = Disk(root)
    yield found
    found.close()


def test_a_read_only_disk_resumes_the_game_and_writes_it_when_it_can(disk):
    path = disk.root / "magboard.db"
    journalled(path, MOVES[:2]).close()
    disk.read_only(True)
    journal = Journal(path)
    assert journal.load().actions == MOVES[:2]
    journal.record(GameStarted(9.0, "tic-tac-toe", {}, "mini", ("X", "O"), MOVES[:2]))
    journal.record(Moved(10.0, 0, (MOVES[2],), 3))
    assert journal.behind and "cannot be written" in journal.news()[0]
    disk.read_only(False)
    journal.catch_up()
    assert not journal.behind
    journal.close()
    assert Journal(path).load().actions == MOVES[:3]


def test_a_full_disk_plays_on_and_catches_up_when_there_is_room(disk):
    path = disk.root / "magboard.db"
    journal = journalled(path, MOVES[:1])
    filler = disk.fill()
    for n, move in enumerate(MOVES[1:], start=2):
        disk.fill()
        journal.record(Moved(float(n), (n - 1) % 2, (move,), n))
    # It fell behind; a record or two may have gone into room its files already had.
    assert "full" in journal.news()[0]
    filler.unlink()
    journal.catch_up()
    assert not journal.behind
    journal.close()
    assert Journal(path).load().actions == MOVES


def faults_of(session: SimSession) -> list[str]:
    events = session.events
    return [e.detail for e in events if isinstance(e, FaultSurvived) and e.kind == "journal"]


def alert_lit(session: SimSession) -> bool:
    return session.board.visible_leds()[session.spec.led_index["alert"]] != (0, 0, 0)


@pytest.mark.parametrize("fault", ["bad-byte", "unreplayable", "read-only", "full", "directory"])
def test_on_the_board_no_move_is_lost_a_fault_is_reported_and_the_alert_lit(disk, fault):
    """The simulated r1 meets each fault with a game on: every move accepted is there after
    the next power cut, a fault event says what happened, the alert LED lights (for as long as
    writes wait, when they do)."""
    path = disk.root / "magboard.db"
    if fault == "directory":
        path.mkdir()
    session = SimSession("r1", "tic-tac-toe", journal=path)
    session.lay_out()
    session.start()

    def play(move: str) -> None:
        session.perform(session.state.parse_action(move))
        session.settle()

    for move in MOVES[:2]:
        play(move)
    if fault in ("bad-byte", "unreplayable", "read-only"):
        session.journal.close()  # a power cut, after which the disk is not what it was
        if fault == "bad-byte":
            spoil(path, b'"actions":["a1"],"turn":1')
        elif fault == "unreplayable":
            with sqlite3.connect(path) as db:
                db.execute(
                    "INSERT INTO records (game_id, t, wall, event, snapshot) "
                    "SELECT game_id, t, wall, event, replace(snapshot, '\"b1\"', '\"a1\"') "
                    "FROM records ORDER BY seq DESC LIMIT 1"
                )
        else:
            disk.read_only(True)
        session = session.restart()
    filler = disk.fill() if fault == "full" else None
    play(MOVES[2])
    detail = faults_of(session)[0]
    assert {"bad-byte": "set aside", "unreplayable": "does not replay"}.get(
        fault, "cannot be written"
    ) in detail
    assert alert_lit(session)
    waiting = fault in ("read-only", "full", "directory")
    for _ in range(30):  # longer than a fault's own alert: still lit while writes wait
        if filler is not None:
            disk.fill()
        session.run_for(1.0)
    # Lit exactly while writes wait. A full card may take the waiting record into room the
    # journal's files already have, and then the alert goes out with the "written again" news.
    assert alert_lit(session) is session.journal.behind
    if fault != "full":
        assert session.journal.behind is waiting
    if waiting:
        if fault == "read-only":
            disk.read_only(False)
        elif fault == "full":
            filler.unlink()
        else:
            path.rmdir()
        session.run_for(JOURNAL_RETRY + 1)
        assert "written again" in faults_of(session)[-1]
        session.run_for(10.0)
        assert not alert_lit(session)
    assert Journal(path).load().actions == MOVES[:3]
    restarted = session.restart()
    assert restarted.referee.position == session.referee.position
