"""Every magboard game as an OpenSpiel game, so OpenSpiel's algorithms run on them (the
`openspiel` extra: `pip install 'magboard[openspiel]'`).

Importing this module registers each game as `magboard_<name>` (dashes as underscores), its
options as the game's parameters with the rules' defaults:

    import pyspiel
    import magboard.host.openspiel
    game = pyspiel.load_game("magboard_meep_tac_toe(maneuver=advanced)")

A state is the rules' own State, so what OpenSpiel may play is exactly what the referee accepts.
OpenSpiel's actions are numbers fixed per game and options: the index of the action in the
game's universe, every action any of its positions can have (`universe`). What the rules leave
to hands, carrying captured pieces off and a forced pass, is done at once, never a decision.
Returns are +1 for a win, -1 for a loss, 0 for a draw between two players; with three or four
(Magnetmen) a winner's share of one, the rest 0. Lance Assembly is a whole match, without clocks
(a search has no hands to run out of time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyspiel

from magboard.firmware.engine.mcts import actor
from magboard.firmware.engine.playout import rewards
from magboard.firmware.games import (
    CARRY_OUT,
    END_TURN,
    PASS,
    Action,
    Game,
    State,
    get_game,
    meeplemaneuver,
    meeptactoe,
    sized,
    tictactoe,
)
from magboard.firmware.games.grid import Cell
from magboard.firmware.games.lance import engine as lance_engine
from magboard.firmware.games.magnetmen.kinds import KINDS
from magboard.firmware.games.magnetmen.rules import Collect, Destroy, DestroyIcon, GainIcon
from magboard.firmware.games.tiles import WAYS, QuarterTurn, Shift
from magboard.firmware.native import py_lance

PREFIX = "magboard_"
FIXED = {"lance-assembly": {"clock": "none"}}
"""Options an OpenSpiel game cannot take another way (clocks need hands and time)."""


def short_name(game: Game) -> str:
    return PREFIX + game.name.replace("-", "_")


def _size(state: State) -> tuple[int, int]:
    return (state.width, state.height) if hasattr(state, "width") else state.game.board


def _cells(state: State) -> list[Cell]:
    width, height = _size(state)
    return [(x, y) for y in range(height) for x in range(width)]


def _tile_actions(state: State) -> list[Action]:
    """Every shift and quarter turn of a tile lying anywhere in the area."""
    width, height = _size(state)
    origins = [(x, y) for y in range(height - 1) for x in range(width - 1)]
    return [
        *(Shift(origin, way) for origin in origins for way in WAYS),
        *(QuarterTurn(origin, clockwise) for origin in origins for clockwise in (True, False)),
    ]


def _line_game(state: State) -> list[Action]:
    return [tictactoe.Place(cell) for cell in _cells(state)]


def _sized(state: State) -> list[Action]:
    return [sized.Place(size, cell) for size in sized.SIZES for cell in _cells(state)]


def _lance(state: State) -> list[Action]:
    codes = [*range(py_lance.END + 1), *range(py_lance.SLIDE, py_lance.CODES)]
    return [lance_engine.action_of(code) for code in codes]


def _meep(state: State) -> list[Action]:
    cells = set(_cells(state))
    moves = [
        meeptactoe.Move(cell, (cell[0] + dx, cell[1] + dy))
        for cell in _cells(state)
        for dx, dy in meeptactoe.ORTHOGONAL
        if (cell[0] + dx, cell[1] + dy) in cells
    ]
    return [*moves, *_tile_actions(state)]


def _meeples(state: State) -> list[Action]:
    places = [meeplemaneuver.Place(kind, cell) for kind in (0, 1) for cell in _cells(state)]
    return [*places, *_tile_actions(state)]


def _magnetmen(state: State) -> list[Action]:
    cells, seats, kinds = _cells(state), range(state.players), [kind.name for kind in KINDS]
    return [
        *(Collect(cell) for cell in cells),
        *(Destroy(cell) for cell in cells),
        *(
            DestroyIcon(seat, kind, square)
            for seat in seats
            for kind in kinds
            for square in (None, *cells)
        ),
        *(GainIcon(seat, kind) for seat in seats for kind in kinds),
    ]


UNIVERSES: dict[str, Callable[[State], list[Action]]] = {
    "tic-tac-toe": _line_game,
    "tic-tac-cap": _sized,
    "tic-tac-doh": _sized,
    "lance-assembly": _lance,
    "meep-tac-toe": _meep,
    "meeple-maneuver": _meeples,
    "magnetmen": _magnetmen,
}


def universe(state: State) -> tuple[Action, ...]:
    """Every action a position of `state`'s game (with its options) can have, in a fixed order:
    an OpenSpiel action is an index into it. Ending a turn that could go on is the last."""
    return (*UNIVERSES[state.game.name](state), END_TURN)


def _settled(state: State) -> State:
    """`state` with what the rules leave to hands done: captured pieces carried off, forced
    passes made."""
    while state.outcome() is None and (state.obligations or state.must_pass):
        state = state.advance(CARRY_OUT if state.obligations else PASS)
    return state


def _longest(state: State, options: dict[str, Any]) -> int:
    """An upper bound on a game's actions: a few per turn for games that end at `max_turns`
    (Lance Assembly per bout; a match of stalemates has no bound, taken as ten bouts), else
    each cell filled three times over by every player."""
    cells = len(_cells(state))
    if "max_turns" in options:
        bouts = 10 if state.game.name == "lance-assembly" else 1
        return options["max_turns"] * 4 * bouts
    return cells * 3 * state.players


class MagboardGame(pyspiel.Game):
    """One of the rules' games with its options (OpenSpiel parameters)."""

    game: Game

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        options = {**(params or {}), **FIXED.get(self.game.name, {})}
        self.options = self.game.resolve_options(options)
        self.start = _settled(self.game.new_state(self.options))
        self.actions = universe(self.start)
        self.ids = {action: number for number, action in enumerate(self.actions)}
        players = self.start.players
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.actions),
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0 if players == 2 else 0.0,
            max_utility=1.0,
            utility_sum=0.0 if players == 2 else 1.0,
            max_game_length=_longest(self.start, self.options),
        )
        super().__init__(_game_type(self.game), info, params or {})

    def new_initial_state(self) -> MagboardState:
        return MagboardState(self, self.start)

    def make_py_observer(self, iig_obs_type=None, params=None) -> Observer:
        return Observer()


