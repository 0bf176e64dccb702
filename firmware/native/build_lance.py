"""cffi build script for Lance Assembly's compact bout engine (see cffi_build)."""

import sys
from pathlib import Path

from cffi import FFI

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script by setuptools and make
from cffi_build import ROOT, build_in_place, make_builder

MODULE = "_lance"
CDEF = """
    #define ML_MAX_ACTIONS 1024
    #define ML_STALEMATE -1
    #define ML_ERR_MEMORY -3
    #define ML_ERR_POSITION -4
    typedef struct { uint64_t lo; uint64_t hi; } ml_key;
    typedef struct {
        uint64_t tiles[3];
        int to_move;
        int starter;
        int supplies[2];
        int in_hand;
        int placed;
        int slid;
        int bout_turn;
        int max_turns;
    } ml_position;
    int ml_legal(const ml_position *pos, int *codes);
    int ml_playout(const ml_position *pos, const ml_key *seen, int seen_count, uint64_t seed,
                   int *trace, int trace_cap, int *steps);
"""


def make(base: Path | None) -> FFI:
    return make_builder(MODULE, CDEF, ["lance.c"], base)


ffibuilder = make(ROOT)

if __name__ == "__main__":
    print(f"built {build_in_place(MODULE, make)}", file=sys.stderr)
