"""Tools for a computer connected to a board."""
