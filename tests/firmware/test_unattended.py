"""A board nobody watches: the operator's configuration file, attract mode that stops at the
first touch, and a finished game left standing reset to a new one. In virtual time."""

from __future__ import annotations

import pytest

from magboard.firmware.app.unattended import Unattended
from magboard.firmware.events import Clear, GameOver, GameStarted, LedFrame, Note
from magboard.host.cli import main
from magboard.sim.session import SimSession

X_WINS = ("a1", "b1", "b2", "c1", "c3")


def play(session: SimSession, moves: tuple[str, ...]) -> None:
    for move in moves:
        session.perform(session.state.parse_action(move))
        session.settle()


def frames_during(session: SimSession, seconds: float) -> list[str]:
    start = len(session.events)
    session.run_for(seconds)
    return [e.pixels for e in session.events[start:] if isinstance(e, LedFrame)]


def touch(session: SimSession, game_cell: tuple[int, int]) -> None:
    """A hand lifts the piece there and puts it straight back."""
    cell = session.board_cell(game_cell)
    piece = session.take(cell)
    session.run_for(0.3)
    session.give(cell, piece)
    session.settle()


def started(session: SimSession) -> int:
    return sum(isinstance(e, GameStarted) for e in session.events)


@pytest.fixture
def session():
    found = SimSession(
        "r1", "tic-tac-toe", unattended=Unattended(attract_after=60, reset_after=300)
    )
    found.lay_out()
    found.start()
    return found


def test_attract_mode_starts_when_nobody_touches_the_board_and_stops_at_the_first_touch(session):
    play(session, ("b2",))
    assert frames_during(session, 55.0) == []  # still: nothing to animate, nothing written
    waving = frames_during(session, 10.0)
    assert len(set(waving)) > 20  # a wave: a new frame every step
    area = [session.spec.led_index[session.board_cell(c)] for c in ((0, 0), (2, 2), (0, 2))]
    lit = {i for frame in waving for i in area if frame[6 * i : 6 * i + 6] != "000000"}
    assert lit == set(area)
    cell = session.board_cell((1, 1))
    piece = session.take(cell)  # a hand reaches in: the wave stops at once
    after = frames_during(session, 5.0)
    assert after and not {
        i for frame in after for i in area if frame[6 * i : 6 * i + 6] != "000000"
    }
    session.give(cell, piece)
    session.settle()
    assert frames_during(session, 50.0) == []  # a minute untouched again before the next wave


def test_a_finished_game_left_standing_becomes_a_new_game_showing_what_to_clear(session):
    play(session, X_WINS)
    assert any(isinstance(e, GameOver) for e in session.events)
    before = started(session)
    session.run_for(290.0)
    assert started(session) == before
    session.run_for(20.0)
    note = [e for e in session.events if isinstance(e, Note)][-1]
    assert "left standing" in note.text
    assert started(session) == before + 1
    clear = [e for e in session.events if isinstance(e, Clear)][-1]
    assert len(clear.remove) == len(X_WINS)
    assert session.state.outcome() is None


@pytest.mark.slow
def test_a_touch_puts_the_reset_off(session):
    play(session, X_WINS)
    before = started(session)
    session.run_for(250.0)
    touch(session, (0, 0))  # someone looks at the winning line
    session.run_for(250.0)
    assert started(session) == before
    session.run_for(60.0)
    assert started(session) == before + 1


CONFIG = """\
board = "mini"
game = "tic-tac-cap"
takeback = false
journal = "{journal}"

[options]
variant = "five-small"

[unattended]
attract_after = 120
reset_after = 0
"""


def test_the_configuration_file_sets_the_board_the_game_and_its_options(tmp_path, capsys):
    from magboard.firmware.app.run import request_of
    from magboard.host.cli import _parser

    path = tmp_path / "magboard.toml"
    path.write_text(CONFIG.format(journal=tmp_path / "state.db"))
    request = request_of(_parser().parse_args(["run", "--config", str(path)]))
    assert (request.spec.name, request.game.name, request.options["variant"]) == (
        "mini",
        "tic-tac-cap",
        "five-small",
    )
    assert request.takeback is False and request.journal.path == tmp_path / "state.db"
    assert request.unattended == Unattended(attract_after=120.0, reset_after=None)
    flags = ["run", "--config", str(path), "--game", "tic-tac-toe", "--board", "r1"]
    request = request_of(_parser().parse_args(flags))
    assert (request.spec.name, request.game.name) == ("r1", "tic-tac-toe")  # flags win


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('gmae = "tic-tac-toe"\n', "gmae is not a setting"),
        ('game = "chess"\n', "game: "),
        ('board = "r9"\n', "board: "),
        ("takeback = 1\n", "takeback is true or false"),
        ('game = "tic-tac-cap"\n[options]\nvariant = "huge"\n', "options: "),
        ('game = "tic-tac-cap"\n[options]\nsize = 3\n', "options: "),
        ("[unattended]\nattract_after = -5\n", "unattended.attract_after"),
        ("[unattended]\nattract_after = nan\n", "unattended.attract_after"),
        ('[unattended]\nreset_after = "soon"\n', "unattended.reset_after"),
        ("[unattended]\nsnooze = 3\n", "unattended.snooze is not a setting"),
        ("options = 3\n", "options is a table"),
        ("board = [\n", "not valid TOML"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        (b"game = '\xff'\n", "not UTF-8"),
    ],
)
def test_a_bad_configuration_is_one_line_naming_the_file_and_key(tmp_path, capsys, text, named):
    path = tmp_path / "magboard.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert main(["run", "--sim", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and named in err, err


def test_a_missing_configuration_or_a_directory_is_one_line(tmp_path, capsys):
    for path in (tmp_path / "none.toml", tmp_path):
        assert main(["run", "--sim", "--config", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err


def test_a_piece_held_a_long_while_gets_a_hint_once():
    """A piece put down where the sensors cannot see it (on a piece as large) looks held for
    ever: after a while the board says what may be wrong, once."""
    from magboard.firmware.app.loop import HAND_HINT_AFTER

    session = SimSession("mini", "tic-tac-cap")
    session.lay_out()
    session.start()
    session.settle()
    slot = next(p for p in session.spec.slots if session.world.pieces_at(p))
    piece = session.take(slot)
    session.run_for(HAND_HINT_AFTER - 1)
    hints = [e for e in session.events if isinstance(e, Note) and "in the hand" in e.text]
    assert hints == []
    session.run_for(HAND_HINT_AFTER)
    hints = [e for e in session.events if isinstance(e, Note) and "in the hand" in e.text]
    assert len(hints) == 1 and "cannot see it" in hints[0].text
    session.give(slot, piece)
    session.settle()
