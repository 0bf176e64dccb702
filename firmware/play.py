"""Two (or more) people at one terminal: the board drawn, moves typed in game notation."""

from __future__ import annotations

from typing import TextIO

from .games import Game, GameError, State

HELP = """\
Type a move in the game's notation (for example b2), or:
  moves   list the legal moves
  undo    take back the last action
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


def play(game: Game, state: State, stdin: TextIO, stdout: TextIO) -> int:
    """Runs a game to its end or until the players quit; returns the exit status."""
    history: list[State] = []

    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    say(f"{game.title}. Type 'help' for commands.")
    while True:
        say()
        say(str(state))
        if state.outcome() is not None:
            say(describe_outcome(state))
            return 0
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
            if history:
                state = history.pop()
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
