"""Wiring the parts into a running board, and the commands that do it."""
