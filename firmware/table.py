"""The tables the benchmarks print: names on the left, figures lined up on the right."""

from __future__ import annotations

from collections.abc import Sequence


def aligned(columns: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """The header and the rows as lines: the first `left` cells padded to the right, the rest
    (figures) to the left, so their digits line up."""
    widths = [max(len(row[i]) for row in (columns, *rows)) for i in range(len(columns))]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded)

    return [line(columns), *(line(row) for row in rows)]


def ratio(value: float | None) -> str:
    """How many times faster, or a dash where one side was not measured (a kernel not built)."""
    return "-" if value is None else f"{value:,.1f}x"
