"""`CommandError` where the app's commands import it from; it lives in firmware/errors.py, a leaf
below the app, so the firmware's other commands (`magboard stats`) raise it without the app."""

from magboard.firmware.errors import CommandError

__all__ = ["CommandError"]
