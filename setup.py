"""Build glue that pyproject.toml cannot express: the package map and the cffi extensions
(one `firmware/native/build_*.py` each)."""

from pathlib import Path

from setuptools import find_packages, setup

FOLDERS = ("firmware", "host", "hardware", "sim")

packages = [
    f"magboard.{name}" if pkg == name else f"magboard.{name}{pkg[len(name) :]}"
    for name in FOLDERS
    for pkg in find_packages(include=[name, f"{name}.*"])
] + ["magboard.rules"]

setup(
    packages=packages,
    package_data={
        "magboard.hardware": ["boards/*.toml", "magboard.service"],
        "magboard.sim": ["web/*.html", "web/*.js", "web/*.css"],
        "magboard.rules": ["*.md"],
        "magboard.firmware.engine": ["tables/*.bin"],
    },
    cffi_modules=[
        f"{script.as_posix()}:ffibuilder"
        for script in sorted(Path("firmware/native").glob("build_*.py"))
    ],
)
