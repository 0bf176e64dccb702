"""Every broken board file, through every command that reads one: exit status 2 and one line on
stderr naming the file and the field, never a traceback or a hang. A hole under a game's area is
legal in the file and refused when the game is chosen, whichever command chooses it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from magboard.firmware.games import get_game
from magboard.firmware.lights.writer import FRAME_INTERVAL
from magboard.firmware.profiles import ProfileError, profile_for, profiled_pairs
from magboard.hardware.spec import (
    BOARDS_DIR,
    MAX_FRAME_SECONDS,
    BoardSpecError,
    cell_label,
    load_board,
    max_leds,
)
from magboard.host import cli
from magboard.sim.web.snapshot import hosted_games

MINI = (BOARDS_DIR / "mini.toml").read_text(encoding="utf-8")
R1 = (BOARDS_DIR / "r1.toml").read_text(encoding="utf-8")
LATTICE = "[lattice]\ncolumns = 3\nrows = 3\npitch_mm = 40\nholes = []\n"
SCENARIO = 'board = "board.toml"\ngame = "tic-tac-toe"\nsteps = []\n'
MUX = '[[muxes]]\nname = "m"\nbus = "i2c1"\naddress = 0x70\n\n'


def variant(tmp_path: Path, *edits: tuple[str, str], text: str = MINI) -> Path:
    """A reference board with each `old` text (found exactly once) replaced by `new`."""
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        text = text.replace(old, new)
    path = tmp_path / "board.toml"
    path.write_text(text, encoding="utf-8")
    return path


def edit(old: str, new: str) -> Callable[[Path], Path]:
    return lambda tmp_path: variant(tmp_path, (old, new))


def raw(content: bytes) -> Callable[[Path], Path]:
    def make(tmp_path: Path) -> Path:
        path = tmp_path / "board.toml"
        path.write_bytes(content)
        return path

    return make


def directory(tmp_path: Path) -> Path:
    path = tmp_path / "board.toml"
    path.mkdir()
    return path


def missing(tmp_path: Path) -> Path:
    return tmp_path / "board.toml"


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Runs the command; asserts status 2 and a single line on stderr, and returns it."""
    status = cli.main(argv)
    out, err = capsys.readouterr()
    assert status == 2, (out, err)
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    assert err.startswith("magboard: ")
    assert len(err) < 400, "a value from the file is cut short, not printed whole"
    return err.rstrip("\n")


def commands(tmp_path: Path, board: Path, *game: str) -> dict[str, list[str]]:
    """Each way a board file reaches the firmware, asked for the same board (and game)."""
    scenario = tmp_path / "scenario.toml"
    text = SCENARIO if not game else SCENARIO.replace("tic-tac-toe", game[1])
    scenario.write_text(text.replace("board.toml", board.name), encoding="utf-8")
    journal = str(tmp_path / "journal.db")
    return {
        "board show": ["board", "show", str(board)],
        "run --sim": ["run", "--sim", "--board", str(board), "--journal", journal, *game],
        "sim": ["sim", "--board", str(board), "--port", "0", *game],
        "scenario": ["scenario", str(scenario)],
    }


@pytest.fixture(autouse=True)
def no_web_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """`magboard sim` must refuse before it listens: if it ever got that far, fail, not hang."""

    def listen(*args: object) -> None:
        raise AssertionError("the board was accepted: the page would be served")

    monkeypatch.setattr("magboard.sim.web.server.listen", listen)


# The file as a whole: unreadable, not TOML, empty.

NESTED = b"a = " + b"[" * 100_000
FILES = [
    pytest.param(missing, "cannot read: No such file or directory", id="missing"),
    pytest.param(directory, "cannot read: Is a directory", id="directory"),
    pytest.param(raw(b'name = "\xff"\n'), "not UTF-8 text (byte 8)", id="not-utf8"),
    pytest.param(raw(b""), "no keys at all", id="empty"),
    pytest.param(raw(b"# a comment, nothing else\n"), "no keys at all", id="only-a-comment"),
    pytest.param(
        edit("columns = 3", "columns = = 3"),
        "not valid TOML: Invalid value (at line 6, column 11)",
        id="toml-syntax",
    ),
    pytest.param(
        edit('name = "mini"', 'name = "mini"\nname = "again"'),
        "not valid TOML: Cannot overwrite a value",
        id="key-twice",
    ),
    pytest.param(raw(NESTED), "not valid TOML: arrays or tables nested too deep", id="nested"),
    pytest.param(
        edit("count = 37", "count = " + "9" * 5000),
        "not valid TOML: a number too long to read",
        id="5000-digits",
    ),
    pytest.param(
        edit("gpio = 5", "gpio = 0x" + "f" * 40),
        "buttons[0].gpio: a 160-bit integer; TOML's integers are 64-bit",
        id="160-bit-integer",
    ),
    pytest.param(
        raw(b"x = 1\n" * 200_000), "more than 1024 kB; a board file takes a few kB", id="huge"
    ),
]

