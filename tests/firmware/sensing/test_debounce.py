"""Debouncing and settling: what reaches the referee, and when."""

from __future__ import annotations

from magboard.firmware.sensing import Debouncer
from magboard.hardware.spec import load_board

MINI = load_board("mini")
B2 = 1 << MINI.sensor_bit[((1, 1), "s")]
C2 = 1 << MINI.sensor_bit[((2, 1), "s")]
SLOT = 1 << MINI.sensor_bit[(MINI.slots[0], "")]


def test_a_change_is_debounced_then_settles_once():
    d = Debouncer(MINI, debounce=0.03, settle=0.25)
    assert not d.feed(B2, 1.0)
    assert d.next_deadline() == 1.03
    assert d.promote(1.03)
    assert d.debounced == B2
    assert d.stable(1.2) is None
    assert d.next_deadline() == 1.28
    assert d.stable(1.28) == B2
    assert d.stable(2.0) is None, "a stable frame is reported once"


def test_bounce_and_noise_never_reach_the_debounced_frame():
    d = Debouncer(MINI)
    for i, frame in enumerate([B2, 0, B2, 0, B2]):
        d.feed(frame, 1.0 + i * 0.002)
    assert d.debounced == 0
    d.promote(1.008 + 0.03)
    assert d.debounced == B2
    d.feed(B2 | SLOT, 2.0)
    d.feed(B2, 2.002)  # a 2 ms blip on a tray slot
    d.promote(2.1)
    assert d.debounced == B2


def test_a_slide_keeps_the_board_unsettled_until_the_piece_rests():
    d = Debouncer(MINI, settle=0.25)
    t = 1.0
    stables = []
    for frame in (B2, C2, 0, C2):  # dragged over b2, c2, lifted a moment, down on c2
        d.feed(frame, t)
        d.promote(t + 0.05)
        stables.append(d.stable(t + 0.12))
        t += 0.12
    assert stables == [None, None, None, None]
    assert d.stable(t + 0.3) == C2
    assert C2 in d.trail and B2 in d.trail


def test_a_blind_expander_keeps_its_last_value_and_the_rest_is_judged():
    d = Debouncer(MINI)
    d.feed(B2, 1.0)
    d.promote(1.05)
    assert d.stable(1.4) == B2
    blind = B2 | C2
    d.feed(C2, 1.5, blind=blind)  # a knock the board cannot see: nothing changes
    assert d.debounced == B2 and d.next_deadline() is None
    d.feed(B2, 2.0, blind=blind)  # it sees again (and B2 still there): settles in full view
    d.feed(B2, 2.1)
    assert d.stable(2.2) is None
    d.feed(B2 | C2, 2.4)
    d.promote(2.45)
    assert d.stable(2.8) == B2 | C2


def test_spare_expander_inputs_are_ignored():
    spare = 1 << (len(MINI.sensors))  # mini wires 53 of its 56 inputs
    d = Debouncer(MINI)
    assert not d.feed(spare, 1.0)
    assert d.next_deadline() is None
