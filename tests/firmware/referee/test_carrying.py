"""Obligations carried out as hands do it: in part, in any order, at once; fed to the referee
directly as frames (no scanning, no simulator)."""

from __future__ import annotations

from magboard.firmware.events import Fulfilled, Illegal, Moved, Obligation
from magboard.firmware.games import CARRY_OUT, get_game
from magboard.firmware.profiles import Layout, profile_for
from magboard.firmware.referee import OBLIGATION, PLAY, Referee
from magboard.firmware.referee.carrying import carrying
from magboard.hardware.spec import load_board

R1 = load_board("r1")
MEEPLE = get_game("meeple-maneuver")
TURNS = (
    "Kf8 Te7cw Te7>",
    "Ph6 Tg5cw Tg5>",
    "Kh6 Th5cw Th5cw",
    "Kc6 Tc5ccw Tc5ccw",
    "Kf6 Te5cw Te5>",
)
TWO_CAPTURES = [action for turn in TURNS for action in turn.split()]
"""A's last turn sandwiches the neutral puppies on g6 and h5 (board h7 and i6)."""
G6, H5 = (7, 6), (8, 5)


def meeple_referee():
    profile = profile_for(MEEPLE, R1)
    events = []
    ref = Referee(profile, MEEPLE.new_state(), events.append)
    ref.start(0.0)
    return ref, profile, events


def play(ref, profile, texts, t=0.0, last_stable=True):
    """Each action shown settled, one a second from `t`; the state after the last."""
    state = ref.position
    for n, text in enumerate(texts, start=1):
        state = state.apply(state.parse_action(text))
        ref.judge(profile.render(state), t + n, stable=last_stable or n < len(texts))
    return state


def moved(profile, state, *moves):
    """The frame of `state` with the top piece of each board cell moved to a cell, or to a
    supply by name."""
    layout = profile.layout(state)
    cells, supplies = dict(layout.cells), dict(layout.supplies)
    for source, target in moves:
        piece, cells[source] = cells[source][-1], cells[source][:-1]
        if isinstance(target, str):
            supplies[target] = supplies.get(target, 0) + 1
        else:
            cells[target] = (*cells.get(target, ()), piece)
    return profile.frame_of(Layout(cells, supplies, layout.tiles))


def carried_off(profile, state, *cells):
    """The frame of `state` with the captured meeples on board `cells` in A's pile."""
    return moved(profile, state, *((cell, "A-captured") for cell in cells))


def test_a_capture_carried_off_is_progress_and_what_is_left_stays_lit():
    ref, profile, events = meeple_referee()
    captured = play(ref, profile, TWO_CAPTURES)
    assert len(captured.obligations) == 2 and ref.status.phase == OBLIGATION
    since = ref.status.since
    events.clear()
    ref.judge(carried_off(profile, captured, (8, 5)), 20.0, stable=True)
    assert events == [
        Obligation(
            20.0,
            0,
            "captured: the neutral puppy on g6 goes to A's captured pile",
            ("A7", "A8", "A9", "h7"),
            todo="carry the neutral puppy on g6 to your captured pile",
        )
    ]
    assert ref.status.obligation == {G6, *profile.supply("A-captured").slots}
    assert ref.status.since == since, "the obligation's wink keeps its rhythm"
    assert not ref.status.difference
    ref.judge(carried_off(profile, captured, (8, 5), (7, 6)), 21.0, stable=True)
    assert isinstance(events[-1], Fulfilled) and ref.position == captured.apply(CARRY_OUT)
    assert ref.status.phase == PLAY


def test_a_captured_meeple_in_the_hand_is_on_its_way():
    ref, profile, events = meeple_referee()
    captured = play(ref, profile, TWO_CAPTURES)
    events.clear()
    in_hand = profile.render(captured) & ~profile.sensors.spot_mask((7, 6))
    ref.judge(in_hand, 20.0, stable=True)
    assert events == [] and ref.status.phase == OBLIGATION


def test_a_capture_carried_off_before_the_board_settles_is_the_turn_then_progress():
    ref, profile, events = meeple_referee()
    before = play(ref, profile, TWO_CAPTURES[:-1])
    captured = before.apply(before.parse_action(TWO_CAPTURES[-1]))
    ref.judge(profile.render(captured), 20.0, stable=False)
    ref.judge(carried_off(profile, captured, (7, 6)), 20.1, stable=False)
    ref.judge(carried_off(profile, captured, (7, 6)), 20.35, stable=True)
    moved = [e for e in events if isinstance(e, Moved)]
    assert moved[-1] == Moved(20.35, 0, ("Kf6", "Te5cw", "Te5>"), 5, 1)
    assert events[-1] == Obligation(
        20.35,
        0,
        "captured: the neutral puppy on h5 goes to A's captured pile",
        ("A7", "A8", "A9", "i6"),
        todo="carry the neutral puppy on h5 to your captured pile",
    )
    assert not any(isinstance(e, Illegal) for e in events)


def test_a_capture_the_board_never_saw_made_is_not_read_as_carried_off():
    ref, profile, events = meeple_referee()
    before = play(ref, profile, TWO_CAPTURES[:-1])
    captured = before.apply(before.parse_action(TWO_CAPTURES[-1]))
    ref.judge(carried_off(profile, captured, (7, 6)), 20.0, stable=True)
    assert not any(isinstance(e, Moved) and e.turn == 5 for e in events)
    assert ref.position == before


def test_a_captured_meeple_put_on_another_cell_is_a_mistake_naming_its_place():
    ref, profile, events = meeple_referee()
    captured = play(ref, profile, TWO_CAPTURES)
    ref.judge(moved(profile, captured, (G6, (4, 4))), 20.0, stable=True)
    illegal = events[-1]
    assert isinstance(illegal, Illegal)
    assert "e5" in illegal.remove and "A7" in illegal.put_back
    assert "g6 goes to A's captured pile" in illegal.detail


def test_carrying_reads_which_pieces_are_gone_in_any_order():
    profile = profile_for(MEEPLE, R1)
    state = MEEPLE.new_state()
    for text in TWO_CAPTURES:
        state = state.apply(state.parse_action(text))
    first = carrying(profile, state, carried_off(profile, state, H5))
    assert [step.source for step in first.gone] == [H5]
    assert [step.source for step in first.left] == [G6]
    both = carried_off(profile, state, G6, H5)
    assert carrying(profile, state, both).frame == profile.render(state.apply(CARRY_OUT))


def test_lance_clearing_lights_only_the_tiles_left():
    lance = get_game("lance-assembly")
    profile = profile_for(lance, R1)
    events = []
    state = lance.new_state()
    bout = ("c1", "d1 end", "c2 end", "d2 end", "c3 end", "d3 end", "c4 end", "d4 end", "c5 end")
    played = [action for turn in bout for action in turn.split()]
    for text in played:
        state = state.apply(state.parse_action(text))
    assert state.obligations, "A's lance of five ends the bout: the board is to be cleared"
    ref = Referee(profile, lance.new_state(), events.append)
    ref.start(0.0, played)
    ref.check_board(profile.render(state), 0.1)
    cells = set(ref.status.obligation)
    assert len(cells) == 9
    events.clear()
    c1 = profile.to_board((2, 0))
    ref.judge(profile.render(state) & ~profile.sensors.spot_mask(c1), 1.0, stable=True)
    assert ref.status.obligation == cells - {c1}
    assert events == [], "one duty: clearing the board; said done when it is all done"
