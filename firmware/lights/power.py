"""The LED current budget: what a frame draws from the supply, and a frame scaled to fit it.

A WS2812 channel draws about `led_channel_ma` at full value and scales linearly with its value.
The driver multiplies every value by the board's `max_brightness` as it sends the bytes, so the
estimate includes that factor, while the frames here stay at full scale so that it is applied
exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence

from magboard.hardware.interface import RGB
from magboard.hardware.spec import BoardSpec


def current_ma(pixels: Sequence[RGB], spec: BoardSpec) -> float:
    """Estimated current of the chain showing `pixels`, in mA. Summed without unpacking each
    pixel in Python: every LED frame the board offers is weighed, after every stable scan."""
    total = sum(map(sum, pixels))
    return total / 255 * spec.power.max_brightness * spec.power.led_channel_ma


def cap_current(pixels: Sequence[RGB], spec: BoardSpec) -> list[RGB]:
    """`pixels`, scaled down if they would draw more than the board's LED budget.

    One factor for the whole frame keeps every colour's hue and every meaning's level relative
    to the others (a dim target stays dimmer than a blink), where cutting only the brightest LEDs
    would change what the lights say. Values are rounded down so the result never exceeds the
    budget.
    """
    estimate = current_ma(pixels, spec)
    budget = spec.power.led_budget_ma
    if estimate <= budget:
        return list(pixels)
    scale = budget / estimate
    return [(int(r * scale), int(g * scale), int(b * scale)) for r, g, b in pixels]
