"""Strategy by competency (a view of the paper): each competency's macro per group when the
groups differ by test-time strategy; the text, ``strategy_competency.csv`` and the heatmap."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.report.analysis import Analysis, StrategyCell
from inspect_medsp.report.charts import save, wrap
from inspect_medsp.report.files import Cell, ReportFile, Table, chart, csv_file
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, pct, table

CHART_STRATEGY = "strategy_competency.png"


def strategy_cells(groups: Sequence[tuple[str, str, str, dict[str, float]]]) -> list[StrategyCell]:
    """Competency macros of every group, when the groups differ by strategy (else none).

    Args:
        groups: (label, clinician, strategy, metrics) per group.
    """
    if len({strategy for _, _, strategy, _ in groups}) < 2:
        return []
    ordered = sorted(groups, key=lambda g: (g[1], g[2], g[0]))
    return [
        StrategyCell(
            group=label,
            clinician=clinician,
            strategy=strategy,
            competency=c,
            macro=metrics.get("macro" if c == "overall" else f"{c}_macro"),
        )
        for label, clinician, strategy, metrics in ordered
        for c in ("overall", *COMPETENCIES)
        if c != "overall" or "macro" in metrics
    ]


def strategy(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    if not analysis.strategy:
        return []
    out = ["## Strategy by competency", ""]
    if charts:
        out += [f"![Macro completion by strategy and competency]({CHART_STRATEGY})", ""]
    columns = list(dict.fromkeys(c.competency for c in analysis.strategy))
    found = {(c.group, c.competency): c.macro for c in analysis.strategy}
    first = {c.group: c for c in analysis.strategy}
    rows = [
        [esc(g), esc(c.strategy), *[pct(found.get((g, k))) for k in columns]]
        for g, c in first.items()
    ]
    out += table(["Group", "Strategy", *columns], rows)
    return out


def strategy_table(analysis: Analysis) -> Table:
    """The cells of strategy_competency.png (empty unless the runs differ by strategy)."""
    rows: list[list[Cell]] = [
        [c.group, c.clinician, c.strategy, c.competency, c.macro] for c in analysis.strategy
    ]
    columns = ["group", "clinician", "strategy", "competency", "macro"]
    return Table(name="strategy_competency", columns=columns, rows=rows)


def strategy_chart(cells: Sequence[StrategyCell], path: Path) -> Path:
    """Heatmap of macro completion: one row per group (strategy, clinician), one column per
    competency (and overall); every cell printed."""
    from matplotlib.figure import Figure

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


def _chart(analysis: Analysis, path: Path) -> Path:
    return strategy_chart(analysis.strategy, path)


def _files(analysis: Analysis) -> list[ReportFile]:
    drawn = [chart(CHART_STRATEGY, 70, _chart, analysis)] if analysis.strategy else []
    return [*drawn, csv_file(strategy_table(analysis), 70)]


STRATEGY = Section(name="strategy", text=strategy, shows=lambda a: bool(a.strategy), files=_files)
