"""Magnetmen against rules/magnetmen.md: what players would notice, and an independent model.

Hand-made boards are written top row first, as the board is read, with the test's own
two-letter codes (`CODES`). The model in magnetmen_model.py is written from the rules file and
shares nothing with the engine but the notation; complete games and perft counts are compared
with it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

import pytest
from known_counts import KNOWN_PERFT
from magnetmen_model import Model
from magnetmen_model import perft as model_perft
from magnetmen_model import scores as model_scores
from magnetmen_model import turn_ends as model_turn_ends
from magnetmen_model import winners as model_winners

from magboard.firmware.games import END_TURN, IllegalActionError, NotationError
from magboard.firmware.games.grid import parse_cell
from magboard.firmware.games.magnetmen import scoring
from magboard.firmware.games.magnetmen.generator import Printed, generate
from magboard.firmware.games.magnetmen.kinds import KINDS, Set
from magboard.firmware.games.magnetmen.rules import (
    GAME,
    Collect,
    Destroy,
    DestroyIcon,
    GainIcon,
    MagnetmenState,
    parse_action,
)
from magboard.firmware.games.magnetmen.scoring import Icon
from magboard.firmware.games.perft import turn_results

CODES = {
    "Gu": "Guitarist",
    "Ve": "Veterinarian",
    "At": "Athlete",
    "Ba": "Ballerina",
    "Kn": "Knitting Lady",
    "By": "Baby",
    "El": "Elderly Man",
    "Ex": "Explorer",
    "As": "Astronaut",
    "Do": "Doctor",
    "Fi": "Firefighter",
    "Po": "Police",
    "Bk": "Baker",
    "Ju": "Judge",
    "Ki": "King",
    "Ma": "Mail Carrier",
    "Pa": "Painter",
    "Ph": "Photographer",
    "Ha": "Hairdresser",
    "Li": "Life Guard",
    "Ac": "Actress",
    "Si": "Singer",
    "Ta": "Taxi Driver",
    "Pi": "Pilot",
}


def board(*rows: str, alt: Iterable[str] = ()) -> Printed:
    """A board by hand: rows top first, two-letter codes; `alt`: types on their alternative
    text. Small size: nine inventory slots."""
    grid = [row.split() for row in rows]
    squares = tuple(CODES[code] for row in reversed(grid) for code in row)
    alternative = frozenset(alt)
    powers = "random" if alternative else "main"
    return Printed(0, "small", Set.EXPERT, powers, len(grid[0]), len(grid), squares, alternative)


def icon(text: str) -> Icon:
    kind, _, where = text.partition("@")
    return Icon(kind, parse_cell(where) if where else None)


def position(
    printed: Printed,
    hands: list[list[str]],
    *,
    players: int | None = None,
    advanced: bool = False,
    collected: tuple[str, ...] = (),
    police: tuple[str, ...] = (),
    destroyed: tuple[str, ...] = (),
    to_move: int = 0,
) -> MagnetmenState:
    """A position by hand: squares by name, an icon as "Type" or "Type@square"."""
    return MagnetmenState.laid_out(
        printed,
        players or len(hands),
        advanced,
        collected=[parse_cell(s) for s in collected],
        police=[parse_cell(s) for s in police],
        destroyed=[parse_cell(s) for s in destroyed],
        inventories=[[icon(i) for i in hand] for hand in hands],
        to_move=to_move,
    )


def texts(state: MagnetmenState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def collections(state: MagnetmenState) -> set[str]:
    return {str(a) for a in state.legal_actions() if isinstance(a, Collect)}


def play(state: MagnetmenState, *moves: str) -> MagnetmenState:
    for text in moves:
        state = state.apply(state.parse_action(text))
    return state


def refusal(state: MagnetmenState, text: str) -> str:
    with pytest.raises(IllegalActionError) as caught:
        state.parse_action(text)
    return str(caught.value)


NINE = ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")

# ---------------------------------------------------------------------------------------------
# Scores: every type, main and alternative text, on a worked example.

EVERY = ("Gu Ve At Ba Kn", "By El Ex As Do", "Fi Po Bk Ju Ki", "Ma Pa Ph Ha Li", "Ac Si Ta Pi Gu")
PLAIN = board(*EVERY)
"""A board showing every type, for the types whose points read nothing of the board."""


@dataclass(frozen=True)
class Case:
    """A worked scoring example: the hands (seat by seat), the squares crossed out and
    destroyed, and the type scores expected for some seats."""

    kind: str
    hands: list[list[str]]
    expected: dict[int, dict[str, int]]
    printed: Printed = PLAIN
    collected: tuple[str, ...] = ()
    destroyed: tuple[str, ...] = ()


SCORING = [
    Case("Guitarist", [["Guitarist"] * 3], {0: {"Guitarist": 3}}),  # 3 x +1
    Case("Veterinarian", [["Veterinarian"] * 2], {0: {"Veterinarian": 4}}),  # 2 x +2
    # A: 3 Athletes, each worth 3 (the Athletes A holds): 9. B: 1 Athlete worth 1.
    Case("Athlete", [["Athlete"] * 3, ["Athlete"]], {0: {"Athlete": 9}, 1: {"Athlete": 1}}),
    # A 2 Ballerinas, B 3: B has the most (+4 x 3 = 12), A not (-4 x 2 = -8).
    Case(
        "Ballerina",
        [["Ballerina"] * 2, ["Ballerina"] * 3],
        {0: {"Ballerina": -8}, 1: {"Ballerina": 12}},
    ),
    # A 2, B 2: a tie for the most counts as the most: +4 x 2 = 8 each.
    Case(
        "Ballerina tie",
        [["Ballerina"] * 2, ["Ballerina"] * 2],
        {0: {"Ballerina": 8}, 1: {"Ballerina": 8}},
    ),
    # A 1, B 2, C none: C's none is the fewest, so A (-3 x 1) and B (-3 x 2) are not.
    Case(
        "Knitting Lady",
        [["Knitting Lady"], ["Knitting Lady"] * 2, ["Guitarist"]],
        {0: {"Knitting Lady": -3}, 1: {"Knitting Lady": -6}},
    ),
    # A 1, B 1: tied for the fewest, +3 each.
    Case(
        "Knitting Lady tie",
        [["Knitting Lady"], ["Knitting Lady"]],
        {0: {"Knitting Lady": 3}, 1: {"Knitting Lady": 3}},
    ),
    # A: Guitarists 3 x 1 = 3, Veterinarian 2: the lowest is 2, so 2 Babies are worth 4.
    # B holds only Babies: 0.
    Case(
        "Baby",
        [["Baby"] * 2 + ["Guitarist"] * 3 + ["Veterinarian"], ["Baby"] * 2],
        {0: {"Baby": 4}, 1: {"Baby": 0}},
    ),
    # A: Guitarists 3, Veterinarian 2; the Baby and the Elderly Man leave each other out: the
    # Elderly Man is worth the highest, 3, and the Baby the lowest, 2.
    Case(
        "Elderly Man",
        [["Elderly Man", "Baby"] + ["Guitarist"] * 3 + ["Veterinarian"]],
        {0: {"Elderly Man": 3, "Baby": 2}},
    ),
    Case("Explorer", [["Explorer"] * 2], {0: {"Explorer": 0}}),  # worth 0
    Case("Astronaut", [["Astronaut"] * 2], {0: {"Astronaut": 2}}),  # 2 x +1
    Case("Doctor", [["Doctor"] * 3], {0: {"Doctor": 3}}),  # 3 x +1
    Case("Firefighter", [["Firefighter"]], {0: {"Firefighter": -4}}),  # -4
    Case("Police", [["Police"] * 2], {0: {"Police": 6}}),  # 2 x +3
    # A 3 Bakers: +5 each, 15; B 2: -15 each, -30.
    Case("Baker", [["Baker"] * 3, ["Baker"] * 2], {0: {"Baker": 15}, 1: {"Baker": -30}}),
    # A exactly one Judge: +3; B two: -3 each, -6.
    Case("Judge", [["Judge"], ["Judge"] * 2], {0: {"Judge": 3}, 1: {"Judge": -6}}),
    Case("King", [["King"]], {0: {"King": 12}}),  # +12
    Case("Mail Carrier", [["Mail Carrier"] * 2], {0: {"Mail Carrier": 4}}),  # 2 x +2
    # Painters on a1 b1 c1 a2 b2: A took a1 and b1, c1 is destroyed, a2 and b2 are unused:
    # 2 unused squares, +2 each, for each of A's 2 Painters: 2 x 2 x 2 = 8.
    Case(
        "Painter",
        [["Painter"] * 2],
        {0: {"Painter": 8}},
        board("Gu Gu Gu", "Pa Pa Gu", "Pa Pa Pa"),
        ("a1", "b1"),
        ("c1",),
    ),
    # Photographers on a1 b1 c1 a2: a1 and b1 collected, c1 destroyed, a2 unused: 2 collected,
    # +1 each, for A's one Photographer (2) and for each of B's two (4).
    Case(
        "Photographer",
        [["Photographer"], ["Photographer"] * 2],
        {0: {"Photographer": 2}, 1: {"Photographer": 4}},
        board("Gu Gu Gu", "Ph Gu Gu", "Ph Ph Ph"),
        ("a1", "b1"),
        ("c1",),
    ),
    # Row 1 collected (a1 b1) and destroyed (c1): done; column a collected (a1 a2 a3): done;
    # the other rows and columns have unused squares. 2 lines, +1 each, for each of A's 2
    # Hairdressers: 4.
    Case(
        "Hairdresser",
        [["Hairdresser"] * 2],
        {0: {"Hairdresser": 4}},
        board("Ha Gu Gu", "Ha Gu Gu", "Ha Gu Gu"),
        ("a1", "b1", "a2", "a3"),
        ("c1",),
    ),
    Case("Life Guard", [["Life Guard"]], {0: {"Life Guard": 3}}),  # +3
    Case("Actress", [["Actress"] * 2], {0: {"Actress": 0}}),  # no points
    Case("Singer", [["Singer"]], {0: {"Singer": -5}}),  # -5
    # A's Taxi Driver from b2: around it a1, c1 and a3 are collected (b2 itself does not
    # count): 3. A's Taxi Driver from a1: around it b2 is collected, a2 and b1 are not: 1.
    # 4 in all. B's Taxi Driver has no square (gained, not collected): 0.
    Case(
        "Taxi Driver",
        [["Taxi Driver@b2", "Taxi Driver@a1"], ["Taxi Driver"]],
        {0: {"Taxi Driver": 4}, 1: {"Taxi Driver": 0}},
        board("Gu Gu Gu", "Gu Ta Gu", "Ta Gu Gu"),
        ("a1", "b2", "c1", "a3"),
    ),
    Case("Pilot", [["Pilot"] * 2], {0: {"Pilot": -4}}),  # 2 x -2
]

ALT = board(*EVERY, alt=[k.name for k in KINDS])
"""The same board with every alternative text in force."""

SCORING_ALT = [
    # Where the alternative text changes nothing of the points, the figures are as above.
    Case("Guitarist", [["Guitarist"] * 3], {0: {"Guitarist": 3}}, ALT),
    Case("Veterinarian", [["Veterinarian"] * 2], {0: {"Veterinarian": 4}}, ALT),
    Case("Athlete", [["Athlete"] * 3], {0: {"Athlete": 9}}, ALT),
    Case(
        "Ballerina",
        [["Ballerina"] * 2, ["Ballerina"] * 3],
        {0: {"Ballerina": -8}, 1: {"Ballerina": 12}},
        ALT,
    ),
    Case(
        "Knitting Lady",
        [["Knitting Lady"], ["Knitting Lady"] * 2],
        {0: {"Knitting Lady": 3}, 1: {"Knitting Lady": -6}},
        ALT,
    ),
    # Guitarists 3, Veterinarian 2: the Baby is worth 2.
    Case("Baby", [["Baby"] + ["Guitarist"] * 3 + ["Veterinarian"]], {0: {"Baby": 2}}, ALT),
    # Guitarists 3, Veterinarian 2: each of 2 Elderly Men is worth 3.
    Case(
        "Elderly Man",
        [["Elderly Man"] * 2 + ["Guitarist"] * 3 + ["Veterinarian"]],
        {0: {"Elderly Man": 6}},
        ALT,
    ),
    Case("Explorer", [["Explorer"]], {0: {"Explorer": 0}}, ALT),
    Case("Astronaut", [["Astronaut"] * 2], {0: {"Astronaut": 2}}, ALT),
    Case("Doctor", [["Doctor"] * 3], {0: {"Doctor": 6}}, ALT),  # 3 x +2
    Case("Firefighter", [["Firefighter"] * 2], {0: {"Firefighter": -4}}, ALT),  # 2 x -2
    Case("Police", [["Police"]], {0: {"Police": 3}}, ALT),
    Case("Baker", [["Baker"] * 4], {0: {"Baker": 20}}, ALT),  # 4 x +5
    # A exactly two Judges: +4 each, 8; B one: -4.
    Case("Judge", [["Judge"] * 2, ["Judge"]], {0: {"Judge": 8}, 1: {"Judge": -4}}, ALT),
    Case("King", [["King"]], {0: {"King": 6}}, ALT),  # +6
    Case("Mail Carrier", [["Mail Carrier"] * 2], {0: {"Mail Carrier": 6}}, ALT),  # 2 x +3
    # The Painters as above (2 unused), one Painter: 2 x 2 = 4.
    Case(
        "Painter",
        [["Painter"]],
        {0: {"Painter": 4}},
        board("Gu Gu Gu", "Pa Pa Gu", "Pa Pa Pa", alt=["Painter"]),
        ("a1", "b1"),
        ("c1",),
    ),
    # Photographers a1 b1 c1 a2: a1 collected, c1 destroyed: 1.
    Case(
        "Photographer",
        [["Photographer"]],
        {0: {"Photographer": 1}},
        board("Gu Gu Gu", "Ph Gu Gu", "Ph Ph Ph", alt=["Photographer"]),
        ("a1",),
        ("c1",),
    ),
    # One destroyed square, b2: row 2 and column b have one, the other 4 lines (rows 1 and 3,
    # columns a and c) none, unused squares or not: 4 lines x 3 = 12 a Hairdresser; 2: 24.
    Case(
        "Hairdresser",
        [["Hairdresser"] * 2],
        {0: {"Hairdresser": 24}},
        board("Ha Gu Gu", "Ha Gu Gu", "Ha Gu Gu", alt=["Hairdresser"]),
        ("a1",),
        ("b2",),
    ),
    Case("Life Guard", [["Life Guard"] * 2], {0: {"Life Guard": 6}}, ALT),
    Case("Actress", [["Actress"]], {0: {"Actress": 0}}, ALT),
    Case("Singer", [["Singer"] * 2], {0: {"Singer": -6}}, ALT),  # 2 x -3
    # The Taxi Driver from c3: b3 and b2 are collected around it, c2 is destroyed: 2.
    Case(
        "Taxi Driver",
        [["Taxi Driver@c3"]],
        {0: {"Taxi Driver": 2}},
        board("Gu Gu Ta", "Gu Gu Gu", "Gu Gu Gu", alt=["Taxi Driver"]),
        ("b3", "b2", "c3"),
        ("c2",),
    ),
    Case("Pilot", [["Pilot"]], {0: {"Pilot": -2}}, ALT),
]


def _check_scores(case: Case) -> None:
    state = position(case.printed, case.hands, collected=case.collected, destroyed=case.destroyed)
    tally = state.tally()
    for seat, wanted in case.expected.items():
        got = scoring.type_scores(tally, seat)
        assert {kind: got.get(kind) for kind in wanted} == wanted
    model = Model.arranged(
        case.printed,
        len(case.hands),
        case.hands,
        collected=case.collected,
        destroyed=case.destroyed,
    )
    assert list(state.scores) == model_scores(model)


@pytest.mark.parametrize("case", SCORING, ids=lambda case: case.kind)
def test_main_text_scores(case):
    _check_scores(case)


@pytest.mark.parametrize("case", SCORING_ALT, ids=lambda case: case.kind)
def test_alternative_text_scores(case):
    _check_scores(case)


def test_every_type_has_a_scoring_case():
    assert {case.kind for case in SCORING} >= {k.name for k in KINDS}
    assert {case.kind for case in SCORING_ALT} == {k.name for k in KINDS}


def test_a_score_is_the_sum_of_the_types():
    # A: Guitarists 2 (2), Bakers 2 (-30), Judge 1 (3), Baby (lowest, -30): -55.
    hands = [["Guitarist"] * 2 + ["Baker"] * 2 + ["Judge", "Baby"]]
    assert position(PLAIN, hands).scores == (-55,)


# ---------------------------------------------------------------------------------------------
# The repel rule.

RING = board("Ve Ve Ve", "Ve Gu Ve", "Ve Ve Ve")
"""A Guitarist in the middle of Veterinarians."""


@pytest.mark.parametrize(
    ("held", "repelled"),
    [
        (1, {"a2", "c2"}),  # once: beside
        (2, {"a2", "c2", "b1", "b3"}),  # twice: also above and below
        (3, {"a2", "c2", "b1", "b3", "a1", "c1", "a3", "c3"}),  # thrice: also diagonally
    ],
)
def test_repel_distances(held, repelled):
    state = position(RING, [["Guitarist"] * held, []])
    # The square's own type does not matter: b2, a Guitarist, has no Guitarist beside it.
    assert collections(state) == set(NINE) - repelled


def test_collected_squares_still_repel_and_destroyed_do_not():
    collected = position(RING, [["Guitarist"], []], collected=("b2",))
    assert collections(collected) == set(NINE) - {"b2", "a2", "c2"}
    destroyed = position(RING, [["Guitarist"], []], destroyed=("b2",))
    assert collections(destroyed) == set(NINE) - {"b2"}


def test_repel_is_per_player():
    state = position(RING, [["Guitarist"], []], to_move=1)
    assert collections(state) == set(NINE)


def test_astronaut_repels_while_unused_main_and_once_collected_with_the_alternative():
    main = board("Ve Ve Ve", "Ve As Ve", "Ve Ve Ve")
    assert collections(position(main, [["Astronaut"], []])) == set(NINE) - {"a2", "c2"}
    taken = position(main, [["Astronaut"], []], collected=("b2",))
    assert collections(taken) == set(NINE) - {"b2"}  # collected: ignored
    alt = board("Ve Ve Ve", "Ve As Ve", "Ve Ve Ve", alt=["Astronaut"])
    assert collections(position(alt, [["Astronaut"], []])) == set(NINE)  # unused: ignored
    taken = position(alt, [["Astronaut"], []], collected=("b2",))
    assert collections(taken) == set(NINE) - {"b2", "a2", "c2"}


def test_doctor_repels_from_three_main_and_below_three_alternative():
    main = board("Ve Ve Ve", "Ve Do Ve", "Ve Ve Ve")
    assert collections(position(main, [["Doctor"] * 2, []])) == set(NINE)
    assert collections(position(main, [["Doctor"] * 3, []])) == {"b2"}
    alt = board("Ve Ve Ve", "Ve Do Ve", "Ve Ve Ve", alt=["Doctor"])
    assert collections(position(alt, [["Doctor"] * 2, []])) == set(NINE) - {
        "a2",
        "c2",
        "b1",
        "b3",
    }
    assert collections(position(alt, [["Doctor"] * 3, []])) == set(NINE)


def test_a_repelled_square_is_refused_with_its_reason():
    state = position(RING, [["Guitarist"] * 2, []])
    why = refusal(state, "b3")
    assert "b3 is repelled" in why
    assert "A holds 2 Guitarist" in why
    assert "b2, above or below it, is a Guitarist" in why


@pytest.mark.parametrize("kind", [kind.name for kind in KINDS])
def test_a_refusal_names_a_type_with_the_article_it_is_said_with(kind):
    """The repel refusal for every type: "an Elderly Man", "an Explorer", "a Judge"."""
    code = next(code for code, name in CODES.items() if name == kind)
    other = "Ve" if kind == "Guitarist" else "Gu"
    printed = board(
        f"{other} {other} {other}", f"{code} {other} {other}", f"{other} {other} {other}"
    )
    held = [kind] * (3 if kind == "Doctor" else 1)  # a Doctor repels from three held
    why = refusal(position(printed, [held, []]), "b2")
    assert f"a2, beside it, is {'an' if kind[0] in 'AEIOU' else 'a'} {kind} (" in why
    assert not re.search(r"\ba [AEIOUaeiou]", why)


def test_a_square_off_the_board_names_its_size_with_the_article_it_is_said_with():
    eight = generate(0, "regular", Set.BASE)
    with pytest.raises(ValueError, match="i1 is not on an 8x8 board"):
        position(eight, [[], []], collected=("i1",))
    ten = generate(0, "big", Set.BASE)
    with pytest.raises(ValueError, match="a10 is not on a 10x9 board"):
        position(ten, [[], []], collected=("a10",))


# ---------------------------------------------------------------------------------------------
# Turns: must collect, skipping, the end.


def test_a_turn_must_collect_and_may_destroy_only_with_the_advanced_rules():
    state = position(RING, [[], []])
    assert texts(state) == set(NINE)
    assert not state.can_end_turn
    assert "advanced rules" in refusal(state, "xb2")
    assert "must first collect" in refusal(state, "end")
    advanced = position(RING, [[], []], advanced=True)
    assert texts(advanced) == set(NINE) | {f"x{s}" for s in NINE}
    after = play(advanced, "xb2")
    assert after.to_move == 1 and after.turn == 1
    assert "b2 is destroyed" in refusal(after, "b2")


def test_one_collection_ends_the_turn():
    state = play(position(RING, [[], []]), "b2")
    assert state.to_move == 1 and state.turn == 1
    assert "already collected" in refusal(state, "b2")


def test_a_player_without_a_collection_is_skipped():
    # A holds a Guitarist: b1, the only square left, is beside a Guitarist (a1, collected).
    line = board("Gu Ve Gu")
    state = position(line, [["Guitarist"], []], collected=("a1", "c1"))
    assert state.to_move == 1
    state = play(state, "b1")
    assert state.outcome() is not None
    assert state.outcome().scores == (1, 2)


def test_a_full_inventory_is_skipped():
    state = position(RING, [["Veterinarian"] * 9, []])  # nine slots on a small board
    assert state.to_move == 1
    state = play(state, "b2")
    assert state.to_move == 1  # A is skipped again


def test_the_king_main_text_ends_the_takers_turns():
    printed = board("Ki Ve Gu", "Ve Gu Ve", "Gu Ve Gu")
    state = play(position(printed, [[], []]), "a3")
    assert state.to_move == 1
    state = play(state, "b2")
    assert state.to_move == 1  # A took the King: no more turns


def test_a_king_taken_and_destroyed_still_ends_the_takers_turns():
    printed = board("Ki Si Ve", "Ve Ve Ve", "Ve Ve Ve", alt=["Singer"])
    state = play(position(printed, [[], []]), "a3", "b3", "A-King", "end")
    assert state.counts[0] == (0, 0, 0)  # Veterinarian, King, Singer
    assert state.to_move == 1


def test_four_of_a_type_stop_a_player_under_the_advanced_rules():
    printed = board("Gu Gu Gu", "Gu Ve Gu", "Gu Gu Gu")
    assert position(printed, [["Veterinarian"] * 4, []], advanced=True).to_move == 1
    assert position(printed, [["Veterinarian"] * 4, []]).to_move == 0


def test_the_game_ends_when_nobody_can_act_and_ties_share_the_win():
    state = play(position(board("Gu Gu"), [[], []]), "a1")
    assert state.outcome() is None
    state = play(state, "b1")  # B holds no Guitarist: a1 does not repel B
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == (0, 1) and outcome.scores == (1, 1)
    assert "A and B share the win" in outcome.reason
    assert state.legal_actions() == ()


def test_the_highest_score_wins_alone():
    state = play(position(board("Gu Ve"), [[], []]), "b1", "a1")
    assert state.outcome().winners == (0,)
    assert "A wins with 2" in state.outcome().reason


# ---------------------------------------------------------------------------------------------
# Powers that change the turn, played through with notation.

EXPLORE = board("Ve Ju Ve", "Ve Ex Ve", "Ve Ve Ve")


def test_explorer_destroys_a_square_then_the_turn_ends():
    state = play(position(EXPLORE, [[], []]), "b2")
    assert state.to_move == 0 and not state.can_end_turn
    # Any unused square but the Judge, which cannot be destroyed.
    assert texts(state) == {f"x{s}" for s in NINE} - {"xb2", "xb3"}
    assert "Judge: it cannot be destroyed" in refusal(state, "xb3")
    assert "destroys an unused square for the Explorer" in refusal(state, "a1")
    state = play(state, "xa1")
    assert state.to_move == 1 and state.turn == 1
    assert "--" in str(state)


def test_explorer_with_nothing_to_destroy_ends_the_turn():
    state = play(position(board("Ex Ju"), [[], []]), "a1")
    assert state.to_move == 1 and state.turn == 1


FIRE = board("Gu Ve Fi", "Ve Ve Ve", "Fi Ve Gu")


def test_firefighter_main_three_collections_never_a_second_firefighter():
    state = play(position(FIRE, [[], []]), "a1")
    assert state.to_move == 0 and state.can_end_turn
    # b1 and b3 are beside a Firefighter, which A now holds; c3 is the second Firefighter.
    assert collections(state) == set(NINE) - {"a1", "b1", "b3", "c3"}
    assert "not a second Firefighter" in refusal(state, "c3")
    assert "end" in texts(state)
    state = play(state, "c1")
    assert state.to_move == 0
    state = play(state, "a3")  # three collections: the turn ends by itself
    assert state.to_move == 1 and state.turn == 1


def test_firefighter_extra_collections_may_be_left():
    state = play(position(FIRE, [[], []]), "a1", "end")
    assert state.to_move == 1 and state.turn == 1


def test_firefighter_alternative_one_extra_collection_ignoring_repel():
    fire = board("Gu Ve Fi", "Ve Ve Ve", "Fi Ve Gu", alt=["Firefighter"])
    state = play(position(fire, [[], []]), "a1")
    assert collections(state) == set(NINE) - {"a1"}  # b1 beside a Firefighter, c3 a second one
    state = play(state, "b1")
    assert state.to_move == 1


PILOT = board("Gu Ve Gu", "Ve Pi Ve", "Gu Ve Gu")


def test_pilot_collects_one_more_square_in_its_row_or_column_ignoring_every_rule():
    state = play(position(PILOT, [[], []]), "b2")
    # A holds a Pilot now: a2 and c2, beside it, are repelled, which the Pilot ignores.
    assert texts(state) == {"a2", "c2", "b1", "b3"}
    assert not state.can_end_turn
    assert "row or column of b2" in refusal(state, "a1")
    state = play(state, "a2")
    assert state.to_move == 1
    assert state.counts[0] == (0, 1, 1)  # Guitarist, Veterinarian, Pilot


def test_pilot_takes_a_police_square_collected_once():
    printed = board("Gu Po Gu", "Gu Pi Gu", "Gu Gu Gu")
    state = position(printed, [[], []], police=("b3",), destroyed=("b1", "a2", "c2"))
    state = play(state, "b2")
    assert texts(state) == {"b3"}
    state = play(state, "b3")  # b3's second collection destroys it
    assert "b3 is destroyed" in refusal(state, "b3")


POLICE = board("Ve Ve Ve", "Ve Po Ve", "Ve Ve Ve")


def test_police_is_collected_twice_then_destroyed():
    state = play(position(POLICE, [[], []]), "b2")
    assert state.to_move == 1
    assert "b2" in collections(state)  # once collected: collectable again
    state = play(state, "b2")
    assert "b2 is destroyed" in refusal(state, "b2")
    assert state.counts == ((0, 1), (0, 1))  # Veterinarian, Police: one Police each
    # Destroyed, it repels nobody: A holds a Police and may collect a2 and c2 beside it.
    assert {"a2", "c2"} <= collections(state)


def test_police_collected_once_repels():
    state = play(position(POLICE, [[], []]), "b2", "a1")
    assert collections(state) == set(NINE) - {"a1", "a2", "c2"}


# ---------------------------------------------------------------------------------------------
# Choices: the Actress and the Singer.

STAGE = board("Gu Ve Ju", "Gu Ac Gu", "Gu Gu Gu")


def test_actress_main_leading_players_each_destroy_an_icon_of_their_choice():
    # A 0, B 4, C 4 once A holds the Actress: B and C lead, and choose in that order.
    hands = [[], ["Veterinarian"] * 2, ["Veterinarian", "Guitarist", "Guitarist"]]
    state = play(position(STAGE, hands), "b2")
    assert state.to_move == 0 and not state.can_end_turn
    assert texts(state) == {"B-Veterinarian"}
    assert "first B destroys" in refusal(state, "C-Guitarist")
    state = play(state, "B-Veterinarian")
    assert texts(state) == {"C-Guitarist", "C-Veterinarian"}
    state = play(state, "C-Veterinarian")
    assert state.to_move == 1 and state.turn == 1
    assert state.scores == (0, 2, 2)


def test_actress_main_the_mover_leads_too():
    state = play(position(STAGE, [["Veterinarian"], []]), "b2")
    assert texts(state) == {"A-Veterinarian", "A-Actress"}
    state = play(state, "A-Actress")
    assert state.to_move == 1


def test_actress_main_judges_cannot_be_destroyed():
    state = play(position(STAGE, [[], ["Judge"]]), "b2")
    assert state.to_move == 1  # B leads but holds only a Judge: nothing to choose


def test_actress_alternative_last_placed_players_gain_an_icon_of_a_type_on_the_board():
    stage = board("Gu Ve Gu", "Gu Ac Gu", "Gu Bk Gu", alt=["Actress"])
    hands = [["Veterinarian"], [], []]
    state = play(position(stage, hands), "b2")
    assert texts(state) == {"B+Guitarist", "B+Veterinarian", "B+Baker", "B+Actress"}
    state = play(state, "B+Baker", "C+Guitarist")
    assert state.to_move == 1
    assert state.scores == (2, -15, 1)
    with pytest.raises(NotationError):
        parse_action("B+Baker@b1")


def test_singer_alternative_destroys_up_to_two_icons_in_any_inventories():
    printed = board("Gu Ve Ju", "Gu Si Bk", "Gu Gu Gu", alt=["Singer"])
    start = position(printed, [["Veterinarian"], ["Baker", "Judge"]])
    state = play(start, "b2")
    assert texts(state) == {"A-Veterinarian", "A-Singer", "B-Baker", "end"}
    state = play(state, "A-Singer")
    assert state.to_move == 0
    state = play(state, "B-Baker")
    assert state.to_move == 1 and state.scores == (2, 3)
    early = play(start, "b2", "B-Baker", "end")
    assert early.to_move == 1 and early.scores == (-1, 3)


# ---------------------------------------------------------------------------------------------
# The types' restrictions.


def test_life_guard_reads_the_player_to_the_left_or_right():
    guard = board("Gu Li Ve", "Ve Ve Ve", "Ve Ve Ve")
    # B (A's left) holds a Guitarist: b3 is beside a Guitarist for B, so A may not take it.
    state = position(guard, [[], ["Guitarist"], []])
    assert "b3" not in collections(state)
    assert "B, to A's left, could not collect" in refusal(state, "b3")
    # With the alternative text the player to A's right is read: C, the seat before A.
    right = board("Gu Li Ve", "Ve Ve Ve", "Ve Ve Ve", alt=["Life Guard"])
    assert "b3" in collections(position(right, [[], ["Guitarist"], []]))
    assert "b3" not in collections(position(right, [[], [], ["Guitarist"]]))


def test_king_alternative_one_per_player_and_nothing_next_to_the_takers_king():
    kings = board("Ki Ve Ve", "Ve Ve Ve", "Ve Ve Ki", alt=["King"])
    state = play(position(kings, [[], []]), "a3")
    assert collections(state) == set(NINE) - {"a3"}  # B may collect next to A's King
    state = play(state, "c2")
    # A's King (a3) repels b3, the other King (c1) b1; c1 is a second King; a2, b2 and b3 are
    # next to A's King.
    assert collections(state) == {"a1", "c3"}
    assert "already holds a King: one per player" in refusal(state, "c1")
    assert "b2 is next to A's King" in refusal(state, "b2")


def test_mail_carrier_needs_a_collected_neighbour_or_alternatively_none():
    mail = board("Ma Ve Ve", "Ve Ve Ve", "Ve Ve Ma")
    state = position(mail, [[], []])
    assert collections(state) == set(NINE) - {"a3", "c1"}
    assert "no collected square next to it" in refusal(state, "a3")
    state = play(state, "b3")
    assert "a3" in collections(state) and "c1" not in collections(state)
    alt = board("Ma Ve Ve", "Ve Ve Ve", "Ve Ve Ma", alt=["Mail Carrier"])
    state = play(position(alt, [[], []]), "b3")
    assert "a3" not in collections(state) and "c1" in collections(state)


def test_singer_main_closes_its_neighbours_to_everyone():
    printed = board("Ve Ve Ve Ve", "Ve Si Ve Ve", "Ve Ve Ve Ve")
    state = play(position(printed, [[], []]), "b2")
    assert collections(state) == {"d1", "d2", "d3"}
    assert "a1 is next to a collected Singer" in refusal(state, "a1")


# ---------------------------------------------------------------------------------------------
# Notation.


def test_notation_round_trips():
    for action in (
        Collect((2, 3)),
        Destroy((10, 10)),
        DestroyIcon(0, "Baker"),
        DestroyIcon(3, "Taxi Driver", (1, 1)),
        GainIcon(2, "Elderly Man"),
        END_TURN,
    ):
        assert parse_action(str(action)) == action
    assert parse_action("c4") == Collect((2, 3))
    assert parse_action("xc4") == Destroy((2, 3))
    assert parse_action("B - taxi driver @ b2") == DestroyIcon(1, "Taxi Driver", (1, 1))
    assert parse_action("C+elderlyman") == GainIcon(2, "Elderly Man")
    for bad in ("x", "A-Wizard", "E-Baker", "c0", "A+", "xx1"):
        with pytest.raises(NotationError):
            parse_action(bad)


def test_board_actions_touch_their_square_and_choices_are_unseen():
    assert Collect((2, 3)).touches == frozenset({(2, 3)})
    assert Destroy((2, 3)).touches == frozenset({(2, 3)})
    assert Collect((0, 0)).seen and Destroy((0, 0)).seen
    assert not DestroyIcon(0, "Baker").seen and not GainIcon(0, "Baker").seen


def test_off_the_board_and_other_refusals():
    state = GAME.new_state()
    assert "not on this board" in refusal(state, "p16")
    assert "no power lets anyone destroy an icon" in refusal(state, "A-Guitarist")
    assert "no power lets anyone gain" in refusal(state, "A+Guitarist")


# ---------------------------------------------------------------------------------------------
# Complete games against the model.


def _compare_game(options: dict, rng: random.Random) -> set[str]:
    """Plays random legal actions, checking the engine's legal actions against the model's at
    every step and the final scores and winners; returns what the turns went through (the
    duties owed, "optional" where a turn could end early, "police" for a second collection)."""
    state = GAME.new_state(options)
    model = Model(state.printed, options["players"], options.get("advanced_rules", False))
    played: list[str] = []
    seen = set()
    while state.outcome() is None:
        assert state.to_move == model.seat
        assert texts(state) == model.legal(), "\n".join(played)
        seen.add(state.duty.value)
        if state.can_end_turn:
            seen.add("optional")
        action = rng.choice(state.legal_actions())
        if isinstance(action, Collect) and state.police & 1 << state.setup.at(action.cell):
            seen.add("police")
        played.append(str(action))
        state = state.apply(action)
        model.play(str(action))
    assert model.over and model.legal() == set()
    assert state.outcome().scores == tuple(model_scores(model))
    assert state.outcome().winners == model_winners(model)
    return seen


@pytest.mark.parametrize("advanced_rules", [False, True])
def test_complete_three_player_games_agree_with_the_model(advanced_rules):
    rng = random.Random(f"three:{advanced_rules}")
    seen = set()
    for seed in (82, 177, 189, 22):
        options = {"players": 3, "set": "expert", "powers": "random", "seed": seed}
        seen |= _compare_game({**options, "advanced_rules": advanced_rules}, rng)
    assert {"explore", "pilot", "gain", "optional", "police"} <= seen


@pytest.mark.parametrize("advanced_rules", [False, True])
def test_complete_four_player_games_agree_with_the_model(advanced_rules):
    rng = random.Random(f"four:{advanced_rules}")
    seen = set()
    for seed, size in (
        (11, "regular"),
        (53, "big"),
        (79, "regular"),
        (203, "huge"),
        (147, "small"),
    ):
        options = {"players": 4, "set": "expert", "powers": "random", "seed": seed, "size": size}
        seen |= _compare_game({**options, "advanced_rules": advanced_rules}, rng)
    assert {"explore", "pilot", "lose", "optional"} <= seen


def test_base_and_advanced_games_agree_with_the_model():
    rng = random.Random("base")
    for seed in range(6):
        _compare_game({"players": 2 + seed % 3, "set": "base", "seed": seed}, rng)
        _compare_game({"players": 2, "set": "advanced", "seed": seed, "size": "small"}, rng)


# ---------------------------------------------------------------------------------------------
# Perft against the model.

MAGNETMEN_PERFT = [
    (options, counts) for name, options, counts in KNOWN_PERFT if name == "magnetmen"
]


def _model_of(options: dict) -> Model:
    state = GAME.new_state(options)
    return Model(state.printed, state.players, state.setup.advanced_rules)


@pytest.mark.slow
@pytest.mark.parametrize(("options", "counts"), MAGNETMEN_PERFT, ids=lambda v: str(v))
def test_model_reproduces_the_known_perft_counts(options, counts):
    """Every count the engine gives in test_generic_games.py, counted again by the model (the
    default options' perft(2), 491,068 positions, in about five seconds)."""
    model = _model_of(options)
    assert [model_perft(model, d) for d in range(1, len(counts) + 1)] == counts


def test_second_turns_agree_with_the_model_for_a_sample_of_first_turns():
    """The default perft(2), checked position by position for a sample of A's first turns: the
    engine's and the model's distinct positions after B's turn are as many."""
    state = GAME.new_state()
    model = _model_of({})
    engine_children = list(turn_results(state).values())
    model_children = {child.board: child for child in model_turn_ends(model).values()}
    assert len(engine_children) == len(model_turn_ends(model))
    for child in random.Random("sample").sample(engine_children, 24):
        twin = model_children[_board_text(child)]
        assert len(turn_results(child)) == len(model_turn_ends(twin))


def _board_text(state: MagnetmenState) -> str:
    """The engine's squares in the model's form (column by column from a1)."""
    width, height = state.extent
    marks = []
    for col in range(width):
        for row in range(height):
            bit = 1 << (row * width + col)
            if state.destroyed & bit:
                marks.append("x")
            elif state.police & bit:
                marks.append("p")
            elif state.collected & bit:
                marks.append("c")
            else:
                marks.append(".")
    return "".join(marks)


def test_the_default_board():
    """The default options' board: regular, base set, seed 1, as the generator prints it."""
    state = GAME.new_state()
    assert state.printed == generate(1)
    assert state.extent == (8, 8) and state.players == 2
    assert len(state.legal_actions()) == 64
