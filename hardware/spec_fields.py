"""The checks every field of a board file goes through, whatever its table: its type, a finite
number, no unknown key, a name, names unique, no integer beyond TOML's 64 bits; each broken one
refused with one line naming the file and the field."""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from .board_spec import BoardSpecError

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]{1,40}")
_TOML_INTS = range(-(2**63), 2**63)
"""TOML's integers are 64-bit; tomllib reads any, and one of thousands of digits cannot even be
printed in a message."""
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 40
"""A value from the file, shown in a message: long strings and lists cut short, on one line."""


def shown(value: Any) -> str:
    return _SHORT.repr(value)


def _key(key: str) -> str:
    """A key as a field path shows it: quoted, as TOML would, unless it is a short bare key."""
    return key if _BARE_KEY.fullmatch(key) else shown(key)


def wide_integer(data: Mapping[str, Any]) -> tuple[str, int] | None:
    """The first integer beyond TOML's 64 bits, in file order, and where it is."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:  # a loop, not recursion: the tables may be nested as deep as tomllib allows
        where, value = stack.pop()
        if isinstance(value, dict):
            items = [(f"{where}.{_key(k)}" if where else _key(k), v) for k, v in value.items()]
            stack.extend(reversed(items))
        elif isinstance(value, list):
            stack.extend(reversed([(f"{where}[{i}]", v) for i, v in enumerate(value)]))
        elif isinstance(value, int) and value not in _TOML_INTS:
            return where, value
    return None


class FieldReader:
    """Reads the fields of one file, raising BoardSpecError that names the file and the field
    at fault; `keys` are every key the format allows, by table."""

    keys: ClassVar[Mapping[str, tuple[str, ...]]]

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> BoardSpecError:
        return BoardSpecError(f"{self.path.name}: {where}: {problem}")

    def get(
        self,
        table: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        where: str,
        default: Any = ...,
    ) -> Any:
        if key not in table:
            if default is ...:
                raise self.fail(f"{where}.{key}" if where else key, "missing")
            return default
        value = table[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            field = f"{where}.{key}" if where else key
            raise self.fail(field, f"must be {names}, not {shown(value)}")
        return value

    def finite(self, table: Mapping[str, Any], key: str, where: str) -> float:
        """A number that every comparison can judge: nan passes no test, and so fails none."""
        value = float(self.get(table, key, (int, float), where))
        if not math.isfinite(value):
            raise self.fail(f"{where}.{key}", f"must be a finite number, not {value}")
        return value

    def known(self, table: Mapping[str, Any], kind: str, where: str) -> None:
        """Refuses keys the format does not have (a typo would otherwise fall back silently
        to a default)."""
        for key in table:
            if key not in self.keys[kind]:
                raise self.fail(
                    f"{where}.{_key(key)}" if where else _key(key),
                    f"unknown key (known here: {', '.join(self.keys[kind])})",
                )

    def table(self, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        found = self.get(data, key, dict, "")
        self.known(found, key, key)
        return found

    def tables(
        self, data: Mapping[str, Any], key: str, required: bool = True, within: str = ""
    ) -> Iterator[tuple[str, Mapping[str, Any]]]:
        path = f"{within}.{key}" if within else key
        items = self.get(data, key, list, within, None if not required else ...)
        if items is None:
            return
        if required and not items:
            raise self.fail(path, "needs at least one entry")
        for i, item in enumerate(items):
            where = f"{path}[{i}]"
            if not isinstance(item, dict):
                raise self.fail(where, f"must be a table, not {shown(item)}")
            self.known(item, path, where)
            yield where, item

    def name(self, table: Mapping[str, Any], where: str) -> str:
        value = self.get(table, "name", str, where)
        if not NAME.fullmatch(value):
            raise self.fail(
                f"{where}.name" if where else "name",
                f"{shown(value)} is not a name (a letter, then letters, digits, - or _)",
            )
        return value

    def unique(self, names: list[str], where: str) -> None:
        first: dict[str, int] = {}
        for i, name in enumerate(names):
            if name in first:
                raise self.fail(
                    f"{where}[{i}].name",
                    f"{shown(name)} is also the name of {where}[{first[name]}]",
                )
            first[name] = i
