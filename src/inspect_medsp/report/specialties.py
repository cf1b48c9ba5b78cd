"""Completion by specialty (a view of the paper): each group's macro per specialty with its
case-clustered interval, where the labels came from, ``specialties.csv`` and the figure."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from inspect_medsp.record import SPECIALTIES as KNOWN_SPECIALTIES
from inspect_medsp.record import MedspSample
from inspect_medsp.report.analysis import Analysis, SpecialtyScore
from inspect_medsp.report.charts import (
    MAX_INCHES,
    SMALL_FACE,
    legend,
    pct_axis,
    point,
    save,
    styles,
    wrap,
)
from inspect_medsp.report.files import Cell, ReportFile, Table, chart, csv_file
from inspect_medsp.report.groups import GroupSummary, cell
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, table, with_ci

CHART_SPECIALTIES = "specialties.png"

SMALL_SPECIALTY = 10
"""A specialty with fewer scored scenarios than this is flagged in the figure and tables."""

UNSPECIFIED = "(unspecified)"


def specialty_scores(group: str, samples: Sequence[MedspSample]) -> list[SpecialtyScore]:
    """Macro with its interval per specialty, over the group's scored samples."""
    by: dict[str, list[MedspSample]] = defaultdict(list)
    for s in samples:
        if s.scored:
            by[s.specialty or UNSPECIFIED].append(s)
    out = []
    for name, members in sorted(by.items()):
        c = cell(group, members)
        if c is None:
            continue
        sources = sorted({s.specialty_source or "none" for s in members})
        out.append(
            SpecialtyScore(
                group=group,
                specialty=name,
                mean=c.macro,
                n=c.n,
                scenarios=c.scenarios,
                cases=c.cases,
                ci_low=c.ci_low,
                ci_high=c.ci_high,
                small=c.scenarios < SMALL_SPECIALTY,
                sources="; ".join(sources),
            )
        )
    return out


def specialty_sources(samples: Sequence[MedspSample]) -> dict[str, int]:
    """Scenarios by where their specialty came from (``none``: no specialty at all)."""
    seen: dict[str, str] = {}
    for s in samples:
        seen.setdefault(s.id, s.specialty_source or ("data" if s.specialty else "none"))
    return dict(Counter(seen.values()))


def _sources(analysis: Analysis) -> list[str]:
    """Where each group's specialty labels came from, one line per group."""
    lines = []
    for g in analysis.groups:
        counts = analysis.specialty_sources.get(g.label, {})
        parts = []
        for source, n in sorted(counts.items()):
            what = "scenarios" if n != 1 else "scenario"
            if source == "data":
                parts.append(f"{n} {what} from the data's own metadata")
            elif source == "none":
                parts.append(f"{n} {what} without a specialty (unspecified)")
            else:
                parts.append(f"{n} {what} classified by {source}")
        lines.append(f"- {esc(g.label)}: {esc('; '.join(parts) or 'no scenarios')}")
    return [*lines, ""]


