"""The paper's views as PNG figures: competency radar, completion by specialty, by the
clinician's input length, by case metadata, and strategy by competency.

Every figure draws records of :mod:`inspect_medsp.report.views` (the same records the CSV
files hold) and uses :func:`~inspect_medsp.report.charts.styles`, so a model has one colour
everywhere; markers, line styles and printed values keep the figures readable in greyscale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

from inspect_medsp.data import COMPETENCIES, COMPETENCY_NAMES
from inspect_medsp.record import SPECIALTIES
from inspect_medsp.report.charts import MAX_INCHES, Style, save, styles, wrap
from inspect_medsp.report.findings import GroupSummary
from inspect_medsp.report.views import (
    SMALL_SPECIALTY,
    UNSPECIFIED,
    Breakdown,
    SpecialtyScore,
    StrategyCell,
    TokenBin,
)

SMALL_FACE = "#ececec"
"""Background of a panel whose numbers rest on too few scenarios."""


def _legend(fig: Figure, groups: Sequence[GroupSummary], look: dict[str, Style]) -> None:
    """One legend entry per group (marker, line and colour), below the figure."""
    handles = []
    for g in groups:
        s = look[g.label]
        handles.append(
            _proxy(s, wrap(g.label, 40) + (f" ({g.flag_words})" if g.flagged else ""))
        )
    fig.legend(
        handles=handles, loc="outside lower center", ncols=min(2, len(groups)), fontsize=8,
        frameon=False,
    )  # fmt: skip


def _proxy(style: Style, label: str) -> object:
    from matplotlib.lines import Line2D

    line: Any = style.line
    return Line2D(
        [], [], color=style.colour, marker=style.marker, linestyle=line,
        markeredgecolor="black", markersize=7, label=label,
    )  # fmt: skip


def _point(ax: Axes, x: float, y: float, low: float, high: float, style: Style) -> None:
    """A horizontal 95% interval with the group's marker at the estimate (all in %)."""
    ax.errorbar(
        [x], [y], xerr=[[x - low], [high - x]], fmt=style.marker, color=style.colour,
        ecolor=style.colour, elinewidth=1.6, capsize=3, markeredgecolor="black",
        markersize=6, zorder=3,
    )  # fmt: skip


def _pct_axis(ax: Axes) -> None:
    ax.set_xlim(-2, 102)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.xaxis.grid(True, linestyle=":", linewidth=0.6)
    ax.set_axisbelow(True)


def radar_chart(groups: Sequence[GroupSummary], path: Path) -> Path:
    """The six competencies' macro completion per group on one radar."""
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
    _legend(fig, groups, look)
    return save(fig, path)


def _specialty_order(names: set[str]) -> list[str]:
    known = [s for s in SPECIALTIES if s in names]
    rest = sorted(n for n in names if n not in SPECIALTIES and n != UNSPECIFIED)
    return known + rest + ([UNSPECIFIED] if UNSPECIFIED in names else [])


def specialty_chart(
    groups: Sequence[GroupSummary], scores: Sequence[SpecialtyScore], path: Path
) -> Path:
    """One panel per specialty: each group's macro with its 95% interval; small ones shaded."""
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
            _point(ax, s.mean * 100, y, s.ci_low * 100, s.ci_high * 100, look[g.label])
            alone = ", no interval" if s.scenarios < 2 else ""
            ax.text(1.02, y, f"{s.mean * 100:.1f}% (n={s.scenarios}{alone})", fontsize=7,
                    va="center", transform=ax.get_yaxis_transform())  # fmt: skip
        ax.set_ylim(0.4, n + 0.6)
        ax.set_yticks([])
        _pct_axis(ax)
        ax.tick_params(axis="x", labelsize=7)
    fig.suptitle(
        "Macro completion by specialty (% of rubric items; bars: 95% cluster-robust t "
        "interval, none where a group scored fewer than 6 cases)",
        fontsize=11,
    )
    _legend(fig, groups, look)
    return save(fig, path)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _label(specialty: str | None) -> str:
    return specialty or UNSPECIFIED


