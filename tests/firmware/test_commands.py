"""One vocabulary of commands on every link: a command sent over the serial link (its framing,
on a port in memory) and over MQTT (a real Mosquitto, tests/support/broker.py), to the same
board, and to the simulator's page (its server's handler), gets the same answer. Parametrised
over the registry (firmware/app/commands.py): a command is tested by being declared."""

from __future__ import annotations

import json

import pytest
from broker import Listener, topic
from sim_mqtt import Board

from magboard.firmware.app.commands import COMMANDS, Declared, Link, commands_over
from magboard.firmware.app.link import SerialLink
from magboard.firmware.events import GameStarted, Note, event_from_json
from magboard.sim.web.server import BoardHost

ON_EVERY_LINK = [c for c in COMMANDS if c.links == set(Link)]


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


class PageClient:
    """A page connected to the simulator's server: what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))


class BothLinks:
    """One simulated board with a serial link and an MQTT link, and the simulator's page on a
    board of its own: the same command over each."""

    def __init__(self, board: Board, listener: Listener) -> None:
        self.board = board
        self.listener = listener
        self.port = MemoryPort()
        self.serial = SerialLink("memory", board.session.loop, opener=lambda url: self.port)
        self.page = BoardHost("mini")
        self.page_client = PageClient()

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

    def over_page(self, payload: bytes) -> str | None:
        """The refusal the page is sent, if any."""
        before = len(self.page_client.sent)
        self.page.handle(payload.decode(), self.page_client)
        refused = [
            m["text"]
            for m in self.page_client.sent[before:]
            if m["type"] == "note" and m["text"].startswith("refused: ")
        ]
        return refused[0] if refused else None

    def over(self, link: Link, payload: bytes) -> str | None:
        send = {Link.SERIAL: self.over_serial, Link.MQTT: self.over_mqtt, Link.PAGE: self.over_page}
        return send[link](payload)

    def playing(self, link: Link) -> tuple[str, dict]:
        """The game the board that `link` reaches plays, and its options."""
        referee = (self.page.session if link is Link.PAGE else self.board.session).loop.referee
        return referee.game.name, dict(referee.options)

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
    assert [c.name for c in ON_EVERY_LINK] == ["new-game"]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_a_field_a_command_does_not_take_is_refused_alike_on_every_link(links, command: Declared):
    payload = json.dumps({"do": command.name, "colour": "red"}).encode()
    assert "colour" not in {f for link in Link for f in command.fields_over(link)}
    answers = {link: links.over(link, payload) for link in command.links}
    assert set(answers.values()) == {f"refused: {command.name}: unknown field 'colour'"}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_a_command_a_link_does_not_take_is_refused_there_by_name(links, command: Declared):
    # The page's own commands are its hands' (sim/commands.py); the others it refuses as such.
    for link in {Link.SERIAL, Link.MQTT} - command.links:
        taken = ", ".join(commands_over(link))
        answer = links.over(link, json.dumps({"do": command.name}).encode())
        assert answer == f"refused: unknown command '{command.name}' (commands: {taken})"


@pytest.mark.parametrize(
    "payload",
    [b"fly me", b'["new-game"]', b'{"game": "tic-tac-cap"}', b"\xff\xfe", b'{"do": 7}'],
)
def test_a_malformed_command_is_refused_in_the_same_words_on_serial_and_mqtt(links, payload):
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
def test_new_game_means_one_thing_on_every_link(links, command, game):
    payload = json.dumps(command).encode()
    for link in Link:
        links.over(link, json.dumps({"do": "new-game", "game": "tic-tac-toe"}).encode())
    before = len(links.started())
    answers = {link: links.over(link, payload) for link in Link}
    assert set(answers.values()) == {None}
    links.board.session.run_for(0.1)
    assert [s.game for s in links.started()[before:]] == [game, game]
    playing = {link: links.playing(link) for link in Link}
    assert playing[Link.SERIAL][0] == game
    assert playing[Link.SERIAL] == playing[Link.MQTT] == playing[Link.PAGE]


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
    answers = {link: links.over(link, payload) for link in Link}
    assert len(set(answers.values())) == 1, answers
    assert answers[Link.SERIAL] is not None and answers[Link.SERIAL].startswith(reason)
