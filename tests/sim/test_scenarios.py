"""Scenario files through the whole simulated stack: every file in tests/scenarios passes, a
broken file is refused in one line naming the file and the field, and a failed expectation
exits 1 saying what was seen instead."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from magboard.host.cli import main as cli
from magboard.sim.scenario import run_file, shows
from magboard.sim.scenario_file import ScenarioError, load

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
DOC = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"
FILES = sorted(SCENARIOS.glob("*.toml"))


TILES = "board = 'r1'\ngame = 'meep-tac-toe'\noptions = { maneuver = 'advanced' }\n"
"""Meep Tac Toe on r1: game a1 is board c3, so the start's tiles cover board e5-h8."""
GAME = """\
board = "mini"
game = "tic-tac-toe"
steps = [
  { at = 0.5, move = ["A1", "b2"] },
  { at = 1.5, move = ["B1", "a1"] },
]
"""


def write(tmp_path: Path, text: str, name: str = "case.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_there_are_scenarios_for_both_boards():
    boards = {load(path).spec.name for path in FILES}
    assert boards == {"mini", "r1"}


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_scenario_passes(path):
    assert path.read_text().startswith("# "), (
        "a scenario starts with a comment saying what it shows"
    )
    result = run_file(path)
    assert result.ok, "\n".join(result.failures)


def test_the_complete_example_of_the_docs_passes(tmp_path):
    example = re.search(r"```toml\n(.*?)```", DOC.read_text(), re.S)
    assert example is not None
    result = run_file(write(tmp_path, example[1]))
    assert result.ok, "\n".join(result.failures)
    assert [e.TYPE for e in result.events].count("move") == 5


def test_the_command_prints_the_event_stream(capsys):
    status = cli(["scenario", str(SCENARIOS / "win-mini.toml")])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "game-started"
    assert [e["actions"] for e in events if e["type"] == "move"] == [
        ["b2"],
        ["a2"],
        ["a1"],
        ["c1"],
        ["c3"],
    ]
    assert events[-1]["type"] == "game-over"
    assert "leds" not in {e["type"] for e in events}


def test_leds_adds_the_led_frames(capsys):
    assert cli(["scenario", "--leds", str(SCENARIOS / "win-mini.toml")]) == 0
    types = [json.loads(line)["type"] for line in capsys.readouterr().out.splitlines()]
    assert types.count("leds") > 5
    assert types.count("move") == 5


# A failing expectation: exit 1, the first failure named, with what was seen instead.


def test_a_missing_event_exits_1_with_the_nearest_events(capsys, tmp_path):
    path = write(tmp_path, GAME + 'expect = [{ type = "move", actions = ["c3"] }]\n', "miss.toml")
    status = cli(["scenario", str(path)])
    out, err = capsys.readouterr()
    assert status == 1
    assert '"move"' in out  # the stream is printed all the same
    assert err.startswith('miss.toml: FAILED expect[0]: expected {type = "move", actions = ["c3"]}')
    assert '"actions":["b2"]' in err and "(differs in actions)" in err


def test_an_event_out_of_order_is_said_to_have_come_earlier(tmp_path):
    text = GAME + (
        'expect = [{ type = "move", actions = ["a1"] }, { type = "move", actions = ["b2"] }]\n'
    )
    result = run_file(write(tmp_path, text))
    assert not result.ok
    assert result.failures[0].startswith("expect[1]: expected")
    assert "after expect[0]" in result.failures[0]
    assert "happened earlier, at t=0.78" in result.failures[0]


def test_a_forbidden_event_is_reported_with_its_time(tmp_path):
    text = GAME + 'forbid = [{ type = "move", player = 1 }]\n'
    result = run_file(write(tmp_path, text))
    assert result.failures == [
        'forbid[0]: forbidden {type = "move", player = 1} happened at t=1.78087: '
        '{"type":"move","t":1.78087,"player":1,"actions":["a1"],"turn":2,"to_move":0,'
        '"skipped":[]}'
    ]


def test_count_and_time_window(tmp_path):
    text = GAME + (
        "expect = [\n"
        '  { type = "move", count = 2 },\n'
        '  { type = "move", player = 1, after = 1.5, before = 2.0, count = 1 },\n'
        "]\n"
        'forbid = [{ type = "move", before = 0.7 }]\n'
    )
    assert run_file(write(tmp_path, text)).ok
    text = GAME + 'expect = [{ type = "move", count = 3 }]\n'
    result = run_file(write(tmp_path, text))
    assert result.failures == [
        'expect[0]: {type = "move", count = 3} matched 2 events, not 3 (at t=0.78087; t=1.78087)'
    ]


def test_a_wrong_led_colour_says_what_it_showed(capsys, tmp_path):
    text = GAME + 'expect_leds = [{ at = 2.5, places = ["a1", "b2"], colour = "X" }]\n'
    path = write(tmp_path, text, "leds.toml")
    assert cli(["scenario", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "leds.toml: FAILED expect_leds[0]: at t=2.5 the LED under a1 (LED 0) shows #"
    )
    assert "not X (#005aff at any brightness)" in err


def test_a_play_the_position_does_not_allow_fails_the_run(tmp_path):
    text = (
        "board = 'mini'\ngame = 'ttt'\n"
        "steps = [{ at = 0.5, play = 'b2' }, { at = 1.5, play = 'b2' }]\n"
    )
    result = run_file(write(tmp_path, text))
    assert len(result.failures) == 1
    assert result.failures[0].startswith(
        "steps[1]: cannot play b2 at t=1.5: b2: b2 is already taken by X"
    )


MENU_OPENED = """\
board = "r1"
game = "tic-tac-toe"
steps = [
  { at = 0.5, press = "menu" },
  { at = 1.0, press = "menu", hold = 1.5 },
"""
"""A file that opens the LED menu (and leaves it, long press, changing nothing)."""


def test_a_play_is_read_by_the_game_in_play_when_it_runs(tmp_path):
    text = MENU_OPENED + '  { at = 3.0, play = "Sc3" },\n]\n'
    result = run_file(write(tmp_path, text))
    assert result.failures == [
        "steps[2]: cannot play Sc3 at t=3: 'Sc3' is not a cell (a column a-p and a row 1-16, "
        "like b2) (the game in play: tic-tac-toe, the referee's position after [])"
    ]


def test_a_play_no_game_of_the_menu_reads_is_a_broken_file(capsys, tmp_path):
    path = write(tmp_path, MENU_OPENED + '  { at = 3.0, play = "Zz9" },\n]\n', "menu.toml")
    assert cli(["scenario", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("magboard: menu.toml: steps[2].play: 'Zz9' is a move in none of the ")
    assert "(tic-tac-toe, tic-tac-cap, tic-tac-doh, lance-assembly," in err


def test_a_seat_colour_may_name_a_seat_of_a_game_the_menu_starts(tmp_path):
    # The open menu's squares glow in the first seat's colour: Tic-Tac-Cap's A as tic-tac-toe's X.
    checked = '\nexpect_leds = [{ at = 0.8, places = ["a1", "b1"], colour = "A" }]\n'
    assert run_file(write(tmp_path, MENU_OPENED + "]\n" + checked)).ok
    with pytest.raises(ScenarioError, match="unknown colour 'A'"):
        load(write(tmp_path, GAME + checked))


def test_led_colours_match_at_any_brightness():
    blue = (0, 90, 255)
    assert shows((0, 13, 38), blue)
    assert shows((0, 7, 19), blue)
    assert not shows((0, 0, 0), blue)
    assert not shows((38, 16, 0), blue)
    assert shows((0, 0, 0), (0, 0, 0))
    assert not shows((0, 0, 1), (0, 0, 0))


# Broken files: exit 2, one line naming the file and the field.

BROKEN = [
    (
        "board = 'mini'\ngame = 'tic-tac-toe'\ncolour = 1\n",
        "unknown key 'colour' (known here: board, game, options, seed, takeback, bounce, until, "
        "steps, expect, forbid, expect_leds, ai, ai_budget)",
    ),
    (
        "board = 'mini'\ngame = 'tic-tac-toe'\nexepct = [{ type = 'move' }]\n",
        "unknown key 'exepct' (known here: board, game,",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, pause = 1, paly = 'b2' }]\n",
        "steps[0]: unknown key 'paly' (known here: at and one action: lift, put, move, play, "
        "slide,",
    ),
    ("game = 'tic-tac-toe'\n", "board: missing"),
    ("board = 'x9'\ngame = 'tic-tac-toe'\n", "board: no board called 'x9' (boards: mini, r1)"),
    ("board = 'mini'\ngame = 'chess'\n", "game: no game called 'chess'"),
    ("board = 'mini'\ngame = 'ttt'\noptions = { size = 4 }\n", "options: "),
    ("board = 'mini'\ngame = 'ttt'\nseed = 'one'\n", "seed: must be int, not 'one'"),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, move = ['A1', 'z9'] }]\n",
        "steps[0].move[1]: unknown place 'z9' on board mini",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1 }]\n",
        "steps[0]: needs exactly one action (lift, put, move, play, slide, shift_tile, "
        "turn_tile, press, i2c_errors, reset_expander, noise, stick, unstick, kill_led, bounce, "
        "restart, follow); it has none",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, lift = 'A1', put = 'b2' }]\n",
        "steps[0]: needs exactly one action",
    ),
    ("board = 'mini'\ngame = 'ttt'\nsteps = [{ lift = 'A1' }]\n", "steps[0].at: missing"),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, lift = 'supply:A' }]\n",
        "steps[0].lift: no box 'supply:A' in tic-tac-toe (boxes: none)",
    ),
    (
        "board = 'r1'\ngame = 'lance-assembly'\nsteps = [{ at = 1, lift = 'supply:Z' }]\n",
        "steps[0].lift: no box 'supply:Z' in lance-assembly (boxes: supply:A, supply:B, supply:N)",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, lift = 'A1', step = 2 }]\n",
        "steps[0]: unknown key 'step' (known here: at, lift)",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 2, lift = 'A1' }, { at = 1, put = 'b2' }]\n",
        "steps[1].at: 1 comes before steps[0] at 2: steps go in time order",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, play = 'z1' }]\n",
        "steps[0].play: ",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, slide = ['a1', 'c1'] }]\n",
        "steps[0].slide[1]: c1 is not next to a1: a slide goes cell by cell",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, press = 'menu' }]\n",
        "steps[0].press: board mini has no button 'menu' (seat-1, seat-2, new)",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, i2c_errors = 'U5' }]\n",
        "steps[0].i2c_errors: board mini has no expander 'U5' (U1-U4, or 0-3)",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, reset_expander = 4 }]\n",
        "steps[0].reset_expander: board mini has no expander 4 (U1-U4, or 0-3)",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, stick = 'b2.n' }]\n",
        "steps[0].stick: board mini has no sensor 'b2.n'",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, kill_led = 'alert' }]\n",
        "steps[0].kill_led: no LED under 'alert' on board mini",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, restart = false }]\n",
        "steps[0].restart: must be true, not False",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nexpect = [{ type = 'moved' }]\n",
        "expect[0].type: unknown event type 'moved'",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nexpect = [{ type = 'move', cell = 'b2' }]\n",
        "expect[0]: unknown key 'cell' (known here: type, player, actions, turn, to_move,"
        " skipped, after, before, count)",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nforbid = [{ type = 'move', actions = 'b2' }]\n",
        "forbid[0].actions: must be list, not 'b2'",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\nforbid = [{ type = 'move', count = 1 }]\n",
        "forbid[0]: unknown key 'count'",
    ),
    (
        "board = 'mini'\ngame = 'ttt'\n"
        "expect_leds = [{ at = 1, places = ['b2'], colour = 'pink' }]\n",
        "expect_leds[0].colour: unknown colour 'pink': a seat (X, O), red, white, blue, orange, "
        "green, magenta, off, or #rrggbb",
    ),
    ("board = 'mini'\ngame = 'ttt'\nsteps = [\n", "not valid TOML"),
    (
        "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, shift_tile = ['b2', 'up'] }]\n",
        "steps[0].shift_tile: tic-tac-toe has no tiles on board mini",
    ),
    (
        TILES + "steps = [{ at = 1, shift_tile = ['e7', 'north'] }]\n",
        "steps[0].shift_tile[1]: must be up, down, left or right, not 'north'",
    ),
    (
        TILES + "steps = [{ at = 1, turn_tile = ['e7', 'clockwise'] }]\n",
        "steps[0].turn_tile[1]: must be cw or ccw, not 'clockwise'",
    ),
    (
        TILES + "steps = [{ at = 1, turn_tile = ['e7'] }]\n",
        "steps[0].turn_tile: is [cell, way], not ['e7']",
    ),
    (
        TILES + "steps = [{ at = 1, turn_tile = 'e7' }]\n",
        "steps[0].turn_tile: must be list, not 'e7'",
    ),
    (
        TILES + "steps = [{ at = 1, shift_tile = ['A1', 'up'] }]\n",
        "steps[0].shift_tile[0]: tiles lie on cells, not on the tray slot A1",
    ),
    (
        TILES + "steps = [{ at = 1, shift_tile = ['z9', 'up'] }]\n",
        "steps[0].shift_tile[0]: unknown place 'z9' on board r1",
    ),
    (
        TILES + "steps = [{ at = 1, turn_tile = ['e7', 'cw'], step = 0.5 }]\n",
        "steps[0]: unknown key 'step' (known here: at, turn_tile)",
    ),
]


