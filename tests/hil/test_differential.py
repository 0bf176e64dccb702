"""The differential: one scenario file played in the emulated machine (the installed service on
the simulated board beneath it, its steps made through the world channel in real time, its
events read from the broker) and in the in-process simulator (virtual time) gives the same
moves, mistakes and results. Timings and LED frames are not compared.

Skipped unless asked for and built (tests/hil/conftest.py): `make hil`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from magboard.firmware.events import Event
from magboard.sim import scenario as in_process
from magboard.sim.machine import deploy
from magboard.sim.machine import scenario as on_machine
from magboard.sim.machine.vm import Machine
from magboard.sim.machine.world_link import EmulatedBoard, install_board_unit
from magboard.sim.scenario_file import load

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
KINDS = ("game-started", "move", "partial", "illegal", "restored", "takeback", "game-over")
"""The events that carry the moves, the mistakes and the results."""
FILES = ["win-mini.toml", "illegal-wrong-tray-mini.toml"]


@pytest.fixture(scope="module")
def board(timings: list[str]) -> Iterator[tuple[Machine, EmulatedBoard]]:
    """A machine with the service installed and the mini board served beneath it."""
    with Machine(forward=[on_machine.MQTT]) as machine:
        machine.run(["systemctl", "is-system-running", "--wait"], timeout=300)
        installed = deploy.install(machine)
        timings.append(f"differential, install: {installed.timings()}")
        deploy.write_drop_in(machine)
        install_board_unit(machine, "mini")
        physical = EmulatedBoard(machine.world_socket)
        physical.wait_ready(60)
        try:
            yield machine, physical
        finally:
            physical.close()


def relevant(events: list[Event]) -> list[dict]:
    """The stream's moves, mistakes and results, without their times."""
    return [{k: v for k, v in e.to_dict().items() if k != "t"} for e in events if e.TYPE in KINDS]


@pytest.mark.parametrize("name", FILES)
def test_the_machine_and_the_simulator_agree(
    board: tuple[Machine, EmulatedBoard], name: str
) -> None:
    machine, physical = board
    scenario = load(SCENARIOS / name)
    simulated = in_process.run(scenario)
    with on_machine.prepared(machine, scenario, physical) as (profile, events):
        played = on_machine.play(scenario, physical, events, profile)
    machine_lines = [e.to_json() for e in played.events]
    sim_lines = [e.to_json() for e in simulated.events if e.TYPE != "leds"]
    print(f"{name}, in the machine:", *machine_lines, sep="\n  ")
    print(f"{name}, in the simulator:", *sim_lines, sep="\n  ")
    assert relevant(played.events) == relevant(simulated.events)
    assert simulated.ok, simulated.failures
    assert played.ok, played.failures
