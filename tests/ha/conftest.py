"""The project without installing it in Home Assistant's venv (its drivers and cffi build are
not needed to read the discovery): `magboard` is this checkout, as setup.py maps it; and the
test broker of tests/support."""

import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

if "magboard" not in sys.modules:
    package = types.ModuleType("magboard")
    package.__path__ = [str(ROOT)]
    sys.modules["magboard"] = package
sys.path.insert(0, str(ROOT / "tests" / "support"))
