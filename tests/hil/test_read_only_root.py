"""The board on a read-only root (README, "A read-only root") in the emulated machine: the root
remounted read-only with /var/lib/magboard a file system of its own, as on a museum's board; the
service started again on it, READY, refereeing a move, its journal written on the state's file
system and nowhere else.

The machine has one disk, so a tmpfs in /etc/fstab stands in for the state's ext4 partition (the
unit cannot tell them apart: a mount at /var/lib/magboard). Around it, what the README asks of a
board whose root is read-only in /etc/fstab: /tmp, /var/tmp and /var/log tmpfs, journald's journal
in /run. Mosquitto, on the machine here rather than on a hub, is restarted so that its log is in
the new /var/log: a file open for writing on the root would refuse the remount.

One machine for the module (conftest.py's `referee`, which installed the service and started it
on the root as it was); the tests run in this file's order on what the fixture left. Only in the
emulated machine: it never remounts a real Pi's root. Skipped unless asked for and built
(tests/hil/conftest.py): `make hil`.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass

import paho.mqtt.client as mqtt
import pytest

from magboard.sim.machine.vm import Machine

MQTT = 1883
STATE = "/var/lib/magboard"
JOURNAL = f"{STATE}/magboard.db"
FSTAB = f"""
# The root read-only (README, "A read-only root"). Here a tmpfs stands in for the state's ext4
# partition: the machine has one disk.
magboard-state  {STATE}  tmpfs  size=64m,mode=0755,noatime  0  0
tmpfs  /tmp      tmpfs  nosuid,nodev,mode=1777  0  0
tmpfs  /var/tmp  tmpfs  nosuid,nodev,mode=1777  0  0
tmpfs  /var/log  tmpfs  nosuid,nodev,noexec,mode=0755  0  0
"""
MOUNTS = ("var-lib-magboard.mount", "tmp.mount", "var-tmp.mount", "var-log.mount")
"""The units systemd's fstab generator makes of those lines."""
WRITERS = """
import os
root = next(line.split()[0] for line in open("/proc/self/mountinfo") if line.split()[4] == "/")
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        comm = open(f"/proc/{pid}/comm").read().strip()
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in fds:
        try:
            fdinfo = open(f"/proc/{pid}/fdinfo/{fd}").read().splitlines()
            info = dict(line.split(":", 1) for line in fdinfo if ":" in line)
            path = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if int(info["flags"], 8) & 3 and info["mnt_id"].strip() == root:
            print(comm, pid, path)
"""
"""Prints each process with a file open for writing on the root's file system (what makes
`mount -o remount,ro /` fail with "mount point is busy")."""


@dataclass(frozen=True)
class ReadOnlyRoot:
    started: dict
    """The service's `game-started` event on the read-only root (a new game: the state's file
    system was empty)."""
    ready: float
    """Seconds from `systemctl start` to READY=1 there."""


@pytest.fixture(scope="module")
def read_only_root(referee, timings: list[str]) -> ReadOnlyRoot:
    referee.only_emulated("it remounts the machine's root read-only")
    machine: Machine = referee.machine
    machine.run(["systemctl", "stop", "magboard"], timeout=120, check=True)
    machine.run(["sh", "-c", "cat >> /etc/fstab"], input=FSTAB, check=True)
    # journald leaves its files on the root (its journal is in /run from now on, as with
    # Storage=volatile), then the mounts go where the README puts them.
    machine.run(["journalctl", "--relinquish-var"], timeout=60, check=True)
    machine.run(["systemctl", "daemon-reload"], timeout=60, check=True)
    machine.run(["systemctl", "start", *MOUNTS], timeout=60, check=True)
    machine.run(["install", "-d", "-o", "mosquitto", "-m", "0755", "/var/log/mosquitto"])
    machine.run(["systemctl", "restart", "mosquitto"], timeout=60, check=True)
    remount = machine.run(["mount", "-o", "remount,ro", "/"], timeout=60)
    if not remount.ok:
        still = machine.run(["python3", "-c", WRITERS]).stdout
        pytest.fail(f"the root stays writable: {remount.stderr.strip()}; writing to it:\n{still}")
    wait_subscribed(referee)
    start = time.monotonic()
    started = referee.new_game()
    ready = time.monotonic() - start
    timings.append(f"read-only root: READY=1 {ready:.1f} s after start, the state on its own mount")
    return ReadOnlyRoot(started, ready)


