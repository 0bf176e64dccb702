"""A remote match's protocol without a broker: the URL and seats, the messages and garbage, the
log's rules, and that a board publishes only what its journal holds. The games through a real
broker are tests/sim/test_remote_game.py."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magboard.firmware.app import remote as rm
from magboard.firmware.events import (
    GameStarted,
    Illegal,
    MatchStopped,
    Moved,
    Note,
    Obligation,
    RemoteMade,
)
from magboard.firmware.games import get_game
from magboard.firmware.journal import Journal
from magboard.firmware.referee import Phase, RemoteError, conflict, digest, replay
from magboard.hardware.spec import Slot
from magboard.sim.session import SimSession

TTT = get_game("tic-tac-toe")


@pytest.mark.backend_free
def test_a_remote_url_names_the_broker_and_the_match():
    url = rm.RemoteURL.parse("mqtts://board1:s%40cret@broker.lan/cafe-7?ca=/etc/ca.pem")
    assert (url.host, url.port, url.user, url.password) == ("broker.lan", 8883, "board1", "s@cret")
    assert (url.match, url.ca, url.root) == ("cafe-7", "/etc/ca.pem", "magboard/match/cafe-7")
    assert url.shown == "mqtts://board1@broker.lan:8883/cafe-7"  # never the password
    assert rm.RemoteURL.parse("mqtt://10.0.0.5/m").port == 1883


@pytest.mark.backend_free
@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("tcp://h/m", "scheme"),
        ("mqtt:///m", "no broker host"),
        ("mqtt://h", "match id"),
        ("mqtt://h/a/b", "match id"),
        ("mqtt://h:99999/m", "Port out of range"),
        ("mqtt://h/m?ca=/x", "ca= goes with mqtts"),
        ("mqtts://h/m?cert=/x", "unknown parameter 'cert'"),
    ],
)
def test_a_remote_url_that_can_never_work_is_refused(text, said):
    with pytest.raises(rm.RemoteURLError, match=said):
        rm.RemoteURL.parse(text)


@pytest.mark.backend_free
def test_seats_by_name_or_number():
    assert rm.seats_of(TTT, 2, "x") == {0}
    assert rm.seats_of(TTT, 2, "2") == {1}
    with pytest.raises(rm.SeatError, match="seats X, O"):
        rm.seats_of(TTT, 2, "3")


@pytest.mark.backend_free
def test_messages_round_trip_and_garbage_is_refused_with_a_reason():
    log = rm.LogMessage("tic-tac-toe", {}, ("X",), (("b2",), ("a1",)), "0123abcd0123abcd")
    assert rm.LogMessage.from_json(log.to_json()) == log
    stop = rm.StopMessage(("O",), 3, "move 3 differs")
    assert rm.StopMessage.from_json(stop.to_json()) == stop
    good = json.loads(log.to_json())
    for change, said in [
        ({"v": 2}, "version 2"),
        ({"seq": 5}, "does not count"),
        ({"turns": [["b2"], [1]]}, "lists of actions"),
        ({"extra": 1}, "extra"),
        ({"options": []}, "options"),
    ]:
        with pytest.raises(rm.MessageError, match=said):
            rm.LogMessage.from_json(json.dumps({**good, **change}).encode())
    with pytest.raises(rm.MessageError, match="not JSON"):
        rm.LogMessage.from_json(b"\xff\xfe")
    with pytest.raises(rm.MessageError, match="more than"):
        rm.LogMessage.from_json(b" " * (rm.MAX_PAYLOAD + 1))


@pytest.mark.backend_free
@given(st.binary(max_size=200))
@settings(max_examples=200, deadline=None)
def test_no_bytes_crash_the_message_readers(payload):
    for reader in (rm.LogMessage.from_json, rm.StopMessage.from_json):
        with contextlib.suppress(rm.MessageError):
            reader(payload)


@pytest.mark.backend_free
def test_a_log_is_read_turn_by_turn_under_the_rules():
    initial = TTT.new_state()
    after = replay(initial, (("b2",), ("a1",)))
    assert digest(after) == digest(replay(initial, (("b2",), ("a1",))))
    assert digest(after) != digest(replay(initial, (("b2",), ("c1",))))
    for turns, said in [
        ((("b2",), ("b2",)), "move 2 .* is not legal here"),
        ((("b2", "a1"),), "more than one turn"),
        (((),), "move 1 is empty"),
        ((("done",),), "not legal here"),
    ]:
        with pytest.raises(RemoteError, match=said):
            replay(initial, turns)
    assert conflict((("b2",), ("a1",)), (("b2",),)) is None
    assert conflict((("b2",),), (("c3",),)) == "move 1 differs: b2 on this board, c3 on the other"


# Two boards through an in-memory broker that keeps retained messages.


class Switchboard:
    """Retained messages, and every connected client's subscriptions; delivery is at once."""

    def __init__(self) -> None:
        self.retained: dict[str, bytes] = {}
        self.clients: list[Wire] = []
        self.published: list[tuple[str, bytes]] = []

    def deliver(self, topic: str, payload: bytes) -> None:
        self.retained[topic] = payload
        self.published.append((topic, payload))
        for client in self.clients:
            if client.wants(topic):
                client.inbox(rm.Heard(topic, payload))


