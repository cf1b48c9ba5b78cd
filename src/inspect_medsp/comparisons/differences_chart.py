"""``differences.png``: the forest plot of the paired differences, one panel per competency
(overall first) and one row per pair in each."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from matplotlib.figure import Figure

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.report import MAX_INCHES, save, wrap
from inspect_medsp.stats import OVERALL, Comparison

MAX_POINTS = 100.0
"""The largest possible difference of two completion rates, in percentage points."""
DETECTED = "#D55E00"
NOT_DETECTED = "#0072B2"


def differences_chart(rows: Sequence[Comparison], path: Path) -> Path:
    """Each pair's ``b - a`` (points) with its 95% interval; filled markers are detectable
    differences, hollow ones are not; the grey band is ``± mdd`` (what the comparison can
    detect)."""
    return save(differences_figure(rows), path)


def differences_figure(rows: Sequence[Comparison]) -> Figure:
    """The figure of :func:`differences_chart`; its axis spans at most ±100 points."""
    pairs = list(dict.fromkeys((r.group_a, r.group_b) for r in rows))
    keys = [k for k in (OVERALL, *COMPETENCIES) if any(r.competency == k for r in rows)]
    found = {(r.group_a, r.group_b, r.competency): r for r in rows}
    finite = [
        abs(v) * 100
        for r in rows
        for v in (r.paired.ci_low, r.paired.ci_high, r.paired.difference, r.paired.mdd)
        if not math.isnan(v)
    ]
    # a difference of completion rates lies within ±100 points: the axis never goes beyond
    reach = min(max([5.0, *finite]) * 1.1, MAX_POINTS)
    height = min(MAX_INCHES, max(3.2, 2.0 + 0.55 * len(pairs)))
    width = min(MAX_INCHES, max(10.0, 3.2 + 1.9 * len(keys)))
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, len(keys), sharey=True, squeeze=False)[0]
    ys = list(range(len(pairs), 0, -1))
    for ax, key in zip(axes, keys, strict=True):
        for y, (a, b) in zip(ys, pairs, strict=True):
            r = found.get((a, b, key))
            if r is None:
                ax.text(0, y, "n/a", ha="center", va="center", fontsize=7, color="grey")
                continue
            d = r.paired
            if not math.isnan(d.mdd):
                ax.fill_betweenx(
                    [y - 0.2, y + 0.2], -d.mdd * 100, d.mdd * 100, color="#e4e4e4", zorder=0
                )
            colour = DETECTED if r.detectable else NOT_DETECTED
            if not math.isnan(d.ci_low):
                ax.plot([d.ci_low * 100, d.ci_high * 100], [y, y], color=colour, linewidth=1.6)
            ax.plot(
                [d.difference * 100], [y], marker="o" if r.detectable else "D", markersize=6,
                color=colour, markerfacecolor=colour if r.detectable else "white", zorder=3,
            )  # fmt: skip
            ax.annotate(
                f"{d.difference * 100:+.1f}", (d.difference * 100, y), xytext=(0, 5),
                textcoords="offset points", ha="center", fontsize=7,
            )  # fmt: skip
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(0.4, len(pairs) + 0.6)
        ax.set_title("Overall" if key == OVERALL else key, fontsize=10)
        ax.tick_params(axis="x", labelsize=7)
        ax.xaxis.grid(True, linestyle=":", linewidth=0.6)
        ax.set_axisbelow(True)
    axes[0].set_yticks(ys, [f"{wrap(b, 34)}\nvs {wrap(a, 34)}" for a, b in pairs], fontsize=8)
    fig.supxlabel(
        "difference b - a in macro completion (percentage points); grey band: ± minimum "
        "detectable difference",
        fontsize=8,
    )
    corrected = any(r.corrected for r in rows)
    fig.suptitle(
        "Paired differences b - a on the scenarios both groups scored\n"
        "bars: 95% interval (none below 6 cases); filled orange circle: detectable at p < 0.05"
        f"{' (Holm-adjusted)' if corrected else ''}; hollow blue diamond: not detectable",
        fontsize=10,
    )
    return fig