# Keys and types.

TYPES = [
    pytest.param(
        edit("pitch_mm = 40", 'pitch_mm = "40"'),
        "lattice.pitch_mm: must be int or float, not '40'",
        id="string-for-number",
    ),
    pytest.param(
        edit("count = 37", "count = 37.0"), "leds.count: must be int, not 37.0", id="float-for-int"
    ),
    pytest.param(
        edit(LATTICE, "lattice = [3, 3]\n"),
        "lattice: must be dict, not [3, 3]",
        id="list-for-table",
    ),
    pytest.param(
        lambda tmp_path: variant(
            tmp_path,
            ('name = "mini"', 'name = "mini"\ni2c = 1'),
            ('[[i2c]]\nname = "i2c1"\nfrequency = 400000\nsda = "SDA"\nscl = "SCL"\n', ""),
        ),
        "i2c: must be list, not 1",
        id="number-for-list",
    ),
    pytest.param(
        edit("[power]", "[powr]"),
        "powr: unknown key (known here: name, title, lattice,",
        id="unknown-table",
    ),
    pytest.param(
        edit("columns = 3", "colums = 3"),
        "lattice.colums: unknown key (known here: columns, rows, pitch_mm, holes)",
        id="unknown-key",
    ),
    pytest.param(
        edit("columns = 3", 'columns = 3\n"two\\nlines" = 1'),
        "lattice.'two\\nlines': unknown key",
        id="key-with-a-newline",
    ),
    pytest.param(
        edit("pitch_mm = 40", 'pitch_mm = "' + "x" * 10_000 + '"'),
        "lattice.pitch_mm: must be int or float, not 'xxxx",
        id="long-string-cut-short",
    ),
    pytest.param(
        edit("holes = []", "holes = [" + "[" * 100 + "]" * 100 + "]"),
        "lattice.holes[0]: [[[[[[[...]]]]]]] is not a cell name like b2",
        id="nested-lists-cut-short",
    ),
]

# Numbers: nan, inf, zero, negative, absurd.

