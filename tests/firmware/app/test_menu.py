"""The LED menu's layout: one square per game profiled on the board, in a fixed order, then the
brightness levels; the entry pointed at bright, the others dim. Its behaviour through the
buttons is in tests/scenarios/menu-*.toml."""

from __future__ import annotations

from magboard.firmware.app.menu import LEVELS, EntryKind, Menu, entries, option_entries
from magboard.firmware.games import get_game
from magboard.firmware.lights import DEFAULT, render
from magboard.firmware.lights.palette import dimmed
from magboard.firmware.profiles import profiled_pairs
from magboard.hardware.spec import load_board


def test_each_game_profiled_on_the_board_has_one_square_then_the_levels():
    for name in ("r1", "mini"):
        spec = load_board(name)
        found = entries(spec)
        games = [e.label for e in found if e.kind is EntryKind.GAME]
        assert sorted(games) == sorted(g for g, board in profiled_pairs() if board == name)
        assert [e.level for e in found if e.kind is EntryKind.LEVEL] == list(LEVELS)
        assert found[-1].kind is EntryKind.SELFTEST
        assert [e.place for e in found] == list(spec.cells[: len(found)])
        assert entries(spec) == found  # a fixed order, the same every time


def test_the_entry_pointed_at_is_bright_the_others_dim():
    spec = load_board("r1")
    menu = Menu(spec)
    menu.at = 1
    frame = render(menu.view(2), spec, 0.0)
    colour = DEFAULT.players[0]
    bright, dim = dimmed(colour, DEFAULT.due_level), dimmed(colour, DEFAULT.target_level)
    shown = [frame[spec.led_index[e.place]] for e in menu.entries]
    assert shown == [dim, bright] + [dim] * (len(menu.entries) - 2)


def test_a_games_options_page_lists_the_values_it_can_offer_one_row_each():
    spec = load_board("r1")
    page = option_entries(spec, get_game("lance-assembly"))
    assert [(e.place, e.label) for e in page] == [
        ((0, 0), "start lance-assembly"),
        ((0, 1), "starter A"),
        ((1, 1), "starter B"),
        ((0, 2), "clock lance"),
        ((1, 2), "clock classic"),
        ((2, 2), "clock none"),
    ]  # max_turns is a number: it keeps its default
    players = [e.label for e in option_entries(spec, get_game("magnetmen")) if "players" in e.label]
    assert players == ["players 2", "players 3", "players 4"]  # a small range of numbers
    narrow = option_entries(load_board("mini"), get_game("tic-tac-cap"))
    assert [e.label for e in narrow] == ["start tic-tac-cap", "cover_own False", "cover_own True"]


def test_the_self_test_is_taken_from_the_menu_with_the_buttons_alone():
    from magboard.firmware.app.selftest import default_button
    from magboard.firmware.events import Note
    from magboard.sim.selftest_person import SelfTestPerson
    from magboard.sim.session import SimSession

    session = SimSession("r1", "tic-tac-toe")
    session.start()  # an empty board: nothing to clear for the test

    def press(button: str) -> None:
        session.board.press(button)
        session.run_for(0.1)
        session.board.release(button)
        session.run_for(0.3)

    press("menu")
    press("seat-2")  # back from the first entry: round to the last, the self-test
    SelfTestPerson(session.board, default_button(session.spec))
    press("menu")
    notes = [e.text for e in session.events if isinstance(e, Note)]
    assert "menu: closed" in notes
    assert any(n.startswith("self-test: verdict: all") for n in notes), notes[-3:]


def test_the_opponent_takes_the_top_rows_of_a_games_options_page_where_they_fit():
    from magboard.firmware.app.menu import opponent_entries

    mini = load_board("mini")
    found = opponent_entries(mini, get_game("tic-tac-toe"), 1)
    assert [(e.place, e.label) for e in found] == [
        ((0, 2), "opponent nobody"),
        ((1, 2), "opponent X"),
        ((2, 2), "opponent O"),
        ((0, 1), "opponent level easy"),
        ((1, 1), "opponent level normal"),
        ((2, 1), "opponent level strong"),
    ]
    narrow = opponent_entries(mini, get_game("tic-tac-cap"), 2)  # cover_own takes row 2
    assert [e.label for e in narrow] == ["opponent nobody", "opponent A", "opponent B"]
    four = opponent_entries(load_board("r1"), get_game("magnetmen"), 4)
    assert [e.place[1] for e in four] == [11] * 3 + [10] * 3  # as many seats as it starts with
