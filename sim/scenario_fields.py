"""Reading a scenario file's fields by kind, so that every refusal names the file and the field
the same way (`where`: `steps[3].at`, `expect[0].count`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .scenario_values import ScenarioError


class FieldReader:
    """Reads the fields of one scenario file, raising ScenarioError that names the file and
    the field."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> ScenarioError:
        return ScenarioError(f"{self.path.name}: {where}: {problem}" if where else problem)

    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        where: str,
        default: Any = ...,
    ) -> Any:
        path = f"{where}.{key}" if where else key
        if key not in table:
            if default is ...:
                raise self.fail(path, "missing")
            return default
        return self.check(table[key], kind, path)

    def check(self, value: Any, kind: type | tuple[type, ...], where: str) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join("number" if k is float else k.__name__ for k in kinds)
            raise self.fail(where, f"must be {names}, not {value!r}")
        return value

    def number(self, table: Mapping[str, Any], key: str, where: str, default: Any = ...) -> Any:
        value = self.get(table, key, (int, float), where, default)
        if value is None:
            return None
        if value < 0:
            raise self.fail(f"{where}.{key}" if where else key, f"must not be negative: {value}")
        return float(value)

    def positive(self, table: Mapping[str, Any], key: str, where: str, default: float) -> float:
        value = self.number(table, key, where, default)
        if value <= 0:
            raise self.fail(f"{where}.{key}", f"must be more than 0, not {value}")
        return value

    def known(self, table: Mapping[str, Any], keys: Sequence[str], where: str) -> None:
        """Refuses a key the format does not have there, naming it: a misspelling would
        otherwise be silently ignored, or read as something else missing."""
        for key in table:
            if key not in keys:
                inside = f"{where}: " if where else ""
                raise ScenarioError(
                    f"{self.path.name}: {inside}unknown key {key!r} (known here: {', '.join(keys)})"
                )

    def tables(self, data: Mapping[str, Any], key: str) -> list[tuple[str, Mapping[str, Any]]]:
        items = self.get(data, key, list, "", [])
        found = []
        for i, item in enumerate(items):
            where = f"{key}[{i}]"
            if not isinstance(item, dict):
                raise self.fail(where, f"must be a table, not {item!r}")
            found.append((where, item))
        return found
