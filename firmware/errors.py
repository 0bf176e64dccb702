"""The error a command reports in one line to the person who typed it."""


class CommandError(Exception):
    """A request the command cannot carry out (a bad file, a missing board); never a traceback."""
