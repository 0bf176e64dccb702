"""Playing the games, not refereeing them: the opponent the board offers, its searches, and the
fast positions they run on.

Rules code (`firmware.games`) is the one truth of what is legal; the engines here are written for
speed (compact positions, no legality re-check, C kernels with pure-Python twins) and are checked
against it by perft. Nothing here knows hardware or I/O; time comes in as a clock to call.
"""
