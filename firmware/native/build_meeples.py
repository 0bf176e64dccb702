"""cffi build script for Meeple Maneuver's look-ahead kernel (see cffi_build)."""

import sys
from pathlib import Path

from cffi import FFI

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script by setuptools and make
from cffi_build import ROOT, build_in_place, make_builder

MODULE = "_meeples"
CDEF = """
    #define MM_MAX_SIDE 16
    #define MM_MAX_TILES 8
    #define MM_ERR_POSITION -1
    int mm_best_turn(const uint8_t *board, int width, int height, const int *tiles, int ntiles,
                     int mover, int kinds, int *count);
"""


def make(base: Path | None) -> FFI:
    return make_builder(MODULE, CDEF, ["meeples.c"], base)


ffibuilder = make(ROOT)

if __name__ == "__main__":
    print(f"built {build_in_place(MODULE, make)}", file=sys.stderr)
