"""Two (or more) people at one terminal, or people against the board's opponent (`--ai`): the
board drawn, moves typed in game notation, the opponent's turns printed and played."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from .engine.opponent import DEFAULT_BUDGET, AiSeat, Opponent
from .games import Game, GameError, State

HELP = """\
Type a move in the game's notation (for example b2), or:
  moves   list the legal moves
  undo    take back the last action (against the board: your last move and its reply)
  help    show this text
  quit    leave the game"""


def describe_turn(state: State) -> str:
    name = state.player_name
    if state.turn_actions:
        done = " ".join(map(str, state.turn_actions))
        more = " (or 'end' to finish the turn)" if state.can_end_turn else ""
        return f"{name} continues the turn after {done}{more}"
    return f"{name} to move"


def describe_outcome(state: State) -> str:
    outcome = state.outcome()
    assert outcome is not None
    if outcome.draw:
        return f"Draw: {outcome.reason}."
    names = " and ".join(state.game.seats[p] for p in outcome.winners)
    return f"{names} wins: {outcome.reason}."


def deciding(state: State) -> int:
    """The seat whose decision the position waits for: a pending chooser, else the mover."""
    return state.to_move if state.chooser is None else state.chooser


def play(
    game: Game,
    state: State,
    stdin: TextIO,
    stdout: TextIO,
    ai: AiSeat | None = None,
    *,
    budget: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    seed: int | None = None,
) -> int:
    """Runs a game to its end or until the players quit; returns the exit status. With `ai`,
    the opponent plays that seat: its turns are printed, then played."""
    history: list[State] = []
    budget = DEFAULT_BUDGET if budget is None else budget
    opponent = None if ai is None else Opponent(ai.level, clock=clock, budget=budget, seed=seed)

    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    say(f"{game.title}. Type 'help' for commands.")
    while True:
        say()
        say(str(state))
        if state.outcome() is not None:
            say(describe_outcome(state))
            return 0
        if ai is not None and opponent is not None and deciding(state) == ai.seat:
            actions = opponent.choose(state)
            shown = " ".join(str(a) for a in actions)
            say(f"The board plays {game.seats[ai.seat]} ({ai.level.value}): {shown}")
            history.append(state)
            for action in actions:
                state = state.apply(action)
            continue
        say(describe_turn(state))
        stdout.write("> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            say()
            return 0
        text = line.strip()
        command = text.lower()
        if not text:
            continue
        if command in ("quit", "exit", "q"):
            return 0
        if command in ("help", "h"):
            say(HELP)
        elif command in ("moves", "?"):
            say("Legal moves: " + " ".join(map(str, state.legal_actions())))
        elif command == "undo":
            mine = [n for n, s in enumerate(history) if ai is None or deciding(s) != ai.seat]
            if mine:
                state = history[mine[-1]]
                del history[mine[-1] :]
            else:
                say("Nothing to take back.")
        else:
            try:
                action = state.parse_action(text)
            except GameError as error:
                say(f"Not accepted: {str(error).splitlines()[0]}. Type 'moves' for the list.")
                continue
            history.append(state)
            state = state.apply(action)