class MagboardState(pyspiel.State):
    """A position of the rules (`state`), between decisions."""

    def __init__(self, game: MagboardGame, state: State) -> None:
        super().__init__(game)
        self.state = state

    @property
    def spiel(self) -> MagboardGame:
        return self.get_game()

    def current_player(self) -> int:
        if self.state.outcome() is not None:
            return pyspiel.PlayerId.TERMINAL
        return actor(self.state)

    def _legal_actions(self, player: int) -> list[int]:
        ids = self.spiel.ids
        return sorted(ids[action] for action in self.state.legal_actions())

    def _apply_action(self, action: int) -> None:
        self.state = _settled(self.state.advance(self.spiel.actions[action]))

    def _action_to_string(self, player: int, action: int) -> str:
        return f"{self.spiel.game.seats[player]} {self.spiel.actions[action]}"

    def is_terminal(self) -> bool:
        return self.state.outcome() is not None

    def returns(self) -> list[float]:
        outcome = self.state.outcome()
        players = self.state.players
        if outcome is None:
            return [0.0] * players
        shares = rewards(outcome, players)
        return [2 * s - 1 for s in shares] if players == 2 else list(shares)

    def __str__(self) -> str:
        return str(self.state)


class Observer:
    """What a player sees: the whole position (the games are of perfect information), as text."""

    def __init__(self) -> None:
        self.tensor: Any = []
        self.dict: dict[str, Any] = {}

    def set_from(self, state: MagboardState, player: int) -> None:
        pass

    def string_from(self, state: MagboardState, player: int) -> str:
        return f"{state.state}\nto move: {state.current_player()}"


def _game_type(game: Game) -> pyspiel.GameType:
    seats = len(game.seats)
    fixed = FIXED.get(game.name, {})
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"magboard {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM
            if seats == 2
            else pyspiel.GameType.Utility.CONSTANT_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=seats,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={
            option.name: option.default for option in game.options if option.name not in fixed
        },
    )


def register() -> None:
    """Registers every game (once: OpenSpiel keeps a name to one game)."""
    known = set(pyspiel.registered_names())
    for game in map(get_game, UNIVERSES):
        if short_name(game) in known:
            continue
        cls = type(f"{game.title.replace(' ', '')}Game", (MagboardGame,), {"game": game})
        pyspiel.register_game(_game_type(game), cls)


register()