@pytest.mark.parametrize(("text", "message"), BROKEN, ids=[m for _, m in BROKEN])
def test_a_broken_file_is_one_line_naming_the_field(tmp_path, text, message):
    path = write(tmp_path, text, "broken.toml")
    with pytest.raises(ScenarioError) as caught:
        run_file(path)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"broken.toml: {message}")


def test_a_broken_file_exits_2_through_the_command(capsys, tmp_path):
    path = write(tmp_path, GAME.replace('"b2"', '"z9"'), "win.toml")
    assert cli(["scenario", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "magboard: win.toml: steps[0].move[1]: unknown place 'z9' on board mini\n"


def test_a_missing_file_exits_2(capsys, tmp_path):
    assert cli(["scenario", str(tmp_path / "nowhere.toml")]) == 2
    assert capsys.readouterr().err.startswith("magboard: nowhere.toml: cannot read")


def test_what_the_world_cannot_do_is_a_broken_file(tmp_path):
    text = "board = 'mini'\ngame = 'ttt'\nsteps = [{ at = 1, lift = 'b2' }]\n"
    with pytest.raises(
        ScenarioError, match=r"^broken.toml: steps\[0\].lift: at t=1: no piece on b2$"
    ):
        run_file(write(tmp_path, text, "broken.toml"))


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("shift_tile = ['a1', 'up']", r"steps\[0\].shift_tile: at t=1: no tile covers a1"),
        ("turn_tile = ['d4', 'cw']", r"steps\[0\].turn_tile: at t=1: no tile covers d4"),
        ("shift_tile = ['e7', 'down']", r"steps\[0\].shift_tile: at t=1: tile \d+ .*overlap"),
    ],
)
def test_a_tile_the_world_cannot_move_is_a_broken_file(tmp_path, step, message):
    """Whether a tile lies under a cell, and has room to go, is known only as the run goes."""
    text = TILES + f"steps = [{{ at = 1, {step} }}]\n"
    with pytest.raises(ScenarioError, match=rf"^broken.toml: {message}"):
        run_file(write(tmp_path, text, "broken.toml"))


