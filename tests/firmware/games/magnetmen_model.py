"""An independent model of Magnetmen, for the tests: moves, turns and scores.

Written from ../shared/rules/magnetmen.md (and the readings the engine's module text states
where the rules are open) and built unlike the engine, so that a shared slip cannot hide behind
shared code: it shares nothing with it but the notation and the printed board it is given.

- The squares are one string, column by column from a1 (a1, a2, ... then b1, ...): "." unused,
  "c" collected, "p" a Police square collected once, "x" destroyed.
- A hand is a sorted tuple of (type, square name) pairs, the square name kept only where the
  rules read it (a Taxi Driver's neighbours; a King's neighbours with its alternative text) and
  "" otherwise, so equal hands are equal tuples.
- Every question is answered by walking a square's eight neighbours by name, as a player does.
- A turn is a list of tasks still owed, each done in order, and allowances the player may use
  or leave; the model finishes a turn when it owes nothing and can use no allowance.
- Perft walks complete turns action by action and keeps the distinct positions they end in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

SLOTS = {"small": 9, "regular": 14, "big": 18, "huge": 20}
LETTERS = "ABCD"

POINTS_MAIN = {
    "Guitarist": 1,
    "Veterinarian": 2,
    "Explorer": 0,
    "Astronaut": 1,
    "Doctor": 1,
    "Firefighter": -4,
    "Police": 3,
    "King": 12,
    "Mail Carrier": 2,
    "Life Guard": 3,
    "Actress": 0,
    "Singer": -5,
    "Pilot": -2,
}
POINTS_ALT = {**POINTS_MAIN, "Doctor": 2, "Firefighter": -2, "King": 6, "Mail Carrier": 3}
POINTS_ALT["Singer"] = -3
STEPS = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if dc or dr]


def cell_text(col: int, row: int) -> str:
    return "abcdefghijklmnop"[col] + str(row + 1)


class Model:
    """A game in progress, played by notation. Copies are cheap: every field is immutable."""

    def __init__(self, printed: Any, players: int = 2, advanced: bool = False) -> None:
        self.cols, self.rows = printed.width, printed.height
        self.kind = {
            cell_text(i % self.cols, i // self.cols): name for i, name in enumerate(printed.squares)
        }
        self.names = [cell_text(c, r) for c in range(self.cols) for r in range(self.rows)]
        self.at = {name: n for n, name in enumerate(self.names)}
        self.spot = {name: (n // self.rows, n % self.rows) for n, name in enumerate(self.names)}
        self.around = {name: list(self._walk(name)) for name in self.names}
        self.alt = set(printed.alternative)
        self.on_board = sorted(set(printed.squares))
        self.players = players
        self.advanced = advanced
        self.slots = SLOTS[printed.size]
        self.board = "." * len(self.names)
        self.hands: tuple[tuple[tuple[str, str], ...], ...] = ((),) * players
        self.seat = 0
        self.kinged: frozenset[int] = frozenset()
        self.tasks: tuple[tuple[Any, ...], ...] = ()
        self.made = 0
        self.fire = False
        self.free = 0
        self.hush = 0
        self.over = False

    @classmethod
    def arranged(
        cls,
        printed: Any,
        players: int,
        hands: list[list[str]],
        collected: tuple[str, ...] = (),
        police: tuple[str, ...] = (),
        destroyed: tuple[str, ...] = (),
    ) -> Model:
        """A position set by hand, squares by name, an icon as "Type" or "Type@square"."""
        model = cls(printed, players)
        for marks, mark in ((collected, "c"), (police, "p"), (destroyed, "x")):
            for square in marks:
                model.set_mark(square, mark)
        for seat, hand in enumerate(hands):
            for icon in hand:
                kind, _, where = icon.partition("@")
                model.give(seat, kind, where)
        return model

    def copy(self) -> Model:
        other = object.__new__(Model)
        other.__dict__.update(self.__dict__)
        return other

    def key(self) -> tuple[Any, ...]:
        return (
            self.board,
            self.hands,
            self.seat,
            self.kinged,
            self.tasks,
            self.made,
            self.fire,
            self.free,
            self.hush,
            self.over,
        )

    # -- reading the board -----------------------------------------------------------------------

    def mark(self, square: str) -> str:
        return self.board[self.at[square]]

    def near(self, square: str) -> list[tuple[str, int, int]]:
        """The squares around `square`, with the step from it."""
        return self.around[square]

    def _walk(self, square: str) -> Iterator[tuple[str, int, int]]:
        col, row = self.spot[square]
        for dc, dr in STEPS:
            if 0 <= col + dc < self.cols and 0 <= row + dr < self.rows:
                yield cell_text(col + dc, row + dr), dc, dr

    def crossed(self, square: str) -> bool:
        return self.mark(square) in "cp"

    def count(self, seat: int, kind: str) -> int:
        return sum(1 for k, _ in self.hands[seat] if k == kind)

    def full(self, seat: int) -> bool:
        return len(self.hands[seat]) >= self.slots

    def remembered(self, kind: str) -> bool:
        return kind == "Taxi Driver" or (kind == "King" and "King" in self.alt)

    # -- the repel rule and the types' restrictions ------------------------------------------

    def pushes(self, seat: int, neighbour: str, dc: int, dr: int) -> bool:
        """Whether `neighbour` keeps `seat` off the square it sits next to by (dc, dr)."""
        if self.mark(neighbour) == "x":
            return False
        kind = self.kind[neighbour]
        held = self.count(seat, kind)
        if kind == "Astronaut":
            if "Astronaut" in self.alt and not self.crossed(neighbour):
                return False
            if "Astronaut" not in self.alt and self.crossed(neighbour):
                return False
        if kind == "Doctor":
            if "Doctor" in self.alt and held >= 3:
                return False
            if "Doctor" not in self.alt and held < 3:
                return False
        if dr == 0:
            return held >= 1
        if dc == 0:
            return held >= 2
        return held >= 3

    def open_to(self, seat: int, square: str, repel: bool = True, guard: bool = True) -> bool:
        """Whether the square may be collected by `seat` by the rules of the squares."""
        if self.mark(square) not in ".p":
            return False
        kind = self.kind[square]
        around = self.near(square)
        if repel and any(self.pushes(seat, n, dc, dr) for n, dc, dr in around):
            return False
        singers = [n for n, _, _ in around if self.kind[n] == "Singer" and self.crossed(n)]
        if singers and "Singer" not in self.alt:
            return False
        if kind == "Mail Carrier":
            touching = any(self.crossed(n) for n, _, _ in around)
            if touching == ("Mail Carrier" in self.alt):
                return False
        if "King" in self.alt and self.count(seat, "King"):
            if kind == "King":
                return False
            kings = {where for k, where in self.hands[seat] if k == "King" and where}
            if any(n in kings for n, _, _ in around):
                return False
        if kind == "Life Guard" and guard:
            step = -1 if "Life Guard" in self.alt else 1
            other = (seat + step) % self.players
            if not self.open_to(other, square, guard=False):
                return False
        return True

    def line(self, square: str) -> list[str]:
        """The other squares of its row and its column."""
        col, row = self.spot[square]
        return [n for n in self.names if n != square and (col, row)[0] == self.spot[n][0]] + [
            n for n in self.names if n != square and self.spot[n][1] == row
        ]

    def breakable(self) -> list[str]:
        return [n for n in self.names if self.mark(n) == "." and self.kind[n] != "Judge"]

    def can_play(self, seat: int) -> bool:
        if seat in self.kinged or self.full(seat):
            return False
        if self.advanced:
            if any(v >= 4 for v in Counter(k for k, _ in self.hands[seat]).values()):
                return False
            if self.breakable():
                return True
        return any(self.open_to(seat, n) for n in self.names)

    # -- what may be done ------------------------------------------------------------------------

    def losable(self, seat: int) -> set[str]:
        found = set()
        for kind, where in self.hands[seat]:
            if kind != "Judge":
                found.add(f"{LETTERS[seat]}-{kind}" + (f"@{where}" if where else ""))
        return found

    def optional(self) -> set[str]:
        found: set[str] = set()
        seat = self.seat
        if not self.full(seat):
            if self.fire and self.made < 3:
                found |= {
                    n for n in self.names if self.kind[n] != "Firefighter" and self.open_to(seat, n)
                }
            if self.free:
                found |= {n for n in self.names if self.open_to(seat, n, repel=False)}
        if self.hush:
            for other in range(self.players):
                found |= self.losable(other)
        return found

    def legal(self) -> set[str]:
        if self.over:
            return set()
        if self.tasks:
            task = self.tasks[0]
            if task[0] == "explore":
                return {"x" + n for n in self.breakable()}
            if task[0] == "pilot":
                return {n for n in self.line(task[1]) if self.mark(n) in ".p"}
            if task[0] == "lose":
                return self.losable(task[1])
            who = task[1]
            kinds = list(self.on_board)
            if "King" in self.alt and self.count(who, "King"):
                kinds.remove("King")
            return {f"{LETTERS[who]}+{k}" for k in kinds}
        if not self.made:
            found = {n for n in self.names if self.open_to(self.seat, n)}
            if self.advanced:
                found |= {"x" + n for n in self.breakable()}
            return found
        return self.optional() | {"end"}

    # -- playing -----------------------------------------------------------------------------------

    def set_mark(self, square: str, mark: str) -> None:
        i = self.at[square]
        self.board = self.board[:i] + mark + self.board[i + 1 :]

    def give(self, seat: int, kind: str, where: str) -> None:
        hand = (*self.hands[seat], (kind, where if self.remembered(kind) else ""))
        hands = list(self.hands)
        hands[seat] = tuple(sorted(hand))
        self.hands = tuple(hands)

    def take(self, seat: int, kind: str, where: str) -> None:
        hand = list(self.hands[seat])
        hand.remove((kind, where))
        hands = list(self.hands)
        hands[seat] = tuple(hand)
        self.hands = tuple(hands)

    def play(self, text: str, check: bool = True) -> None:
        """Plays `text`; `check=False` where it came from `legal()` a moment ago."""
        if check:
            assert text in self.legal(), f"{text} is not legal here: {sorted(self.legal())}"
        task = self.tasks[0] if self.tasks else ("",)
        if text == "end":
            self.finish()
            return
        if text[0] == "x":
            self.set_mark(text[1:], "x")
            if task[0] == "explore":
                self.tasks = self.tasks[1:]
                self.settle()
            else:
                self.finish()
            return
        if text[0] in LETTERS and text[1] in "+-":
            seat = LETTERS.index(text[0])
            body = text[2:]
            kind, _, where = body.partition("@")
            if text[1] == "+":
                self.give(seat, kind, "")
                if kind == "King" and "King" not in self.alt:
                    self.kinged = self.kinged | {seat}
            else:
                self.take(seat, kind, where)
            if task[0] in ("lose", "gain"):
                self.tasks = self.tasks[1:]
            else:
                self.hush -= 1
            self.settle()
            return
        self.collect(text, pilot=task[0] == "pilot")

    def collect(self, square: str, pilot: bool) -> None:
        kind = self.kind[square]
        if pilot:
            self.tasks = self.tasks[1:]
        elif self.made and not self.fire:
            self.free -= 1
        if kind == "Police" and self.mark(square) == "p":
            self.set_mark(square, "x")
        else:
            self.set_mark(square, "p" if kind == "Police" else "c")
        self.give(self.seat, kind, square)
        self.made += 1
        alt = kind in self.alt
        if kind == "King" and not alt:
            self.kinged = self.kinged | {self.seat}
        if kind == "Explorer" and self.breakable():
            self.tasks = (*self.tasks, ("explore",))
        reach = [n for n in self.line(square) if self.mark(n) in ".p"]
        if kind == "Pilot" and reach and not self.full(self.seat):
            self.tasks = (*self.tasks, ("pilot", square))
        if kind == "Firefighter":
            if alt:
                self.free += 1
            else:
                self.fire = True
        if kind == "Singer" and alt:
            self.hush += 2
        if kind == "Actress":
            points = scores(self)
            wanted = min(points) if alt else max(points)
            for k in range(1, self.players + 1):
                seat = (self.seat + k) % self.players
                if points[seat] != wanted:
                    continue
                if alt and not self.full(seat):
                    self.tasks = (*self.tasks, ("gain", seat))
                if not alt and self.losable(seat):
                    self.tasks = (*self.tasks, ("lose", seat))
        self.settle()

    def settle(self) -> None:
        if not self.tasks and not self.optional():
            self.finish()

    def finish(self) -> None:
        self.tasks, self.made, self.fire, self.free, self.hush = (), 0, False, 0, 0
        mover = self.seat
        for k in range(1, self.players + 1):
            seat = (mover + k) % self.players
            if self.can_play(seat):
                self.seat = seat
                return
        self.seat = (mover + 1) % self.players
        self.over = True


# ---------------------------------------------------------------------------------------------
# Scores.


def type_points(model: Model, seat: int) -> dict[str, int]:
    """What each type `seat` holds is worth, Baby and Elderly Man last."""
    held = Counter(kind for kind, _ in model.hands[seat])
    everyone = [Counter(k for k, _ in hand) for hand in model.hands]
    squares = {kind: [n for n in model.names if model.kind[n] == kind] for kind in held}
    worth: dict[str, int] = {}
    for kind, n in held.items():
        alt = kind in model.alt
        if kind in POINTS_MAIN:
            worth[kind] = n * (POINTS_ALT if alt else POINTS_MAIN)[kind]
        elif kind == "Athlete":
            worth[kind] = n * n
        elif kind == "Ballerina":
            most = all(n >= other["Ballerina"] for other in everyone)
            worth[kind] = n * (4 if most else -4)
        elif kind == "Knitting Lady":
            fewest = all(n <= other["Knitting Lady"] for other in everyone)
            worth[kind] = n * (3 if fewest else -3)
        elif kind == "Baker":
            worth[kind] = n * (5 if n >= 3 else -15)
        elif kind == "Judge":
            if alt:
                worth[kind] = n * (4 if n == 2 else -4)
            else:
                worth[kind] = n * (3 if n == 1 else -3)
        elif kind == "Painter":
            worth[kind] = n * 2 * sum(model.mark(s) == "." for s in squares[kind])
        elif kind == "Photographer":
            worth[kind] = n * sum(model.crossed(s) for s in squares[kind])
        elif kind == "Hairdresser":
            worth[kind] = n * hairdresser(model, alt)
        elif kind == "Taxi Driver":
            worth[kind] = sum(
                sum(model.crossed(m) for m, _, _ in model.near(where))
                for k, where in model.hands[seat]
                if k == kind and where
            )
    plain = [v for k, v in worth.items() if k not in ("Baby", "Elderly Man")]
    if held["Baby"]:
        worth["Baby"] = held["Baby"] * (min(plain) if plain else 0)
    if held["Elderly Man"]:
        worth["Elderly Man"] = held["Elderly Man"] * (max(plain) if plain else 0)
    return worth


def hairdresser(model: Model, alt: bool) -> int:
    lines = [[cell_text(c, r) for c in range(model.cols)] for r in range(model.rows)]
    lines += [[cell_text(c, r) for r in range(model.rows)] for c in range(model.cols)]
    if alt:
        return 3 * sum(all(model.mark(s) != "x" for s in line) for line in lines)
    return sum(all(model.mark(s) != "." for s in line) for line in lines)


def scores(model: Model) -> list[int]:
    return [sum(type_points(model, seat).values()) for seat in range(model.players)]


def winners(model: Model) -> tuple[int, ...]:
    points = scores(model)
    return tuple(seat for seat, p in enumerate(points) if p == max(points))


# ---------------------------------------------------------------------------------------------
# Perft by complete turns.


def turn_ends(model: Model) -> dict[tuple[Any, ...], Model]:
    """The distinct positions one complete turn reaches, by key."""
    ends: dict[tuple[Any, ...], Model] = {}
    if model.over:
        return ends
    pending, seen = [model], {model.key()}
    while pending:
        here = pending.pop()
        for text in sorted(here.legal()):
            after = here.copy()
            after.play(text, check=False)
            if after.over or (not after.made and not after.tasks):
                ends.setdefault(after.key(), after)
            elif after.key() not in seen:
                seen.add(after.key())
                pending.append(after)
    return ends


def perft(model: Model, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(child, depth - 1) for child in turn_ends(model).values())
