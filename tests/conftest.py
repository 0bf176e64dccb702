"""Makes tests/support importable from every test folder (test-only helpers, not the product)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

import stones  # noqa: F401  (registers the test game and its profile on mini)
from broker import broker, broker_certificates, listener  # noqa: F401  (a real Mosquitto, for any test)

collect_ignore = ["ha"]
"""Home Assistant's schemas (tests/ha) run in a venv of their own: `make test-ha`."""
