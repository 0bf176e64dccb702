"""The real bench's side of the hardware-in-the-loop suite, without a bench: `PersonAtBoard`
with its terminal as strings, `PiOverSsh` with an `ssh` that runs the command here."""

from __future__ import annotations

import io
import os
import stat
import time
from pathlib import Path

import pytest

from magboard.sim.machine.bench import NotDone, PersonAtBoard
from magboard.sim.machine.hands import LedView, NotSupported
from magboard.sim.machine.pi import PiOverSsh


def person(*answers: str, camera=None) -> tuple[PersonAtBoard, io.StringIO]:
    said = io.StringIO()
    return PersonAtBoard(said, io.StringIO("".join(f"{a}\n" for a in answers)), camera), said


def asked(said: io.StringIO) -> list[str]:
    """The instructions, without the line's common ending."""
    ending = " Press Enter when done, or type n if you cannot."
    lines = said.getvalue().splitlines()
    assert all(line.endswith(ending) for line in lines), lines
    return [line.removesuffix(ending) for line in lines]


def test_a_game_is_asked_for_move_by_move_in_place_words() -> None:
    board, said = person(*[""] * 6)
    assert board.put("A1", "X", magnets=["s"]) == "X1"
    assert board.put("B1", "O", magnets=["s"]) == "O1"
    assert board.put("A2", "X") == "X2"
    assert board.move("A1", "b2") == "X1"
    assert board.move("B1", "a2") == "O1"
    assert board.move("A2", "a1") == "X2"
    assert asked(said) == [
        "Put a new X piece on A1.",
        "Put a new O piece on B1.",
        "Put a new X piece on A2.",
        "Move the piece on A1 (X1) to b2.",
        "Move the piece on B1 (O1) to a2.",
        "Move the piece on A2 (X2) to a1.",
    ]
    assert board.pieces() == {"b2": ["X1"], "a2": ["O1"], "a1": ["X2"]}


def test_the_record_follows_lifts_stacks_slides_and_a_clear() -> None:
    board, said = person(*[""] * 10)
    board.put("a1", "X")
    board.put("a1", "X")
    assert board.pieces() == {"a1": ["X1", "X2"]}
    assert board.lift("a1") == "X2"
    assert board.put("c3") == "X2"  # the piece in the hand
    assert board.lift("a1", away=True) == "X1"
    assert board.pieces() == {"c3": ["X2"]}
    assert board.slide("c3", ["c2", "c1"], step=0.5) == pytest.approx(1.0)
    board.press("new", hold=3)
    board.press("seat-1")
    board.release("seat-1")
    assert board.clear() == 1
    assert board.pieces() == {}
    assert asked(said)[2:] == [
        "Lift the piece on a1 (X2) and keep it in your hand.",
        "Put the piece in your hand (X2) on c3.",
        "Take the piece on a1 (X1) off the board and put it aside.",
        "Slide the piece on c3 (X2) without lifting it through c2, c1, about 0.5 s a cell, "
        "and leave it on c1.",
        "Press and hold the `new` button for 3 s, then let go.",
        "Press and hold the `seat-1` button until you are asked to let go.",
        "Let go of the `seat-1` button.",
        "Take every piece off the board and its trays, and put down any you hold.",
    ]


def test_a_layout_is_asked_for_once() -> None:
    board, said = person("", "")
    board.put("c3", "X")
    places = {"A1": "X", "A2": "X", "B1": "O", "B2": "O"}
    assert board.put_all(places) == ["X2", "X3", "O1", "O2"]
    assert asked(said)[1:] == ["Put new pieces: X on A1, A2; O on B1, B2."]
    assert board.pieces() == {"c3": ["X1"], "A1": ["X2"], "A2": ["X3"], "B1": ["O1"], "B2": ["O2"]}


def test_nothing_is_asked_for_a_piece_the_record_does_not_have() -> None:
    board, said = person()
    with pytest.raises(ValueError, match="no piece on b2"):
        board.move("b2", "c3")
    with pytest.raises(ValueError, match="nothing in the hand"):
        board.put("b2")
    assert said.getvalue() == ""


@pytest.mark.parametrize("answer", ["n", "No", " skip "])
def test_an_action_the_person_could_not_do_raises_and_is_not_recorded(answer: str) -> None:
    board, _ = person("", answer)
    board.put("A1", "X")
    with pytest.raises(NotDone, match=r"could not: Move the piece on A1 \(X1\) to b2"):
        board.move("A1", "b2")
    assert board.pieces() == {"A1": ["X1"]}