class Wire:
    def __init__(self, board: Switchboard, before: Callable[[str, bytes], None] | None = None):
        self.board = board
        self.before = before
        self.topics: Sequence[str] = ()

    def wants(self, topic: str) -> bool:
        for pattern in self.topics:
            parts, names = pattern.split("/"), topic.split("/")
            if len(parts) == len(names) and all(
                p in ("+", n) for p, n in zip(parts, names, strict=True)
            ):
                return True
        return False

    def start(self, topics, inbox) -> None:
        self.topics, self.inbox = topics, inbox
        self.board.clients.append(self)
        inbox(rm.Connected())
        for topic, payload in self.board.retained.items():
            if self.wants(topic):
                inbox(rm.Heard(topic, payload))

    def publish(self, topic: str, payload: bytes) -> bool:
        if self.before is not None:
            self.before(topic, payload)
        self.board.deliver(topic, payload)
        return True

    def drop(self) -> None:
        pass

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.board.clients.remove(self)


def board(tmp_path, name: str, seat: int, switchboard: Switchboard, before=None):
    session = SimSession("mini", "tic-tac-toe", journal=tmp_path / f"{name}.db", seed=seat)
    match = rm.RemoteMatch(
        "mqtt://broker/m1", session.loop, {seat}, transport=Wire(switchboard, before)
    )
    session.lay_out()
    session.start()
    return session, match


def journalled_turns(path) -> int:
    """Whole turns on disk now, read as a restart would read them."""
    resume = Journal(path).load()
    return len(resume.actions) if resume else 0


def test_a_board_publishes_only_turns_its_journal_holds(tmp_path):
    switchboard = Switchboard()
    checked = []

    def on_disk(name: str) -> Callable[[str, bytes], None]:
        def check(topic: str, payload: bytes) -> None:
            if "/log/" in topic:
                seq = json.loads(payload)["seq"]
                assert journalled_turns(tmp_path / f"{name}.db") >= seq
                checked.append((name, seq))

        return check

    a, _ = board(tmp_path, "a", 0, switchboard, on_disk("a"))
    b, _ = board(tmp_path, "b", 1, switchboard, on_disk("b"))
    a.perform(a.state.parse_action("b2"))
    a.settle()
    b.run_for(0.2)
    (obligation,) = [e for e in b.events if isinstance(e, Obligation)]
    assert obligation.places == ("A5", "b2")
    b.world.move(Slot("A", 5), (1, 1))
    b.settle()
    assert [e.actions for e in b.events if isinstance(e, RemoteMade)] == [("b2",)]
    assert ("a", 1) in checked and ("b", 1) in checked  # the move, and the other's word for it


