"""What every cffi build script of the native kernels shares (API mode, out of line).

Each kernel is its own extension with its own `build_<name>.py` beside this file, used two ways:
by setuptools through `cffi_modules` (setup.py lists every `build_*.py`) when the package is built
or installed, and by `make setup`, which runs each script to rebuild its extension in place after
its C changes.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
# setuptools wants paths relative to the project root; the Makefile runs from there too.
ROOT = HERE.parent.parent
CFLAGS = ["-O2", "-Wall", "-Wextra", "-Werror"]


def make_builder(module: str, cdef: str, sources: list[str], base: Path | None) -> FFI:
    """A builder of `magboard.firmware.native.<module>` from C files beside this one, with
    source paths relative to `base` (setuptools wants the project root), or absolute when `base`
    is None (cffi's compile() runs from a temporary directory)."""

    def path(p: Path) -> str:
        return str(p if base is None else p.relative_to(base))

    header = Path(sources[0]).with_suffix(".h").name
    builder = FFI()
    builder.cdef(cdef)
    builder.set_source(
        f"magboard.firmware.native.{module}",
        f'#include "{header}"',
        sources=[path(HERE / source) for source in sources],
        include_dirs=[path(HERE)],
        extra_compile_args=CFLAGS,
    )
    return builder


def build_in_place(module: str, builder: Callable[[Path | None], FFI]) -> Path:
    """Compile the extension and drop it beside this file, where the editable install finds it."""
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(builder(None).compile(tmpdir=tmp, verbose=False))
        target = HERE / built.name
        for old in HERE.glob(f"{module}.*.so"):
            old.unlink()
        shutil.copy2(built, target)
    return target.relative_to(ROOT)
