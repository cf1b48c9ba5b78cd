"""The style every chart of the report shares, and the pieces its figures are drawn with.

Matplotlib's object API with the Agg canvas is used directly, so nothing global (pyplot's
backend, open figures) is touched; this module imports matplotlib only when a figure is saved
or drawn on, so the report's core loads without the ``report`` extra. Each clinician model
keeps one colour in every figure (:func:`styles`), its groups (strategies, judges) a lighter
shade of it with a different kind of hatch; groups also differ by marker and line style, and
every bar carries its value, so the charts read in greyscale too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from inspect_medsp.report.groups import GroupSummary

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

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
SMALL_FACE = "#ececec"
"""Background of a panel whose numbers rest on too few scenarios."""


class Style(NamedTuple):
    """How one group is drawn: its clinician's colour, and its own hatch, marker and line."""

    colour: str
    hatch: str
    marker: str
    line: str


def shade(colour: str, share: float) -> str:
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
            shade(base, SHADES[k % len(SHADES)]),
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


def save(fig: Figure, path: Path) -> Path:
    """Render ``fig`` to a PNG at ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=DPI, format="png")
    return path


def legend(fig: Figure, groups: Sequence[GroupSummary], look: dict[str, Style]) -> None:
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


def point(ax: Axes, x: float, y: float, low: float, high: float, style: Style) -> None:
    """A horizontal 95% interval with the group's marker at the estimate (all in %)."""
    ax.errorbar(
        [x], [y], xerr=[[x - low], [high - x]], fmt=style.marker, color=style.colour,
        ecolor=style.colour, elinewidth=1.6, capsize=3, markeredgecolor="black",
        markersize=6, zorder=3,
    )  # fmt: skip


def pct_axis(ax: Axes) -> None:
    ax.set_xlim(-2, 102)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.xaxis.grid(True, linestyle=":", linewidth=0.6)
    ax.set_axisbelow(True)
