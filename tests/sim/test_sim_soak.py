"""`magboard soak`: random games with mistakes, bumps, noise and faults, and honest figures."""

from __future__ import annotations

import json

import pytest

from magboard.firmware.engine.opponent import AiSeat, Level
from magboard.firmware.games import CARRY_OUT
from magboard.firmware.referee import Referee
from magboard.host import cli
from magboard.sim.soak import (
    Tally,
    choices,
    clearing,
    format_examples,
    format_report,
    mishaps,
    obligations,
    soak,
)
from magboard.sim.soak import against_board as soak_ai
from magboard.sim.soak import careless as soak_module
from magboard.sim.soak import people as soak_people

pytestmark = pytest.mark.slow


def consistent(tally: Tally) -> None:
    assert tally.games == tally.finished
    assert tally.aborted == 0
    assert tally.false_accepts == 0
    assert tally.missed == 0
    assert tally.false_alarms == 0
    assert tally.accepted == tally.moves > 0
    assert sum(tally.wins.values()) + tally.draws == tally.games
    assert tally.illegal_caught == tally.illegal_made
    assert tally.recovered == tally.illegal_made
    assert tally.faults_survived == tally.faults_injected
    assert tally.fault_events >= tally.faults_injected
    assert tally.noise_blips >= tally.noise_bursts
    assert tally.virtual_seconds > 0 and tally.wall_seconds > 0
    assert tally.ok and not tally.failures


@pytest.fixture
def troublesome(monkeypatch):
    """Every kind of trouble, often, so a handful of games meets all of them."""
    for name, value in [
        ("P_MISTAKE", 0.5),
        ("P_BUMP", 0.5),
        ("P_NOISE", 0.4),
        ("P_I2C", 0.25),
        ("P_RESET", 0.25),
    ]:
        monkeypatch.setattr(soak_module, name, value)


@pytest.mark.parametrize("board", ["mini", "r1"])
def test_a_few_games_with_trouble_are_refereed_without_a_slip(troublesome, board):
    tally = soak("tic-tac-toe", board, games=4, seed=5)
    consistent(tally)
    assert tally.illegal_made > 0
    assert tally.bumps > 0
    assert tally.noise_bursts > 0
    assert tally.faults_injected > 0


def test_a_seed_repeats_exactly(troublesome):
    first = soak("tic-tac-toe", "mini", games=3, seed=9).to_dict()
    second = soak("tic-tac-toe", "mini", games=3, seed=9).to_dict()
    other = soak("tic-tac-toe", "mini", games=3, seed=10).to_dict()
    for data in (first, second, other):
        # Measured, not played: the clock on the wall, and the bytes the process wrote (which
        # count Python's bytecode cache the first time a module is loaded).
        data.pop("wall_seconds")
        data.pop("judge_latency_ms")
        data["journal"].pop("written")
    assert first == second
    assert first != other


def test_the_report_names_every_figure():
    tally = soak("tic-tac-toe", "mini", games=2, seed=1)
    text = format_report(tally)
    for words in (
        "games",
        "moves made",
        "accepted",
        "missed moves",
        "false accepts",
        "illegal made",
        "caught",
        "recovered",
        "faults injected",
        "survived",
        "virtual time",
        "wall time",
        "result",
    ):
        assert words in text
    assert text.splitlines()[-1].split()[-1] == "PASS"


def test_the_report_counts_each_kind_of_trouble_and_the_judge_latency(troublesome):
    tally = soak("tic-tac-toe", "mini", games=3, seed=4)
    consistent(tally)
    for kind in ("legal move", "mistake", "bump", "noise"):
        assert tally.kinds[kind]["made"] > 0
    assert tally.kinds["legal move"]["made"] <= tally.moves
    figures = tally.to_dict()
    assert set(figures["kinds"]["bump"]) == {
        "made",
        "false_accepts",
        "missed",
        "false_alarms",
        "wrong_reasons",
    }
    assert figures["judge_latency_ms"]["judged"] > 0
    text = format_report(tally)
    assert "kind of trouble" in text and "wrong reasons" in text and "judge latency" in text
    bump_row = next(line for line in text.splitlines() if line.split()[:1] == ["bump"])
    assert bump_row.split()[1:] == [str(tally.kinds["bump"]["made"]), "0", "0", "0", "0"]


