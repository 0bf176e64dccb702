"""The lights' level: an operator dims a board (a command over MQTT); every frame is scaled by it
before the power cap, and the dimmed frame is written at once."""

from __future__ import annotations

import pytest

from magboard.firmware.lights import LedWriter, LevelError, View, cap_current, render
from magboard.hardware.spec import load_board

MINI = load_board("mini")


class Recorder:
    def __init__(self):
        self.frames = []

    def show(self, pixels):
        self.frames.append(list(pixels))


def test_a_lower_level_scales_every_frame_and_is_written_at_once():
    writer = LedWriter(Recorder(), MINI)
    view = View(players=2, to_move=0, targets={(0, 0), (1, 1)})
    full = writer.update(view, 0.0)
    assert writer.level == 1.0
    writer.set_level(0.5)
    half = writer.update(view, 1.0)
    assert half is not None and writer.board.frames[-1] == half
    expected = [
        (round(r * 0.5), round(g * 0.5), round(b * 0.5)) for r, g, b in render(view, MINI, 1.0)
    ]
    assert half == cap_current(expected, MINI)
    assert sum(map(sum, half)) < sum(map(sum, full))
    writer.set_level(1)
    assert writer.update(view, 2.0) == full


@pytest.mark.parametrize("level", [0, -0.1, 1.5, float("nan"), True, "0.5", None])
def test_a_level_outside_zero_to_one_is_refused_and_changes_nothing(level):
    writer = LedWriter(Recorder(), MINI)
    writer.set_level(0.25)
    with pytest.raises(LevelError, match="above 0 and at most 1"):
        writer.set_level(level)
    assert writer.level == 0.25
