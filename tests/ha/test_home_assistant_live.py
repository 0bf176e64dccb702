"""Home Assistant itself, its MQTT integration connected to a real Mosquitto
(tests/support/broker.py), and a simulated board (`magboard run --sim --mqtt`, in the project's
own venv) on the same broker: the device and its entities appear with the board's values, and
a finished game fires the alert event, the select and the number change the board, as an
operator's dashboard would; and when the board comes back without credentials, Home Assistant
removes its controls.

Skipped where mosquitto is not installed, or where the project's venv is not there
(MAGBOARD_BOARD_PYTHON, set by `make test-ha`)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest
from broker import MISSING, Broker, free_port
from homeassistant import bootstrap, loader
from homeassistant.config import async_process_ha_core_config
from homeassistant.config_entries import ConfigEntries, ConfigEntry, ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component

BOARD_PYTHON = os.environ.get("MAGBOARD_BOARD_PYTHON")
WAIT = 30.0
"""Longest wait for Home Assistant to see what the board did (real time: a real network)."""

pytestmark = [
    pytest.mark.skipif(MISSING is not None, reason=MISSING or ""),
    pytest.mark.skipif(
        not BOARD_PYTHON, reason="no board to run: MAGBOARD_BOARD_PYTHON is the project's python"
    ),
]


@pytest.fixture
def broker(tmp_path_factory):
    """Passwords for the board and Home Assistant; anonymous clients let in too (a board
    without credentials reports, and takes no commands)."""
    running = Broker(tmp_path_factory.mktemp("mosquitto"), None, anonymous=True)
    yield running
    running.stop()


class Boards:
    """`magboard run --sim` processes reporting as board `live`, stopped at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.running: list[subprocess.Popen] = []

    def start(self, url: str) -> subprocess.Popen:
        command = [BOARD_PYTHON, "-m", "magboard.host.cli", "run", "--sim", "--board", "mini"]
        command += ["--mqtt", url, "--board-id", "live"]
        command += ["--journal", str(self.folder / "live.db")]
        config = self.folder / "magboard.toml"
        config.write_text('[mqtt]\nname = "Table 7"\narea = "Cafe"\n')
        process = subprocess.Popen(
            [*command, "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.running.append(process)
        return process

    def type(self, process: subprocess.Popen, *lines: str) -> None:
        assert process.stdin is not None
        process.stdin.write("".join(f"{line}\n" for line in lines).encode())
        process.stdin.flush()

    def stop(self, process: subprocess.Popen) -> None:
        process.terminate()  # SIGTERM: the board says "offline" and disconnects
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdin:
            process.stdin.close()


@pytest.fixture
def boards(tmp_path):
    found = Boards(tmp_path)
    yield found
    for process in found.running:
        if process.poll() is None:
            found.stop(process)


async def until(check, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"Home Assistant did not see {what} in {WAIT} s")


def test_home_assistant_shows_the_board_and_drives_it(broker, boards, tmp_path):
    board = boards.start(broker.url("board1"))
    config_dir = tmp_path / "ha"
    config_dir.mkdir()
    (config_dir / "configuration.yaml").write_text("")  # the MQTT integration reads it

    async def run() -> None:
        # Home Assistant's core, its registries and its web server (the MQTT integration needs
        # it: on this machine only, on a port of its own), without the rest of a default setup.
        hass = HomeAssistant(str(config_dir))
        hass.config.skip_pip = True
        loader.async_setup(hass)
        hass.config_entries = ConfigEntries(hass, {})
        await bootstrap.async_load_base_functionality(hass)
        await async_process_ha_core_config(hass, {"time_zone": "UTC"})
        await hass.async_start()
        http = {"server_host": "127.0.0.1", "server_port": free_port()}
        assert await async_setup_component(hass, "http", {"http": http})
        try:
            entry = ConfigEntry(
                version=1,
                minor_version=1,
                domain="mqtt",
                title="broker",
                data={
                    "broker": broker.host,
                    "port": broker.port,
                    "username": "fleet",
                    "password": broker.users["fleet"],
                    "discovery": True,
                },
                source="user",
                options={},
            )
            await hass.config_entries.async_add(entry)
            await hass.async_block_till_done()
            assert entry.state is ConfigEntryState.LOADED
            registry = er.async_get(hass)

            def entity(domain: str, object_id: str) -> str | None:
                return registry.async_get_entity_id(domain, "mqtt", f"magboard_live_{object_id}")

            def state(domain: str, object_id: str):
                entity_id = entity(domain, object_id)
                return hass.states.get(entity_id) if entity_id else None

            game = await until(
                lambda: (s := state("sensor", "game")) and s.state == "tic-tac-toe" and s,
                "the game",
            )
            assert state("sensor", "phase").state in ("play", "clearing")
            assert state("sensor", "version").state
            assert state("number", "brightness").state == "1.0"
            select = state("select", "game_select")
            assert "tic-tac-cap" in select.attributes["options"]
            assert state("button", "new_game") is not None
            assert state("event", "alert").attributes["event_types"] == ["game-over", "fault"]
            device = dr.async_get(hass).async_get(registry.async_get(game.entity_id).device_id)
            assert device.name == "Table 7" and device.suggested_area == "Cafe"

            for turn, move in enumerate(("a1", "b1", "b2", "c1", "c3"), start=1):
                boards.type(board, f"play {move}")  # by hand, one after the other
                await until(
                    lambda turn=turn: state("sensor", "turn").state.endswith(f"({turn})"),
                    f"turn {turn}",
                )
            alert = await until(
                lambda: (s := state("event", "alert")) and s.attributes.get("event_type"),
                "the game-over alert",
            )
            assert alert == "game-over"
            assert (await until(lambda: state("sensor", "winner").state != "-", "a winner")) and (
                state("sensor", "winner").state == "X"
            )

            await hass.services.async_call(
                "select",
                "select_option",
                {"entity_id": select.entity_id, "option": "tic-tac-cap"},
                blocking=True,
            )
            await until(lambda: state("sensor", "game").state == "tic-tac-cap", "the new game")
            number = entity("number", "brightness")
            await hass.services.async_call(
                "number", "set_value", {"entity_id": number, "value": 0.4}, blocking=True
            )
            await until(lambda: state("number", "brightness").state == "0.4", "the brightness")
            await until(lambda: state("sensor", "response").state == "done", "the command's answer")
            assert (tmp_path / "live.brightness").read_text() == "0.4\n"  # kept

            await hass.async_add_executor_job(boards.stop, board)  # it waits for the process
            await until(lambda: state("sensor", "game").state == "unavailable", "it offline")
            boards.start(broker.anonymous_url())  # back, without credentials
            await until(lambda: entity("button", "new_game") is None, "the button removed")
            assert (
                entity("select", "game_select") is None and entity("number", "brightness") is None
            )
            await until(lambda: state("sensor", "game").state == "tic-tac-toe", "it back")
        finally:
            await hass.async_stop(force=True)

    asyncio.run(run())
