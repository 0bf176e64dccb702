"""What the journal costs and how long it keeps it: records that hold what happened, snapshots
now and then, damage that costs no move, an older database upgraded, and history dropped
oldest first to stay within its limits, never the game in progress."""

from __future__ import annotations

import itertools
import json
import random
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from magboard.firmware.app.config import ConfigError, load_config
from magboard.firmware.events import ClockChanged, GameOver, GameStarted, Moved, TakenBack
from magboard.firmware.games import get_game
from magboard.firmware.journal import PAGE_SIZE, SNAPSHOT_EVERY, Journal, Limits

# What the journal keeps does not depend on the line detector under the referee.
pytestmark = [pytest.mark.backend_free, pytest.mark.slow]

DAY = 86400.0
TTT = GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O"))


def long_game(path: Path, seed: int, records: int) -> tuple[Journal, list[tuple[str, ...]]]:
    """Tic-tac-toe with moves taken back again and again and a clock ticking, `records` kept
    events long: returns the journal and the game's actions after each record."""
    rng = random.Random(seed)
    journal = Journal(path)
    journal.record(TTT)
    rules = get_game("tic-tac-toe")
    done: list[str] = []
    after = [()]
    t = 0.0
    while len(after) < records:
        t += 1.0
        state = rules.new_state({})
        for text in done:
            state = state.apply(state.parse_action(text))
        choice = rng.random()
        if choice < 0.2:
            journal.record(ClockChanged(t, len(done) % 2, "turn", 10.0, (60.0 - t / 10, 60.0)))
        elif done and (choice < 0.55 or state.outcome() is not None or len(done) == 8):
            journal.record(TakenBack(t, (len(done) - 1) % 2, (done.pop(),)))
        else:
            action = rng.choice(state.legal_actions())
            done.append(str(action))
            journal.record(Moved(t, (len(done) - 1) % 2, (str(action),), len(done)))
        after.append(tuple(done))
    return journal, after


def spoil_records(path: Path, seqs: list[int]) -> None:
    with sqlite3.connect(path) as db:
        db.executemany(
            "UPDATE records SET snapshot = CAST(? AS BLOB) WHERE seq = ?",
            [(b'{"length":\xff', seq) for seq in seqs],
        )


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10**6), data=st.data())
def test_up_to_three_damaged_records_in_a_row_cost_no_move(tmp_path, seed, data):
    path = tmp_path / f"{seed}.db"
    path.unlink(missing_ok=True)
    journal, after = long_game(path, seed, 2 * SNAPSHOT_EVERY + 10)
    journal.close()
    assert Journal(path).load().actions == after[-1]
    with sqlite3.connect(path) as db:
        last = db.execute("SELECT max(seq) FROM records").fetchone()[0]
    first = data.draw(st.integers(1, last - 1), label="first damaged")
    run = data.draw(st.integers(1, min(3, last - first)), label="damaged in a row")
    spoil_records(path, list(range(first, first + run)))
    restarted = Journal(path)
    assert restarted.load().actions == after[-1]
    assert "set aside" in restarted.news()[0]


def test_damage_to_the_last_record_costs_that_record_only(tmp_path):
    journal, after = long_game(tmp_path / "magboard.db", 7, 2 * SNAPSHOT_EVERY + 5)
    journal.close()
    with sqlite3.connect(journal.path) as db:
        last = db.execute("SELECT max(seq) FROM records").fetchone()[0]
    spoil_records(journal.path, [last])
    assert Journal(journal.path).load().actions == after[-2]


def test_a_record_holds_its_event_and_only_now_and_then_the_whole_game(tmp_path):
    journal, _ = long_game(tmp_path / "magboard.db", 3, 2 * SNAPSHOT_EVERY + 10)
    journal.close()
    with sqlite3.connect(journal.path) as db:
        held = [json.loads(row[0]) for row in db.execute("SELECT snapshot FROM records")]
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        vacuum = db.execute("PRAGMA auto_vacuum").fetchone()[0]
    whole = [n for n, record in enumerate(held) if "done" in record]
    assert whole[0] == 0 and len(whole) == 3
    assert all(b - a == SNAPSHOT_EVERY + 1 for a, b in itertools.pairwise(whole))
    assert max(len(json.dumps(record)) for n, record in enumerate(held) if n not in whole) < 120
    assert (page_size, vacuum) == (PAGE_SIZE, 2)  # 2: incremental


