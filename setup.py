"""Build glue that pyproject.toml cannot express: the package map, the cffi extensions (one
`firmware/native/build_*.py` each) and the version, which the tree itself tells
(hardware/versioning.py: git, or the version recorded in a copy without it)."""

import importlib.util
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.sdist import sdist

FOLDERS = ("firmware", "host", "hardware", "sim")

packages = [
    f"magboard.{name}" if pkg == name else f"magboard.{name}{pkg[len(name) :]}"
    for name in FOLDERS
    for pkg in find_packages(include=[name, f"{name}.*"])
] + ["magboard.rules"]


def versioning():
    """hardware/versioning.py, loaded by its path: nothing of magboard is installed yet."""
    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location("versioning", here / "hardware/versioning.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class sdist_with_version(sdist):
    """An sdist has no git: it carries the version it was made from."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        versioning().record(Path(base_dir), self.distribution.get_version())


setup(
    version=versioning().source_version(Path(__file__).resolve().parent),
    cmdclass={"sdist": sdist_with_version},
    packages=packages,
    package_data={
        "magboard.hardware": [
            "boards/*.toml",
            "magboard.service",
            "magboard.toml",
            "magboard-update.*",
            "magboard-unchecked.*",
        ],
        "magboard.sim": ["web/*.html", "web/*.js", "web/*.css"],
        "magboard.rules": ["*.md"],
        "magboard.firmware.engine": ["tables/*.bin"],
    },
    cffi_modules=[
        f"{script.as_posix()}:ffibuilder"
        for script in sorted(Path("firmware/native").glob("build_*.py"))
    ],
)
