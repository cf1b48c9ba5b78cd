"""The competency bars and the per-scenario distribution, and the style every chart shares.

Matplotlib's object API with the Agg canvas is used directly, so nothing global (pyplot's
backend, open figures) is touched. Each clinician model keeps one colour in every figure
(:func:`styles`), its groups (strategies, judges) a lighter shade of it with a different kind
of hatch; groups also differ by marker and line style, and every bar carries its value, so the
charts read in greyscale too.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from inspect_medsp.data import COMPETENCIES
from inspect_medsp.report.findings import GroupSummary

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Okabe-Ito colours, safe for the common colour-vision deficiencies."""
HATCHES = ("//", "..", "xx", "--", "oo", "++", "**", "\\\\")
"""Hatches of one clinician's groups in turn, each a different kind (not just a direction)."""
SHADES = (0.0, 0.45, 0.7, 0.25, 0.58)
"""How far each of one clinician's groups mixes its colour with white, in turn."""
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")
DPI = 100
MAX_INCHES = 40.0


class Style(NamedTuple):
    """How one group is drawn: its clinician's colour, and its own hatch, marker and line."""

    colour: str
    hatch: str
    marker: str
    line: str


def _shade(colour: str, share: float) -> str:
    """``colour`` (``#rrggbb``) mixed with white by ``share``."""
    if not share:
        return colour
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * share):02x}" for c in channels)


def styles(groups: Sequence[GroupSummary]) -> dict[str, Style]:
    """Style by group label: colour by clinician model (alphabetical, so the same set of
    models gets the same colours in every report); the groups of one model (its strategies,
    judges ...) in turn a lighter shade of it and a different kind of hatch; marker and line
    by group position."""
    models = sorted({g.clinician for g in groups})
    seen: dict[str, int] = {}
    out: dict[str, Style] = {}
    for i, g in enumerate(groups):
        k = seen.get(g.clinician, 0)
        seen[g.clinician] = k + 1
        base = PALETTE[models.index(g.clinician) % len(PALETTE)]
        out[g.label] = Style(
            _shade(base, SHADES[k % len(SHADES)]),
            HATCHES[k % len(HATCHES)],
            MARKERS[i % len(MARKERS)],
            LINESTYLES[i % len(LINESTYLES)],
        )
    return out


def _pieces(text: str, pattern: str) -> list[str]:
    return [p for p in re.findall(pattern, text) if p]


def wrap(label: str, width: int = 28) -> str:
    """``label`` on lines of at most ``width`` characters, broken only after a space, ``/``,
    ``,``, ``=`` or ``;`` (a piece still too long after ``-`` or ``_``), never inside a token:
    a piece longer than ``width`` keeps a line of its own."""
    pieces: list[str] = []
    for piece in _pieces(label, r"[^\s/,=;]*[/,=;]?\s*"):
        fits = len(piece.strip()) <= width
        pieces += [piece] if fits else _pieces(piece, r"[^-_]*[-_]?")
    lines = [""]
    for piece in pieces:
        if lines[-1] and len((lines[-1] + piece).rstrip()) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


def _horizontal() -> dict[str, Any]:
    """Horizontal boxes on matplotlib 3.10+ (``orientation``) and older (``vert``)."""
    if "orientation" in inspect.signature(Axes.boxplot).parameters:
        return {"orientation": "horizontal"}
    return {"vert": False}


def save(fig: Figure, path: Path) -> Path:
    """Render ``fig`` to a PNG at ``path``."""
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=DPI, format="png")
    return path


def competency_chart(groups: Sequence[GroupSummary], path: Path) -> Path:
    """Grouped bars: each competency's macro completion for every group, labelled."""
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


def distribution_chart(groups: Sequence[GroupSummary], path: Path) -> Path:
    """Per-scenario overall completion per group: a box with every scenario as a marker."""
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
