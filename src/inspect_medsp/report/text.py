"""Markdown building blocks the report pages share: escaping, short lines, percentages,
intervals and tables."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_medsp.scoring import MIN_CASES

_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*[]<>|"})


def esc(text: object) -> str:
    """Text from a log made safe for one Markdown line or table cell."""
    return " ".join(str(text).split()).translate(_SPECIAL)


def short(text: str, limit: int = 240) -> str:
    """The text on one line, cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value * 100:.{digits}f}%"


def seconds(value: float | None) -> str:
    """A duration: ``0.4 s``, ``42 s``, ``1.5 min``; ``n/a`` when unknown."""
    if value is None:
        return "n/a"
    if value < 10:
        return f"{value:.1f} s"
    return f"{value:.0f} s" if value < 90 else f"{value / 60:.1f} min"


def with_ci(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "n/a"
    if low is None or high is None:
        return pct(value)
    if math.isnan(low) or math.isnan(high):
        return f"{pct(value)} (no interval: < {MIN_CASES} cases)"
    return f"{pct(value)} [{low * 100:.1f}, {high * 100:.1f}]"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def points(value: float) -> str:
    """A difference of completion in percentage points, one decimal."""
    return "n/a" if math.isnan(value) else f"{value * 100:.1f}"
