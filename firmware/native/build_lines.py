"""cffi build script for the line detector (see cffi_build)."""

import sys
from pathlib import Path

from cffi import FFI

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script by setuptools and make
from cffi_build import ROOT, build_in_place, make_builder

MODULE = "_lines"
CDEF = """
    #define MB_MAX_SIDE 16
    #define MB_ERR_SHAPE -1
    typedef struct { ...; } mb_shape;
    int mb_shape_init(mb_shape *shape, const uint8_t *holes, int width, int height, int run);
    int mb_winners(const uint8_t *cells, const mb_shape *shape);
    int mb_find(const uint8_t *cells, const mb_shape *shape, uint8_t *marks);
    int mb_winners_batch(const uint8_t *cells, int count, const mb_shape *shape,
                         uint8_t *winners);
"""


def make(base: Path | None) -> FFI:
    return make_builder(MODULE, CDEF, ["lines.c"], base)


ffibuilder = make(ROOT)

if __name__ == "__main__":
    print(f"built {build_in_place(MODULE, make)}", file=sys.stderr)
