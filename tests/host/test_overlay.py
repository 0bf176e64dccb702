"""`magboard overlay`: the printed Magnetmen board, checked as rendered by poppler.

The pitch is measured in pixels on a rendering at a known resolution, because a sheet that is
a little off the board's pitch drifts off its cells across the board and is worse than none.
"""

from __future__ import annotations

import io
import itertools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from reportlab.pdfgen.canvas import Canvas

from magboard.firmware.games import all_games
from magboard.firmware.games.magnetmen.generator import generate
from magboard.firmware.games.magnetmen.icons import ICONS, draw_icon
from magboard.firmware.games.magnetmen.kinds import BY_NAME, KINDS
from magboard.hardware.spec import BOARDS_DIR, load_board
from magboard.host import cli
from magboard.host.overlay.placement import place
from magboard.host.overlay.tiling import PAPERS, capacity, plan

PDFTOPPM = shutil.which("pdftoppm")
PDFTOTEXT = shutil.which("pdftotext")
needs_pdftoppm = pytest.mark.skipif(
    PDFTOPPM is None, reason="pdftoppm is not installed (`make poppler` installs it)"
)
needs_pdftotext = pytest.mark.skipif(
    PDFTOTEXT is None, reason="pdftotext is not installed (`make poppler` installs it)"
)
DPI = 100
R1 = BOARDS_DIR / "r1.toml"


def overlay(capsys, out: Path, *options: str) -> tuple[int, str, str]:
    status = cli.main(["overlay", "magnetmen", "--out", str(out), *options])
    printed, err = capsys.readouterr()
    return status, printed, err


