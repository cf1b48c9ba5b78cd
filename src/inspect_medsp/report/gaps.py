"""The gaps: each group's competencies below its own overall macro and the rubric items it
missed most often (worked out here; all of them in ``missed_items.csv``).

A competency is a gap (in bold) only when its whole 95% interval is below the overall macro:
a competency a few tenths of a point below it is within noise, and is listed with its
interval as such."""

from __future__ import annotations

import math

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.record import normalise
from inspect_medsp.report.analysis import Analysis, MissedItem
from inspect_medsp.report.files import Cell, Table, csv_file
from inspect_medsp.report.groups import GroupSummary
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, pct, table

TOP_MISSED = 10
"""Most-missed items listed per group in the text (the CSV has them all)."""


def missed_items(group: GroupSummary) -> list[MissedItem]:
    """Each rubric item of the group's scored samples: how often seen, missed and unjudged."""
    found: dict[tuple[str, str], MissedItem] = {}
    for sample in group.samples:
        for item in sample.items:
            key = (item.competency, normalise(item.text))
            entry = found.get(key)
            if entry is None:
                entry = found[key] = MissedItem(
                    group=group.label,
                    competency=item.competency,
                    text=item.text,
                    seen=0,
                    missed=0,
                    unjudged=0,
                    scenarios=[],
                )
            entry.seen += 1
            entry.missed += item.judged and not item.met
            entry.unjudged += not item.judged
            if sample.id not in entry.scenarios:
                entry.scenarios.append(sample.id)
    return sorted(
        found.values(),
        key=lambda m: (
            -m.missed,
            -(m.missed / m.seen),
            -m.unjudged,
            COMPETENCIES.index(m.competency) if m.competency in COMPETENCIES else 99,
            m.text,
        ),
    )


def _interval(group: GroupSummary, competency: str) -> tuple[float, float] | None:
    low = group.metric(f"{competency}_macro_ci_low")
    high = group.metric(f"{competency}_macro_ci_high")
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return None
    return low, high


def below_text(group: GroupSummary, overall: float) -> str:
    """The competencies below the overall macro: in bold (a gap) those whose 95% interval lies
    wholly below it, the others with their interval and said to be within noise."""
    gaps, noise = [], []
    for c in group.below_overall:
        value = group.metric(f"{c}_macro")
        interval = _interval(group, c)
        span = "" if interval is None else f" [{pct(interval[0])}, {pct(interval[1])}]"
        if interval is not None and interval[1] < overall:
            gaps.append(f"**{c}** {pct(value)}{span}")
        else:
            why = "no interval" if interval is None else "interval reaches the macro"
            noise.append(f"{c} {pct(value)}{span} ({why})")
    parts = []
    if gaps:
        parts.append(
            f"Gaps (95% interval wholly below its own overall macro, {pct(overall)}): "
            + ", ".join(gaps)
            + "."
        )
    if noise:
        parts.append(
            f"Below its overall macro ({pct(overall)}) but not told apart from it: "
            + ", ".join(noise)
            + "."
        )
    return " ".join(parts)


def gaps(page: Page) -> list[str]:
    analysis = page.analysis
    out = ["## Gaps", ""]
    for g in analysis.groups:
        out += [f"### {esc(g.label)}", ""]
        overall = g.metric("macro")
        if overall is None:
            out += ["No scored scenarios.", ""]
            continue
        if g.below_overall:
            out.append(below_text(g, overall))
        else:
            out.append(f"No competency is below its own overall macro ({pct(overall)}).")
        out.append("")
        missed = [m for m in analysis.missed if m.group == g.label and (m.missed or m.unjudged)]
        if not missed:
            out += ["Every rubric item seen was completed.", ""]
            continue
        out.append(
            f"Most often missed rubric items (top {min(TOP_MISSED, len(missed))} of "
            f"{len(missed)}; all in missed_items.csv):"
        )
        out.append("")
        rows = [
            [
                m.competency,
                esc(m.text),
                f"{m.missed} of {m.seen}" + (f" (+{m.unjudged} unjudged)" if m.unjudged else ""),
                esc(", ".join(m.scenarios[:3]) + (" …" if len(m.scenarios) > 3 else "")),
            ]
            for m in missed[:TOP_MISSED]
        ]
        out += table(["Competency", "Item", "Missed", "Scenarios"], rows)
    return out


def missed_table(analysis: Analysis) -> Table:
    columns = [
        "group",
        "competency",
        "text",
        "missed",
        "seen",
        "unjudged",
        "miss_rate",
        "scenarios",
    ]
    rows: list[list[Cell]] = [
        [m.group, m.competency, m.text, m.missed, m.seen, m.unjudged, m.missed / m.seen,
         ";".join(m.scenarios)]
        for m in analysis.missed
    ]  # fmt: skip
    return Table(name="missed_items", columns=columns, rows=rows)


GAPS = Section(name="gaps", text=gaps, files=lambda a: [csv_file(missed_table(a), 30)])
