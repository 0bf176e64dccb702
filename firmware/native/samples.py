"""Reference shapes and seeded random boards, shared by the benchmark and the tests so that both
measure and check the same inputs."""

from __future__ import annotations

import random

from .shape import LABELS, LineShape


def _tile_gaps(corners: tuple[tuple[int, int], ...]) -> frozenset[tuple[int, int]]:
    """2x2 blocks of missing cells, like the gaps where board tiles meet."""
    return frozenset((col + dc, row + dr) for col, row in corners for dc in (0, 1) for dr in (0, 1))


SHAPES: dict[str, LineShape] = {
    "3x3 run 3": LineShape(3, 3, 3),
    "6x6 run 5": LineShape(6, 6, 5),
    "12x12 run 3 holes": LineShape(12, 12, 3, _tile_gaps(((2, 2), (8, 2), (5, 5), (2, 8), (8, 8)))),
}


def random_boards(shape: LineShape, count: int, seed: int = 0) -> list[bytes]:
    """`count` boards of `shape`, each with its own density (0..1) and number of labels (1..8),
    some with cells that count as several labels at once. Holes get random bytes too: the
    detector must ignore whatever a hole holds."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        labels = rng.randint(1, LABELS)
        density = rng.random()
        palette = [1 << label for label in range(labels)]
        if rng.random() < 0.25:
            palette += [rng.getrandbits(labels) | 1 for _ in range(2)]
        weights = [1.0 - density] + [density / len(palette)] * len(palette)
        boards.append(bytes(rng.choices([0, *palette], weights, k=shape.size)))
    return boards