def test_the_root_is_read_only_and_the_state_a_file_system_of_its_own(
    referee, read_only_root: ReadOnlyRoot
) -> None:
    machine = referee.machine
    options = machine.run(["findmnt", "-n", "-o", "OPTIONS", "/"], check=True).stdout
    assert options.strip().split(",")[0] == "ro", options
    refused = machine.run(["touch", "/var/lib/probe"])
    assert not refused.ok and "Read-only file system" in refused.stderr, refused
    state = machine.run(["findmnt", "-n", "-o", "FSTYPE,SOURCE", STATE], check=True).stdout
    assert state.split() == ["tmpfs", "magboard-state"]


def test_the_service_waits_for_the_state_partition(referee, read_only_root: ReadOnlyRoot) -> None:
    found = referee.show("RequiresMountsFor", "Requires", "After", "ProtectSystem")
    assert STATE in found["RequiresMountsFor"].split()
    assert "var-lib-magboard.mount" in found["Requires"].split(), found
    assert "var-lib-magboard.mount" in found["After"].split(), found
    assert found["ProtectSystem"] == "strict"


def test_the_service_is_ready_and_referees_a_move(referee, read_only_root: ReadOnlyRoot) -> None:
    assert (read_only_root.started["game"], read_only_root.started["board"]) == (
        "tic-tac-toe",
        "mini",
    )
    mark = referee.events.mark()
    move = referee.play("A1", "b2", 1)
    assert move["player"] == 0
    assert referee.show("ActiveState", "SubState") == {
        "ActiveState": "active",
        "SubState": "running",
    }, referee.journal("-n", "60")
    faults = [e for e in referee.events.since(mark) if e["type"] == "fault"]
    assert faults == [], "no journal fault: the state's file system takes the writes"


def test_the_journal_is_on_the_state_partition(referee, read_only_root: ReadOnlyRoot) -> None:
    machine = referee.machine
    where = machine.run(["findmnt", "-n", "-o", "TARGET,FSTYPE", "--target", JOURNAL], check=True)
    assert where.stdout.split() == [STATE, "tmpfs"]
    # systemd gave the new file system's root to the service's user (StateDirectory=).
    owner = machine.run(["stat", "-c", "%U", STATE], check=True).stdout.strip()
    assert owner == "magboard"
    # Read as the service's user, read-only: nothing of root's is left among its files.
    script = (
        "import sqlite3; db = sqlite3.connect('file:" + JOURNAL + "?mode=ro', uri=True)\n"
        "for (event,) in db.execute('SELECT event FROM records ORDER BY seq'): print(event)"
    )
    kept = machine.run(["runuser", "-u", "magboard", "--", "python3", "-c", script], check=True)
    events = [json.loads(line) for line in kept.stdout.splitlines()]
    assert [e["actions"] for e in events if e["type"] == "move"] == [["b2"]], events


def wait_subscribed(referee, timeout: float = 60) -> None:
    """Waits until the host's subscriber, cut off by the broker's restart, is subscribed again:
    a probe published on the events topic until one comes back."""
    port = referee.machine.ports[MQTT]
    publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hil-probe")
    deadline = time.monotonic() + timeout
    while True:
        try:
            publisher.connect("127.0.0.1", port)
            break
        except OSError:
            assert time.monotonic() < deadline, f"the broker did not come back in {timeout:.0f} s"
            time.sleep(1)
    publisher.loop_start()
    try:
        for attempt in itertools.count():
            mark = referee.events.mark()
            payload = json.dumps({"type": "hil-probe", "attempt": attempt})
            publisher.publish(referee.events.topic, payload, qos=1)
            try:
                referee.events.wait(mark, 2, type="hil-probe", attempt=attempt)
                return
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
    finally:
        publisher.loop_stop()
        publisher.disconnect()
