"""The host's subcommands of `magboard`: a board's serial link at a terminal (watch, send),
every board on an MQTT broker (fleet), and a game's rules (rules)."""

from __future__ import annotations

import argparse

from magboard.firmware.app.mqtt_settings import DISCOVERY_PREFIX


def add(commands: argparse._SubParsersAction) -> None:
    watch = commands.add_parser("watch", help="print the events a board sends over its link")
    watch.add_argument("url", help="the board's port: /dev/ttyACM0, /dev/pts/3, tcp://HOST:PORT")
    watch.add_argument("--json", action="store_true", help="print the JSON lines as they come")
    watch.add_argument(
        "--leds", action="store_true", help="print LED frames too (--json prints them anyway)"
    )
    watch.add_argument(
        "--for", dest="seconds", type=float, metavar="SECONDS", help="stop after SECONDS"
    )
    watch.set_defaults(run=_watch)

    send = commands.add_parser("send", help="send a board one command over its link")
    send.add_argument("url", help="the board's port: /dev/ttyACM0, /dev/pts/3, tcp://HOST:PORT")
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
    send.set_defaults(run=_watch)

    fleet = commands.add_parser(
        "fleet",
        help="every board on an MQTT broker, live",
        usage="magboard fleet [forget BOARD-ID] URL [--once SECONDS] [--ca-file FILE] "
        "[--discovery-prefix PREFIX]",
    )
    fleet.add_argument(
        "words",
        nargs="+",
        metavar="[forget BOARD-ID] URL",
        help="the broker, mqtt[s]://[USER:PASSWORD@]HOST[:PORT], where the boards report; "
        "with `forget BOARD-ID` before it, clears that retired board's retained topics there "
        "instead of showing the table",
    )
    fleet.add_argument(
        "--once",
        type=float,
        metavar="SECONDS",
        help="collect for SECONDS, print the table once and exit",
    )
    fleet.add_argument(
        "--ca-file", metavar="FILE", help="the CA that signed an mqtts:// broker's certificate"
    )
    fleet.add_argument(
        "--discovery-prefix",
        default=DISCOVERY_PREFIX,
        metavar="PREFIX",
        help=f"Home Assistant's discovery prefix, for forget (default {DISCOVERY_PREFIX})",
    )
    fleet.set_defaults(run=_fleet)

    rules = commands.add_parser("rules", help="print a game's rules as the board referees them")
    rules.add_argument("game", help="a game's name or alias (see `magboard games`)")
    rules.set_defaults(run=_rules)


def _rules(args: argparse.Namespace) -> int:
    from magboard.firmware.rules_pages import rules_markdown

    print(rules_markdown(args.game), end="")
    return 0


def _fleet(args: argparse.Namespace) -> int:
    from .fleet import main

    return main(args)


def _watch(args: argparse.Namespace) -> int:
    from .watch import main

    return main(args)
