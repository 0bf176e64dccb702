"""The LED current budget: the estimate follows the spec, and a frame over budget is scaled down
uniformly while one under it is left alone."""

from __future__ import annotations

import dataclasses

from magboard.firmware.lights import cap_current, current_ma
from magboard.hardware.spec import load_board

R1 = load_board("r1")
WHITE = (255, 255, 255)


def at_brightness(spec, brightness):
    return dataclasses.replace(
        spec, power=dataclasses.replace(spec.power, max_brightness=brightness)
    )


def test_the_estimate_counts_every_channel_at_the_drivers_brightness():
    power = R1.power
    frame = [WHITE] * R1.leds.count
    assert current_ma(frame, R1) == R1.leds.count * 3 * power.led_channel_ma * power.max_brightness
    assert current_ma([(255, 0, 0)] + [(0, 0, 0)] * 184, R1) == (
        power.led_channel_ma * power.max_brightness
    )


def test_full_white_over_the_budget_is_scaled_down_to_it():
    spec = at_brightness(R1, 1.0)  # r1 at its own 0.5 fits full white in its budget
    frame = [WHITE] * spec.leds.count
    budget = spec.power.led_budget_ma
    assert current_ma(frame, spec) > budget
    capped = cap_current(frame, spec)
    expected = int(255 * budget / current_ma(frame, spec))
    assert capped == [(expected,) * 3] * spec.leds.count
    assert budget - 3 * spec.leds.count * spec.power.led_channel_ma / 255 < current_ma(capped, spec)
    assert current_ma(capped, spec) <= budget


def test_scaling_keeps_hues_and_relative_levels():
    spec = at_brightness(R1, 1.0)
    frame = [WHITE] * (spec.leds.count - 2) + [(200, 100, 0), (20, 10, 0)]
    capped = cap_current(frame, spec)
    scale = spec.power.led_budget_ma / current_ma(frame, spec)
    assert capped[-2] == (int(200 * scale), int(100 * scale), 0)
    assert capped[-1] == (int(20 * scale), int(10 * scale), 0)


def test_a_frame_within_the_budget_is_left_untouched():
    frame = [(0, 14, 38)] * 20 + [(255, 0, 0)] * 3 + [(0, 0, 0)] * (R1.leds.count - 23)
    assert current_ma(frame, R1) <= R1.power.led_budget_ma
    assert cap_current(frame, R1) == frame
    full_white = [WHITE] * R1.leds.count
    assert current_ma(full_white, R1) <= R1.power.led_budget_ma
    assert cap_current(full_white, R1) == full_white
