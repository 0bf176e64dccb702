"""cffi build script for the grid-tile games' piece-bits kernel (see cffi_build)."""

import sys
from pathlib import Path

from cffi import FFI

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script by setuptools and make
from cffi_build import ROOT, build_in_place, make_builder

MODULE = "_frames"
CDEF = """
    void fr_pieces(const uint8_t *board, int cells, const uint64_t *table, int codes, int words,
                   uint64_t *out);
"""


def make(base: Path | None) -> FFI:
    return make_builder(MODULE, CDEF, ["frames.c"], base)


ffibuilder = make(ROOT)

if __name__ == "__main__":
    print(f"built {build_in_place(MODULE, make)}", file=sys.stderr)
