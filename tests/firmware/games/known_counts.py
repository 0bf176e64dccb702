"""Counts each game must reproduce: from its rules file in ../shared/rules/, or, where the rules
file gives none, from this engine, checked by a second, independent counting method."""

KNOWN_PERFT = [
    # rules/tic-tac-toe.md gives perft(1..3); deeper figures are the classic published ones.
    ("tic-tac-toe", {}, [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]),
]
