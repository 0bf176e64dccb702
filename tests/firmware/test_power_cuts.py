"""Power cuts, for real: a board process (the simulated board, the real referee loop and journal)
is killed with SIGKILL at random points of its games, hundreds of times, and every restart
resumes every move it had accepted, losing at most the move being made.

The kills land anywhere: from outside while the process runs (just as it reports a commit, so
often in the middle of the fsync), and from inside at a chosen SQL statement (between a
transaction's BEGIN, INSERTs and COMMIT, or while the database is being opened and read).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from magboard.firmware.events import Event, Moved
from magboard.firmware.games import get_game
from magboard.firmware.journal import Journal
from magboard.sim.session import SimSession

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]

KILLS = 200
GAMES = (("tic-tac-toe", "mini"), ("tic-tac-cap", "mini"))


@dataclass(frozen=True)
class Cut:
    """How the next run of the board process dies."""

    at_statement: int | None
    """Killed by itself when about to run its n-th SQL statement..."""
    after_commits: int | None
    """...or from outside as soon as it says its n-th commit has begun."""


def board_process(path: Path, game: str, board: str, seed: int, cut: Cut, report: int) -> None:
    """The board, in the child: resumes what the journal holds (or starts the game), then
    plays random legal moves by hand; reports on `report` each commit begun ("C") and, once a
    move is accepted (so committed), every action accepted so far ("A [...]")."""
    statements = 0
    real_connect = sqlite3.connect

    def on_statement(sql: str) -> None:
        nonlocal statements
        statements += 1
        if statements == cut.at_statement:
            os.kill(os.getpid(), signal.SIGKILL)
        if sql.strip().upper().startswith("COMMIT"):
            os.write(report, b"C\n")

    def connect(*args, **kwargs) -> sqlite3.Connection:
        db = real_connect(*args, **kwargs)
        db.set_trace_callback(on_statement)
        return db

    sqlite3.connect = connect  # this process only: it is about to be killed anyway
    accepted: list[str] = []

    def heard(event: Event) -> None:
        if isinstance(event, Moved):
            accepted.extend(event.actions)
            os.write(report, f"A {json.dumps(accepted)}\n".encode())

    session = SimSession(board, game, journal=path, sinks=[heard])
    resume = session.journal.load()
    position = session.initial
    if resume is not None and resume.game == game and resume.board == board:
        accepted.extend(resume.actions)
        for text in resume.actions:
            position = position.apply(position.parse_action(text))
    session.lay_out(position)
    session.start(tuple(accepted))
    rng = random.Random(seed)
    while session.state.outcome() is None:
        state = session.state
        physical = [a for a in state.legal_actions() if session.profile.plan(state, a)]
        if not physical:
            break  # nothing a hand can do: the game stops here
        session.perform(rng.choice(physical))
        session.settle()
    os.write(report, b"OVER\n")


def run_until_cut(path: Path, game: str, board: str, seed: int, cut: Cut) -> tuple[list, bool]:
    """Runs the board process until it is killed or its game ends: the actions it reported
    accepted (None if it reported none) and whether it was killed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the board process
        code = 0
        try:
            os.close(read)
            board_process(path, game, board, seed, cut, write)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    accepted, commits, over = None, 0, False
    with os.fdopen(read, "rb") as lines:
        for line in lines:
            if line.startswith(b"A "):
                accepted = json.loads(line[2:])
            elif line == b"C\n":
                commits += 1
                if commits == cut.after_commits:
                    os.kill(pid, signal.SIGKILL)
            elif line == b"OVER\n":
                over = True
    _, status = os.waitpid(pid, 0)
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert killed or (over and os.WEXITSTATUS(status) == 0), f"the board process failed ({status})"
    return accepted, killed


def turns_in(game: str, actions: list[str]) -> int:
    state = get_game(game).new_state({})
    for text in actions:
        state = state.apply(state.parse_action(text))
    return state.turn


def test_every_restart_after_a_kill_resumes_every_accepted_move(tmp_path):
    path = tmp_path / "magboard.db"
    rng = random.Random(20261124)
    kills, games, mid_commit = 0, 0, 0
    accepted: list[str] = []
    game, board = GAMES[0]
    while kills < KILLS:
        if rng.random() < 0.5:
            cut = Cut(at_statement=rng.randint(1, 60), after_commits=None)
        else:
            cut = Cut(at_statement=None, after_commits=rng.randint(1, 12))
        reported, killed = run_until_cut(path, game, board, rng.randrange(2**32), cut)
        accepted = reported if reported is not None else accepted
        journal = Journal(path)
        resume = journal.load()
        journal.close()
        if not killed:  # the game ended: the next one is the other game
            games += 1
            game, board = GAMES[games % len(GAMES)]
            accepted = []
            continue
        kills += 1
        mid_commit += cut.after_commits is not None
        resumed = list(resume.actions) if resume and resume.game == game else []
        assert resumed[: len(accepted)] == accepted, f"kill {kills}: lost accepted moves"
        assert turns_in(game, resumed) <= turns_in(game, accepted) + 1, (
            f"kill {kills}: more than the move being made came back"
        )
        accepted = resumed  # what the restarted board holds as played
    assert games >= 2, "the kills must fall across games of both kinds"
    assert mid_commit >= KILLS // 4
