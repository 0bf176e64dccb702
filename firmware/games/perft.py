"""Perft: counting the game tree by complete turns, the check every rules engine is held to.

A node's children are the distinct positions one complete legal turn reaches (rules/README.md),
so a multi-action turn that reaches one position by two orders counts once.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from .core import CARRY_OUT, State


def settled(state: State) -> State:
    """The position once the turn's obligations are carried out (the hands follow the rules)."""
    return state.apply(CARRY_OUT) if state.obligations else state


def turn_results(state: State) -> dict[Hashable, State]:
    """The distinct positions reachable from `state` by one complete legal turn, by key; a
    turn's obligations are part of it."""
    results: dict[Hashable, State] = {}
    if state.outcome() is not None:
        return results
    start = state.turn
    pending = [state]
    expanded = {state}
    while pending:
        current = pending.pop()
        for action in current.legal_actions():
            after = current.apply(action)
            if after.turn != start or after.outcome() is not None:
                after = settled(after)
                results.setdefault(after.key(), after)
            elif after not in expanded:
                expanded.add(after)
                pending.append(after)
    return results


MEMO_LIMIT = 250_000
"""Most (position, depth) counts kept: past it the count is worked out again, so a deep or wide
perft runs slower rather than growing without bound."""


def perft(state: State, depth: int, memo: dict[tuple[State, int], int] | None = None) -> int:
    """Leaves of the turn tree `depth` turns deep (a finished game has no children)."""
    if depth < 0:
        raise ValueError("perft depth is 0 or more")
    if depth == 0:
        return 1
    memo = {} if memo is None else memo
    found = memo.get((state, depth))
    if found is None:
        found = sum(perft(child, depth - 1, memo) for child in turn_results(state).values())
        if len(memo) < MEMO_LIMIT:
            memo[(state, depth)] = found
    return found


def perft_stream(state: State, depth: int) -> Iterator[int]:
    """perft(1) .. perft(depth), each as soon as it is counted (a deep one may take long),
    sharing one bounded memo so each depth reuses the last."""
    memo: dict[tuple[State, int], int] = {}
    for d in range(1, depth + 1):
        yield perft(state, d, memo)


def perft_series(state: State, depth: int) -> list[int]:
    """perft(1) .. perft(depth)."""
    return list(perft_stream(state, depth))
