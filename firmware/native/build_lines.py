"""cffi build script (API mode, out of line) for the line detector.

Used two ways: by setuptools through `cffi_modules` when the package is built or installed, and
by `make setup`, which runs this file to rebuild the extension in place after the C changes.
"""

import shutil
import sys
import tempfile
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
# setuptools wants paths relative to the project root; the Makefile runs from there too.
ROOT = HERE.parent.parent
CFLAGS = ["-O2", "-Wall", "-Wextra", "-Werror"]

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


def make_builder(base: Path | None) -> FFI:
    """A builder with source paths relative to `base` (setuptools wants the project root), or
    absolute when `base` is None (cffi's compile() runs from a temporary directory)."""

    def path(p: Path) -> str:
        return str(p if base is None else p.relative_to(base))

    builder = FFI()
    builder.cdef(CDEF)
    builder.set_source(
        "magboard.firmware.native._lines",
        '#include "lines.h"',
        sources=[path(HERE / "lines.c")],
        include_dirs=[path(HERE)],
        extra_compile_args=CFLAGS,
    )
    return builder


ffibuilder = make_builder(ROOT)


def build_in_place() -> Path:
    """Compile the extension and drop it beside this file, where the editable install finds it."""
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(make_builder(None).compile(tmpdir=tmp, verbose=False))
        target = HERE / built.name
        for old in HERE.glob("_lines.*.so"):
            old.unlink()
        shutil.copy2(built, target)
    return target


if __name__ == "__main__":
    print(f"built {build_in_place().relative_to(ROOT)}", file=sys.stderr)
