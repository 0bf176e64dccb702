"""What saying an action in words for players is made of, for the words every game shares
(`words.actions`) and the phrases a game declares for its own actions (`Game.phrase`)."""

from __future__ import annotations

from dataclasses import dataclass

WAYS = {">": "right", "<": "left", "^": "up", "v": "down"}
BACK = {">": "<", "<": ">", "^": "v", "v": "^"}
NUMBERS = ("no", "one", "two", "three", "four", "five", "six")


@dataclass(frozen=True)
class Phrase:
    """One action said two ways: asked of a player ("shift the tile at b2 right") and told
    once done ("shifted the tile at b2 right")."""

    asked: str
    told: str


def count(n: int, thing: str) -> str:
    """ "two cells", "one tile": small numbers in words."""
    said = NUMBERS[n] if 0 <= n < len(NUMBERS) else str(n)
    return f"{said} {thing}{'' if n == 1 else 's'}"


def put(rest: str) -> Phrase:
    return Phrase(f"put {rest}", f"put {rest}")


def inside(cell: tuple[int, int], extent: tuple[int, int]) -> bool:
    return 0 <= cell[0] < extent[0] and 0 <= cell[1] < extent[1]
