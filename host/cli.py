"""The `magboard` command: one entry point above every layer.

It only composes. Each package adds its own subcommands from its `subcommands` module (firmware,
hardware, host, sim) and names its benchmarks; every command imports its heavy modules when it
runs, so `magboard games` never loads a driver or the simulator. Errors a person can cause come
back as one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Mapping, Sequence

from magboard.firmware import subcommands as firmware_commands
from magboard.firmware.app.errors import CommandError
from magboard.firmware.app.mqtt_discovery import software_version
from magboard.firmware.games import GameError
from magboard.firmware.profiles import ProfileError
from magboard.hardware import subcommands as hardware_commands
from magboard.hardware.spec import BoardSpecError
from magboard.sim import subcommands as sim_commands

from . import subcommands as host_commands
from .overlay import subcommands as overlay_commands

DESCRIPTION = "The `magboard` command: one entry point, a subcommand per job."
BENCHES = {**firmware_commands.BENCHES, **sim_commands.BENCHES}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="magboard", description=DESCRIPTION)
    # The version the package was built with (from its source: hardware/versioning.py), the
    # one MQTT discovery reports too.
    parser.add_argument("--version", action="version", version=f"magboard {software_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    firmware_commands.add(commands)
    hardware_commands.add(commands)
    host_commands.add(commands)
    overlay_commands.add(commands)
    sim_commands.add(commands)  # after the firmware's: it gives `run` its --sim
    _add_bench(commands, BENCHES)
    return parser


def _add_bench(commands: argparse._SubParsersAction, benches: Mapping[str, str]) -> None:
    bench = commands.add_parser("bench", help="measure the hot paths")
    bench.add_argument("what", choices=list(benches))
    bench.add_argument("--json", action="store_true", help="print JSON instead of a table")
    bench.add_argument(
        "--min-time",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="least time spent timing each loop (more is steadier on a busy machine)",
    )
    bench.set_defaults(run=_bench)


def _bench(args: argparse.Namespace) -> int:
    bench = importlib.import_module(BENCHES[args.what])
    result = bench.measure(min_time=args.min_time)
    print(json.dumps(result, indent=2) if args.json else bench.format_report(result))
    return 0


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
