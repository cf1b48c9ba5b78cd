"""The work-up's figures: completion against cost (one point per group) and the curve of
rubric items met by turn. Imported only when drawing (matplotlib is the ``report`` extra)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from inspect_medsp.report import Analysis, save, styles, wrap
from inspect_medsp.workup.summary import GroupWorkup


def frontier_chart(analysis: Analysis, rows: list[GroupWorkup], path: Path) -> Path:
    """Macro completion (y) against mean cost per encounter (x), one labelled point per
    group, each with its case-clustered cost interval when it has one."""
    look = styles(analysis.groups)
    fig = Figure(figsize=(7.5, 4.8), layout="constrained")
    ax = fig.add_subplot()
    placed: dict[tuple[float, float], int] = {}
    for row in rows:
        if row.completion is None:
            continue
        style = look[row.label]
        # groups on the same point are named one under another beside it
        spot = (round(row.cost, 6), round(row.completion, 6))
        stacked = placed[spot] = placed.get(spot, -1) + 1
        ax.annotate(
            row.label, (row.cost, row.completion), xytext=(9, -11 * stacked),
            textcoords="offset points", fontsize=7, color=style.colour, va="center",
        )  # fmt: skip
        xerr = None
        if row.cost_low is not None and row.cost_high is not None:
            xerr = [[row.cost - row.cost_low], [row.cost_high - row.cost]]
        ax.errorbar(
            row.cost, row.completion, xerr=xerr, fmt=style.marker, color=style.colour,
            markersize=9, capsize=4, label=wrap(row.label, 40),
        )  # fmt: skip
    ax.set_xlabel(f"mean cost per encounter ({rows[0].currency if rows else ''})")
    ax.set_ylabel("macro completion of the rubric")
    ax.set_ylim(0, 1.02)
    costs = [r.cost for r in rows if r.completion is not None]
    ax.set_xlim(0, max(costs, default=1.0) * 1.8 or 1.0)  # room for the names
    ax.grid(alpha=0.3)
    ax.set_title("Completion against the cost of the work-up (up and left is better)")
    ax.legend(loc="lower right", fontsize=8)
    return save(fig, path)


def curve_chart(analysis: Analysis, rows: list[GroupWorkup], path: Path) -> Path:
    """Mean share of rubric items met by the end of each turn, one line per group."""
    look = styles(analysis.groups)
    fig = Figure(figsize=(7.5, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for row in rows:
        if not row.curve:
            continue
        style = look[row.label]
        turns = list(range(1, len(row.curve) + 1))
        ax.plot(
            turns, row.curve, color=style.colour, linestyle=style.line, marker=style.marker,
            label=wrap(row.label, 40),
        )  # fmt: skip
    ax.set_xlabel("turn")
    ax.set_ylabel("share of rubric items met by the end of the turn")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title("Items met by turn (placed by the grader's quote, an order or the words)")
    ax.legend(loc="lower right", fontsize=8)
    return save(fig, path)
