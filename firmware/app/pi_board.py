"""The Pi's own board, opened for `magboard run` and `magboard selftest`: the one place the app
reaches the real hardware, so nothing else in it needs the Pi's driver libraries to load."""

from __future__ import annotations

from magboard.hardware.spec import BoardSpec

from .errors import CommandError


def open_pi_board(spec: BoardSpec):
    from magboard.hardware.real import HardwareUnavailableError, PiBoard

    try:
        return PiBoard(spec)
    except HardwareUnavailableError as error:
        raise CommandError(str(error)) from None
    except (OSError, ValueError) as error:
        raise CommandError(f"cannot start board {spec.name}: {error}") from None