def test_a_journal_that_cannot_be_written_holds_the_move_back(tmp_path, monkeypatch):
    switchboard = Switchboard()
    a, _ = board(tmp_path, "a", 0, switchboard)
    b, _ = board(tmp_path, "b", 1, switchboard)
    a.run_for(0.1)
    real = Journal._connection

    def full(self):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Journal, "_connection", full)
    a.perform(a.state.parse_action("b2"))
    a.settle()
    assert a.journal.behind and [e.actions for e in a.events if isinstance(e, Moved)] == [("b2",)]
    b.run_for(1.0)
    assert not any(isinstance(e, Moved) for e in b.events)  # not on disk there: not sent
    monkeypatch.setattr(Journal, "_connection", real)
    a.run_for(11.0)  # the loop tries the disk again
    assert not a.journal.behind
    b.run_for(0.2)
    assert [e.actions for e in b.events if isinstance(e, Moved)] == [("b2",)]


def test_a_turn_the_rules_here_refuse_stops_the_match_on_both(tmp_path):
    switchboard = Switchboard()
    a, ra = board(tmp_path, "a", 0, switchboard)
    b, rb = board(tmp_path, "b", 1, switchboard)
    initial = TTT.new_state()
    bad = rm.LogMessage("tic-tac-toe", {}, ("X",), (("d4",),), digest(initial))
    switchboard.deliver("magboard/match/m1/log/X", bad.to_json())
    b.run_for(0.1)
    a.run_for(0.1)
    for session, match in ((a, ra), (b, rb)):
        (stopped,) = [e for e in session.events if isinstance(e, MatchStopped)]
        assert "move 1 (d4) is not legal here" in stopped.reason
        assert session.referee.status.phase == Phase.STOPPED and match.stopped
    assert json.loads(switchboard.retained["magboard/match/m1/stop"])["seq"] == 0


def test_the_other_game_or_both_boards_on_one_seat_stop_the_match(tmp_path):
    switchboard = Switchboard()
    a, ra = board(tmp_path, "a", 0, switchboard)
    same_seat = rm.LogMessage("tic-tac-toe", {}, ("X",), (), digest(TTT.new_state()))
    switchboard.deliver("magboard/match/m1/log/X,O", same_seat.to_json())
    a.run_for(0.1)
    assert "both boards play X" in ra.stopped

    switchboard = Switchboard()
    b, rb = board(tmp_path, "b", 1, switchboard)
    cap = get_game("tic-tac-cap")
    other = rm.LogMessage("tic-tac-cap", {}, ("X",), (), digest(cap.new_state()))
    switchboard.deliver("magboard/match/m1/log/X", other.to_json())
    b.run_for(0.1)
    assert "the other board plays tic-tac-cap" in rb.stopped


def test_garbage_is_a_note_and_the_game_goes_on(tmp_path):
    switchboard = Switchboard()
    a, ra = board(tmp_path, "a", 0, switchboard)
    b, _ = board(tmp_path, "b", 1, switchboard)
    for payload in (b"", b"[]", b'{"v":1}', b"\x00" * 10):
        switchboard.deliver("magboard/match/m1/log/O", payload)
    switchboard.deliver("magboard/match/m1/stop", b"stop!")
    a.run_for(0.1)
    notes = [e.text for e in a.events if isinstance(e, Note) and "set aside" in e.text]
    assert len(notes) == 5 and ra.stopped is None
    a.perform(a.state.parse_action("a1"))
    a.settle()
    b.run_for(0.2)
    assert any(isinstance(e, Obligation) for e in b.events)


def test_new_game_takeback_and_the_other_seats_button_are_not_for_one_board(tmp_path):
    switchboard = Switchboard()
    a, _ = board(tmp_path, "a", 0, switchboard)
    board(tmp_path, "b", 1, switchboard)
    a.perform(a.state.parse_action("a1"))
    a.settle()
    a.world.press("new")
    a.run_for(0.5)
    assert any(isinstance(e, Note) and e.text.startswith("refused: new game") for e in a.events)
    assert a.referee.log == (("a1",),) and not a.referee.takeback


