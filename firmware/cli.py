"""The `magboard` command: one entry point, a subcommand per job."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence

from magboard.hardware.spec import BoardSpecError

from .app.errors import CommandError
from .games import GameError, all_games, get_game
from .games.perft import perft_series
from .profiles import ProfileError


def _cmd_games(args: argparse.Namespace) -> int:
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


def _cmd_perft(args: argparse.Namespace) -> int:
    if args.depth < 1:
        raise CommandError(f"perft depth is 1 or more, not {args.depth}")
    game = get_game(args.game)
    state = game.new_state(game.parse_options(args.option))
    for depth, count in enumerate(perft_series(state, args.depth), start=1):
        print(f"perft {depth}: {count}", flush=True)
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from .play import play

    game = get_game(args.game)
    state = game.new_state(game.parse_options(args.option))
    return play(game, state, sys.stdin, sys.stdout)


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "lines":
        from .native import bench
    else:
        from magboard.sim import pipeline_bench as bench

    result = bench.measure(min_time=args.min_time)
    print(json.dumps(result, indent=2) if args.json else bench.format_report(result))
    return 0


def _delegate(module: str) -> Callable[[argparse.Namespace], int]:
    """A command whose code lives elsewhere (the simulator, the app), imported only when run,
    so `magboard games` never loads drivers or the simulator."""

    def run(args: argparse.Namespace) -> int:
        return importlib.import_module(module).main(args)

    return run


def _cmd_board_show(args: argparse.Namespace) -> int:
    from magboard.hardware.show import describe
    from magboard.hardware.spec import load_board

    print(describe(load_board(args.board)), end="")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="magboard", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_options(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sub.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a game option (see `magboard games`); repeat for several",
        )
        return sub

    games = commands.add_parser("games", help="list the games, their aliases and options")
    games.set_defaults(run=_cmd_games)

    perft = with_options(commands.add_parser("perft", help="count the game tree by turns"))
    perft.add_argument("game")
    perft.add_argument("depth", type=int)
    perft.set_defaults(run=_cmd_perft)

    play = with_options(commands.add_parser("play", help="play at this terminal"))
    play.add_argument("game")
    play.set_defaults(run=_cmd_play)

    board = commands.add_parser("board", help="board definitions")
    board_commands = board.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    show = board_commands.add_parser("show", help="pin map, LED map and budgets of a board")
    show.add_argument("board", help="a reference board (r1, mini) or a path to a board file")
    show.set_defaults(run=_cmd_board_show)

    run = with_options(commands.add_parser("run", help="referee a game on a board"))
    run.add_argument("--board", default="r1", help="board name or file (default r1)")
    run.add_argument("--game", default="tic-tac-toe")
    run.add_argument("--sim", action="store_true", help="the simulated board, driven from stdin")
    run.add_argument("--journal", metavar="PATH", help="where the game in progress is kept")
    run.add_argument(
        "--no-takeback", action="store_true", help="restoring a position undoes nothing"
    )
    run.add_argument(
        "--link",
        metavar="URL",
        help="also send events to a host and take its commands: a serial port (/dev/ttyGS0), "
        "socket://HOST:PORT, or pty (a pseudo-terminal; its path is printed)",
    )
    run.set_defaults(run=_delegate("magboard.firmware.app.run"))

    watch = commands.add_parser("watch", help="print the events a board sends over its link")
    watch.add_argument("url", help="the board's port: /dev/ttyACM0, /dev/pts/3, socket://HOST:PORT")
    watch.add_argument("--json", action="store_true", help="print the JSON lines as they come")
    watch.add_argument(
        "--leds", action="store_true", help="print LED frames too (--json prints them anyway)"
    )
    watch.add_argument(
        "--for", dest="seconds", type=float, metavar="SECONDS", help="stop after SECONDS"
    )
    watch.set_defaults(run=_delegate("magboard.host.watch"))

    send = commands.add_parser("send", help="send a board one command over its link")
    send.add_argument("url", help="the board's port: /dev/ttyACM0, /dev/pts/3, socket://HOST:PORT")
    send.add_argument(
        "command_name", metavar="COMMAND", help="hello | state | new-game | press BUTTON"
    )
    send.add_argument("args", nargs="*", help="the command's argument (press seat-1)")
    send.add_argument("--json", action="store_true", help="print the replies as JSON lines")
    send.add_argument("--leds", action="store_true", help="print LED frames too")
    send.add_argument(
        "--wait",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long to print what the board sends back (default 1)",
    )
    send.set_defaults(run=_delegate("magboard.host.watch"))

    scenario = commands.add_parser("scenario", help="run a scenario file in the simulator")
    scenario.add_argument("file")
    scenario.add_argument("--leds", action="store_true", help="print LED frames too")
    scenario.set_defaults(run=_delegate("magboard.sim.scenario"))

    demo = with_options(commands.add_parser("demo", help="a random game played in the simulator"))
    demo.add_argument("game", nargs="?", default="tic-tac-toe")
    demo.add_argument("--board", default="mini")
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--speed", type=float, default=4.0, help="times real time (0: no waiting)")
    demo.set_defaults(run=_delegate("magboard.sim.demo"))

    sim = with_options(commands.add_parser("sim", help="a simulated board in the browser"))
    sim.add_argument("--board", default="mini", help="board name or file (default mini)")
    sim.add_argument("--game", default="tic-tac-toe")
    sim.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    sim.add_argument("--port", type=int, default=8800, help="port to listen on (8800; 0: any)")
    sim.add_argument("--open", action="store_true", help="open the page in a web browser")
    sim.add_argument(
        "--allow-remote",
        action="store_true",
        help="let other machines connect (by default only this one may)",
    )
    sim.add_argument("--speed", type=float, default=1.0, help=argparse.SUPPRESS)
    sim.set_defaults(run=_delegate("magboard.sim.web.server"))

    soak = with_options(commands.add_parser("soak", help="many random games with faults"))
    soak.add_argument("--game", default="tic-tac-toe")
    soak.add_argument("--board", default="r1")
    soak.add_argument("--games", type=int, default=100)
    soak.add_argument("--seed", type=int, default=1)
    soak.add_argument("--json", action="store_true", help="print JSON instead of a table")
    soak.set_defaults(run=_delegate("magboard.sim.soak"))

    bench = commands.add_parser("bench", help="measure the hot paths")
    bench.add_argument("what", choices=["lines", "pipeline"])
    bench.add_argument("--json", action="store_true", help="print JSON instead of a table")
    bench.add_argument(
        "--min-time",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="least time spent timing each loop (more is steadier on a busy machine)",
    )
    bench.set_defaults(run=_cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except (GameError, CommandError, BoardSpecError, ProfileError) as error:
        print(f"magboard: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
