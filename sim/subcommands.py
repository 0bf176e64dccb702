"""The simulator's subcommands of `magboard`: scenario, demo, sim (the web page) and soak, and
`--sim` for the firmware's `run` and `selftest`; its benchmarks are `bench pipeline` and
`bench scan`.

Cheap to import: each command imports the simulator when it runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.opponent_seat import add_arguments as add_ai_arguments
from magboard.firmware.games import DEFAULT_GAME
from magboard.firmware.subcommands import add_game_options

BENCHES = {
    "pipeline": "magboard.sim.pipeline_bench",
    "scan": "magboard.sim.scan_bench",
    "journal": "magboard.sim.journal_year",
}
"""`magboard bench NAME`: the module that measures it (`measure` and `format_report`)."""

Command = Callable[[argparse.Namespace], int]


def add(commands: argparse._SubParsersAction) -> None:
    """Adds the simulator's commands; the firmware's `run` and `selftest` must be there already."""
    _add_sim_to_run(commands.choices["run"])
    _add_sim_to_selftest(commands.choices["selftest"])

    scenario = commands.add_parser("scenario", help="run a scenario file in the simulator")
    scenario.add_argument("file")
    scenario.add_argument("--leds", action="store_true", help="print LED frames too")
    scenario.add_argument(
        "--machine",
        action="store_true",
        help="on the emulated machine, in real time (its hands' steps only; minutes)",
    )
    scenario.set_defaults(run=_scenario)

    demo = add_game_options(
        commands.add_parser("demo", help="a random game played in the simulator")
    )
    demo.add_argument("game", nargs="?", default=DEFAULT_GAME)
    demo.add_argument("--board", default="mini")
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--speed", type=float, default=4.0, help="times real time (0: no waiting)")
    demo.set_defaults(run=_demo)

    sim = add_game_options(commands.add_parser("sim", help="a simulated board in the browser"))
    sim.add_argument("--board", default="mini", help="board name or file (default mini)")
    sim.add_argument("--game", default=DEFAULT_GAME)
    add_ai_arguments(sim)
    sim.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    sim.add_argument("--port", type=int, default=8800, help="port to listen on (8800; 0: any)")
    sim.add_argument("--open", action="store_true", help="open the page in a web browser")
    sim.add_argument(
        "--allow-remote",
        action="store_true",
        help="let other machines connect (by default only this one may)",
    )
    sim.add_argument(
        "--config",
        metavar="FILE",
        help="keep this configuration's [hours], and its state directory's maintenance state",
    )
    sim.add_argument(
        "--at",
        metavar="YYYY-MM-DDTHH:MM",
        help="the simulated board's date and time at start (default: now)",
    )
    sim.add_argument("--speed", type=float, default=1.0, help=argparse.SUPPRESS)
    sim.set_defaults(run=_web)

    soak = add_ai_arguments(
        add_game_options(commands.add_parser("soak", help="many random games with faults"))
    )
    soak.add_argument("--game", default=DEFAULT_GAME)
    soak.add_argument("--board", default="r1")
    soak.add_argument("--games", type=int, default=100)
    soak.add_argument("--seed", type=int, default=1)
    soak.add_argument("--json", action="store_true", help="print JSON instead of a table")
    soak.add_argument(
        "--verbose", action="store_true", help="also print the first failures, to replay them"
    )
    soak.add_argument(
        "--journal", metavar="PATH", help="keep the games in this state database (magboard stats)"
    )
    soak.add_argument(
        "--remote",
        action="store_true",
        help="two boards playing each game through a private MQTT broker (mosquitto)",
    )
    soak.set_defaults(run=_soak)


def _add_sim_to_run(run: argparse.ArgumentParser) -> None:
    """`magboard run --sim`: the same request, on the simulated board (sim/console.py)."""
    on_board: Command = run.get_default("run")
    run.add_argument(
        "--sim",
        action="store_true",
        help="the simulated board, driven from stdin; its games are kept apart from the real "
        "board's (in a sim directory beside its journal) unless --journal says where",
    )
    run.add_argument("--leds", action="store_true", help="with --sim: print LED frames too")

    def run_on_either(args: argparse.Namespace) -> int:
        if not args.sim:
            return on_board(args)
        from .console import main

        return main(args)

    run.set_defaults(run=run_on_either)


def _add_sim_to_selftest(selftest: argparse.ArgumentParser) -> None:
    """`magboard selftest --sim`: on a simulated board, broken as asked, with a simulated person
    following the lights (sim/selftest.py)."""
    on_board: Command = selftest.get_default("run")
    selftest.add_argument(
        "--sim", action="store_true", help="the simulated board, and a simulated person"
    )
    breaks = selftest.add_argument_group("breaking the simulated board (with --sim)")
    breaks.add_argument(
        "--stuck",
        nargs="+",
        action="extend",
        default=[],
        metavar="SENSOR",
        help="a sensor that always reads a magnet: c3.n, or a square (its first sensor)",
    )
    breaks.add_argument(
        "--dead-expander",
        nargs="+",
        action="extend",
        default=[],
        metavar="EXPANDER",
        help="an expander that never answers: U11, 0x22, or ch1:0x22 behind a mux",
    )
    breaks.add_argument(
        "--dead-led",
        nargs="+",
        action="extend",
        default=[],
        metavar="SQUARE",
        help="a square whose LED stays dark",
    )

    def selftest_on_either(args: argparse.Namespace) -> int:
        if args.sim:
            from .selftest import main

            return main(args)
        if args.stuck or args.dead_expander or args.dead_led:
            from magboard.firmware.app.errors import CommandError

            raise CommandError("--stuck, --dead-expander and --dead-led need --sim")
        return on_board(args)

    selftest.set_defaults(run=selftest_on_either)


def _scenario(args: argparse.Namespace) -> int:
    if args.machine:
        if args.leds:
            raise CommandError("--leds with --machine: the board's MQTT events carry no frames")
        from .machine.scenario import main as on_machine

        return on_machine(args)
    from .scenario import main

    return main(args)


def _demo(args: argparse.Namespace) -> int:
    from .demo import main

    return main(args)


def _web(args: argparse.Namespace) -> int:
    from .web.server import main

    return main(args)


def _soak(args: argparse.Namespace) -> int:
    if args.remote and args.ai:
        raise CommandError("--ai with --remote: the board plays a seat in a soak of one board")
    if args.remote:
        from .soak.remote import main as remote

        return remote(args)
    from .soak import main

    return main(args)