def test_a_game_set_up_from_afar_stops_the_match(tmp_path):
    switchboard = Switchboard()
    a, ra = board(tmp_path, "a", 0, switchboard)
    a.loop.referee = object()  # another referee took the loop over (wiring.change_game)
    ra.poll(a.clock.now())
    assert ra.stopped == "another game was set up on this board"


def test_a_journalled_game_resumes_into_its_own_match_only(tmp_path):
    from magboard.firmware.app.run import request_of
    from magboard.firmware.events import GameStarted, Moved
    from magboard.host.cli import _parser

    path = str(tmp_path / "magboard.db")

    def request(*remote: str):
        argv = ["run", "--board", "mini", "--journal", path, *remote]
        return request_of(_parser().parse_args(argv))

    first = request("--remote", "mqtt://h/m1", "--seat", "X")
    first.journal.record(GameStarted(0.0, "tic-tac-toe", {}, "mini", ("X", "O")))
    first.journal.record(Moved(1.0, 0, ("b2",), 1))
    first.journal.close()
    assert request("--remote", "mqtt://other-broker/m1", "--seat", "X").resume.actions == ("b2",)
    assert request("--remote", "mqtt://h/m2", "--seat", "X").resume is None
    assert request().resume is None  # nor into a game on this board alone


def test_a_finished_match_cleared_stays_dark_and_starts_no_game(tmp_path):
    switchboard = Switchboard()
    sessions = [board(tmp_path, name, seat, switchboard)[0] for seat, name in enumerate("ab")]
    for n, text in enumerate(("a1", "b1", "a2", "b2", "a3")):
        mover, other = sessions[n % 2], sessions[1 - n % 2]
        mover.perform(mover.state.parse_action(text))
        mover.settle()
        other.run_for(0.1)
        (obligation,) = [e for e in other.events if isinstance(e, Obligation)][-1:]
        source, target = sorted(obligation.places, key=lambda label: label.islower())
        other.world.move(Slot(source[0], int(source[1:])), TTT.parse_action(target).cell)
        other.settle()
    for session in sessions:
        assert session.state.outcome().winners == (0,)
        for cell in sorted(session.profile.area):
            for piece in session.world.pieces_at(cell):
                session.give(piece.kind.name, session.world.lift(cell))
        session.settle()
        assert session.referee.status.phase == Phase.CLEARING
        assert any(isinstance(e, Note) and "one game" in e.text for e in session.events)
        assert sum(isinstance(e, GameStarted) for e in session.events) == 1
        assert session.referee.log == sessions[0].referee.log


def test_a_turn_that_shifts_and_turns_tiles_is_shown_and_made_without_a_false_alarm(tmp_path):
    switchboard = Switchboard()
    sessions = []
    for seat in (0, 1):
        session = SimSession("r1", "meeple-maneuver", journal=tmp_path / f"{seat}.db", seed=seat)
        rm.RemoteMatch("mqtt://b/m", session.loop, {seat}, transport=Wire(switchboard))
        session.lay_out()
        session.start()
        sessions.append(session)
    a, b = sessions
    state, turn = a.state, []
    for wanted in ("Ke3", "Te3>", "Tf3cw"):  # a meeple placed, its tile shifted, then turned
        action = state.parse_action(wanted)
        a.perform(action)
        a.settle()
        turn.append(action)
        state = state.apply(action)
    assert a.referee.log == (("Ke3", "Te3>", "Tf3cw"),)
    b.run_for(0.2)
    (obligation,) = [e for e in b.events if isinstance(e, Obligation)]
    assert "A played Ke3 Te3> Tf3cw on the other board" in obligation.detail
    since = b.referee.owed.since
    for action in turn:  # made by hand, a tile at a time, the board settling in between
        b.perform(action, state=since)
        b.settle()
        since = since.apply(action)
    assert [e.actions for e in b.events if isinstance(e, RemoteMade)] == [("Ke3", "Te3>", "Tf3cw")]
    assert not [e for e in b.events if isinstance(e, Illegal | MatchStopped)]
    assert b.state == a.state
