"""The competency profile: each group's macro per competency with its interval (text and
``competencies.csv``), the competency bars, the per-scenario distribution and the radar."""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_medsp.data import COMPETENCIES, COMPETENCY_NAMES
from inspect_medsp.report.analysis import Analysis
from inspect_medsp.report.charts import MAX_INCHES, legend, save, styles, wrap
from inspect_medsp.report.files import Cell, ReportFile, Table, chart, csv_file
from inspect_medsp.report.groups import GroupSummary
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, table, with_ci

CHART_COMPETENCIES = "competencies.png"
CHART_DISTRIBUTION = "distribution.png"
CHART_RADAR = "radar.png"


def profile(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    out = ["## Competency profile", ""]
    if charts:
        out += [
            f"![Macro completion per competency and clinician]({CHART_COMPETENCIES})",
            "",
            f"![Per-scenario overall completion per clinician]({CHART_DISTRIBUTION})",
            "",
            f"![Competency radar per clinician]({CHART_RADAR})",
            "",
        ]
    header = ["Competency", *[esc(g.label) for g in analysis.groups]]
    rows = []
    for c in COMPETENCIES:
        cells = [
            with_ci(
                g.metric(f"{c}_macro"),
                g.metric(f"{c}_macro_ci_low"),
                g.metric(f"{c}_macro_ci_high"),
            )
            for g in analysis.groups
        ]
        rows.append([f"{c} ({COMPETENCY_NAMES[c]})", *cells])
    out += table(header, rows)
    return out


def competency_table(analysis: Analysis) -> Table:
    kinds = ["macro", "macro_ci_low", "macro_ci_high", "micro", "micro_ci_low", "micro_ci_high"]
    columns = ["group", "competency", *kinds, "below_overall", "shared_macro"]
    rows: list[list[Cell]] = []
    for g in analysis.groups:
        for c in COMPETENCIES:
            values = [g.metric(f"{c}_{k}") for k in kinds]
            if all(v is None for v in values):
                continue
            rows.append([g.label, c, *values, c in g.below_overall, g.shared.get(f"{c}_macro")])
    return Table(name="competencies", columns=columns, rows=rows)


def competency_chart(groups: Sequence[GroupSummary], path: Path) -> Path:
    """Grouped bars: each competency's macro completion for every group, labelled."""
    from matplotlib.figure import Figure

    n = max(1, len(groups))
    width_in = min(MAX_INCHES, max(8.0, 1.2 + len(COMPETENCIES) * (0.45 * n + 0.5)))
    fig = Figure(figsize=(width_in, 5.5 + 0.25 * ((n + 1) // 2)), layout="constrained")
    ax = fig.add_subplot()
    bar = 0.8 / n
    small = n > 4
    look = styles(groups)
    for gi, group in enumerate(groups):
        colour, hatch = look[group.label].colour, look[group.label].hatch
        overall = group.metric("macro")
        name = wrap(group.label, 40)
        if overall is not None:
            name += f"\noverall {overall * 100:.1f}%"
        if group.flagged:
            name += ", UNHEALTHY RUN (see health)"
        xs = [ci + (gi - (n - 1) / 2) * bar for ci in range(len(COMPETENCIES))]
        values = [group.metric(f"{c}_macro") for c in COMPETENCIES]
        heights = [0.0 if v is None else v * 100 for v in values]
        bars = ax.bar(
            xs, heights, bar * 0.95, label=name, color=colour, hatch=hatch,
            edgecolor="black", linewidth=0.6, alpha=0.85,
        )  # fmt: skip
        texts = ["n/a" if v is None else f"{v * 100:.0f}" for v in values]
        ax.bar_label(bars, labels=texts, padding=2, fontsize=7 if small else 8,
                     rotation=90 if small else 0)  # fmt: skip
    ax.set_xticks(range(len(COMPETENCIES)), list(COMPETENCIES))
    ax.set_ylim(0, 112)
    ax.set_ylabel("macro completion (% of rubric items, mean over scenarios)")
    ax.set_xlabel("ACGME competency")
    ax.set_title("Competency profile by clinician")
    ax.yaxis.grid(True, linestyle=":", linewidth=0.6)
    ax.set_axisbelow(True)
    fig.legend(loc="outside lower center", ncols=min(2, n), fontsize=8, frameon=False)
    return save(fig, path)


def _scenario_values(group: GroupSummary) -> list[float]:
    """Each scored scenario's overall completion in points, its epochs averaged (so a marker
    and ``n`` count scenarios, not samples)."""
    by_id: dict[str, list[float]] = {}
    for s in group.samples:
        if "overall" in s.values:
            by_id.setdefault(s.id, []).append(s.values["overall"] * 100)
    return [sum(v) / len(v) for _, v in sorted(by_id.items())]


def _horizontal() -> dict[str, Any]:
    """Horizontal boxes on matplotlib 3.10+ (``orientation``) and older (``vert``)."""
    from matplotlib.axes import Axes

    if "orientation" in inspect.signature(Axes.boxplot).parameters:
        return {"orientation": "horizontal"}
    return {"vert": False}


def distribution_chart(groups: Sequence[GroupSummary], path: Path) -> Path:
    """Per-scenario overall completion per group: a box with every scenario as a marker."""
    from matplotlib.figure import Figure

    n = max(1, len(groups))
    height_in = min(MAX_INCHES, max(4.0, 0.9 * n + 2.0))
    fig = Figure(figsize=(10.0, height_in), layout="constrained")
    ax = fig.add_subplot()
    positions = list(range(n, 0, -1))
    labels: list[str] = []
    look = styles(groups)
    for gi, group in enumerate(groups):
        colour, marker = look[group.label].colour, look[group.label].marker
        values = _scenario_values(group)
        y = positions[gi]
        labels.append(
            wrap(group.label)
            + f"\n(n={len(values)}{', ' + group.flag_words if group.flagged else ''})"
        )
        if not values:
            ax.text(50, y, "no scored scenarios", ha="center", va="center", fontsize=9)
            continue
        ax.boxplot(
            values, positions=[y], widths=0.6, showfliers=False,
            medianprops={"color": "black", "linewidth": 1.5}, **_horizontal(),
        )  # fmt: skip
        offsets = [((k * 0.618034) % 1.0 - 0.5) * 0.4 for k in range(len(values))]
        ax.scatter(
            values, [y + o for o in offsets], marker=marker, s=28, color=colour,
            edgecolors="black", linewidths=0.5, alpha=0.8, zorder=3,
        )  # fmt: skip
    ax.set_yticks(positions, labels, fontsize=8)
    ax.set_xlim(-3, 103)
    ax.set_ylim(0.3, n + 0.7)
    ax.set_xlabel("overall completion per scenario (% of rubric items)")
    ax.set_title(
        "Per-scenario completion (box: quartiles and median; markers: scenarios)\n"
        "each scenario's epochs averaged; n: scenarios",
        fontsize=11,
    )
    ax.xaxis.grid(True, linestyle=":", linewidth=0.6)
    ax.set_axisbelow(True)
    return save(fig, path)


def radar_chart(groups: Sequence[GroupSummary], path: Path) -> Path:
    """The six competencies' macro completion per group on one radar."""
    from matplotlib.figure import Figure

    look = styles(groups)
    n = max(1, len(groups))
    fig = Figure(figsize=(8.5, 7.5 + 0.3 * ((n + 1) // 2)), layout="constrained")
    ax: Any = fig.add_subplot(projection="polar")
    ax.set_theta_offset(math.pi / 2)
    ax.set_theta_direction(-1)
    angles = [2 * math.pi * i / len(COMPETENCIES) for i in range(len(COMPETENCIES))]
    closed = [*angles, angles[0]]
    for g in groups:
        s = look[g.label]
        values = [g.metric(f"{c}_macro") for c in COMPETENCIES]
        ys = [math.nan if v is None else v * 100 for v in values]
        ax.plot(
            closed, [*ys, ys[0]], color=s.colour, linestyle=s.line, marker=s.marker,
            markeredgecolor="black", linewidth=1.8, markersize=7,
        )  # fmt: skip
        ax.fill(closed, [0.0 if math.isnan(y) else y for y in [*ys, ys[0]]], color=s.colour,
                alpha=0.07)  # fmt: skip
    ax.set_xticks(angles, [f"{c}\n{wrap(COMPETENCY_NAMES[c], 18)}" for c in COMPETENCIES])
    ax.tick_params(axis="x", labelsize=8, pad=14)
    ax.set_ylim(0, 100)
    ax.set_yticks([20, 40, 60, 80, 100], ["20%", "40%", "60%", "80%", "100%"], fontsize=7)
    ax.set_rlabel_position(360 / len(COMPETENCIES) / 2)
    ax.set_title("Competency profile (macro completion)", pad=24)
    legend(fig, groups, look)
    return save(fig, path)


def _files(analysis: Analysis) -> list[ReportFile]:
    return [
        chart(CHART_COMPETENCIES, 10, lambda a, p: competency_chart(a.groups, p), analysis),
        chart(CHART_DISTRIBUTION, 20, lambda a, p: distribution_chart(a.groups, p), analysis),
        chart(CHART_RADAR, 40, lambda a, p: radar_chart(a.groups, p), analysis),
        csv_file(competency_table(analysis), 20),
    ]


PROFILE = Section(name="competency profile", text=profile, files=_files)