def test_what_goes_wrong_is_kept_with_the_game_and_turn_to_replay_it(monkeypatch):
    """A board given no time to answer misses every move: each is counted against what the
    hands were doing, and the first few are kept with the game's number, seed and turn."""
    monkeypatch.setattr(soak_module, "ACCEPT_WAIT", 0.01)
    monkeypatch.setattr(clearing, "ACCEPT_WAIT", 0.01)
    monkeypatch.setattr(mishaps, "ACCEPT_WAIT", 0.01)
    tally = soak("tic-tac-toe", "mini", games=1, seed=2)
    assert tally.missed > 0 and not tally.ok
    first = tally.examples[0]
    assert first["figure"] == "missed" and first["game"] == 1 and first["turn"] == 0
    assert first["game_seed"] > 0 and "expected" in first["event"]
    assert len(tally.examples) <= soak_module.EXAMPLES
    assert sum(f["missed"] for f in tally.kinds.values()) == tally.missed
    assert "missed while legal move: game 1" in format_examples(tally)


def test_a_mistake_the_board_does_not_refuse_is_kept_with_what_was_made(monkeypatch):
    """A board that never says `illegal`: every mistake is counted not caught and not
    recovered from, and the first are kept with the game, its seed, the turn, the time, what
    the hands made and what the board said."""
    monkeypatch.setattr(soak_module, "P_MISTAKE", 1.0)
    monkeypatch.setattr(Referee, "_illegal", lambda self, raw, now, detail="": None)
    tally = soak("tic-tac-toe", "mini", games=1, seed=3)
    assert tally.illegal_made > 0 and tally.illegal_caught == tally.recovered == 0
    assert f"{tally.illegal_made} mistakes not caught" in tally.failures
    first = next(e for e in tally.examples if e["figure"] == "not_caught")
    assert first["kind"] == "mistake" and first["game"] == 1 and first["game_seed"] > 0
    assert first["virtual_time"] > 0
    made, said = first["event"].split("; the board said: ")
    assert made.startswith("made ") and " to " in made and "illegal" not in said
    assert "not_caught while mistake: game 1" in format_examples(tally)


def test_a_failure_is_reported_and_fails_the_command():
    tally = Tally(games=1, moves=3, accepted=2, missed=1)
    assert not tally.ok
    assert "1 missed moves" in format_report(tally)


def test_the_command_prints_json_and_succeeds(capsys):
    status = cli.main(["soak", "--board", "mini", "--games", "2", "--seed", "3", "--json"])
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert status == 0
    assert data["ok"] is True and data["failures"] == []
    assert data["games"] == 2 and data["false_accepts"] == 0 and data["missed"] == 0


def test_nonsense_gets_one_line(capsys):
    assert cli.main(["soak", "--games", "0"]) == 2
    assert "1 game or more" in capsys.readouterr().err
    assert cli.main(["soak", "--game", "chess"]) == 2
    assert "no game called 'chess'" in capsys.readouterr().err


# Games on tiles that shift and turn.


@pytest.fixture
def nudgy(troublesome, monkeypatch):
    """Tiles nudged often too."""
    monkeypatch.setattr(soak_people, "P_NUDGE", 0.3)


@pytest.mark.parametrize(
    ("game", "options", "seed"),
    [
        ("meep-tac-toe", {"maneuver": "none"}, 1),
        ("meep-tac-toe", {"maneuver": "rotate"}, 1),
        ("meep-tac-toe", {"maneuver": "advanced"}, 2),
        ("meeple-maneuver", {}, 1),
    ],
)
def test_tile_games_with_trouble_are_refereed_without_a_slip(nudgy, game, options, seed):
    tally = soak(game, "r1", games=2, seed=seed, options=options)
    consistent(tally)
    assert tally.tiles and tally.options == options
    assert 0 < tally.tiles_nudged < tally.illegal_made
    assert tally.bumps > 0 and tally.faults_injected > 0
    assert tally.boards_cleared == tally.clears_ok == 2
    assert tally.takebacks == tally.taken_back > 0  # however many actions the turn had
    assert tally.fast_replies > 0
    if options.get("maneuver") == "none":  # a turn is one movement
        assert tally.whole_turns == 0
    else:  # a meeple, then its tile: in one go, or with the board still between
        assert tally.whole_turns > 0