def specialties(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    out = ["## Completion by specialty", ""]
    names = sorted({s.specialty for s in analysis.specialties})
    if not names:
        return [*out, "No scored scenarios.", ""]
    out += ["Where the specialty labels came from:", "", *_sources(analysis)]
    if charts:
        out += [f"![Macro completion by specialty per clinician]({CHART_SPECIALTIES})", ""]
    out.append(
        "Macro completion with its 95% case-clustered t interval and the number of scored "
        "scenarios. "
        f"Specialties with fewer than {SMALL_SPECIALTY} scenarios are marked ⚠ (shaded in the "
        "figure): their intervals are wide and the numbers are easily moved by one scenario."
    )
    out.append("")
    found = {(s.group, s.specialty): s for s in analysis.specialties}
    rows = []
    for name in names:
        cells = []
        small = False
        for g in analysis.groups:
            s = found.get((g.label, name))
            small = small or (s is not None and s.small)
            cells.append(
                "n/a" if s is None else f"{with_ci(s.mean, s.ci_low, s.ci_high)} (n={s.scenarios})"
            )
        rows.append([esc(name) + (" ⚠" if small else ""), *cells])
    out += table(["Specialty", *[esc(g.label) for g in analysis.groups]], rows)
    return out


def specialty_table(analysis: Analysis) -> Table:
    """``mean_overall`` is the macro of specialties.png; ``n`` counts samples (with epochs)."""
    columns = ["group", "specialty", "mean_overall", "ci_low", "ci_high", "n", "scenarios",
               "cases", "small", "source"]  # fmt: skip
    rows: list[list[Cell]] = [
        [s.group, s.specialty, s.mean, s.ci_low, s.ci_high, s.n, s.scenarios, s.cases, s.small,
         s.sources]
        for s in analysis.specialties
    ]  # fmt: skip
    return Table(name="specialties", columns=columns, rows=rows)


def _specialty_order(names: set[str]) -> list[str]:
    known = [s for s in KNOWN_SPECIALTIES if s in names]
    rest = sorted(n for n in names if n not in KNOWN_SPECIALTIES and n != UNSPECIFIED)
    return known + rest + ([UNSPECIFIED] if UNSPECIFIED in names else [])


def specialty_chart(
    groups: Sequence[GroupSummary], scores: Sequence[SpecialtyScore], path: Path
) -> Path:
    """One panel per specialty: each group's macro with its 95% interval; small ones shaded."""
    from matplotlib.figure import Figure

    look = styles(groups)
    names = _specialty_order({s.specialty for s in scores})
    found = {(s.group, s.specialty): s for s in scores}
    ncols = min(3, max(1, len(names)))
    nrows = max(1, math.ceil(len(names) / ncols))
    n = max(1, len(groups))
    panel_h = max(2.2, 0.38 * n + 1.1)
    height = min(MAX_INCHES, nrows * panel_h + 1.2 + 0.3 * ((n + 1) // 2))
    fig = Figure(figsize=(5.0 * ncols + 1.0, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.set_visible(False)
            continue
        name = names[k]
        ids = {s.id for g in groups for s in g.samples if s.scored and _label(s.specialty) == name}
        cases = {i.split("/")[0] for i in ids}
        small = len(ids) < SMALL_SPECIALTY
        title = f"{wrap(name, 34)}\n{_count(len(ids), 'scenario')}, {_count(len(cases), 'case')}"
        if small:
            title += f" (under {SMALL_SPECIALTY}: read with care)"
            ax.set_facecolor(SMALL_FACE)
        ax.set_title(title, fontsize=9)
        for gi, g in enumerate(groups):
            y = n - gi
            s = found.get((g.label, name))
            if s is None:
                ax.text(50, y, "not scored", ha="center", va="center", fontsize=7)
                continue
            point(ax, s.mean * 100, y, s.ci_low * 100, s.ci_high * 100, look[g.label])
            alone = ", no interval" if s.scenarios < 2 else ""
            ax.text(1.02, y, f"{s.mean * 100:.1f}% (n={s.scenarios}{alone})", fontsize=7,
                    va="center", transform=ax.get_yaxis_transform())  # fmt: skip
        ax.set_ylim(0.4, n + 0.6)
        ax.set_yticks([])
        pct_axis(ax)
        ax.tick_params(axis="x", labelsize=7)
    fig.suptitle(
        "Macro completion by specialty (% of rubric items; bars: 95% cluster-robust t "
        "interval, none where a group scored fewer than 6 cases)",
        fontsize=11,
    )
    legend(fig, groups, look)
    return save(fig, path)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _label(specialty: str | None) -> str:
    return specialty or UNSPECIFIED


def _chart(analysis: Analysis, path: Path) -> Path:
    return specialty_chart(analysis.groups, analysis.specialties, path)


def _files(analysis: Analysis) -> list[ReportFile]:
    drawn = [chart(CHART_SPECIALTIES, 50, _chart, analysis)] if analysis.specialties else []
    return [*drawn, csv_file(specialty_table(analysis), 40)]


SPECIALTIES = Section(name="specialties", text=specialties, files=_files)