def board_with(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of r1's file with one line changed."""
    text = R1.read_text()
    assert old in text
    path = tmp_path / f"board-{len(list(tmp_path.glob('board-*')))}.toml"
    path.write_text(text.replace(old, new))
    return path


def rendered(pdf: Path, page: int, tmp_path: Path) -> tuple[int, int, bytes]:
    """Page `page` in grey at DPI dots per inch: width, height and one byte a pixel."""
    stem = tmp_path / f"page{page}"
    subprocess.run(
        [
            PDFTOPPM,
            "-r",
            str(DPI),
            "-gray",
            "-f",
            str(page),
            "-l",
            str(page),
            "-singlefile",
            str(pdf),
            str(stem),
        ],
        check=True,
    )
    data = stem.with_suffix(".pgm").read_bytes()
    header = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", data)
    assert header, "pdftoppm -gray writes a binary PGM"
    width, height = int(header[1]), int(header[2])
    return width, height, data[header.end() :]


def page_text(pdf: Path, page: int) -> str:
    done = subprocess.run(
        [PDFTOTEXT, "-f", str(page), "-l", str(page), str(pdf), "-"],
        check=True,
        capture_output=True,
        text=True,
    )
    return " ".join(done.stdout.split())


DARK = bytes(1 if value < 160 else 0 for value in range(256))


def longest_dark_run(pixels: bytes) -> int:
    return max(len(run) for run in pixels.translate(DARK).split(b"\0"))


def lines(runs: list[int]) -> list[float]:
    """Centres of the bands of pixel columns (or rows) holding a dark run nearly as long as the
    longest: the grid's lines with their ticks cross the whole grid; text and icons do not."""
    longest = max(runs)
    bands: list[list[int]] = []
    for i, run in enumerate(runs):
        if run >= 0.9 * longest:
            if bands and i - bands[-1][-1] == 1:
                bands[-1].append(i)
            else:
                bands.append([i])
    return [sum(band) / len(band) for band in bands]


def grid_lines(width: int, height: int, pixels: bytes) -> tuple[list[float], list[float]]:
    columns = [longest_dark_run(pixels[x::width]) for x in range(width)]
    rows = [longest_dark_run(pixels[y * width : (y + 1) * width]) for y in range(height)]
    return lines(columns), lines(rows)


@needs_pdftoppm
def test_the_pdf_renders_a_sheet_and_a_legend(capsys, tmp_path):
    out = tmp_path / "small.pdf"
    status, printed, err = overlay(capsys, out, "--seed", "3", "--size", "small")
    assert status == 0, err
    assert printed.strip() == f"{out}: 1 sheet of a4 and a legend, seed 3"
    subprocess.run([PDFTOPPM, "-r", "20", "-png", str(out), str(tmp_path / "p")], check=True)
    pages = sorted(tmp_path.glob("p-*.png"))
    assert len(pages) == 2
    width, height, _ = rendered(out, 1, tmp_path)
    assert (width, height) == pytest.approx((210 / 25.4 * DPI, 297 / 25.4 * DPI), abs=1)


@needs_pdftoppm
@pytest.mark.parametrize("pitch_mm", [30, 25])
def test_cells_print_at_the_boards_pitch(capsys, tmp_path, pitch_mm):
    board = R1 if pitch_mm == 30 else board_with(tmp_path, "pitch_mm = 30", "pitch_mm = 25")
    out = tmp_path / "board.pdf"
    status, _, err = overlay(capsys, out, "--seed", "11", "--size", "small", "--board", str(board))
    assert status == 0, err
    xs, ys = grid_lines(*rendered(out, 1, tmp_path))
    assert len(xs) == len(ys) == 7, "a 6x6 board: seven lines each way"
    expected = pitch_mm / 25.4 * DPI  # 118.1 px for r1's 30 mm
    for found in (xs, ys):
        gaps = [b - a for a, b in itertools.pairwise(found)]
        assert all(abs(gap - expected) <= 2 for gap in gaps), gaps
        mean_mm = (found[-1] - found[0]) / (len(found) - 1) / DPI * 25.4
        assert mean_mm == pytest.approx(pitch_mm, abs=0.5)


def test_a_huge_board_on_a4_takes_four_sheets_sharing_a_strip():
    sheets = plan(11, 11, load_board("r1").pitch_mm, "a4")
    assert not sheets.landscape
    assert [tile.describe(len(sheets.tiles)) for tile in sheets.tiles] == [
        "sheet 1 of 4: columns a-f, rows 1-6",
        "sheet 2 of 4: columns f-k, rows 1-6",
        "sheet 3 of 4: columns a-f, rows 6-11",
        "sheet 4 of 4: columns f-k, rows 6-11",
    ]
    across, down = capacity(sheets.page_mm, 30)
    assert all(tile.width <= across and tile.height <= down for tile in sheets.tiles)
    covered = {cell for tile in sheets.tiles for cell in tile.cells}
    assert covered == {(c, r) for c in range(11) for r in range(11)}
    first = sheets.tiles[0]
    assert {side: tile.number for side, tile in sheets.neighbours(first).items()} == {
        "right": 2,
        "above": 3,
    }
    shared = set(first.cells) & set(sheets.tiles[1].cells)
    assert shared == {(5, r) for r in range(6)}, "one column, f, on both sheets"


@pytest.mark.parametrize(
    ("size", "paper", "sheets"),
    [
        ("small", "a4", 1),
        ("regular", "a4", 2),
        ("regular", "a3", 1),
        ("big", "a4", 4),
        ("huge", "a3", 2),
        ("huge", "letter", 4),
    ],
)
def test_sheets_needed(size, paper, sheets):
    width, height = {"small": (6, 6), "regular": (8, 8), "big": (10, 9), "huge": (11, 11)}[size]
    assert paper in PAPERS
    assert len(plan(width, height, 30, paper).tiles) == sheets


@needs_pdftotext
def test_each_sheet_says_which_part_of_the_grid_it_holds(capsys, tmp_path):
    out = tmp_path / "huge.pdf"
    status, printed, _ = overlay(capsys, out, "--seed", "5", "--size", "huge", "--set", "expert")
    assert status == 0
    assert "4 sheets of a4 and a legend" in printed
    first, second = page_text(out, 1), page_text(out, 2)
    assert "Sheet 1 of 4: columns a-f, rows 1-6" in first and "also on sheet 2" in first
    assert "Sheet 2 of 4: columns f-k, rows 1-6" in second
    assert "also on sheet 1" in second and "also on sheets 1, 3, 4" in second
    assert "at origin (0, 0) = ((12-11)//2, (12-11)//2): its a1 lies on board cell a1" in second
    assert "seed 5 - huge 11x11 - set expert - powers main" in second
    assert "the types on this board" in page_text(out, 5)


@needs_pdftotext
def test_the_legend_quotes_the_power_text_the_board_records(capsys, tmp_path):
    seed = next(s for s in range(200) if generate(s, "regular", "advanced", "random").alternative)
    board = generate(seed, "regular", "advanced", "random")
    out = tmp_path / "legend.pdf"
    options = ("--seed", str(seed), "--set", "advanced", "--powers", "random")
    assert overlay(capsys, out, *options)[0] == 0
    legend = page_text(out, 3).lower()
    for name in board.types:
        kind = BY_NAME[name]
        assert name.lower() in legend
        if name in board.alternative:
            assert kind.alternative.lower() in legend and kind.main.lower() not in legend
            assert "alternative power" in legend
        else:
            assert kind.main.lower() in legend


def test_the_same_seed_gives_the_same_pdf(capsys, tmp_path):
    runs = {}
    for name, seed in (("a", "8"), ("b", "8"), ("c", "9")):
        status, _, err = overlay(capsys, tmp_path / f"{name}.pdf", "--seed", seed)
        assert status == 0, err
        runs[name] = (tmp_path / f"{name}.pdf").read_bytes()
    assert runs["a"] == runs["b"], "every icon in the same place, byte for byte"
    assert runs["a"] != runs["c"]


def test_the_area_is_centred_on_the_lattice():
    r1 = load_board("r1")
    assert place(r1, 10, 9).origin == (1, 1)
    assert place(r1, 8, 8).origin == (2, 2)
    assert "its a1 lies on board cell c3" in place(r1, 8, 8).describe()


def drawn(name: str | None) -> bytes:
    """A page holding only the icon of `name` (None: nothing), uncompressed."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pageCompression=0, invariant=1)
    if name:
        draw_icon(canvas, name, 0, 0, 100)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def test_every_type_has_an_icon_of_its_own():
    assert tuple(ICONS) == tuple(kind.name for kind in KINDS)
    empty = len(drawn(None))
    pages = {name: drawn(name) for name in ICONS}
    assert all(len(page) > empty for page in pages.values()), "each draws something"
    assert len(set(pages.values())) == len(ICONS), "no two icons are the same drawing"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--seed", "1", "--size", "giant"), "--size is one of small, regular, big, huge"),
        (("--seed", "1", "--paper", "a5"), "--paper is one of a4, a3, letter, not 'a5'"),
        (("--seed", "1", "--set", "pro"), "--set is one of base, advanced, expert"),
        (("--seed", "1", "--powers", "both"), "--powers is one of main, random"),
        (("--seed", "x"), "the seed is a whole number, not 'x'"),
        (("--seed", "-1"), "option seed is at least 0, not -1"),
        ((), "--seed N is required"),
        (("--seed", "1", "--board", "nope"), "no board called 'nope'"),
        (("--seed", "1", "--board", "mini"), "8x8 squares does not fit board mini's 3x3"),
        (("--seed", "1", "--board", "NOPITCH"), "lattice.pitch_mm: missing"),
        (("--seed", "1", "--board", "HOLE"), "r1's lattice has holes under the game's area: f6"),
        (("--seed", "1", "--board", "HUGEPITCH"), "300 mm makes the 12x12 lattice 3600 mm across"),
        (("--seed", "1", "--out", "MISSINGDIR"), "cannot write"),
        (("--seed", "1", "--out", "DIRECTORY"), "cannot write"),
    ],
)
def test_bad_requests_get_one_line_and_status_2(capsys, tmp_path, options, message):
    swaps = {
        "NOPITCH": lambda: board_with(tmp_path, "pitch_mm = 30\n", ""),
        "HUGEPITCH": lambda: board_with(tmp_path, "pitch_mm = 30", "pitch_mm = 300"),
        "HOLE": lambda: board_with(tmp_path, "holes = []", 'holes = ["f6"]'),
        "MISSINGDIR": lambda: tmp_path / "missing" / "board.pdf",
        "DIRECTORY": lambda: tmp_path,
    }
    options = tuple(str(swaps[o]()) if o in swaps else o for o in options)
    out = tmp_path / "out.pdf"
    status = cli.main(["overlay", "magnetmen", "--out", str(out), *options])
    _, err = capsys.readouterr()
    assert status == 2
    assert message in err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1
    assert not out.exists()


def test_an_unknown_game_gets_one_line(capsys, tmp_path):
    status = cli.main(["overlay", "chess", "--seed", "1", "--out", str(tmp_path / "x.pdf")])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.strip() == "magboard: overlay: no overlay for 'chess' (games: magnetmen)"


def test_a_game_without_a_printed_board_gets_one_line_naming_those_with_one(capsys, tmp_path):
    """The games offered are the registry's that declare their printing, no list of its own."""
    printable = ", ".join(game.name for game in all_games() if game.printing)
    status = cli.main(["overlay", "tic-tac-toe", "--seed", "1", "--out", str(tmp_path / "x.pdf")])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.strip() == f"magboard: overlay: no overlay for 'tic-tac-toe' (games: {printable})"
    assert printable == "magnetmen"