def test_captured_meeples_are_waited_for_misplaced_and_the_next_player_kept_back(monkeypatch):
    monkeypatch.setattr(obligations, "P_LATE", 1.0)
    monkeypatch.setattr(soak_people, "P_AT_ONCE", 0.0)  # every capture carried off late
    monkeypatch.setattr(obligations, "P_FIRST", 1.0)
    monkeypatch.setattr(obligations, "P_WRONG_PLACE", 1.0)
    monkeypatch.setattr(soak_module, "P_POWER_CUT", 1.0)
    cut = []
    power_cut = soak_people.PeopleSoak.power_cut

    def spy(self, action):
        cut.append(action)
        return power_cut(self, action)

    monkeypatch.setattr(soak_people.PeopleSoak, "power_cut", spy)
    tally = soak("meeple-maneuver", "r1", games=1, seed=32)
    consistent(tally)
    assert tally.obligations == tally.late_obligations > 0
    assert tally.moved_first == tally.moved_first_refused > 0
    assert CARRY_OUT in cut  # a captured meeple in the hand as the power went
    misplaced = tally.kinds["obligation in the wrong place"]
    assert misplaced["made"] > 0  # a captured meeple in a pile it does not go to: refused
    assert misplaced["false_accepts"] == misplaced["false_alarms"] == misplaced["missed"] == 0
    assert "obligations" in format_report(tally)


def test_the_command_takes_the_game_and_its_options(capsys):
    argv = ["soak", "--game", "meep-tac-toe", "--option", "maneuver=rotate", "--games", "1"]
    assert cli.main(argv) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("soak: meep-tac-toe (maneuver=rotate) on r1, 1 games, seed 1")
    assert "whole turns" in out and "of which tiles nudged" in out
    assert cli.main(["soak", "--game", "meep-tac-toe", "--option", "maneuver=sideways"]) == 2
    assert "maneuver" in capsys.readouterr().err


@pytest.fixture
def careless(troublesome, monkeypatch):
    """Magnetmen's own trouble, often: tokens put down where the rules forbid, options sent
    that the board is not waiting for, choices made over the link."""
    monkeypatch.setattr(soak_people, "P_BOX_MISTAKE", 0.3)
    monkeypatch.setattr(choices, "P_WRONG_CHOICE", 0.5)
    monkeypatch.setattr(choices, "P_LINK", 0.5)


@pytest.mark.parametrize(
    ("options", "seed"),
    [
        ({"players": 4, "size": "small"}, 1),
        ({"set": "advanced", "advanced_rules": True}, 2),
    ],
)
def test_magnetmen_with_trouble_is_refereed_without_a_slip(careless, options, seed):
    tally = soak("magnetmen", "r1", games=3, seed=seed, options=options)
    consistent(tally)
    assert tally.illegal_made > 0


def test_magnetmen_choices_turns_ended_and_tokens_turned(careless):
    """Expert boards of four players meet the Actress, the Firefighter and the Police: choices
    by the buttons and by the link, turns ended by the seat button, tokens turned over."""
    tally = soak("magnetmen", "r1", games=6, seed=20, options={"set": "expert", "players": 4})
    consistent(tally)
    assert tally.choices > tally.choices_by_buttons > 0
    assert tally.wrong_choices == tally.wrong_choices_refused > 0
    assert tally.turns_ended > 0
    assert tally.tokens_turned > 0
    assert "choices" in format_report(tally)


# Against the board: its moves made by a hand reading its lights, carelessly.


@pytest.fixture
def careless_hands(monkeypatch):
    """The board's moves made carelessly, and taken back, often."""
    monkeypatch.setattr(soak_ai, "P_WRONG_SQUARE", 0.3)
    monkeypatch.setattr(soak_ai, "P_POWER_CUT", 0.2)
    monkeypatch.setattr("magboard.sim.soak.careless.P_TAKEBACK", 0.3)
    monkeypatch.setattr("magboard.sim.soak.careless.P_FAST_REPLY", 0.3)


