"""The firmware's subcommands of `magboard`: the rules at a terminal (games, perft, play), the
referee on the Pi's board (run), its self-test (selftest) and whether it is out of order
(maintenance), how well the board plays (strength); its benchmarks are `bench lines`,
`bench perft`, `bench ai` and `bench thinking`.

Cheap to import: each command imports what it needs when it runs, so listing the games never
loads a driver.
"""

from __future__ import annotations

import argparse
import sys

BENCHES = {
    "lines": "magboard.firmware.native.bench",
    "perft": "magboard.firmware.engine.perft_bench",
    "ai": "magboard.firmware.engine.ai_bench",
    "thinking": "magboard.firmware.engine.thinking_bench",
}
"""`magboard bench NAME`: the module that measures it (`measure` and `format_report`)."""


def add_game_options(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
    sub.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option (see `magboard games`); repeat for several",
    )
    return sub


def add(commands: argparse._SubParsersAction) -> None:
    games = commands.add_parser("games", help="list the games, their aliases and options")
    games.set_defaults(run=_games)
    export = games.add_subparsers(title="of the games played").add_parser(
        "export", help="the games played since a day, with their actions, as CSV or JSON"
    )
    export.add_argument(
        "--since", metavar="YYYY-MM-DD", required=True, help="the first day (local time)"
    )
    export.add_argument(
        "--journal",
        metavar="PATH",
        help="the state database (default: the configuration's, else the state directory's)",
    )
    form = export.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help="CSV, one row a game (the default)")
    form.add_argument("--json", action="store_true", help="a JSON list of games")
    export.set_defaults(run=_export)

    perft = add_game_options(commands.add_parser("perft", help="count the game tree by turns"))
    perft.add_argument("game")
    perft.add_argument("depth", type=int)
    perft.set_defaults(run=_perft)

    from .app.opponent_seat import add_arguments as add_ai_arguments

    play = add_game_options(commands.add_parser("play", help="play at this terminal"))
    play.add_argument("game")
    add_ai_arguments(play)
    play.set_defaults(run=_play)

    run = add_game_options(commands.add_parser("run", help="referee a game on a board"))
    run.add_argument(
        "--config",
        metavar="FILE",
        help="the operator's configuration (/etc/magboard/magboard.toml on an installed board); "
        "flags given here win over it",
    )
    add_ai_arguments(run)
    run.add_argument("--board", help="board name or file (default r1)")
    run.add_argument("--game", help="the game (default tic-tac-toe)")
    run.add_argument("--journal", metavar="PATH", help="the state database (the game, figures)")
    run.add_argument(
        "--no-takeback", action="store_true", help="restoring a position undoes nothing"
    )
    run.add_argument(
        "--link",
        metavar="URL",
        help="also send events to a host and take its commands: a serial port (/dev/ttyGS0), "
        "tcp://HOST:PORT (connect out), listen://HOST:PORT (hosts connect, several at once), "
        "or pty (a pseudo-terminal; its path is printed)",
    )
    run.add_argument(
        "--mqtt",
        metavar="URL",
        help="also report to an MQTT broker, mqtt[s]://[USER:PASSWORD@]HOST[:PORT]: events, "
        "status, health, figures; commands too when it is given a user",
    )
    run.add_argument(
        "--board-id",
        metavar="ID",
        help="the board's name on MQTT, magboard/ID/... (default: the host name)",
    )
    run.add_argument(
        "--remote",
        metavar="URL",
        help="play one game with another board through an MQTT broker, "
        "mqtt[s]://[USER:PASSWORD@]HOST[:PORT]/MATCH-ID (the same on both boards)",
    )
    run.add_argument(
        "--seat",
        metavar="SEAT",
        help="with --remote: the seats whose pieces are moved on this board, by name or number "
        "(X, or 1; several: A,C); the other board plays the others",
    )
    run.set_defaults(run=_run)

    selftest = commands.add_parser(
        "selftest", help="check every square of a board: sensors, LEDs, expanders, the bus"
    )
    selftest.add_argument("--board", default="r1", help="board name or file (default r1)")
    selftest.add_argument(
        "--channels",
        nargs="+",
        metavar="CHANNEL",
        help="the cell channels the test magnet trips (default: all of the board's)",
    )
    selftest.add_argument(
        "--square-seconds",
        type=float,
        metavar="SECONDS",
        help="time for each square before its sensors count as dead (default 10)",
    )
    selftest.add_argument(
        "--clear-seconds",
        type=float,
        metavar="SECONDS",
        help="time to clear the board before a sensor still on counts as stuck (default 30)",
    )
    selftest.add_argument("--json", action="store_true", help="print the report as JSON")
    selftest.add_argument(
        "--journal",
        metavar="PATH",
        help="keep the report in this state database (default: the board's; with --sim, none)",
    )
    selftest.set_defaults(run=_selftest)

    strength = commands.add_parser(
        "strength", help="how well the board plays: strong against random and against easy"
    )
    strength.add_argument("--games", type=int, default=200, help="games against random a seat")
    strength.add_argument("--easy-games", type=int, default=100, help="games against easy a seat")
    strength.add_argument(
        "--budget", type=float, default=0.1, metavar="SECONDS", help="strong's thinking a turn"
    )
    strength.add_argument("--game", action="append", default=[], help="only this game (repeat)")
    strength.add_argument("--jobs", type=int, default=2, help="games played side by side")
    strength.add_argument("--json", action="store_true", help="print JSON instead of a table")
    strength.set_defaults(run=_strength)

    stats = commands.add_parser("stats", help="what the board has been used for")
    stats.add_argument(
        "--journal",
        metavar="PATH",
        help="the state database (default: the configuration's, else the state directory's)",
    )
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.set_defaults(run=_stats)

    maintenance = commands.add_parser(
        "maintenance", help="take the board out of order, or put it back in service"
    )
    maintenance.add_argument(
        "switch",
        choices=("on", "off", "status"),
        help="on: out of order (refereeing waits, the game is kept); off: back in service",
    )
    maintenance.add_argument("--reason", default="", help="why, for the status and the fleet")
    maintenance.add_argument(
        "--journal",
        metavar="PATH",
        help="the state database the board keeps its state beside (default: the "
        "configuration's, else the state directory's)",
    )
    maintenance.set_defaults(run=_maintenance)


