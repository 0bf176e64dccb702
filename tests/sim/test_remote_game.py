"""One game on two simulated boards through a real Mosquitto broker (firmware/app/remote.py):
each board moves its own seat's pieces, the other's moves are made there by simulated hands
that follow the lights; a broker restart or a power cut loses nothing; a disagreement stops the
game on both boards; and a short remote soak with trouble on both sides."""

from __future__ import annotations

import json

import pytest
from broker import Listener

from magboard.firmware.app.remote import LogMessage
from magboard.firmware.events import (
    Event,
    FaultSurvived,
    GameOver,
    Illegal,
    MatchStopped,
    Moved,
    Note,
    Obligation,
    RemoteMade,
    Restored,
)
from magboard.firmware.games import get_game
from magboard.firmware.lights.palette import DEFAULT
from magboard.firmware.referee import Phase, digest
from magboard.hardware.spec import Slot, load_board
from magboard.host import cli
from magboard.sim.scenario import shows
from magboard.sim.session import SimSession
from magboard.sim.soak import careless as soak_module
from magboard.sim.soak import remote as soak_remote
from magboard.sim.soak.remote import Pair, follow_lights
from magboard.sim.soak.remote import soak_remote as remote_soak

X_WINS = ("a1", "b1", "a2", "b2", "a3")
"""X down column a, O along row 1 and 2 in between: X wins on the fifth move."""


@pytest.fixture
def pair(broker, tmp_path):
    game = get_game("tic-tac-toe")
    made = Pair(broker, load_board("mini"), game, seed=3, folder=tmp_path)
    assert made.start()
    yield made
    made.close()


def since(pair: Pair, seat: int, start: int) -> list[Event]:
    return pair.sides[seat].session.events[start:]


def of(events: list[Event], kind: type[Event]) -> list:
    return [e for e in events if isinstance(e, kind)]


def play(pair: Pair, text: str, *, cut_away_half_made: bool = False) -> None:
    """`text` made by hand on the mover's board; the other board accepts it, lights it, and a
    hand there makes it by following the lights alone."""
    mover = pair.sides[pair.sides[0].session.state.to_move]
    other = pair.sides[1 - mover.seat]
    mark = [len(side.session.events) for side in pair.sides]
    session = mover.session
    session.perform(session.state.parse_action(text))
    assert pair.drive(lambda: of(since(pair, mover.seat, mark[mover.seat]), Moved))
    assert [
        (e.player, e.actions) for e in of(since(pair, mover.seat, mark[mover.seat]), Moved)
    ] == [(mover.seat, (text,))]
    assert pair.drive(lambda: of(since(pair, other.seat, mark[other.seat]), Obligation))
    events = since(pair, other.seat, mark[other.seat])
    assert [(e.player, e.actions) for e in of(events, Moved)] == [(mover.seat, (text,))]
    (obligation,) = of(events, Obligation)
    assert obligation.player == mover.seat and text in obligation.detail
    assert not of(events, RemoteMade), "taken as made before any hand moved"
    places = obligation.places
    if cut_away_half_made:
        places = half_made_then_power_cut(pair, other.seat, places)
    follow_lights(other.session, places)
    assert pair.drive(lambda: of(other.session.events, RemoteMade))
    made = of(other.session.events, RemoteMade)[-1]
    assert (made.player, made.actions) == (mover.seat, (text,))
    assert other.session.state == mover.session.state


def half_made_then_power_cut(pair: Pair, seat: int, places: tuple[str, ...]) -> tuple[str, ...]:
    """A hand takes the piece the lights show, and the power goes on that board: it comes back
    from its journal owing the move again, and shows what is left of it."""
    side = pair.sides[seat]
    side.session.run_for(0.2)
    red = [
        p
        for p in soak_remote._places(side.session, places)
        if shows(side.session.board.visible_leds()[side.spec.led_index[p]], DEFAULT.remove)
    ]
    assert len(red) == 1
    side.world.lift(red[0])
    side.session.run_for(0.2)
    pair.power_cut(seat)
    side.session.run_for(0.3)
    again = of(side.session.events, Obligation)
    assert again, "after the power cut the board owes the move again"
    assert side.session.referee.status.phase == Phase.OBLIGATION
    return again[-1].places


def finished_alike(pair: Pair) -> None:
    assert pair.drive(pair.agree)
    a, b = (side.session for side in pair.sides)
    assert a.state.outcome() is not None
    assert a.state == b.state and a.referee.log == b.referee.log
    assert digest(a.state) == digest(b.state)
    for session in (a, b):
        (over,) = of(session.events, GameOver)
        assert over.winners == (0,)
        assert not of(session.events, MatchStopped)