def test_no_one_answering_is_not_taken_for_done() -> None:
    board, _ = person()
    with pytest.raises(NotDone, match="no answer"):
        board.put("A1", "X")
    assert board.pieces() == {}


def test_faults_a_bench_makes_are_asked_for_and_the_others_are_not_supported() -> None:
    board, said = person(*[""] * 7)
    board.kill_expander(0)
    board.revive_expander(0)
    board.reset_expander(3)
    board.hang_bus()
    board.release_bus()
    board.power_cut()
    board.power_on()
    assert asked(said) == [
        "Unplug expander 0 (address 0x20)'s connector.",
        "Plug expander 0 (address 0x20)'s connector back in.",
        "Touch expander 3 (address 0x23)'s RESET pin to GND for a moment.",
        "Hold SDA to GND with a jumper wire, and leave it there.",
        "Remove the jumper wire from SDA.",
        "Pull the Pi's power plug (do not shut it down first).",
        "Plug the Pi's power back in.",
    ]
    with pytest.raises(NotSupported):
        board.i2c_errors(0, 3)
    with pytest.raises(NotSupported, match="no camera"):
        board.leds()


def test_a_cameras_view_is_the_boards() -> None:
    view = LedView(((255, 0, 0), (0, 0, 0)), frames=12, age=0.1)
    board, said = person(camera=lambda: view)
    assert board.leds() is view
    assert said.getvalue() == ""


# PiOverSsh, with an `ssh` that drops its options and host and runs the command here, and a
# `sudo` that runs what it is given as it is.

FAKE_SSH = """#!/bin/sh
while [ "$1" != "--" ]; do shift; done
shift
exec sh -c "$1"
"""
FAKE_SUDO = '#!/bin/sh\nexec "$@"\n'


@pytest.fixture
def pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PiOverSsh:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("ssh", FAKE_SSH), ("sudo", FAKE_SUDO)):
        script = bin_dir / name
        script.write_text(text)
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return PiOverSsh("pi@board.local", PersonAtBoard(io.StringIO(), io.StringIO()))


def test_the_pi_is_named_for_its_broker(pi: PiOverSsh) -> None:
    assert pi.host == "board.local" and pi.ports == {1883: 1883}
    assert pi.command(["true"])[:-1] == [
        "ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "pi@board.local", "--",
    ]  # fmt: skip


def test_awkward_arguments_reach_the_command_as_they_were(pi: PiOverSsh) -> None:
    words = ["it's", "a b", "$HOME", "*", '"q"', "x;y", ""]
    result = pi.run(["printf", "[%s]\\n", *words])
    assert result.ok and result.stdout.splitlines() == [f"[{w}]" for w in words]


def test_env_cwd_input_and_rc(pi: PiOverSsh, tmp_path: Path) -> None:
    script = 'printf "%s|%s|" "$GREETING" "$PWD"; cat; exit 3'
    result = pi.run(
        ["sh", "-c", script], input="from stdin", env={"GREETING": "hi there"}, cwd=str(tmp_path)
    )
    assert (result.rc, result.stdout) == (3, f"hi there|{tmp_path}|from stdin")
    assert not result.ok and not result.timed_out
    with pytest.raises(Exception, match="rc 3"):
        pi.run(["sh", "-c", "exit 3"], check=True)


def test_a_command_that_outlasts_its_timeout(pi: PiOverSsh) -> None:
    start = time.monotonic()
    result = pi.run(["sleep", "30"], timeout=0.3)
    assert time.monotonic() - start < 10
    assert result.rc is None and result.timed_out and not result.ok


def test_a_power_cut_is_asked_for_and_the_boot_waits_for_ssh(pi: PiOverSsh) -> None:
    said = io.StringIO()
    pi.person = PersonAtBoard(said, io.StringIO("\n\n"))
    pi.kill()
    assert pi.boot() >= 0
    assert said.getvalue().splitlines()[0].startswith("Pull the Pi's power plug")
    assert said.getvalue().splitlines()[1].startswith("Plug the Pi's power back in")


def test_a_directory_with_a_space_and_a_quote(pi: PiOverSsh, tmp_path: Path) -> None:
    awkward = tmp_path / "it's a dir"
    awkward.mkdir()
    assert pi.run(["pwd"], cwd=str(awkward), env={"A": "1"}).stdout == f"{awkward}\n"


def test_no_ssh_client_is_a_result_that_says_so(tmp_path: Path) -> None:
    pi = PiOverSsh("pi@board.local", PersonAtBoard(io.StringIO(), io.StringIO()), ssh="nossh")
    result = pi.run(["true"])
    assert result.rc is None and not result.timed_out and "nossh" in result.error