def _games(args: argparse.Namespace) -> int:
    from .games import all_games

    for game in all_games():
        aliases = f" (also: {', '.join(game.aliases)})" if game.aliases else ""
        print(f"{game.name}{aliases}")
        print(f"    {game.summary}")
        for option in game.options:
            choices = f" [{' | '.join(map(str, option.choices))}]" if option.choices else ""
            default = (
                str(option.default).lower() if isinstance(option.default, bool) else option.default
            )
            print(f"    --option {option.name}={default}{choices}  {option.help}")
    return 0


def _perft(args: argparse.Namespace) -> int:
    from .app.errors import CommandError
    from .engine.linegames import encode, game_of, kernel
    from .games import get_game
    from .games.perft import perft_stream

    if args.depth < 1:
        raise CommandError(f"perft depth is 1 or more, not {args.depth}")
    game = get_game(args.game)
    options = game.parse_options(args.option)
    state = game.new_state(options)
    longest = _declared_longest(game, options)
    if longest is not None and args.depth > longest:
        raise CommandError(
            f"perft depth {args.depth} is past the longest {game.name} game ({longest} turns)"
        )
    engine = game_of(state)
    if engine is not None:  # the three line games: the engine counts what the States count
        position, count_turns = encode(state), kernel().perft
        counts = (count_turns(engine, position, depth) for depth in range(1, args.depth + 1))
    else:
        counts = perft_stream(state, args.depth)
    for depth, count in enumerate(counts, start=1):
        if count == 0:  # no game is this long: the depth asked for is past the game's length
            raise CommandError(
                f"perft depth {args.depth} is past the longest {game.name} game ({depth - 1} turns)"
            )
        print(f"perft {depth}: {count}", flush=True)
    return 0


def _declared_longest(game, options: dict) -> int | None:
    """A game's own bound on its length, where it declares one (`Game.ends_at_max_turns`)."""
    return game.resolve_options(options)["max_turns"] if game.ends_at_max_turns else None


def _play(args: argparse.Namespace) -> int:
    from .app.opponent_seat import from_args, needs_seat
    from .games import get_game
    from .play import play

    game = get_game(args.game)
    options = game.parse_options(args.option)
    state = game.new_state(options)
    seat, budget = from_args(args, game, options)
    needs_seat(seat, budget)
    return play(game, state, sys.stdin, sys.stdout, seat, budget=budget)


def _strength(args: argparse.Namespace) -> int:
    import json

    from .app.errors import CommandError
    from .engine.strength import format_report, measure
    from .games import get_game

    if min(args.games, args.easy_games, args.jobs) < 1 or not args.budget > 0:
        raise CommandError("strength: games, easy games and jobs are 1 or more; budget over 0")
    names = tuple(get_game(name).name for name in args.game)
    result = measure(args.games, args.easy_games, args.budget, names, args.jobs)
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0 if all(s["passed"] for s in result["standings"]) else 1


def _export(args: argparse.Namespace) -> int:
    import json
    import time

    from .app.config import state_database
    from .app.errors import CommandError
    from .stats import games_csv, read_games

    try:
        since = time.mktime(time.strptime(args.since, "%Y-%m-%d"))
    except ValueError:
        raise CommandError(f"--since {args.since}: a day as YYYY-MM-DD") from None
    games = read_games(state_database(args.journal), since)
    print(json.dumps(games, indent=2) if args.json else games_csv(games), end="\n" * args.json)
    return 0


def _stats(args: argparse.Namespace) -> int:
    from .app.config import state_database
    from .app.selftest_report import SelfTestReport
    from .stats import read_usage, usage_json, usage_lines

    usage = read_usage(state_database(args.journal))
    if args.json:
        print(usage_json(usage))
        return 0
    selftest = None
    if usage.selftest is not None:
        try:
            selftest = SelfTestReport.from_dict(usage.selftest).lines()
        except (KeyError, TypeError, ValueError):
            selftest = None  # kept by another version: said so, not guessed at
    print("\n".join(usage_lines(usage, selftest)))
    return 0


def _maintenance(args: argparse.Namespace) -> int:
    from .app.config import state_database
    from .app.errors import CommandError
    from .app.maintenance import (
        MaintenanceError,
        maintenance_file,
        read,
        set_in_service,
        set_out_of_order,
    )

    path = maintenance_file(state_database(args.journal))
    if args.reason and args.switch != "on":
        raise CommandError("--reason goes with `maintenance on`")
    try:
        if args.switch == "on":
            set_out_of_order(path, args.reason)
        elif args.switch == "off":
            set_in_service(path)
    except MaintenanceError as error:
        raise CommandError(str(error)) from None
    state = read(path)
    if state is None:
        print("in service")
    else:
        since = state.since.isoformat(sep=" ", timespec="minutes")
        print(f"out of order since {since}: {state.reason or 'no reason given'}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from .app.run import main

    return main(args)


def _selftest(args: argparse.Namespace) -> int:
    from .app.selftest_command import main

    return main(args)