def test_a_tile_is_gripped_by_any_cell_it_covers(tmp_path):
    """The tile at game c5 (board e7-f8) turned by its upper-right cell, then shifted by its
    upper-left one: a hand takes hold of a tile anywhere, and the steps name board places."""
    text = TILES + (
        "steps = [\n"
        "  { at = 0.5, move = ['e8', 'e7'] },\n"
        "  { at = 1.5, turn_tile = ['f8', 'cw'] },\n"
        "  { at = 2.5, shift_tile = ['e8', 'up'] },\n"
        "]\n"
    )
    scenario = load(write(tmp_path, text))
    assert [(s.action, s.value) for s in scenario.steps[1:]] == [
        ("turn_tile", ((5, 7), "cw")),
        ("shift_tile", ((4, 7), "up")),
    ]
    result = run_file(write(tmp_path, text))
    moves = [e.to_dict() for e in result.events if e.TYPE in ("partial", "move")]
    assert moves[-1] == {
        "type": "move",
        "t": moves[-1]["t"],
        "player": 0,
        "actions": ["c6-c5", "Tc5cw", "Tc5^"],
        "turn": 1,
        "to_move": 1,
        "skipped": [],
    }


def test_a_play_makes_tile_actions_by_hand(tmp_path):
    text = TILES.replace("advanced", "rotate") + (
        "steps = [{ at = 0.5, play = 'c6-c5' }, { at = 1.5, play = 'Tc5ccw' }]\n"
        "expect = [{ type = 'move', player = 0, actions = ['c6-c5', 'Tc5ccw'], turn = 1 }]\n"
    )
    result = run_file(write(tmp_path, text))
    assert result.ok, result.failures