@pytest.mark.parametrize(
    ("game", "board", "level", "seed"),
    [("tic-tac-toe", "mini", Level.NORMAL, 2), ("tic-tac-cap", "r1", Level.EASY, 3)],
)
def test_every_move_of_the_board_is_made_from_its_lights_and_nothing_slips(
    careless_hands, game, board, level, seed
):
    tally = soak(game, board, games=4, seed=seed, ai=AiSeat(1, level))
    consistent(tally)
    assert tally.board_moves == tally.board_moves_made > 0
    assert tally.board_wrong_squares > 0 and tally.board_power_cuts > 0
    assert tally.taken_back == tally.takebacks > 0
    assert tally.kinds["takeback against the board"]["made"] == tally.takebacks
    assert tally.fast_replies > 0  # the person's piece down as soon as the board's is made
    assert tally.win_replies_flagged == tally.win_replies
    assert tally.clears_ok == tally.boards_cleared == tally.games
    report = format_report(tally)
    assert f"the board playing {'O' if game == 'tic-tac-toe' else 'B'}:{level.value}" in report
    assert "wrong square first" in report


@pytest.mark.parametrize(
    ("game", "options", "seat", "games", "seed"),
    [
        ("meep-tac-toe", {"maneuver": "advanced"}, 1, 2, 1),
        ("meeple-maneuver", {}, 1, 2, 1),
        ("magnetmen", {}, 1, 3, 1),
        ("magnetmen", {"players": 3}, 2, 2, 1),  # the board plays C, people A and B
        # The board's Lance Assembly turns come from tree search, minutes a game with the line
        # detector in Python; the kernels are checked against their twins on their own.
        pytest.param("lance-assembly", {"max_turns": 30}, 1, 1, 5, marks=pytest.mark.backend_free),
    ],
)
def test_the_board_plays_every_game_its_tiles_slides_and_boxes_made_by_hand(
    careless_hands, game, options, seat, games, seed
):
    """Where the lights draw only pieces, the board's tile moves, slides and tokens from a box
    no sensor sees are made from the move it announced: each one seen made, nothing slips."""
    tally = soak(game, "r1", games=games, seed=seed, options=options, ai=AiSeat(seat))
    consistent(tally)
    assert tally.board_moves == tally.board_moves_made > 0
    assert tally.board_wrong_squares > 0 and tally.board_power_cuts > 0
    assert tally.clears_ok == tally.boards_cleared == tally.games
    assert tally.taken_back == tally.takebacks > 0
    kinds = ("takeback against the board", "takeback mid-obligation")
    assert sum(tally.kinds.get(kind, {}).get("made", 0) for kind in kinds) == tally.takebacks


def test_a_lance_bout_won_against_the_board_is_taken_back_while_its_tiles_wait(monkeypatch):
    """The person wins a bout, and, before its tiles are cleared, puts the board back as it
    was before the winning turn, slid groups slid back: the board takes that turn back, and
    the bout with it. Takebacks of a turn and the board's reply to it, slides and all, are
    carried out exactly too."""
    monkeypatch.setattr(soak_people, "P_TAKEBACK_PENDING", 1.0)
    tally = soak("lance-assembly", "r1", games=1, seed=3, ai=AiSeat(1), budget=0.05)
    consistent(tally)
    assert tally.kinds["takeback mid-obligation"]["made"] > 0
    assert tally.kinds["takeback against the board"]["made"] > 0
    assert tally.taken_back == tally.takebacks


def test_the_command_plays_against_the_board(capsys):
    argv = ["soak", "--board", "mini", "--games", "2", "--ai", "O:strong", "--ai-budget", "0.2"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "the board playing O:strong" in out and "PASS" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--ai", "X"], "has it play a seat after X"),
        (["--game", "meep-tac-toe", "--ai", "A"], "has it play a seat after A"),
        (["--game", "magnetmen", "--option", "players=3", "--ai", "D"], "played by A, B, C"),
        (["--ai", "Z"], "no seat 'z'"),
        (["--ai-budget", "1"], "give --ai SEAT too"),
        (["--remote", "--ai", "O"], "--ai with --remote"),
    ],
)
def test_a_soak_the_board_cannot_play_is_one_line(capsys, argv, says):
    assert cli.main(["soak", "--games", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
