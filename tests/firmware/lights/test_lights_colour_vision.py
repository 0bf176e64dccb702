"""The lights for colour-blind players: the colours that must be told apart stay apart under a
simulation of protanopia and deuteranopia, and every meaning has a rhythm of its own.

Colour-blind vision is simulated with the matrices of Machado, Oliveira & Fernandes, "A
Physiologically-based Model for Simulation of Color Vision Deficiency" (IEEE TVCG 15(6), 2009),
severity 1.0, applied to linear RGB; distances are CIE76 ΔE in CIELAB (D65). The LED colours are
taken as sRGB, the usual approximation for an emitter seen head on.

Why ΔE 20: about 2.3 is the smallest difference a trained eye sees side by side, and 10 is
already plainly different on a screen; but the board's colours are seen dim (a target is 15 %
of full), diffused under pieces and rarely side by side, so the margin is nearly ten times the
visible threshold. At 20 even the closest pair for a normal eye here reads as two colours.
"""

from __future__ import annotations

import itertools
import math

import pytest

from magboard.firmware.lights import DEFAULT
from magboard.firmware.lights.palette import Meaning, Where

THRESHOLD = 20.0

MACHADO_2009 = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
}

_SRGB_TO_XYZ = (
    (0.4124564, 0.3575761, 0.1804375),
    (0.2126729, 0.7151522, 0.0721750),
    (0.0193339, 0.1191920, 0.9503041),
)
_D65 = (0.95047, 1.0, 1.08883)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _times(matrix, vector):
    return [sum(m * v for m, v in zip(row, vector, strict=True)) for row in matrix]


def lab(rgb, deficiency=None):
    """CIELAB of an sRGB colour as seen with `deficiency` (None: normal vision)."""
    linear = [_linear(c) for c in rgb]
    if deficiency is not None:
        linear = [min(1.0, max(0.0, c)) for c in _times(MACHADO_2009[deficiency], linear)]
    x, y, z = (v / w for v, w in zip(_times(_SRGB_TO_XYZ, linear), _D65, strict=True))

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def delta_e(a, b, deficiency=None):
    return math.dist(lab(a, deficiency), lab(b, deficiency))


def pairs_to_tell_apart(palette=DEFAULT):
    """The seat colours among themselves, and each against red (a mistake, a piece to remove,
    a fallen flag, the alert) and white (an obligation)."""
    seats = [(f"seat {i + 1}", colour) for i, colour in enumerate(palette.players)]
    found = list(itertools.combinations(seats, 2))
    for seat in seats:
        found += [
            (seat, ("error/remove", palette.error)),
            (seat, ("obligation", palette.obligation)),
        ]
    return found


def test_the_colour_model_matches_known_values():
    """Anchors for the hand-written conversion: white is L* 100, and a protanope sees pure red
    and pure green far closer than a normal eye does."""
    assert lab((255, 255, 255)) == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert lab((255, 0, 0)) == pytest.approx((53.24, 80.09, 67.20), abs=0.05)
    normal = delta_e((255, 0, 0), (0, 255, 0))
    assert delta_e((255, 0, 0), (0, 255, 0), "protanopia") < normal / 2


@pytest.mark.parametrize("deficiency", [None, *MACHADO_2009])
def test_colours_that_must_be_told_apart_stay_apart(deficiency):
    close = [
        (round(delta_e(a, b, deficiency), 1), name_a, name_b)
        for (name_a, a), (name_b, b) in pairs_to_tell_apart()
        if delta_e(a, b, deficiency) < THRESHOLD
    ]
    assert close == [], f"too close for {deficiency or 'normal vision'}: {close}"


def test_error_remove_and_alert_share_one_red_the_patterns_tell_them_apart():
    assert DEFAULT.error == DEFAULT.remove == DEFAULT.alert


def test_every_meaning_has_a_pattern():
    for meaning in Meaning:
        pattern = DEFAULT.pattern(meaning)
        assert pattern.levels and all(0.0 <= level <= 1.0 for level in pattern.levels)
        assert (pattern.step is None) == (len(pattern.levels) == 1), meaning


@pytest.mark.parametrize("where", list(Where))
def test_meanings_that_can_show_at_once_have_distinct_patterns(where):
    """On the same kind of LED no two meanings look alike in rhythm and level: a player who
    cannot tell the colours apart still reads them."""
    meanings = [m for m in Meaning if m.where is where]
    signatures = {m: DEFAULT.pattern(m).signature() for m in meanings}
    for a, b in itertools.combinations(meanings, 2):
        assert signatures[a] != signatures[b], (a, b)


def test_the_blinks_of_things_to_put_right_differ_in_rhythm_not_only_in_level():
    """Remove, put back and obligation can all stand on the board at once: their shapes of on
    and off differ, whatever the levels."""
    shapes = {
        m: tuple(level > 0 for level in DEFAULT.pattern(m).levels)
        for m in (Meaning.REMOVE, Meaning.PUT_BACK, Meaning.OBLIGATION, Meaning.ERROR)
    }
    steps = {m: DEFAULT.pattern(m).step for m in shapes}
    seen = {(steps[m], shapes[m]) for m in shapes}
    assert len(seen) == len(shapes)