def old_database(path: Path) -> None:
    """A database as the previous version left it: 4 KB pages, no vacuum, no action lists, a
    whole snapshot in every record; one game finished, one in progress."""
    db = sqlite3.connect(path)
    db.executescript(
        """
        PRAGMA journal_mode=WAL;
        CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
            board TEXT NOT NULL, started REAL NOT NULL, ended REAL, result TEXT,
            turns INTEGER NOT NULL DEFAULT 0, mistakes INTEGER NOT NULL DEFAULT 0,
            takebacks INTEGER NOT NULL DEFAULT 0, faults INTEGER NOT NULL DEFAULT 0, winners TEXT);
        CREATE TABLE records (seq INTEGER PRIMARY KEY, game_id INTEGER NOT NULL, t REAL NOT NULL,
            wall REAL NOT NULL, event TEXT NOT NULL, snapshot TEXT NOT NULL, set_aside TEXT);
        CREATE INDEX records_by_game ON records (game_id, seq);
        CREATE TABLE selftests (id INTEGER PRIMARY KEY, wall REAL NOT NULL, report TEXT NOT NULL);
        INSERT INTO games VALUES
            (1, 'tic-tac-toe', '{}', 'mini', 0, 5, 'finished', 5, 0, 0, 0, '[0]'),
            (2, 'tic-tac-toe', '{}', 'mini', 10, NULL, NULL, 2, 0, 0, 0, NULL);
        """
    )

    def snapshot(done: list[str]) -> str:
        return json.dumps(
            {"game": "tic-tac-toe", "options": {}, "board": "mini", "done": done,
             "partial": [], "reserves": None, "match": None}
        )  # fmt: skip

    game_1 = ["a1", "b1", "a2", "b2", "a3"]
    rows = [(1, game_1[:n]) for n in range(6)] + [(2, ["b2"]), (2, ["b2", "c3"])]
    db.executemany(
        "INSERT INTO records (game_id, t, wall, event, snapshot) VALUES (?, 0, 0, '{}', ?)",
        [(game, snapshot(done)) for game, done in rows],
    )
    db.commit()
    db.close()


def test_an_older_database_is_upgraded_and_its_game_resumed(tmp_path):
    path = tmp_path / "magboard.db"
    old_database(path)
    assert Journal(path).load().actions == ("b2", "c3")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        actions = dict(db.execute("SELECT id, actions FROM games"))
    assert json.loads(actions[1]) == ["a1", "b1", "a2", "b2", "a3"] and actions[2] is None


def play_games(journal: Journal, clock: list[float], games: int, moves: int = 5) -> None:
    """`games` finished tic-tac-toe games, a day apart."""
    for _ in range(games):
        clock[0] += DAY
        journal.record(TTT)
        for n, move in enumerate(["a1", "b1", "a2", "b2", "a3"][:moves], start=1):
            journal.record(Moved(float(n), (n - 1) % 2, (move,), n))
        if moves == 5:
            journal.record(GameOver(6.0, (0,), ("X",), "three in a row"))


def test_records_of_games_older_than_the_limit_are_dropped_their_summaries_kept(tmp_path):
    clock = [0.0]
    journal = Journal(tmp_path / "magboard.db", wall=lambda: clock[0], limits=Limits(keep_days=3))
    play_games(journal, clock, 6)
    play_games(journal, clock, 1, moves=2)  # in progress
    journal.close()
    with sqlite3.connect(journal.path) as db:
        kept = [row[0] for row in db.execute("SELECT DISTINCT game_id FROM records")]
        summaries = db.execute("SELECT count(*) FROM games WHERE actions IS NOT NULL").fetchone()
    assert kept == [4, 5, 6, 7]  # ended less than 3 days ago, and the game in progress
    assert summaries == (6,)
    assert Journal(journal.path).load().actions == ("a1", "b1")


def test_over_its_size_the_database_drops_history_oldest_first_never_the_game_on(tmp_path):
    clock = [0.0]
    limits = Limits(keep_days=10_000, max_bytes=40 * 1024)
    journal = Journal(tmp_path / "magboard.db", wall=lambda: clock[0], limits=limits)
    play_games(journal, clock, 300)
    play_games(journal, clock, 1, moves=2)
    journal.close()
    with sqlite3.connect(journal.path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = journal.path.stat().st_size
        games = [row[0] for row in db.execute("SELECT id FROM games ORDER BY id")]
        with_records = [row[0] for row in db.execute("SELECT DISTINCT game_id FROM records")]
    assert size <= limits.max_bytes + 4 * PAGE_SIZE  # the trim runs as each game ends
    assert games[-1] == 301 and games == list(range(games[0], 302))  # the newest kept
    assert with_records[-1] == 301 and with_records == sorted(with_records)
    assert Journal(journal.path).load().actions == ("a1", "b1")


def test_the_history_kept_is_set_in_the_configuration_and_a_mistake_is_refused(tmp_path):
    path = tmp_path / "magboard.toml"
    path.write_text("[history]\nkeep_days = 30\nmax_mb = 16\n")
    assert load_config(path).history == Limits(keep_days=30.0, max_bytes=16 * 1024 * 1024)
    path.write_text('game = "tic-tac-toe"\n')
    assert load_config(path).history == Limits()
    for text, said in [
        ("[history]\nkeep = 30\n", "history.keep is not a setting"),
        ("[history]\nmax_mb = 0\n", "history.max_mb is a number of megabytes, more than 0"),
        ('[history]\nkeep_days = "a month"\n', "history.keep_days is a number of days, not"),
    ]:
        path.write_text(text)
        with pytest.raises(ConfigError, match=re.escape(f"{path}: {said}")):
            load_config(path)
