"""Reliability across epochs in words: a sentence per group and a table, under "Where the
spread comes from"."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from inspect_medsp.comparisons.reliability import Reliability
from inspect_medsp.report import with_ci


def _share(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.0%}"


def sentence(row: Reliability, name: str) -> str:
    """What the group does every time, against what it does at all."""
    left = (
        f" ({row.left_out} scenario{'' if row.left_out == 1 else 's'} with fewer scored "
        "epochs left out)"
        if row.left_out
        else ""
    )
    return (
        f"{name}: over {row.scenarios} scenarios run {row.epochs} times{left}, "
        f"{_share(row.reliably_met)} of a scenario's rubric items were met in all "
        f"{row.epochs} encounters and {_share(row.ever_met)} in at least one "
        f"({_share(row.per_encounter)} per encounter): of the items it did at least once, "
        f"{_share(row.unreliable_of_done)} it did only some of the time."
    )


def reliability_markdown(rows: Sequence[Reliability], escape: Callable[[str], str]) -> list[str]:
    """The subsection (nothing when no group ran a scenario in two or more epochs)."""
    shown = [r for r in rows if r.scenarios]
    if not shown:
        return []
    out = [
        "### Reliability across epochs",
        "",
        "What a model does every time, beside what it does at all (tau2-bench's pass^k, item "
        "by item): of each scenario's rubric items, the share met in all k encounters "
        "(reliably met) and the share met in at least one, averaged over scenarios like the "
        "macro; per encounter is the share met in one encounter over the same scenarios (the "
        "macro only when no scenario is left out). All numbers in reliability.csv.",
        "",
    ]
    out += [f"- {sentence(r, f'**{escape(r.group)}**')}" for r in shown]
    out.append("")
    header = ["Group", "Epochs (k)", "Scenarios", "Reliably met (all k)", "Met at least once",
              "Per encounter"]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in shown:
        cells = [
            escape(r.group), str(r.epochs), str(r.scenarios),
            with_ci(r.reliably_met, r.reliably_low, r.reliably_high), _share(r.ever_met),
            _share(r.per_encounter),
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return [*out, *lines, ""]
