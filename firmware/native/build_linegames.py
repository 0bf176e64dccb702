"""cffi build script for the line games' engine kernel (see cffi_build)."""

import sys
from pathlib import Path

from cffi import FFI

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script by setuptools and make
from cffi_build import ROOT, build_in_place, make_builder

MODULE = "_linegames"
CDEF = """
    #define LG_POSITION 36
    #define LG_MAX_MOVES 80
    #define LG_ERR_OVERFLOW -1
    #define LG_ERR_MEMORY -2
    typedef struct lg_solver lg_solver;
    int lg_moves(int kind, int cover_own, const uint8_t *position, int *moves);
    void lg_play(int kind, const uint8_t *position, int move, uint8_t *after);
    int lg_result(int kind, int cover_own, const uint8_t *position);
    int lg_perft(int kind, int cover_own, const uint8_t *position, int depth, uint64_t *count);
    lg_solver *lg_solver_new(int kind, int cover_own);
    void lg_solver_free(lg_solver *solver);
    int lg_solve(lg_solver *solver, const uint8_t *position);
    int64_t lg_solver_size(const lg_solver *solver);
    void lg_solver_dump(const lg_solver *solver, uint64_t *out);
    int lg_solver_load(lg_solver *solver, const uint64_t *words, int64_t count);
    uint64_t lg_solver_key(int kind, const uint8_t *position);
"""


def make(base: Path | None) -> FFI:
    return make_builder(MODULE, CDEF, ["linegames.c"], base)


ffibuilder = make(ROOT)

if __name__ == "__main__":
    print(f"built {build_in_place(MODULE, make)}", file=sys.stderr)