def tokens_chart(groups: Sequence[GroupSummary], bins: Sequence[TokenBin], path: Path) -> Path:
    """Macro completion per bin of the clinician's input tokens, each group binned on its own
    lengths and drawn where its encounters lie (the bin's mean length; a thin horizontal line
    spans the bin), so groups that read very different amounts stand apart."""
    look = styles(groups)
    n = max(1, len(groups))
    fig = Figure(figsize=(10.0, 6.0 + 0.3 * ((n + 1) // 2)), layout="constrained")
    ax = fig.add_subplot()
    for g in groups:
        s = look[g.label]
        mine = sorted((b for b in bins if b.group == g.label), key=lambda b: b.bin)
        if not mine:
            continue
        xs = [b.mean_k for b in mine]
        ys = [b.macro * 100 for b in mine]
        yerr = [[b.macro * 100 - b.ci_low * 100 for b in mine],
                [b.ci_high * 100 - b.macro * 100 for b in mine]]  # fmt: skip
        xerr = [[b.mean_k - b.low_k for b in mine], [b.high_k - b.mean_k for b in mine]]
        ax.errorbar(
            xs, ys, yerr=yerr, fmt=s.marker, linestyle=s.line, color=s.colour, ecolor=s.colour,
            capsize=3, markeredgecolor="black", markersize=7, linewidth=1.5,
        )  # fmt: skip
        ax.errorbar(xs, ys, xerr=xerr, fmt="none", ecolor=s.colour, elinewidth=0.8, alpha=0.6)
        for x, b in zip(xs, mine if n <= 3 else [], strict=False):
            ax.annotate(
                f"{b.macro * 100:.0f}%\nn={b.n}", (x, b.ci_high * 100), fontsize=7,
                ha="center", va="bottom", xytext=(0, 3), textcoords="offset points",
            )  # fmt: skip
    lows = [b.low_k for b in bins if b.low_k > 0]
    if lows and max(b.high_k for b in bins) > 3 * min(lows):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(ScalarFormatter())
        ax.tick_params(axis="x", which="both", labelsize=8)
    ax.set_ylim(0, 112)
    ax.set_xlabel(
        "clinician's input tokens per encounter (thousands; each group in bins of equal "
        "counts of its own encounters)"
    )
    ax.set_ylabel("macro completion (% of rubric items)")
    ax.set_title(
        "Completion by encounter length within each group\n(markers: bin means; vertical "
        "bars: 95% intervals; horizontal lines: the bin's range of lengths)",
        fontsize=11,
    )
    ax.yaxis.grid(True, linestyle=":", linewidth=0.6)
    ax.set_axisbelow(True)
    _legend(fig, groups, look)
    return save(fig, path)


def strategy_chart(cells: Sequence[StrategyCell], path: Path) -> Path:
    """Heatmap of macro completion: one row per group (strategy, clinician), one column per
    competency (and overall); every cell printed."""
    rows = list(dict.fromkeys(c.group for c in cells))
    columns = list(dict.fromkeys(c.competency for c in cells))
    found = {(c.group, c.competency): c for c in cells}
    grid = [
        [
            math.nan if (v := found[(r, col)].macro if (r, col) in found else None) is None
            else v * 100
            for col in columns
        ]
        for r in rows
    ]  # fmt: skip
    fig = Figure(figsize=(1.1 * len(columns) + 4.5, 0.6 * len(rows) + 2.2), layout="constrained")
    ax = fig.add_subplot()
    from matplotlib import colormaps

    palette = colormaps["cividis"].with_extremes(bad="#e4e4e4")
    image = ax.imshow(grid, cmap=palette, vmin=0, vmax=100, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(columns)):
            v = grid[i][j]
            text = "n/a" if math.isnan(v) else f"{v:.1f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=9,
                    color="white" if not math.isnan(v) and v <= 40 else "black")  # fmt: skip
    ax.set_yticks(range(len(rows)), [wrap(r, 36) for r in rows], fontsize=8)
    ax.set_xticks(range(len(columns)), columns)
    ax.set_xlabel("competency (macro completion, %)")
    ax.set_title(
        "Test-time strategy by competency"
        + ("\n(n/a, grey: no scored scenario with that competency)" if any(
            math.isnan(v) for row in grid for v in row) else "")
    )
    fig.colorbar(image, ax=ax, label="macro completion (%)", shrink=0.8)
    return save(fig, path)


def breakdown_chart(
    groups: Sequence[GroupSummary], rows: Sequence[Breakdown], path: Path
) -> Path:
    """One panel per case-metadata field: each category's macro per group with intervals."""
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
                _point(ax, b.macro * 100, y, b.ci_low * 100, b.ci_high * 100, look[g.label])
                ax.text(1.01, y, f"{b.macro * 100:.1f}% n={b.scenarios}", fontsize=6.5,
                        va="center", transform=ax.get_yaxis_transform())  # fmt: skip
        ax.set_yticks(ticks, [wrap(c, 26) for c in names], fontsize=8)
        ax.set_ylim(0.5, len(names) + 0.5)
        _pct_axis(ax)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(f"by {field}", fontsize=10, loc="left")
        ax.set_xlabel("macro completion (%)", fontsize=8)
    fig.suptitle(
        "Completion by case metadata (markers: macro; bars: 95% interval; n: scenarios)",
        fontsize=11,
    )
    _legend(fig, groups, look)
    return save(fig, path)
