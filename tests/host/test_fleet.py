"""`magboard fleet`: every board on a broker in one table, against a real Mosquitto and three
simulated boards (tests/support/broker.py, tests/support/sim_mqtt.py)."""

from __future__ import annotations

import io
import json

import pytest
from broker import Listener, free_port
from sim_mqtt import Board

from magboard.firmware.app.mqtt_discovery import software_version
from magboard.host.cli import main
from magboard.host.fleet import HEADER, Fleet, _live

pytestmark = [pytest.mark.backend_free, pytest.mark.slow]  # a real broker each


def table(text: str) -> dict[str, list[str]]:
    """The printed table's rows by board, split on the header's column starts."""
    lines = text.splitlines()
    header = lines[0]
    starts = [header.index(name) for name in HEADER]
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    return {line[: starts[1]].strip(): [line[a:b].strip() for a, b in bounds] for line in lines[1:]}


@pytest.fixture
def listener(broker):
    found = Listener(broker, topics=["magboard/#"])
    yield found
    found.close()


@pytest.fixture
def boards(broker, listener, tmp_path):
    """Three boards, each seen online and with its heartbeat out."""
    made = [Board(broker.url(f"board{n}"), f"board{n}", tmp_path) for n in (1, 2, 3)]
    try:
        for n, board in enumerate(made, start=1):
            assert board.until(lambda n=n: listener.on(f"magboard/board{n}/heartbeat"))
        yield made
    finally:
        for board in made:
            board.close()


def published(board: Board, listener: Listener, match) -> dict:
    """The board's status once it matches (the board stepped until it is published)."""
    where = f"magboard/{board.link.settings.board_id}/status"
    found = board.until(
        lambda: listener.wait_for(where, lambda p: match(json.loads(p)), timeout=0.05)
    )
    assert found, where
    return json.loads(found)


def test_fleet_once_shows_every_board_on_the_broker(broker, listener, boards, capsys):
    first, second, third = boards
    second.play("a1")
    third.play("a1", "b1", "b2", "c1", "c3")
    published(second, listener, lambda s: s["turn"] == 1)
    published(third, listener, lambda s: s["result"])
    assert main(["fleet", broker.url("fleet"), "--once", "0.5"]) == 0
    out = capsys.readouterr().out
    rows = table(out)
    assert set(rows) == {"board1", "board2", "board3"}
    version = software_version()
    assert rows["board1"] == [
        "board1",
        "yes",
        "tic-tac-toe",
        "play",
        "0: X",
        "-",
        "0",
        "1",
        version,
    ]
    assert rows["board2"][:8] == ["board2", "yes", "tic-tac-toe", "play", "1: O", "X a1", "0", "1"]
    board3 = rows["board3"]
    assert board3[:6] == ["board3", "yes", "tic-tac-toe", "over", "X won", "X c3"]
    first.close()  # goes offline, and stays in the table as such
    assert main(["fleet", broker.url("fleet"), "--once", "0.3"]) == 0
    assert table(capsys.readouterr().out)["board1"][1] == "no"


def test_fleet_reads_a_tls_broker_with_its_ca(broker, boards, capsys):
    assert (
        main(["fleet", broker.tls_url("fleet"), "--once", "0.3", "--ca-file", str(broker.ca_file)])
        == 0
    )
    assert set(table(capsys.readouterr().out)) == {"board1", "board2", "board3"}


