"""One vocabulary of commands on every link: a command sent over the serial link (its framing,
on a port in memory) and over MQTT (a real Mosquitto, tests/support/broker.py), to the same
board, gets the same answer. Parametrised over the registry (firmware/app/commands.py): a
command is tested by being declared."""

from __future__ import annotations

import json

import pytest
from broker import Listener, topic
from sim_mqtt import Board

from magboard.firmware.app.commands import COMMANDS, Declared, Link, commands_over
from magboard.firmware.app.link import SerialLink
from magboard.firmware.events import GameStarted, Note, event_from_json

ON_BOTH = [c for c in COMMANDS if {Link.SERIAL, Link.MQTT} <= c.links]


class MemoryPort:
    """The host's end of a serial link, in memory: what it writes and what the board sent."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.outgoing = bytearray()

    def read(self, size: int) -> bytes:
        data = bytes(self.incoming[:size])
        del self.incoming[:size]
        return data

    def write(self, data: bytes) -> int:
        self.outgoing += data
        return len(data)

    def close(self) -> None:
        pass

    def notes(self) -> list[str]:
        lines = self.outgoing.decode().splitlines()
        return [e.text for e in map(event_from_json, lines) if isinstance(e, Note)]


class BothLinks:
    """One simulated board with a serial link and an MQTT link: the same command over each."""

    def __init__(self, board: Board, listener: Listener) -> None:
        self.board = board
        self.listener = listener
        self.port = MemoryPort()
        self.serial = SerialLink("memory", board.session.loop, opener=lambda url: self.port)

    def over_serial(self, payload: bytes) -> str | None:
        """The refusal the host is sent, if any."""
        before = len(self.port.notes())
        self.port.incoming += payload + b"\n"
        self.board.session.run_for(0.1)
        refused = [n for n in self.port.notes()[before:] if n.startswith("refused: ")]
        return refused[0] if refused else None

    def over_mqtt(self, payload: bytes) -> str | None:
        """The refusal answered on `response`, if any (None: `done`)."""
        after = len(self.listener.messages)
        self.listener.publish(topic("board1", "command"), payload)
        where = topic("board1", "response")
        answer = self.board.until(
            lambda: self.listener.wait_for(where, lambda p: True, 0.05, after)
        )
        assert answer is not None, payload
        data = json.loads(answer)
        return None if data["ok"] else data["text"]

    def over(self, link: Link, payload: bytes) -> str | None:
        return self.over_serial(payload) if link is Link.SERIAL else self.over_mqtt(payload)

    def started(self) -> list[GameStarted]:
        return [e for e in self.board.events if isinstance(e, GameStarted)]


@pytest.fixture
def links(broker, listener, tmp_path):
    board = Board(broker.url("board1"), "board1", tmp_path)
    assert board.until(lambda: listener.on(topic("board1", "availability")))
    both = BothLinks(board, listener)
    yield both
    both.serial.close()
    board.close()


def test_the_registry_declares_each_command_once_with_the_links_it_may_come_over():
    names = [c.name for c in COMMANDS]
    assert len(names) == len(set(names))
    assert all(c.links and c.answer for c in COMMANDS)
    assert "new-game" in {c.name for c in ON_BOTH}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_a_field_a_command_does_not_take_is_refused_alike_on_every_link(links, command: Declared):
    payload = json.dumps({"do": command.name, "colour": "red"}).encode()
    answers = {link: links.over(link, payload) for link in command.links}
    assert set(answers.values()) == {f"refused: {command.name}: unknown field 'colour'"}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_a_command_a_link_does_not_take_is_refused_there_by_name(links, command: Declared):
    for link in set(Link) - command.links:
        taken = ", ".join(commands_over(link))
        answer = links.over(link, json.dumps({"do": command.name}).encode())
        assert answer == f"refused: unknown command '{command.name}' (commands: {taken})"


@pytest.mark.parametrize(
    "payload",
    [b"fly me", b'["new-game"]', b'{"game": "tic-tac-cap"}', b"\xff\xfe", b'{"do": 7}'],
)
def test_a_malformed_command_is_refused_in_the_same_words_on_every_link(links, payload):
    serial, mqtt = links.over_serial(payload), links.over_mqtt(payload)
    assert serial is not None and mqtt is not None
    # The example a refusal gives is a command of that link; the reason is the same.
    assert (
        serial.split(", like")[0].split(" (commands")[0]
        == (mqtt.split(", like")[0].split(" (commands")[0])
    )


NEW_GAMES = [
    ({"do": "new-game"}, "tic-tac-toe"),
    ({"do": "new-game", "game": "tic-tac-cap"}, "tic-tac-cap"),
    ({"do": "new-game", "game": "tic-tac-cap", "options": {"cover_own": True}}, "tic-tac-cap"),
]


@pytest.mark.parametrize(("command", "game"), NEW_GAMES, ids=lambda x: json.dumps(x))
@pytest.mark.parametrize("link", [Link.SERIAL, Link.MQTT], ids=lambda link: link.value)
def test_new_game_means_one_thing_on_every_link(links, link, command, game):
    before = len(links.started())
    assert links.over(link, json.dumps(command).encode()) is None
    links.board.session.run_for(0.1)
    started = links.started()[before:]
    assert [s.game for s in started] == [game]
    assert started[0].options == links.board.session.loop.referee.options


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ({"do": "new-game", "game": "chess"}, "refused: new-game: no game called 'chess'"),
        ({"do": "new-game", "game": 7}, "refused: new-game: game is a name, not 7"),
        ({"do": "new-game", "options": [1]}, "refused: new-game: options is an object"),
    ],
)
def test_a_new_game_the_board_cannot_start_is_refused_alike_on_every_link(links, command, reason):
    payload = json.dumps(command).encode()
    answers = [links.over(link, payload) for link in (Link.SERIAL, Link.MQTT)]
    assert answers[0] == answers[1]
    assert answers[0] is not None and answers[0].startswith(reason)
