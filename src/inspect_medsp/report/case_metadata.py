"""Completion by case metadata (a view of the paper): department, urgency, patient sex and age
group as the scenarios carry them, macro per category with its interval; the text,
``case_metadata.csv`` and the figure."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from inspect_medsp.record import MedspSample
from inspect_medsp.report.analysis import Analysis, Breakdown
from inspect_medsp.report.charts import MAX_INCHES, legend, pct_axis, point, save, styles, wrap
from inspect_medsp.report.files import Cell, ReportFile, Table, chart, csv_file
from inspect_medsp.report.groups import GroupSummary, cell
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, table, with_ci

CHART_BREAKDOWNS = "case_metadata.png"

TOP_CATEGORIES = 12
"""Categories of a metadata field shown one by one; the rest are pooled into one row."""

NOT_GIVEN = "(not given)"

_MALE = {"male", "m", "man", "boy"}
_FEMALE = {"female", "f", "woman", "girl"}
_YEARS = re.compile(r"(\d+(?:\.\d+)?)\s*-?\s*(?:years?|yrs?|y/?o\b|y\b)")
_UNDER_ONE = re.compile(r"\d+\s*-?\s*(?:months?|mos?\b|weeks?|wks?|days?|hours?)")
_BARE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*s?\s*")
_CHILD_WORDS = ("newborn", "neonate", "infant", "toddler", "child", "baby")
AGE_GROUPS = ("0-17", "18-39", "40-64", "65+")


def patient_sex(text: str) -> str:
    """``female``, ``male`` or the text as given (lower case)."""
    value = " ".join(text.lower().split())
    if value in _MALE:
        return "male"
    if value in _FEMALE:
        return "female"
    return value


def age_group(text: str) -> str:
    """One of :data:`AGE_GROUPS` from free text (``"45"``, ``"6-year-old"``, ``"18 months"``),
    or ``(not given)`` when no age can be read."""
    value = text.lower()
    match = _YEARS.search(value) or _BARE.fullmatch(value)
    if match is not None:
        years = float(match.group(1))
    elif _UNDER_ONE.search(value) or any(w in value for w in _CHILD_WORDS):
        years = 0.0
    else:
        return NOT_GIVEN
    if years < 18:
        return "0-17"
    if years < 40:
        return "18-39"
    return "40-64" if years < 65 else "65+"


def _free_text(text: str) -> str:
    """Spaces normalised and the first letter upper case; the rest as written."""
    value = " ".join(text.split())
    return value[:1].upper() + value[1:]


BREAKDOWN_FIELDS: dict[str, tuple[str, Callable[[str], str]]] = {
    "department": ("department", _free_text),
    "urgency": ("urgency_level", lambda t: " ".join(t.lower().split())),
    "patient sex": ("patient_gender", patient_sex),
    "age group": ("patient_age", age_group),
}
"""Breakdown name: (case metadata key, how a value becomes a category)."""


def _category_order(field: str, totals: Counter[str]) -> list[str]:
    if field == "age group":
        return [a for a in (*AGE_GROUPS, NOT_GIVEN) if a in totals]
    named = sorted((c for c in totals if c != NOT_GIVEN), key=lambda c: (-totals[c], c))
    return named + ([NOT_GIVEN] if NOT_GIVEN in totals else [])


def breakdowns(groups: Sequence[tuple[str, Sequence[MedspSample]]]) -> list[Breakdown]:
    """Macro per category of each case-metadata field some sample carries.

    A sample without the field counts under ``(not given)``; beyond :data:`TOP_CATEGORIES`
    named categories (by scenarios over all groups) the rest are pooled into one row.
    """
    out: list[Breakdown] = []
    scored = [(g, [s for s in samples if s.scored]) for g, samples in groups]
    for field, (key, categorise) in BREAKDOWN_FIELDS.items():
        if not any(key in s.case_meta for _, samples in scored for s in samples):
            continue

        def category_of(
            s: MedspSample, key: str = key, fn: Callable[[str], str] = categorise
        ) -> str:
            raw = s.case_meta.get(key, "")
            return fn(raw) if raw.strip() else NOT_GIVEN

        ids: dict[str, set[str]] = defaultdict(set)
        for _, samples in scored:
            for s in samples:
                ids[category_of(s)].add(s.id)
        totals = Counter({c: len(v) for c, v in ids.items()})
        order = _category_order(field, totals)
        named = [c for c in order if c != NOT_GIVEN]
        kept = set(named[:TOP_CATEGORIES]) | {NOT_GIVEN}
        rest = named[TOP_CATEGORIES:]
        pooled = f"{len(rest)} other categories"
        shown = [c for c in order if c in kept]
        if rest:
            shown.insert(len([c for c in shown if c != NOT_GIVEN]), pooled)
        for label, samples in scored:
            by: dict[str, list[MedspSample]] = defaultdict(list)
            for s in samples:
                category = category_of(s)
                by[category if category in kept else pooled].append(s)
            for category in shown:
                c = cell(label, by.get(category, []))
                if c is None:
                    continue
                out.append(Breakdown(**c.model_dump(), field=field, category=category))
    return out


def _cell(b: Breakdown | None) -> str:
    """Macro [interval] (n=scenarios)."""
    if b is None:
        return "n/a"
    return f"{with_ci(b.macro, b.ci_low, b.ci_high)} (n={b.scenarios})"


def case_metadata(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    if not analysis.breakdowns:
        return []
    out = ["## Completion by case metadata", ""]
    out.append(
        "From the case metadata the scenarios carry (phase1_scenarios_meta.json): macro "
        "completion with its 95% interval and the number of scored scenarios per category. "
        "Scenarios without the field are counted under (not given)."
    )
    out.append("")
    if charts:
        out += [f"![Completion by case metadata]({CHART_BREAKDOWNS})", ""]
    found = {(b.group, b.field, b.category): b for b in analysis.breakdowns}
    for field in dict.fromkeys(b.field for b in analysis.breakdowns):
        out += [f"### By {field}", ""]
        cats = dict.fromkeys(b.category for b in analysis.breakdowns if b.field == field)
        rows = [
            [esc(c), *[_cell(found.get((g.label, field, c))) for g in analysis.groups]]
            for c in cats
        ]
        out += table([field.capitalize(), *[esc(g.label) for g in analysis.groups]], rows)
    return out


def case_metadata_table(analysis: Analysis) -> Table:
    """The points of case_metadata.png."""
    columns = ["group", "field", "category", "n", "scenarios", "cases", "macro", "ci_low",
               "ci_high"]  # fmt: skip
    rows: list[list[Cell]] = [
        [b.group, b.field, b.category, b.n, b.scenarios, b.cases, b.macro, b.ci_low, b.ci_high]
        for b in analysis.breakdowns
    ]
    return Table(name="case_metadata", columns=columns, rows=rows)


def breakdown_chart(
    groups: Sequence[GroupSummary], rows: Sequence[Breakdown], path: Path
) -> Path:
    """One panel per case-metadata field: each category's macro per group with intervals."""
    from matplotlib.figure import Figure

    look = styles(groups)
    fields = list(dict.fromkeys(b.field for b in rows))
    n = max(1, len(groups))
    cats = {f: list(dict.fromkeys(b.category for b in rows if b.field == f)) for f in fields}
    ncols = min(2, len(fields))
    nrows = math.ceil(len(fields) / ncols)
    grid = [fields[r * ncols : (r + 1) * ncols] for r in range(nrows)]
    heights = [max(len(cats[f]) for f in row) * (0.2 * n + 0.3) + 0.9 for row in grid]
    fig = Figure(
        figsize=(8.0 * ncols, min(MAX_INCHES, sum(heights) + 1.0 + 0.3 * ((n + 1) // 2))),
        layout="constrained",
    )
    axes = fig.subplots(nrows, ncols, squeeze=False, height_ratios=heights)
    found = {(b.group, b.field, b.category): b for b in rows}
    band = 0.8 / n
    for k, ax in enumerate(axes.flat):
        if k >= len(fields):
            ax.set_visible(False)
            continue
        field = fields[k]
        names = cats[field]
        ticks = []
        for ci, category in enumerate(names):
            centre = len(names) - ci
            ticks.append(centre)
            for gi, g in enumerate(groups):
                y = centre + ((n - 1) / 2 - gi) * band
                b = found.get((g.label, field, category))
                if b is None:
                    continue
                point(ax, b.macro * 100, y, b.ci_low * 100, b.ci_high * 100, look[g.label])
                ax.text(1.01, y, f"{b.macro * 100:.1f}% n={b.scenarios}", fontsize=6.5,
                        va="center", transform=ax.get_yaxis_transform())  # fmt: skip
        ax.set_yticks(ticks, [wrap(c, 26) for c in names], fontsize=8)
        ax.set_ylim(0.5, len(names) + 0.5)
        pct_axis(ax)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(f"by {field}", fontsize=10, loc="left")
        ax.set_xlabel("macro completion (%)", fontsize=8)
    fig.suptitle(
        "Completion by case metadata (markers: macro; bars: 95% interval; n: scenarios)",
        fontsize=11,
    )
    legend(fig, groups, look)
    return save(fig, path)


def _chart(analysis: Analysis, path: Path) -> Path:
    return breakdown_chart(analysis.groups, analysis.breakdowns, path)


def _files(analysis: Analysis) -> list[ReportFile]:
    drawn = [chart(CHART_BREAKDOWNS, 80, _chart, analysis)] if analysis.breakdowns else []
    return [*drawn, csv_file(case_metadata_table(analysis), 60)]


CASE_METADATA = Section(
    name="case metadata",
    text=case_metadata,
    shows=lambda a: bool(a.breakdowns),
    files=_files,
)
