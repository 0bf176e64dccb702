"""LedWriter: identical frames are written once, changes no faster than the frame rate (and never
lost), and the caller is told when an animation needs its next frame."""

from __future__ import annotations

import pytest

from magboard.firmware.lights import (
    DEFAULT,
    FRAME_INTERVAL,
    LedWriter,
    View,
    animating,
    next_change,
    render,
)
from magboard.hardware.spec import load_board

MINI = load_board("mini")
SLOW_HALF = 0.5 / DEFAULT.slow_blink_hz


class Recorder:
    """A display that keeps what it was shown."""

    def __init__(self):
        self.frames = []

    def show(self, pixels):
        self.frames.append(list(pixels))


@pytest.fixture
def writer():
    return LedWriter(Recorder(), MINI)


def test_the_first_frame_is_written_and_returned(writer):
    view = View(players=2, to_move=0)
    frame = writer.update(view, 0.0)
    assert frame == render(view, MINI, 0.0)
    assert writer.board.frames == [frame]


def test_the_same_frame_twice_is_written_once(writer):
    view = View(players=2, to_move=0, targets={(0, 0)})
    assert writer.update(view, 0.0) is not None
    assert writer.update(view, 1.0) is None
    # a new view that looks the same is no change either
    assert writer.update(View(players=2, to_move=0, targets={(0, 0)}, since=1.0), 2.0) is None
    assert len(writer.board.frames) == 1
    assert writer.next_deadline() is None


def test_a_change_within_the_frame_interval_is_written_at_the_deadline(writer):
    first = View(players=2, to_move=0)
    second = View(players=2, to_move=1)
    writer.update(first, 10.0)
    assert writer.update(second, 10.01) is None
    deadline = writer.next_deadline()
    assert deadline == pytest.approx(10.0 + FRAME_INTERVAL)
    assert writer.update(second, deadline - 0.001) is None
    assert writer.update(second, deadline) == render(second, MINI, deadline)
    assert len(writer.board.frames) == 2
    assert writer.next_deadline() is None


def test_a_held_back_change_that_is_undone_is_not_written(writer):
    first = View(players=2, to_move=0)
    writer.update(first, 0.0)
    writer.update(View(players=2, to_move=1), 0.01)
    assert writer.next_deadline() is not None
    assert writer.update(first, 0.02) is None
    assert writer.next_deadline() is None
    assert len(writer.board.frames) == 1


def test_the_frame_interval_is_a_setting():
    slow = LedWriter(Recorder(), MINI, min_interval=0.5)
    slow.update(View(players=2, to_move=0), 0.0)
    assert slow.update(View(players=2, to_move=1), 0.4) is None
    assert slow.next_deadline() == 0.5


def test_a_blinking_view_asks_for_its_next_step(writer):
    view = View(players=2, to_move=0, remove={(1, 1)}, since=5.0)
    assert animating(view, 5.0)
    writer.update(view, 5.0)
    assert writer.next_deadline() == pytest.approx(5.0 + SLOW_HALF)
    now = writer.next_deadline()
    assert writer.update(view, now) is not None  # the off phase
    assert writer.next_deadline() == pytest.approx(5.0 + 2 * SLOW_HALF)
    assert len(writer.board.frames) == 2


def test_an_animation_never_asks_for_frames_faster_than_the_frame_rate():
    view = View(players=2, draw=True, since=0.0)
    step = DEFAULT.draw_pulse_seconds / DEFAULT.draw_pulse_steps
    assert step > FRAME_INTERVAL  # the default pulse is slower than the rate limit
    fast = LedWriter(Recorder(), MINI, min_interval=2 * step)
    fast.update(view, 0.0)
    assert next_change(view, 0.0) == pytest.approx(step)
    assert fast.next_deadline() == pytest.approx(2 * step)


def test_an_error_blinks_until_its_time_is_up_then_the_writer_rests(writer):
    view = View(players=2, to_move=0, error={(0, 0)}, since=0.0)
    now, writes = 0.0, 0
    while now is not None:
        writes += writer.update(view, now) is not None
        last, now = now, writer.next_deadline()
    assert last == pytest.approx(DEFAULT.error_seconds)
    assert writes == round(DEFAULT.error_seconds * DEFAULT.fast_blink_hz * 2)
    assert animating(view, last - 0.01)
    assert not animating(view, last)


def test_the_winning_line_animates_for_a_while_and_a_still_board_does_not():
    line = ((0, 0), (1, 1), (2, 2))
    won = View(players=2, win=line, winner=0, since=5.0)
    end = 5.0 + DEFAULT.celebration_seconds
    assert animating(won, end - 0.01)
    assert next_change(won, end - 0.01) == pytest.approx(end)
    assert not animating(won, end)
    assert not animating(View(players=2, draw=True, since=5.0), end)
    assert not animating(View(players=2, win=((1, 1),), winner=0), 0.0)
    assert not animating(View(players=2, to_move=0, targets={(0, 0)}, fault=True), 0.0)
