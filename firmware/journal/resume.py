"""A game rebuilt from the journal: each kept event folded into it, its records read back in
order, and the check that its actions replay under its rules."""

from __future__ import annotations

from typing import Any

from ..events import (
    ClockChanged,
    Event,
    Fulfilled,
    GameOver,
    GameStarted,
    Moved,
    Partial,
    TakenBack,
)
from ..games import CARRY_OUT, GameError, get_game
from .records import RecordedGame, crc, numbers, read_json, read_record


def fold(game: RecordedGame, event: Event, wall: float) -> None:
    """What a kept event (other than a start) does to the game's actions and figures."""
    if isinstance(event, Moved):
        game.done += event.actions
        game.partial = ()
        game.turns = event.turn
    elif isinstance(event, Partial):
        game.partial = event.actions
    elif isinstance(event, Fulfilled):
        game.done.append(str(CARRY_OUT))
    elif isinstance(event, ClockChanged):
        game.reserves = event.reserves
    elif isinstance(event, TakenBack):
        del game.done[max(0, len(game.done) - len(event.actions)) :]
        game.partial = ()
        game.takebacks += 1
        game.turns = max(0, game.turns - 1)
        game.result, game.ended, game.winners = None, None, None
    elif isinstance(event, GameOver):
        game.result, game.ended, game.winners = "finished", wall, event.winners


def rebuilt(
    rows: list[tuple[int, bytes, bytes]],
    problems: dict[int, str],
    began: dict[str, Any] | None = None,
) -> list[tuple[int, RecordedGame]]:
    """The game as each record leaves it, in order: a snapshot gives it whole, a delta puts its
    tail on what came before (from `began`, the game with no actions, if the first snapshot
    does not read), checked against its checksum. A record that does not read goes
    into `problems` and is passed over (the next tail covers it); a delta that does not fit
    goes there too when nothing was lost before it, and gives nothing when something was (more
    records lost in a row than a tail covers), until one fits or the next snapshot."""
    games: list[tuple[int, RecordedGame]] = []
    whole = began  # the last snapshot read: the game, options, board, match
    done: list[str] = []
    intact = True  # no record passed over since `done` was last rebuilt
    reserves: tuple[float, ...] | None = None
    for seq, event_data, held in rows:
        event, problem = read_json(event_data)
        record = None
        if problem is None:
            record, problem = read_record(held)
        if problem is not None or record is None or not isinstance(event, dict):
            problems[seq] = problem or "not an event"
            intact = False
            continue
        if event.get("type") == ClockChanged.TYPE and numbers(event.get("reserves")):
            reserves = tuple(event["reserves"])
        if "done" in record:
            whole, done = record, list(record["done"])
            reserves = None if record["reserves"] is None else tuple(record["reserves"])
        else:
            tail = record["tail"]
            start = record["length"] - len(tail)
            rebuilt = done[:start] + tail
            if whole is None or start > len(done) or crc(rebuilt) != record["crc"]:
                if intact:  # nothing lost before it: the record itself is wrong
                    problems[seq] = "does not replay: it disagrees with the records before it"
                continue
            done = rebuilt
        intact = True
        games.append(
            (
                seq,
                RecordedGame(
                    whole["game"],
                    dict(whole["options"]),
                    whole["board"],
                    0.0,
                    list(done),
                    tuple(record.get("partial", ())),
                    reserves,
                    match=whole.get("match"),
                ),
            )
        )
    return games


def replay_problem(game: RecordedGame) -> str | None:
    """Why the game's actions do not replay under its rules, or None if they do."""
    try:
        state = get_game(game.game).new_state(dict(game.options))
        for text in (*game.done, *game.partial):
            state = state.apply(state.parse_action(text))
    except (ValueError, KeyError, TypeError, GameError) as error:
        return f"does not replay: {error}"
    return None


def turns_done(started: GameStarted) -> tuple[list[str], tuple[str, ...]]:
    """A resumed game's actions, split into whole turns (and obligations carried out) and the
    turn in progress: the events that follow tell the turn in progress again from its start
    (`partial`, `move`), so counting it as done would play it twice."""
    actions = list(started.actions)
    try:
        state = get_game(started.game).new_state(dict(started.options))
        whole = 0
        for n, text in enumerate(actions, start=1):
            before, action = state.turn, state.parse_action(text)
            state = state.apply(action)
            if action == CARRY_OUT or state.turn != before or state.outcome() is not None:
                whole = n  # an obligation carried out is journalled apart from any turn
    except GameError:
        return actions, ()  # not this program's game: the referee refuses it when replayed
    return actions[:whole], tuple(actions[whole:])
