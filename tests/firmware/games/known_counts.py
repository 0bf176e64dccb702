"""Counts each game must reproduce: from its rules file in ../shared/rules/, or, where the rules
file gives none, from this engine, checked by a second, independent counting method."""

KNOWN_PERFT = [
    # rules/tic-tac-toe.md gives perft(1..3); deeper figures are the classic published ones.
    ("tic-tac-toe", {}, [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]),
    # Tic-Tac-Cap by hand: 9 Smalls; 8 Smalls; A's second turn, a Small on 7 empty cells or a
    # Medium on 7 empty cells or capping either Small (16); B's second turn 15, 14 or 15 by what A
    # did. Deeper, and the other options, from this engine, checked by the brute-force count in
    # test_tictaccap.py (which also reproduces these). perft(5) is 371,736.
    ("tic-tac-cap", {}, [9, 72, 1152, 16776]),
    ("tic-tac-cap", {"cover_own": False}, [9, 72, 1080, 14688]),
    ("tic-tac-cap", {"variant": "heist"}, [9, 72, 504, 3024, 42336]),
    # "five-small" is tic-tac-toe with five marks each: the same first plies.
    ("tic-tac-cap", {"variant": "five-small"}, [9, 72, 504, 3024]),
    # Tic Tac Doh! from this engine, reproduced by the independent brute-force count in
    # test_tictacdoh.py. By hand: 3 sizes on c3; then 8 neighbours x 3 sizes for each, plus the
    # stacks S-M, M-S, M-L, L-M on c3 (76). perft(5) is 2,073,496 (a few seconds, not run here).
    ("tic-tac-doh", {}, [3, 76, 2666, 82032]),
    # rules/lance-assembly.md: A's first turn is one placement on any of the 36 cells. perft(2),
    # B's first turn (place, slide or both, the neutral tile at any moment), from this engine,
    # reproduced by the independent model in test_lance.py, which also compares the engine's
    # positions after B's turn one by one for each first placement up to symmetry.
    ("lance-assembly", {}, [36, 478392]),
    # The counts issue 11 gives (perft 1 and 2 of each maneuver, and of Meeple Maneuver); depth 3
    # from this engine, reproduced by the independent model in tile_models.py.
    ("meep-tac-toe", {}, [4, 22, 150]),
    ("meep-tac-toe", {"maneuver": "rotate"}, [8, 92, 1120]),
    ("meep-tac-toe", {"maneuver": "advanced"}, [28, 946, 31308]),
    # perft(3) is 4,129,536 (minutes here): test_tile_perft.py checks it against the model in
    # the deep run, and a sample of depth-2 positions in every run.
    ("meeple-maneuver", {}, [172, 27800, 4129536]),
    # Magnetmen from this engine, reproduced by the independent model in magnetmen_model.py
    # (test_magnetmen.py, which also compares the children of a sample of the default first
    # turns one by one). By hand: the default board (seed 1) has 53 squares without a power and
    # 11 Explorers, each collected and then one of the other 63 squares destroyed: 53 + 11 x 63
    # = 746. Its perft(3), about 491,068 x 640 = 3 x 10^8 positions, is out of reach of a test;
    # the small expert boards below go to depth 3: seed 278 with Doctors, a King (main: no more
    # turns), Singers (main: their neighbours closed) and Taxi Drivers; seed 216 with Police,
    # Life Guards, and a King and Judges on their alternative texts; seed 239 with three players,
    # Mail Carriers, and Life Guards and Singers (icons destroyed) on their alternative texts.
    ("magnetmen", {}, [746, 491068]),
    ("magnetmen", {"size": "small", "set": "expert", "seed": 278}, [36, 1239, 29916]),
    (
        "magnetmen",
        {"size": "small", "set": "expert", "powers": "random", "seed": 216},
        [36, 1206, 28283],
    ),
    (
        "magnetmen",
        {"size": "small", "set": "expert", "powers": "random", "seed": 239, "players": 3},
        [38, 1628, 79812],
    ),
    # The test game (tests/support/stones.py), reproduced by the model in test_stones.py.
    ("stones", {}, [9, 84, 696, 5306]),
]
