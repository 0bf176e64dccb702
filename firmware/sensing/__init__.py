"""Scanning the board and deciding when what the sensors see may be judged."""

from .debounce import DEBOUNCE, SETTLE, Debouncer
from .scanner import Scan, Scanner

__all__ = ["DEBOUNCE", "SETTLE", "Debouncer", "Scan", "Scanner"]
