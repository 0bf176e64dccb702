"""The Magnetmen board generator against rules/magnetmen.md items 1 and 3-7.

The statistical checks compare the generator with expectations worked out here, independently:
an exact sum over every ordered draw for base boards, and for the larger sets a reference draw
that uses a different algorithm (sorting random keys u ** (1 / weight), which gives the same odds
as drawing one type at a time by weight). Each check uses fixed seeds, so it gives the same
answer on every run; its tolerance is five standard errors, which an exact implementation
exceeds with a chance below one in a million per quantity checked, while the mistakes it is
there to catch (ignoring the weights, a wrong set, a skewed count) miss by far more.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import subprocess
import sys
from collections import Counter
from functools import cache

import pytest

from magboard.firmware.games import OptionError
from magboard.firmware.games.magnetmen import generator
from magboard.firmware.games.magnetmen.generator import SIZES, Printed, generate
from magboard.firmware.games.magnetmen.kinds import BY_NAME, KINDS, SETS_UP_TO, Kind, Set

SEEDS = range(1000)
SETS = tuple(Set)
Z = 5.0
"""Standard errors allowed in every statistical check (see the module text)."""
ALLOWED = {
    Set.BASE: {"base"},
    Set.ADVANCED: {"base", "advanced"},
    Set.EXPERT: {"base", "advanced", "expert"},
}
"""Rule 3, written out again rather than read from the code under test."""
TYPE_COUNTS = {Set.BASE: {5, 6}, Set.ADVANCED: {6, 7}, Set.EXPERT: {6, 7}}
"""Rule 4."""


@cache
def boards(size: str, chosen_set: Set) -> tuple[Printed, ...]:
    """The boards of the first thousand seeds, shared by the checks that read them."""
    return tuple(generate(seed, size, chosen_set) for seed in SEEDS)


def all_boards(chosen_set: Set) -> list[Printed]:
    return [board for size in SIZES for board in boards(size, chosen_set)]


def squares_of(size: str) -> int:
    columns, rows, _ = SIZES[size]
    return columns * rows


def within(observed: float, expected: float, error: float) -> bool:
    return abs(observed - expected) <= Z * error


# Rule 1: sizes.


def test_sizes_are_the_rules_boards_and_inventories() -> None:
    assert SIZES == {
        "small": (6, 6, 9),
        "regular": (8, 8, 14),
        "big": (10, 9, 18),
        "huge": (11, 11, 20),
    }
    for size, (columns, rows, _) in SIZES.items():
        board = generate(1, size)
        assert (board.width, board.height, len(board.squares)) == (columns, rows, columns * rows)


def test_defaults_are_a_regular_base_board_with_main_powers() -> None:
    board = generate(5)
    assert (board.size, board.set, board.powers) == ("regular", Set.BASE, "main")
    assert board == generate(5, "regular", "base", "main") == generate(5, set=Set.BASE)


# Seeded: the same seed always gives the same board.


@pytest.mark.parametrize("powers", ["main", "random"])
@pytest.mark.parametrize("chosen_set", SETS)
@pytest.mark.parametrize("size", list(SIZES))
def test_the_same_seed_gives_the_same_board(size: str, chosen_set: Set, powers: str) -> None:
    for seed in (0, 1, 2**40, -7):
        first = generate(seed, size, chosen_set, powers)
        random.seed(seed + 1)  # the global generator plays no part
        random.random()
        assert generate(seed, size, chosen_set, powers) == first


def test_the_same_seed_gives_the_same_board_in_another_process() -> None:
    """Python salts str hashes per process; a board must not depend on it (it is printed from
    the seed on one machine and refereed on another)."""
    script = (
        "from magboard.firmware.games.magnetmen.generator import generate\n"
        "b = generate(123, 'huge', 'expert', 'random')\n"
        "print(b.squares, sorted(b.alternative))\n"
    )
    here = generate(123, "huge", "expert", "random")
    expected = f"{here.squares} {sorted(here.alternative)}"
    for hash_seed in ("0", "4242"):
        out = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert out.stdout.strip() == expected


@pytest.mark.parametrize("chosen_set", SETS)
@pytest.mark.parametrize("size", list(SIZES))
def test_different_seeds_give_different_boards(size: str, chosen_set: Set) -> None:
    layouts = {board.squares for board in boards(size, chosen_set)}
    assert len(layouts) == len(SEEDS)


def test_powers_do_not_change_the_squares() -> None:
    for seed in range(50):
        main = generate(seed, "big", "expert", "main")
        assert generate(seed, "big", "expert", "random").squares == main.squares


# Rules 4 and 5: the types, their minima and maxima.


@pytest.mark.parametrize("chosen_set", SETS)
@pytest.mark.parametrize("size", list(SIZES))
def test_every_type_keeps_its_min_and_max(size: str, chosen_set: Set) -> None:
    for board in boards(size, chosen_set):
        assert sum(board.counts.values()) == squares_of(size)
        for name, count in board.counts.items():
            kind = BY_NAME[name]
            assert count >= kind.min, (board.seed, name, count)
            assert kind.max is None or count <= kind.max, (board.seed, name, count)


@pytest.mark.parametrize("size", list(SIZES))
def test_base_boards_always_hold_the_explorer(size: str) -> None:
    assert all("Explorer" in board.types for board in boards(size, Set.BASE))


@pytest.mark.parametrize("chosen_set", SETS)
@pytest.mark.parametrize("size", list(SIZES))
def test_boards_hold_five_or_six_types_on_base_six_or_seven_otherwise(
    size: str, chosen_set: Set
) -> None:
    seen = Counter(len(board.types) for board in boards(size, chosen_set))
    assert set(seen) == TYPE_COUNTS[chosen_set]


@pytest.mark.parametrize("chosen_set", SETS)
def test_each_number_of_types_is_equally_likely(chosen_set: Set) -> None:
    sample = all_boards(chosen_set)
    fewer = sum(len(board.types) == min(TYPE_COUNTS[chosen_set]) for board in sample)
    assert within(fewer / len(sample), 0.5, math.sqrt(0.25 / len(sample)))


@pytest.mark.parametrize("chosen_set", SETS)
@pytest.mark.parametrize("size", list(SIZES))
def test_types_come_only_from_the_allowed_sets(size: str, chosen_set: Set) -> None:
    seen = {name for board in boards(size, chosen_set) for name in board.types}
    assert {BY_NAME[name].set.value for name in seen} == ALLOWED[chosen_set]


def test_types_and_counts_read_the_squares() -> None:
    board = generate(9, "huge", "expert")
    order = [kind.name for kind in KINDS]
    assert list(board.types) == sorted(set(board.squares), key=order.index)
    assert board.counts == {name: board.squares.count(name) for name in board.types}


def test_kind_at_reads_rows_from_the_bottom() -> None:
    board = generate(3, "big", "advanced")  # 10 columns, 9 rows
    assert board.kind_at((0, 0)) is BY_NAME[board.squares[0]]
    assert board.kind_at((9, 0)) is BY_NAME[board.squares[9]]
    assert board.kind_at((0, 1)) is BY_NAME[board.squares[10]]
    assert board.kind_at((9, 8)) is BY_NAME[board.squares[89]]
    for cell in ((10, 0), (0, 9), (-1, 0)):
        with pytest.raises(IndexError):
            board.kind_at(cell)


# Rules 4 and 5: the weights.


def exact_base_shares() -> dict[str, float]:
    """The chance each non-Explorer base type is on a base board: the sum, over every ordered
    draw of 4 or 5 of them, of the product of each pick's weight over the weights left. Every
    such draw fits every size (only the Athlete has a maximum), so none is discarded."""
    others = [kind for kind in KINDS if kind.set is Set.BASE and kind.name != "Explorer"]
    shares = dict.fromkeys((kind.name for kind in others), 0.0)
    for picks in (4, 5):
        for order in itertools.permutations(others, picks):
            chance, left = 0.5, sum(kind.prob for kind in others)
            for kind in order:
                chance *= kind.prob / left
                left -= kind.prob
            for kind in order:
                shares[kind.name] += chance
    return shares


def prints(kinds: list[Kind], squares: int) -> bool:
    """Whether these types can fill the board within their limits (the generator's test for
    keeping a draw, written again)."""
    most = sum(math.inf if kind.max is None else kind.max for kind in kinds)
    return sum(kind.min for kind in kinds) <= squares <= most


def reference_shares(chosen_set: Set, size: str, draws: int, seed: int) -> Counter[str]:
    """How many of `draws` reference draws hold each type: sort the types by u ** (1 / prob)
    for a uniform u, keep the first 6 or 7, and draw again when they cannot fill the board."""
    rng = random.Random(seed)
    pool = [kind for kind in KINDS if kind.set.value in ALLOWED[chosen_set]]
    held: Counter[str] = Counter()
    for _ in range(draws):
        while True:
            count = rng.choice(sorted(TYPE_COUNTS[chosen_set]))
            keys = {kind.name: rng.random() ** (1 / kind.prob) for kind in pool}
            picked = sorted(pool, key=lambda kind: keys[kind.name], reverse=True)[:count]
            if prints(picked, squares_of(size)):
                break
        held.update(kind.name for kind in picked)
    return held


def test_base_types_follow_their_weights_exactly() -> None:
    """Over 4,000 base boards (a thousand per size) the share holding each type against the
    exact chance; the standard error is at most sqrt(0.25 / 4000) = 0.008, so the tolerance is
    at most 0.04, while drawing without weights would put the Guitarist 0.23 and the Baby 0.06
    away from the weighted chance."""
    sample = all_boards(Set.BASE)
    shares = exact_base_shares()
    assert shares["Guitarist"] > 0.8 > 0.6 > shares["Baby"]  # the weights matter here
    for name, chance in shares.items():
        observed = sum(name in board.types for board in sample) / len(sample)
        error = math.sqrt(chance * (1 - chance) / len(sample))
        assert within(observed, chance, error), (name, observed, chance)


@pytest.mark.slow
@pytest.mark.parametrize("chosen_set", [Set.ADVANCED, Set.EXPERT])
def test_types_follow_their_weights(chosen_set: Set) -> None:
    """Over 4,000 boards against 60,000 reference draws (15,000 per size, since a draw that
    cannot fill the board is discarded per size). The error of the difference of two shares is
    sqrt(p(1-p)(1/4000 + 1/60000)), at most 0.0082, so the tolerance is at most 0.041."""
    runs = 15_000
    reference: Counter[str] = Counter()
    for number, size in enumerate(SIZES):
        reference += reference_shares(chosen_set, size, runs, seed=number)
    total = runs * len(SIZES)
    sample = all_boards(chosen_set)
    held = Counter(name for board in sample for name in board.types)
    assert set(held) <= set(reference)
    for name, count in reference.items():
        chance = count / total
        error = math.sqrt(chance * (1 - chance) * (1 / len(sample) + 1 / total))
        assert within(held[name] / len(sample), chance, error), (name, held[name], chance)


def test_squares_beyond_the_minima_follow_the_weights() -> None:
    """On boards whose types have no maximum the squares beyond the minima fall to each type
    with chance weight / (sum of the board's weights), independently: the expected number and
    its variance follow board by board."""
    expected: Counter[str] = Counter()
    variance: Counter[str] = Counter()
    observed: Counter[str] = Counter()
    boards_seen = 0
    for chosen_set in SETS:
        for board in all_boards(chosen_set):
            kinds = [BY_NAME[name] for name in board.types]
            if any(kind.max is not None for kind in kinds):
                continue
            boards_seen += 1
            extra = len(board.squares) - sum(kind.min for kind in kinds)
            weight = sum(kind.prob for kind in kinds)
            for kind in kinds:
                chance = kind.prob / weight
                expected[kind.name] += extra * chance
                variance[kind.name] += extra * chance * (1 - chance)
                observed[kind.name] += board.counts[kind.name] - kind.min
    assert boards_seen > 1500
    for name, mean in expected.items():
        assert within(observed[name], mean, math.sqrt(variance[name])), (name, observed[name])


@pytest.mark.slow
def test_filling_with_maxima_matches_one_square_at_a_time() -> None:
    """The generator's batched fill against the rule's own wording, one square at a time among
    the types with room, on a small board where most maxima are reached only sometimes."""
    names = ["Guitarist", "Athlete", "King", "Photographer", "Actress", "Singer", "Pilot"]
    kinds = [BY_NAME[name] for name in names]
    squares, runs = 36, 6000

    def one_at_a_time(rng: random.Random) -> dict[str, int]:
        counts = {kind.name: kind.min for kind in kinds}
        for _ in range(squares - sum(counts.values())):
            room = [k for k in kinds if k.max is None or counts[k.name] < k.max]
            counts[rng.choices(room, weights=[k.prob for k in room])[0].name] += 1
        return counts

    rng = random.Random(11)
    batched = [generator._fill(rng, kinds, squares) for _ in range(runs)]
    single = [one_at_a_time(rng) for _ in range(runs)]
    for name in names:
        a = [counts[name] for counts in batched]
        b = [counts[name] for counts in single]
        spread = math.sqrt((_variance(a) + _variance(b)) / runs) or 1e-9
        assert within(sum(a) / runs, sum(b) / runs, spread), name
        assert max(a) == max(b)  # the maxima are reached by both


def _variance(values: list[int]) -> float:
    mean = sum(values) / len(values)
    return sum((value - mean) ** 2 for value in values) / (len(values) - 1)


# Draws that cannot fill the board.


def test_minima_of_any_draw_fit_the_smallest_board() -> None:
    """The careful draw relies on it: the largest minima a draw could hold fit every size."""
    fewest = min(squares_of(size) for size in SIZES)
    for chosen_set in SETS:
        pool = [kind for kind in KINDS if kind.set in SETS_UP_TO[chosen_set]]
        largest = sorted((kind.min for kind in pool), reverse=True)
        assert sum(largest[: max(TYPE_COUNTS[chosen_set])]) <= fewest


def test_some_draws_cannot_fill_the_board() -> None:
    """Why draws are discarded: these expert types cannot cover a small board."""
    names = ["King", "Singer", "Actress", "Photographer", "Pilot", "Athlete"]
    assert not prints([BY_NAME[name] for name in names], squares_of("small"))
    assert not generator.fits([BY_NAME[name] for name in names], squares_of("small"))


@pytest.mark.parametrize("chosen_set", SETS)
@pytest.mark.parametrize("size", list(SIZES))
def test_the_careful_draw_always_fills_the_board(
    size: str, chosen_set: Set, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no discards allowed every board comes from the careful draw; it still keeps every
    rule, so generation ends for every seed."""
    monkeypatch.setattr(generator, "REDRAWS", 0)
    for seed in range(150):
        board = generate(seed, size, chosen_set)
        assert len(board.types) in TYPE_COUNTS[chosen_set]
        assert chosen_set is not Set.BASE or "Explorer" in board.types
        for name, count in board.counts.items():
            kind = BY_NAME[name]
            assert kind.min <= count <= (kind.max or count)


# Rule 7: powers.


def test_main_powers_record_no_alternative() -> None:
    for chosen_set in SETS:
        for board in all_boards(chosen_set):
            assert board.alternative == frozenset()
            assert all(board.power(name) == BY_NAME[name].main for name in board.types)


@pytest.mark.parametrize("chosen_set", SETS)
def test_random_powers_record_only_real_alternatives(chosen_set: Set) -> None:
    """Only types on the board with a text of their own are recorded, each about half the
    time (standard error at most sqrt(0.25 / 400) = 0.025 per type)."""
    sample = [generate(seed, "regular", chosen_set, "random") for seed in range(2000)]
    on_board: Counter[str] = Counter()
    alternative: Counter[str] = Counter()
    for board in sample:
        assert board.alternative <= set(board.types)
        for name in board.types:
            kind = BY_NAME[name]
            if name in board.alternative:
                assert kind.alternative != kind.main
                assert board.power(name) == kind.alternative
            else:
                assert board.power(name) == kind.main
            on_board[name] += 1
            alternative[name] += name in board.alternative
    for name, seen in on_board.items():
        kind = BY_NAME[name]
        if kind.alternative == kind.main:
            assert alternative[name] == 0
        elif seen >= 400:
            assert within(alternative[name] / seen, 0.5, math.sqrt(0.25 / seen)), name
    if chosen_set is not Set.BASE:  # base types have no alternative text
        assert any(board.alternative for board in sample)


# Bad options.


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"size": "medium"}, "option size"),
        ({"size": "Regular"}, "option size"),
        ({"set": "pro"}, "option set"),
        ({"set": ""}, "option set"),
        ({"powers": "mixed"}, "option powers"),
        ({"powers": "alternative"}, "option powers"),
    ],
)
def test_bad_options_are_named(options: dict[str, str], named: str) -> None:
    with pytest.raises(OptionError, match=named) as caught:
        generate(1, **options)
    assert repr(next(iter(options.values()))) in str(caught.value)


@pytest.mark.parametrize("seed", ["12", 1.5, True, None])
def test_a_seed_is_a_whole_number(seed: object) -> None:
    with pytest.raises(OptionError, match="option seed"):
        generate(seed)  # type: ignore[arg-type]