def test_a_two_board_game_to_a_win_made_by_following_the_lights(pair):
    a, b = (side.session for side in pair.sides)
    a.perform(a.state.parse_action("a1"))
    assert pair.drive(lambda: of(b.events, Obligation))
    b.run_for(0.1)  # in the first half of the slow blink
    leds, index = b.board.visible_leds(), b.spec.led_index
    (obligation,) = of(b.events, Obligation)
    assert obligation.places == ("A5", "a1")
    assert shows(leds[index[Slot("A", 5)]], DEFAULT.remove)  # take X's piece from here
    assert shows(leds[index[(0, 0)]], DEFAULT.players[0])  # and put it here
    follow_lights(b, obligation.places)
    assert pair.drive(lambda: of(b.events, RemoteMade))
    for text in X_WINS[1:]:
        play(pair, text)
    finished_alike(pair)
    assert [e.actions for e in of(b.events, RemoteMade)] == [("a1",), ("a2",), ("a3",)]
    assert [e.seq for e in of(a.events, RemoteMade)] == [2, 4]


def test_a_local_hand_moving_the_other_seats_piece_is_refused(pair):
    a = pair.sides[0].session
    play(pair, "a1")
    a.world.move(Slot("B", 5), (1, 1))  # O's piece, on X's board, while O is to move
    a.settle()
    (refused,) = of(a.events, Illegal)
    assert "O plays on the other board" in refused.detail and refused.remove == ("b2",)
    a.world.move((1, 1), Slot("B", 5))
    a.settle()
    assert of(a.events, Restored)
    assert len(of(a.events, Moved)) == 1
    play(pair, "b1")  # the game goes on


def test_a_broker_restart_mid_game_loses_nothing(pair, broker):
    a = pair.sides[0].session
    play(pair, "a1")
    play(pair, "b1")
    broker.stop()
    a.perform(a.state.parse_action("a2"))
    a.settle()
    assert of(a.events, Moved)[-1].actions == ("a2",)
    assert pair.drive(lambda: not pair.sides[0].remote.connected)
    broker.start()
    b = pair.sides[1].session
    assert pair.drive(lambda: len(of(b.events, Obligation)) == 2)
    follow_lights(b, of(b.events, Obligation)[-1].places)
    assert pair.drive(lambda: len(of(b.events, RemoteMade)) == 2)
    play(pair, "b2")
    broker.restart()
    play(pair, "a3")
    finished_alike(pair)
    assert of(a.events, FaultSurvived)[0].kind == "remote"


def test_a_power_cut_on_either_board_mid_game_loses_nothing(pair):
    play(pair, "a1")
    play(pair, "b1", cut_away_half_made=True)  # X's board, the O half made
    a = pair.sides[0].session
    a.perform(a.state.parse_action("a2"))
    a.run_for(0.6)  # accepted and journalled, and the power goes at once
    assert of(a.events, Moved)[-1].actions == ("a2",)
    pair.power_cut(0)
    b = pair.sides[1].session
    assert pair.drive(lambda: len(of(b.events, Obligation)) == 2)
    follow_lights(b, of(b.events, Obligation)[-1].places)
    assert pair.drive(lambda: len(of(b.events, RemoteMade)) == 2)
    play(pair, "b2")
    pair.power_cut(1)  # O's board, between turns
    play(pair, "a3")
    finished_alike(pair)


def test_a_disagreement_stops_the_game_on_both_boards(pair, broker):
    play(pair, "a1")
    play(pair, "b1")
    game = get_game("tic-tac-toe")
    state = game.new_state()
    for text in ("a1", "c3"):  # O's move is not the one played
        state = state.apply(state.parse_action(text))
    forged = LogMessage("tic-tac-toe", {}, ("O",), (("a1",), ("c3",)), digest(state))
    intruder = Listener(broker, "board3", topics=())
    try:
        topic = f"magboard/match/{pair.match}/log/O"
        intruder.publish(topic, b"\xffnot json")  # garbage first: set aside, nothing stops
        assert pair.drive(lambda: pair.sides[0].remote.notes == 1)
        assert pair.sides[0].session.referee.status.phase == Phase.PLAY
        intruder.publish(topic, forged.to_json())
    finally:
        intruder.close()
    assert pair.drive(lambda: all(side.remote.stopped for side in pair.sides))
    for side in pair.sides:
        session = side.session
        (stopped,) = of(session.events, MatchStopped)
        assert stopped.match == pair.match and stopped.seq == 2
        assert session.referee.status.phase == Phase.STOPPED
        view = session.referee.view(fault=False)
        assert view.error == session.profile.area  # the game's area flashes red
        seen = []
        for _ in range(6):  # a fast blink's period and more, within the flash
            seen.append(session.board.visible_leds()[session.spec.led_index[(2, 2)]])
            session.run_for(0.05)
        assert any(shows(colour, DEFAULT.error) for colour in seen)
        assert view.fault and view.to_move is None  # the alert LED, where a board has one
    a, b = (side.session for side in pair.sides)
    for session in (a, b):  # each read the forged log itself, or heard the other stop
        reason = of(session.events, MatchStopped)[0].reason
        assert "move 2 differs: b1 on this board, c3 on the other" in reason
    assert any(isinstance(e, Note) and "set aside" in e.text for e in a.events)
    a.perform(a.state.parse_action("a2"))  # nothing more is accepted: no fork
    a.settle()
    assert a.referee.log == b.referee.log == (("a1",), ("b1",))