def test_fleet_refused_or_unreachable_is_one_line_and_status_2(broker, capsys):
    wrong = broker.url("fleet").replace(broker.users["fleet"], "wrong")
    assert main(["fleet", wrong, "--once", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refused the connection (Not authorized)" in err
    assert "wrong" not in err
    assert main(["fleet", f"mqtt://127.0.0.1:{free_port()}", "--once", "0.1"]) == 2
    assert "cannot reach mqtt://127.0.0.1" in capsys.readouterr().err
    assert main(["fleet", "http://x", "--once", "0.1"]) == 2
    assert "fleet: http://x" in capsys.readouterr().err


def test_messages_that_do_not_read_are_skipped():
    fleet = Fleet()
    assert fleet.lines() == ["no boards heard from yet"]
    assert not fleet.take("magboard/b/status", b"not json")
    assert not fleet.take("magboard/b/status", b'{"game": 3}')
    assert not fleet.take("magboard/b/availability", b"maybe")
    assert not fleet.take("magboard/b/heartbeat", b'{"faults": "many"}')
    assert not fleet.take("other/b/status", b"{}")
    assert not fleet.take("magboard/b/c/status", b"{}")
    assert not fleet.take("magboard/b/status", b"\xff")
    assert fleet.rows == {}
    status = {
        "game": "lance",
        "phase": "over",
        "turn": 12,
        "to_move": None,
        "result": {"winners": [], "draw": True, "reason": "r", "scores": [3, 3]},
        "last_move": {"player": "A", "actions": ["a1", "end"], "turn": 12},
    }
    assert fleet.take("magboard/b/status", json.dumps(status).encode())
    assert not fleet.take("magboard/b/status", json.dumps(status).encode())  # no change
    assert fleet.take("magboard/b/availability", b"offline")
    assert fleet.rows["b"].cells() == (
        *("b", "no", "lance", "over", "draw", "A a1 end"),
        *("-", "-", "-"),  # no faults, figures or version heard
    )
    assert fleet.take("magboard/b/availability", b"")  # cleared by `fleet forget`: gone
    assert fleet.rows == {}


def test_the_live_table_is_drawn_again_when_it_changes():
    class Feed:
        """Two messages, then the person presses Ctrl-C."""

        def __init__(self):
            self.left = [("magboard/b/availability", b"online"), ("magboard/b/usage", b"{}")]

        def take(self, fleet, timeout):
            if not self.left:
                raise KeyboardInterrupt
            return fleet.take(*self.left.pop(0))

    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        _live(Feed(), Fleet(), out)
    drawn = out.getvalue().split("\n\n")
    assert len(drawn) == 2  # the usage without figures changed nothing to redraw
    assert drawn[0].startswith("magboard fleet, ") and "b      yes" in drawn[0]


@pytest.mark.slow
def test_fleet_forget_clears_a_retired_boards_retained_topics(broker, listener, boards, capsys):
    """Status, availability, heartbeat, figures, the last answer and Home Assistant's
    configurations: all cleared, so the table and Home Assistant no longer show the board."""
    first, second, _ = boards
    listener.publish("magboard/board1/command", b'{"do": "fly"}')  # an answer kept on response
    assert first.until(lambda: listener.on("magboard/board1/response"))
    late = Listener(broker, topics=["magboard/#", "homeassistant/#"])
    try:
        assert late.wait_for("never", timeout=0.3) is None
        kept = {m.topic for m in late.messages if m.retained and "board1" in m.topic}
    finally:
        late.close()
    assert {f"magboard/board1/{name}" for name in ("status", "heartbeat", "response")} <= kept
    assert any(t.startswith("homeassistant/button/magboard_board1/") for t in kept)
    url = broker.url("fleet")
    assert main(["fleet", "forget", "board1", url]) == 2  # online: it would come back
    assert "board1 is online: stop it first" in capsys.readouterr().err
    first.close()
    assert listener.wait_for("magboard/board1/availability", lambda p: p == "offline")
    assert main(["fleet", "forget", "board1", url]) == 0
    out = capsys.readouterr().out
    assert f"forgot board1: {len(kept | {'magboard/board1/availability'})} retained" in out
    late = Listener(broker, topics=["magboard/#", "homeassistant/#"])
    try:
        assert late.wait_for("never", timeout=0.3) is None
        left = {m.topic for m in late.messages if m.retained}
    finally:
        late.close()
    assert not any("board1" in topic for topic in left)
    assert "magboard/board2/status" in left  # the others are untouched
    assert any(t.startswith("homeassistant/sensor/magboard_board2/") for t in left)
    assert main(["fleet", url, "--once", "0.3"]) == 0
    assert set(table(capsys.readouterr().out)) == {"board2", "board3"}
    assert main(["fleet", "forget", "board1", url]) == 1
    assert "nothing kept of board1" in capsys.readouterr().out
    assert main(["fleet", "forget", "+", url]) == 2  # a wildcard would forget every board
    assert "board id '+'" in capsys.readouterr().err
    second.play("a1")  # still reporting
    published(second, listener, lambda s: s["turn"] == 1)
