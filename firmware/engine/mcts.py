"""Monte Carlo tree search over the rules' own positions, one atomic action an edge.

Searching atomic actions rather than whole turns keeps every game's tree small at the top: a
turn of several actions (a tile placed, then one of hundreds of slides, another tile anywhere in
between) is a few levels of a few dozen edges, never one node with thousands of children. The
tree's positions are `State`s, so what it may play is exactly what the referee accepts; the
playouts below it are the fast part (`playout`, with C kernels where the time goes).

Each node keeps every seat's summed reward, so two to four players search alike (each player
maximises their own share: the "max^n" reading of UCT).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from magboard.firmware.games import CARRY_OUT, Action, State

from .ends import ended
from .playout import playout

Playout = Callable[[State, random.Random], tuple[float, ...]]


def actor(state: State) -> int:
    """The seat whose decision the position waits for: a pending chooser, else the mover."""
    chooser = state.chooser
    return state.to_move if chooser is None else chooser


def settle(state: State) -> State:
    """The position once its obligations are carried out: the hands follow the rules, so a
    search never spends a decision on them."""
    while state.obligations and ended(state) is None:
        state = state.advance(CARRY_OUT)
    return state


@dataclass(eq=False)
class Node:
    """A position in the tree; `totals` are summed rewards per seat over `visits` playouts."""

    state: State
    seat: int
    """Who decides here (`actor`)."""
    result: tuple[float, ...] | None
    """The rewards, when the search ends here (the game, or its search's horizon, is over)."""
    untried: list[Action] = field(default_factory=list)
    children: dict[Action, Node] = field(default_factory=dict)
    visits: int = 0
    totals: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, state: State) -> Node:
        state = settle(state)
        result = ended(state)
        untried = [] if result is not None else list(state.legal_actions())
        return cls(state, actor(state), result, untried, totals=[0.0] * state.players)

    def take_untried(self, rng: random.Random) -> Action:
        """An untried action at random (swapped to the end and popped: no shuffle of a list
        that is mostly never tried)."""
        untried, i = self.untried, rng.randrange(len(self.untried))
        untried[i], untried[-1] = untried[-1], untried[i]
        return untried.pop()

    def mean(self, seat: int) -> float:
        return self.totals[seat] / self.visits if self.visits else 0.0


class Search:
    """A tree grown from one position, reusable down the actions actually taken."""

    def __init__(
        self,
        root: State,
        rng: random.Random,
        *,
        exploration: float = 0.9,
        rollout: Playout = playout,
    ) -> None:
        self.rng = rng
        self.exploration = exploration
        self.rollout = rollout
        self.root = Node.of(root)

    def run(self, clock: Callable[[], float], deadline: float, iterations: int) -> int:
        """Grows the tree until `deadline` on `clock` or `iterations` playouts, whichever comes
        first; returns the playouts made. The clock is read before each, so a playout is the
        most a search runs over."""
        done = 0
        while done < iterations and clock() < deadline:
            self._iterate()
            done += 1
        return done

    def best(self) -> Action:
        """The most visited action at the root (the robust choice), best mean on a tie."""
        root = self.root
        if not root.children:  # not one playout yet: any legal action
            return root.take_untried(self.rng)
        seat = root.seat
        return max(root.children.items(), key=lambda item: (item[1].visits, item[1].mean(seat)))[0]

    def descend(self, action: Action) -> None:
        """The root becomes the position after `action`, keeping what was learnt below it."""
        child = self.root.children.get(action)
        self.root = child if child is not None else Node.of(self.root.state.advance(action))

    def _iterate(self) -> None:
        node, path = self.root, [self.root]
        while node.result is None and not node.untried and node.children:
            node = self._select(node)
            path.append(node)
        if node.result is None and node.untried:
            action = node.take_untried(self.rng)
            child = Node.of(node.state.advance(action))
            node.children[action] = child
            node = child
            path.append(node)
        reward = node.result if node.result is not None else self.rollout(node.state, self.rng)
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for seat, value in enumerate(reward):
                totals[seat] += value

    def _select(self, node: Node) -> Node:
        seat, scale = node.seat, self.exploration * math.sqrt(math.log(node.visits))
        best, best_score = None, -math.inf
        for child in node.children.values():
            score = child.totals[seat] / child.visits + scale / math.sqrt(child.visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best