def test_a_match_over_tls_with_the_brokers_ca(broker, tmp_path):
    game = get_game("tic-tac-toe")
    url = broker.tls_url("board1")  # skips where there is no openssl to make the CA

    class Tls:
        def url(self, user: str) -> str:
            return broker.tls_url(user)

        def restart(self) -> None:
            broker.restart()

    pair = Pair(Tls(), load_board("mini"), game, seed=1, folder=tmp_path, match="tls-1")
    try:
        assert url.startswith("mqtts://")
        for side in pair.sides:  # the broker's certificate, checked by the test CA
            side.remote.close()
            side.remote = soak_remote.RemoteMatch(
                f"{broker.tls_url(soak_remote.USERS[side.seat])}/tls-1?ca={broker.ca_file}",
                side.session.loop,
                {side.seat},
                wake=pair.wake,
            )
        assert pair.start()
        assert all(side.remote.url.scheme == "mqtts" for side in pair.sides)
        play(pair, "a1")
    finally:
        pair.close()


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--remote", "http://h/m", "--seat", "X"], "the scheme is mqtt or mqtts"),
        (["--remote", "mqtt://h/", "--seat", "X"], "the path is the match id"),
        (["--remote", "mqtt://h/m", "--seat", "Z"], "tic-tac-toe has seats X, O"),
        (["--remote", "mqtt://h/m", "--seat", "X,O"], "that is every seat"),
        (["--remote", "mqtt://h/m"], "go together"),
    ],
)
@pytest.mark.backend_free
def test_remote_flags_are_checked_before_anything_opens(flags, said, tmp_path, capsys):
    argv = ["run", "--sim", "--board", "mini", "--journal", str(tmp_path / "j.db"), *flags]
    assert cli.main(argv) == 2
    assert said in capsys.readouterr().err


@pytest.mark.slow
def test_a_short_remote_soak_with_trouble_on_both_boards(broker, monkeypatch):
    for module, name, value in [
        (soak_module, "P_MISTAKE", 0.3),
        (soak_module, "P_KNOCK", 0.15),
        (soak_module, "P_BUMP", 0.3),
        (soak_remote, "P_TAKEBACK", 0.3),
        (soak_remote, "P_POWER_CUT_HOME", 0.15),
        (soak_remote, "P_POWER_CUT_AWAY", 0.3),
        (soak_remote, "P_BROKER_RESTART", 0.15),
        (soak_remote, "P_DROP", 0.3),
    ]:
        monkeypatch.setattr(module, name, value)
    tally = remote_soak(broker, games=3, seed=11)
    report = soak_remote.format_report(tally)
    print(report)
    assert tally.ok, report
    assert tally.games == tally.finished == 3
    assert tally.moves == tally.accepted == tally.shown > 0
    assert tally.false_accepts == tally.missed == tally.forks == tally.stops == 0
    assert tally.illegal_made > 0 and tally.power_cuts_other > 0
    assert tally.broker_restarts + tally.drops > 0
    assert json.loads(json.dumps(tally.to_dict()))["ok"] is True


def test_a_broker_that_refuses_the_board_is_one_fault_and_the_board_plays_on(broker, tmp_path):
    session = SimSession("mini", "tic-tac-toe", journal=tmp_path / "a.db")
    wrong = broker.url("board1").replace(broker.users["board1"], "wrong")
    remote = soak_remote.RemoteMatch(f"{wrong}/m-9", session.loop, {0}, reconnect=(0.05, 0.1))
    try:
        session.lay_out()
        session.start()
        for _ in range(8):  # several refusals, a bounded wait on each
            remote.wake.wait(2.0)
            remote.wake.clear()
            session.run_for(0.05)
        (fault,) = of(session.events, FaultSurvived)
        assert fault.kind == "remote" and "refused" in fault.detail
        assert "wrong" not in fault.where and fault.where.endswith("/m-9")
        session.perform(session.state.parse_action("b2"))
        session.settle()
        assert of(session.events, Moved)[-1].actions == ("b2",)
    finally:
        remote.close()