def test_a_step_during_a_play_is_a_broken_file(tmp_path):
    text = (
        "board = 'mini'\ngame = 'ttt'\n"
        "steps = [{ at = 1, play = 'b2' }, { at = 1.2, move = ['B1', 'a1'] }]\n"
    )
    with pytest.raises(ScenarioError, match=r"steps\[1\].at: 1.2 comes before steps\[0\] \(play\)"):
        run_file(write(tmp_path, text, "broken.toml"))


def test_a_step_may_come_as_soon_as_a_play_is_done(tmp_path):
    text = (
        "board = 'r1'\ngame = 'ttt'\n"
        "steps = [{ at = 0.5, play = 'b2', pause = 0.5 }, { at = 1.0, move = ['B1', 'e5'] }]\n"
        "expect = [{ type = 'move', actions = ['b2'] }, { type = 'move', actions = ['a1'] }]\n"
    )
    result = run_file(write(tmp_path, text))
    assert result.ok, result.failures


def test_a_play_from_a_tray_the_file_emptied_is_a_broken_file(tmp_path):
    lifts = ", ".join(f"{{ at = 0.1, lift = 'A{n}' }}" for n in range(1, 6))
    text = f"board = 'mini'\ngame = 'ttt'\nsteps = [{lifts}, {{ at = 1, play = 'b2' }}]\n"
    with pytest.raises(
        ScenarioError,
        match=r"^broken.toml: steps\[5\].play: at t=1: no piece left in the slots of supply X ",
    ):
        run_file(write(tmp_path, text, "broken.toml"))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("ai = 'Z'\n", "case.toml: ai: Tic-tac-toe has no seat 'z'"),
        ("ai = 'O:genius'\n", "case.toml: ai: no level 'genius' (levels: easy, normal, strong)"),
        ("ai_budget = 1\n", "case.toml: ai_budget: is the thinking time of ai: give ai too"),
        ("ai = 'O'\nai_budget = 0\n", "case.toml: ai_budget: must be more than 0, not 0"),
        ("ai = 'O'\nsteps = [{ at = 1, follow = 1 }]\n", "steps[0].follow: must be true, not 1"),
    ],
)
def test_a_bad_ai_setting_is_one_line_naming_the_field(tmp_path, text, said):
    with pytest.raises(ScenarioError) as raised:
        load(write(tmp_path, "board = 'mini'\ngame = 'tic-tac-toe'\n" + text))
    assert said in str(raised.value)


def test_follow_with_no_move_asked_for_fails_the_run_saying_where_the_referee_stands(tmp_path):
    text = "board = 'mini'\ngame = 'tic-tac-toe'\nai = 'O'\nsteps = [{ at = 1, follow = true }]\n"
    result = run_file(write(tmp_path, text))
    assert result.failures == [
        "steps[0]: at t=1 the board asks for no move to follow (the referee's position, after [])"
    ]