NUMBERS = (
    [
        pytest.param(
            edit("pitch_mm = 40", f"pitch_mm = {value}"),
            f"lattice.pitch_mm: must be a finite number, not {value.lstrip('+')}",
            id=f"pitch-{value}",
        )
        for value in ("nan", "inf", "-inf", "+inf")
    ]
    + [
        pytest.param(
            edit("pitch_mm = 40", "pitch_mm = 0"),
            "lattice.pitch_mm: must be 5 or more (the 5 mm LED under every cell), not 0",
            id="pitch-zero",
        ),
        pytest.param(
            edit("pitch_mm = 40", "pitch_mm = -40"),
            "lattice.pitch_mm: must be 5 or more (the 5 mm LED under every cell), not -40",
            id="pitch-negative",
        ),
        pytest.param(
            edit("pitch_mm = 40", "pitch_mm = 1e300"),
            "lattice.pitch_mm: 1e+300 mm makes the 3x3 lattice 3e+300 mm across; at most 1000 mm,",
            id="pitch-absurd",
        ),
        pytest.param(
            edit("columns = 3", "columns = 100000"),
            "lattice.columns: must be 1 to 16, not 100000",
            id="columns-absurd",
        ),
        pytest.param(
            edit("rows = 3", "rows = -1"),
            "lattice.rows: must be 1 to 16, not -1",
            id="rows-negative",
        ),
        pytest.param(
            edit("rows = [5, 4, 4]\n\n[[trays]]", "rows = [100000000]\n\n[[trays]]"),
            "trays[0].rows: 100000000 slots; at most 1101, since every slot has an LED of its own",
            id="tray-slots-absurd",
        ),
        pytest.param(
            edit("gpio = 5", "gpio = -1"),
            "buttons[0].gpio: GPIO-1 is not a Pi header GPIO (2 to 27)",
            id="button-gpio-negative",
        ),
        pytest.param(
            edit("frequency = 400000", "frequency = 0"),
            "i2c[0].frequency: 0 Hz is outside 10 kHz to 400 kHz",
            id="frequency-zero",
        ),
        pytest.param(
            edit("frequency = 400000", f"frequency = {2**63 - 1}"),
            "i2c[0].frequency: 9223372036854775807 Hz is outside 10 kHz to 400 kHz",
            id="frequency-absurd",
        ),
        pytest.param(
            edit("0x20, 0x21", "-1, 0x21"),
            "expanders[0].addresses[0]: -1 is not an MCP23017 address (0x20 to 0x27)",
            id="address-negative",
        ),
        pytest.param(
            edit("interrupt = 17", "interrupt = 100000"),
            "expanders[0].interrupt: GPIO100000 is not a Pi header GPIO (2 to 27)",
            id="interrupt-absurd",
        ),
        pytest.param(
            lambda tmp_path: variant(
                tmp_path,
                ("[[expanders]]\n", MUX + "[[expanders]]\n"),
                ("addresses = [0x20", 'mux = "m"\nmux_channel = -1\naddresses = [0x20'),
            ),
            "expanders[0].mux_channel: must be 0 to 7, not -1",
            id="mux-channel-negative",
        ),
        pytest.param(
            edit(
                "[[expanders]]\n",
                MUX.replace("0x70", "-112") + "[[expanders]]\n",
            ),
            "muxes[0].address: -112 is not a TCA9548A address (0x70 to 0x77)",
            id="mux-address-negative",
        ),
        pytest.param(
            edit("count = 37", "count = 100000000"),
            "leds.count: 100000000 LEDs take 3,000.0 s a frame at 800 kHz (30 us each); "
            "at most 1101, for a frame to fit the 33.3 ms between two frames",
            id="led-count-absurd",
        ),
        pytest.param(
            edit("count = 37", "count = 1102"),
            "leds.count: 1102 LEDs take 33.3 ms a frame at 800 kHz (30 us each); at most 1101",
            id="led-count-one-over",
        ),
        pytest.param(
            lambda tmp_path: variant(
                tmp_path, ('order = "GRB"', 'order = "GRBW"'), ("count = 37", "count = 827")
            ),
            "leds.count: 827 LEDs take 33.4 ms a frame at 800 kHz (40 us each); at most 826",
            id="rgbw-count-one-over",
        ),
        pytest.param(
            edit("count = 37", "count = 0"),
            "leds.count: must be 1 or more, not 0",
            id="led-count-0",
        ),
        pytest.param(
            edit("start = 9", "start = -1"),
            "leds.segments[1].start: must be 0 to 36 (leds.count is 37), not -1",
            id="led-start-negative",
        ),
        pytest.param(
            edit("start = 9", f"start = {2**63 - 1}"),
            f"leds.segments[1].start: must be 0 to 36 (leds.count is 37), not {2**63 - 1}",
            id="led-start-absurd",
        ),
    ]
    + [
        pytest.param(
            edit(f"{key} = {old}", f"{key} = {value}"),
            f"power.{key}: must be a finite number, not {value}",
            id=f"{key}-{value}",
        )
        for key, old in [
            ("supply_amps", "2.5"),
            ("reserve_amps", "0.9"),
            ("led_channel_ma", "20"),
            ("max_brightness", "0.5"),
        ]
        for value in ("nan", "inf")
    ]
    + [
        pytest.param(
            edit("supply_amps = 2.5", "supply_amps = 2500"),
            "power.supply_amps: 2500 A is more than 100 A (500 W at 5 V, beyond what a board "
            "draws): milliamps written as amps?",
            id="supply-in-milliamps",
        ),
        pytest.param(
            edit("supply_amps = 2.5", "supply_amps = -2.5"),
            "power.supply_amps: must be above 0, not -2.5",
            id="supply-negative",
        ),
        pytest.param(
            edit("reserve_amps = 0.9", "reserve_amps = -0.9"),
            "power.reserve_amps: must be 0 or more and below supply_amps, not -0.9",
            id="reserve-negative",
        ),
        pytest.param(
            edit("led_channel_ma = 20", "led_channel_ma = 20000"),
            "power.led_channel_ma: 20000 mA is more than 100 mA (a WS2812-class LED takes 5 to 20 "
            "mA a colour): microamps written as mA?",
            id="channel-in-microamps",
        ),
        pytest.param(
            edit("led_channel_ma = 20", "led_channel_ma = 0"),
            "power.led_channel_ma: must be above 0, not 0",
            id="channel-zero",
        ),
        pytest.param(
            edit("max_brightness = 0.5", "max_brightness = 0"),
            "power.max_brightness: must be above 0 and at most 1, not 0",
            id="brightness-zero",
        ),
        pytest.param(
            edit("max_brightness = 0.5", "max_brightness = 1e300"),
            "power.max_brightness: must be above 0 and at most 1, not 1e+300",
            id="brightness-absurd",
        ),
    ]
)


@pytest.mark.parametrize("command", ["board show", "run --sim", "sim", "scenario"])
@pytest.mark.parametrize(("make", "problem"), FILES + TYPES + NUMBERS)
def test_a_broken_board_file_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: str,
    make: Callable[[Path], Path],
    problem: str,
) -> None:
    board = make(tmp_path)
    line = one_line(capsys, commands(tmp_path, board)[command])
    if command == "scenario":
        assert line.startswith("magboard: scenario.toml: board: ")
    assert "board.toml: " in line, "the line names the board file"
    assert problem in line


