"""What players read (firmware/words): whose turn it is as the events say, a skipped seat
named with its reason, a tile moved wrong told as a tile to move back, what the turn still
needs once a mistake is put right, and words that do not linger once the board has moved on."""

from __future__ import annotations

from magboard.firmware.events import (
    GameOver,
    GameStarted,
    Illegal,
    InHand,
    Moved,
    Note,
    Obligation,
    Partial,
    Restored,
    TakenBack,
)
from magboard.firmware.games import get_game
from magboard.firmware.profiles import profile_for
from magboard.firmware.referee import Referee
from magboard.firmware.words import Describer, Mood
from magboard.hardware.spec import load_board

R1 = load_board("r1")
SKIPPING = ["b3", "f5", "a8", "h1", "f4", "xa2", "a6", "e7", "e6", "xc5", "d6", "h5", "a4"]
SKIPPING += ["c2", "xb6", "a1", "a7", "f7", "xh7", "c1", "b5", "a5", "h8"]
"""Three players, seed 1: after A's h8 neither B nor C has a square to collect."""


def started(game: str, board: str = "r1", players=("A", "B"), **options) -> Describer:
    words = Describer()
    words.words(GameStarted(0.0, game, options, board, players))
    return words


def test_a_seat_with_nothing_to_do_is_skipped_and_the_banner_names_who_moves():
    game = get_game("magnetmen")
    options = game.resolve_options({"players": 3, "seed": 1})
    profile = profile_for(game, R1, options)
    events = []
    referee = Referee(profile, game.new_state(options), events.append)
    referee.start(0.0)
    state = referee.position
    for n, text in enumerate(SKIPPING, start=1):
        state = state.apply(state.parse_action(text))
        referee.judge(profile.render(state), float(n), stable=True)
    last = [e for e in events if isinstance(e, Moved)][-1]
    assert (last.player, last.to_move) == (0, 0)
    assert [s["seat"] for s in last.skipped] == [1, 2]
    assert all(s["why"] == "has no square to collect" for s in last.skipped)

    words = Describer()
    for event in events:
        said = words.words(event)
    assert said.banner is not None
    assert said.banner.text == ("B has no square to collect; C has no square to collect: A to move")
    assert said.banner.seat == 0 and said.banner.mood is Mood.TURN


def test_a_tile_shifted_the_wrong_way_is_told_as_a_tile_to_shift_back():
    words = started("meep-tac-toe")
    words.words(Partial(1.0, 0, ("c6-c5",)))
    wrong = words.words(Illegal(2.0, 0, ("e5", "f5"), ("d5",), "a tile may not...", "Tc5>"))
    assert wrong.banner is not None
    assert wrong.banner.text.startswith("A: shift the tile at d5 back left")
    assert wrong.banner.mood is Mood.WRONG
    turned = words.words(Illegal(2.5, 0, ("e5",), (), "this turn moves...", "Tc5cw"))
    assert "turn the tile at c5 back a quarter counter-clockwise" in turned.line


def test_once_put_right_the_banner_says_what_the_turn_still_needs():
    words = started("meep-tac-toe")
    words.words(Partial(1.0, 0, ("c6-c5",)))
    words.words(Illegal(2.0, 0, ("e5",), (), "no legal move gives this board"))
    assert words.words(Restored(3.0)).banner.text == "A: now shift or turn a tile"

    lance = started("lance-assembly")
    lance.words(Moved(1.0, 0, ("d3",), 1, 1))
    lance.words(Partial(2.0, 1, ("Nb6",)))
    lance.words(Illegal(3.0, 1, ("c2",), (), "one placement a turn"))
    fixed = lance.words(Restored(4.0)).banner.text
    assert fixed == "B: go on, or press the seat-2 button to end the turn"


def test_the_boards_move_is_asked_for_in_words_and_goes_once_made_or_taken_back():
    words = started("tic-tac-toe", players=("X", "O"))
    words.words(Note(0.0, "the board plays O (normal)"))
    words.words(Moved(1.0, 0, ("a1",), 1, 1))
    words.words(Moved(1.2, 1, ("b2",), 2, 0))  # chosen: the hands must make it
    owed = [{"player": 1, "actions": ["b2"]}]
    asked = words.words(Obligation(1.5, 1, "the board plays O: b2: make it", ("b2",), owed, True))
    assert asked.line == "O: make the board's move by hand: O played b2"
    assert "notation" not in asked.line and asked.detail == "the board plays O: b2: make it"
    made = words.words(Note(3.0, "made: the board's move O b2"))
    assert made.banner.text == "X to move"
    words.words(Obligation(4.0, 1, "the board plays O: c3: make it", ("c3",), owed, True))
    back = words.words(TakenBack(5.0, 0, ("a1",)))
    assert back.banner.text == "X to move"


def test_a_lifted_piece_with_nowhere_to_go_on_the_first_turn_has_nothing_to_take_back():
    words = started("tic-tac-cap")
    first = words.words(InHand(0.5, 0, ("supply:A-L",), ()))
    assert first.banner.text == "A: nowhere to play it: put it back"
    words.words(Moved(1.0, 0, ("Sb2",), 1, 1))
    later = words.words(InHand(1.5, 1, ("supply:B-L",), ()))
    assert "take that move back" in later.banner.text


def test_scores_the_reason_already_gives_are_not_said_again():
    words = started("magnetmen", players=("A", "B", "C"), players_count=3)
    reason = "nobody can act: C wins with 8 (A -3, B 5, C 8)"
    over = words.words(GameOver(9.0, (2,), ("C",), reason, (), (-3, 5, 8)))
    assert over.line == "Game over: nobody can act: C wins with 8 (A -3, B 5, C 8)"
    plain = started("tic-tac-toe", players=("X", "O"))
    said = plain.words(GameOver(9.0, (0,), ("X",), "three in a row", ("e5", "f6", "g7")))
    assert said.banner.text == "X wins: three in a row (a1, b2, c3)"