def test_a_field_message_names_the_file_then_the_field(capsys, tmp_path):
    board = variant(tmp_path, ("pitch_mm = 40", "pitch_mm = nan"))
    line = one_line(capsys, ["board", "show", str(board)])
    assert line == "magboard: board.toml: lattice.pitch_mm: must be a finite number, not nan"


def test_limits_leave_the_reference_boards_room():
    for name in ("mini", "r1"):
        spec = load_board(name)
        assert spec.leds.count <= max_leds(spec.leds.colours)
        assert spec.leds.frame_seconds() <= MAX_FRAME_SECONDS
    assert max_leds(3) == 1101 and max_leds(4) == 826


def test_the_led_limit_is_the_lights_frame_interval():
    """The chain's limit stands on how often the lights write: the two must move together."""
    assert MAX_FRAME_SECONDS == FRAME_INTERVAL


# A hole under a game's area: legal in the file, refused when the game is chosen.


def holed(tmp_path: Path, board: str, *cells: str) -> Path:
    text = R1 if board == "r1" else MINI
    listed = ", ".join(f'"{cell}"' for cell in cells)
    return variant(tmp_path, ("holes = []", f"holes = [{listed}]"), text=text)


@pytest.mark.parametrize(("game_name", "board"), profiled_pairs())
def test_every_profile_refuses_a_hole_under_its_area(tmp_path, game_name, board):
    game = get_game(game_name)
    area = sorted(profile_for(game, load_board(board)).area, key=lambda c: (c[1], c[0]))
    first, last = cell_label(area[0]), cell_label(area[-1])
    spec = load_board(holed(tmp_path, board, last, first))  # the file itself is fine
    with pytest.raises(ProfileError) as caught:
        profile_for(game, spec)
    assert str(caught.value) == (
        f"board.toml: lattice.holes: holes at {first}, {last} are inside {game_name}'s area "
        f"({first}-{last})"
    )


def test_a_hole_outside_the_area_is_no_matter(tmp_path):
    spec = load_board(holed(tmp_path, "r1", "a1", "l12"))
    for game_name, board in profiled_pairs():
        if board == "r1":
            assert profile_for(get_game(game_name), spec).spec is spec


def test_options_that_widen_the_area_over_a_hole_are_refused(tmp_path):
    magnetmen = get_game("magnetmen")
    spec = load_board(holed(tmp_path, "r1", "a1"))
    profile_for(magnetmen, spec, magnetmen.resolve_options({}))  # regular: c3-j10
    with pytest.raises(
        ProfileError,
        match=re.escape(
            "board.toml: lattice.holes: hole at a1 is inside magnetmen's area (a1-k11)"
        ),
    ):
        profile_for(magnetmen, spec, magnetmen.resolve_options({"size": "huge"}))


@pytest.mark.parametrize("command", ["run --sim", "sim", "scenario"])
def test_every_command_that_sets_a_game_up_refuses_the_hole(capsys, tmp_path, command):
    board = holed(tmp_path, "mini", "c2", "b2")
    argv = commands(tmp_path, board, "--game", "tic-tac-toe")[command]
    line = one_line(capsys, argv)
    message = "board.toml: lattice.holes: holes at b2, c2 are inside tic-tac-toe's area (a1-c3)"
    prefix = "scenario.toml: board: " if command == "scenario" else ""
    assert line == f"magboard: {prefix}{message}"


def test_the_same_hole_through_a_game_option(capsys, tmp_path):
    board = holed(tmp_path, "r1", "a1")
    argv = commands(tmp_path, board, "--game", "magnetmen")["run --sim"]
    line = one_line(capsys, [*argv, "--option", "size=huge"])
    assert line.endswith("hole at a1 is inside magnetmen's area (a1-k11)")


def test_board_show_accepts_a_holed_board(capsys, tmp_path):
    assert cli.main(["board", "show", str(holed(tmp_path, "mini", "b2"))]) == 0
    assert "8 cells, holes b2" in capsys.readouterr().out


def test_the_web_page_offers_only_the_games_clear_of_the_hole(tmp_path):
    spec = load_board(holed(tmp_path, "r1", "b2"))  # inside Meeple Maneuver's b2-k11 only
    offered = {game.name for game in hosted_games(spec)}
    everywhere = {game_name for game_name, board in profiled_pairs() if board == "r1"}
    assert offered == everywhere - {"meeple-maneuver"}


def test_a_board_file_error_is_a_value_error():
    """Callers that catch ValueError for bad input catch these too."""
    assert issubclass(BoardSpecError, ValueError) and issubclass(ProfileError, ValueError)
