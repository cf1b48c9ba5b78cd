"""Completion by the clinician's input length (a view of the paper): each group's encounters
in bins of equal counts of its own input tokens, macro per bin with its interval; the text,
``input_length.csv`` and the figure."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from inspect_medsp.record import MedspSample
from inspect_medsp.report.analysis import Analysis, TokenBin
from inspect_medsp.report.charts import legend, save, styles
from inspect_medsp.report.files import Cell, ReportFile, Table, chart, csv_file
from inspect_medsp.report.groups import GroupSummary, cell
from inspect_medsp.report.section import Page, Section
from inspect_medsp.report.text import esc, table, with_ci

CHART_TOKENS = "input_length.png"

TOKEN_BINS = 5
"""Bins of equal sample count for the input-length view (fewer when values repeat)."""


def token_edges(values: Sequence[int], bins: int = TOKEN_BINS) -> list[float]:
    """Bin edges at quantiles of ``values`` (equal counts), without repeats."""
    ordered = sorted(values)
    if not ordered:
        return []
    k = max(1, min(bins, len(set(ordered))))
    edges = [float(ordered[min(len(ordered) - 1, (len(ordered) * i) // k)]) for i in range(k)]
    edges.append(float(ordered[-1]))
    return sorted(set(edges)) if len(set(edges)) > 1 else [edges[0], edges[0]]


def bin_ranges(edges: Sequence[float]) -> list[str]:
    """``low to <high`` per bin (edges in thousands; the last bin includes its high edge, so
    ``low to high``), with as few decimals as keep the edges apart; no two labels overlap."""
    shown = [f"{e:.3f}" for e in edges]
    for digits in range(4):
        candidate = [f"{e:.{digits}f}" for e in edges]
        if len(set(candidate)) == len(set(edges)):
            shown = candidate
            break
    pairs = list(itertools.pairwise(shown))
    return [f"{a} to {'' if i == len(pairs) - 1 else '<'}{b}" for i, (a, b) in enumerate(pairs)]


def _bin_of(value: float, edges: Sequence[float]) -> int:
    for i in range(len(edges) - 2, -1, -1):
        if value >= edges[i]:
            return i
    return 0


def token_bins(groups: Sequence[tuple[str, Sequence[MedspSample]]]) -> list[TokenBin]:
    """Each group's macro per bin of its own input lengths (equal counts within the group):
    groups that read very different amounts (a best-of-N strategy reads several times what
    ``off`` does) are never cut into bins that hold one group's encounters only, so a line
    through a group's bins shows length within that group, not the difference between
    groups."""
    out: list[TokenBin] = []
    for label, samples in groups:
        known = [s for s in samples if s.scored and s.clinician_input_tokens is not None]
        edges = token_edges([s.clinician_input_tokens or 0 for s in known])
        if not edges:
            continue
        by: dict[int, list[MedspSample]] = defaultdict(list)
        for s in known:
            by[_bin_of(s.clinician_input_tokens or 0, edges)].append(s)
        for b, members in sorted(by.items()):
            c = cell(label, members)
            if c is None:
                continue
            tokens = [s.clinician_input_tokens or 0 for s in members]
            out.append(
                TokenBin(
                    group=label,
                    bin=b,
                    low_k=edges[b] / 1000,
                    high_k=edges[b + 1] / 1000,
                    mean_k=sum(tokens) / len(tokens) / 1000,
                    n=c.n,
                    macro=c.macro,
                    ci_low=c.ci_low,
                    ci_high=c.ci_high,
                )
            )
    return out


def _cell(b: TokenBin) -> str:
    """Macro [interval] (n=samples)."""
    return f"{with_ci(b.macro, b.ci_low, b.ci_high)} (n={b.n})"


def input_length(page: Page) -> list[str]:
    analysis, charts = page.analysis, page.charts
    out = ["## Completion by encounter length", ""]
    if not analysis.token_bins and all(g.human for g in analysis.groups):
        return [
            *out,
            "A person in the clinician's chair reads no tokens: there is no input length to "
            "bin by (n/a).",
            "",
        ]
    if not analysis.token_bins:
        return [
            *out,
            "The logs record no model usage per sample, so the clinician's input length is "
            "unknown.",
            "",
        ]
    out.append(
        "The clinician's input tokens per encounter (every call of the model under test, "
        "cached input included: the sample's model usage less the other roles' usage), each "
        "group in bins of equal counts of its own encounters (groups that read very different "
        "amounts, such as a best-of-N strategy and `off`, are not cut into shared bins); "
        "macro completion per bin with its 95% interval."
    )
    out.append("")
    if charts:
        out += [f"![Completion by the clinician's input length]({CHART_TOKENS})", ""]
    rows: list[list[str]] = []
    for g in analysis.groups:
        mine = sorted((b for b in analysis.token_bins if b.group == g.label), key=lambda b: b.bin)
        if not mine:
            continue
        ranges = bin_ranges([b.low_k for b in mine] + [mine[-1].high_k])
        rows += [[esc(g.label), f"{r}k", _cell(b)] for b, r in zip(mine, ranges, strict=True)]
    out += table(["Group", "Input tokens", "Macro completion"], rows)
    missing = sum(
        s.scored and s.clinician_input_tokens is None
        for g in analysis.groups
        if not g.human
        for s in g.samples
    )
    if missing:
        out += [f"{missing} scored samples have no usage record and are not in this view.", ""]
    if any(g.human for g in analysis.groups):
        out += ["A person in the clinician's chair reads no tokens: their column is n/a.", ""]
    return out


def input_length_table(analysis: Analysis) -> Table:
    """The points of input_length.png."""
    columns = ["group", "bin", "tokens_low_k", "tokens_high_k", "tokens_mean_k", "n", "macro",
               "ci_low", "ci_high"]  # fmt: skip
    rows: list[list[Cell]] = [
        [b.group, b.bin, b.low_k, b.high_k, b.mean_k, b.n, b.macro, b.ci_low, b.ci_high]
        for b in analysis.token_bins
    ]
    return Table(name="input_length", columns=columns, rows=rows)


def tokens_chart(groups: Sequence[GroupSummary], bins: Sequence[TokenBin], path: Path) -> Path:
    """Macro completion per bin of the clinician's input tokens, each group binned on its own
    lengths and drawn where its encounters lie (the bin's mean length; a thin horizontal line
    spans the bin), so groups that read very different amounts stand apart."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import ScalarFormatter

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
    legend(fig, groups, look)
    return save(fig, path)


def _chart(analysis: Analysis, path: Path) -> Path:
    return tokens_chart(analysis.groups, analysis.token_bins, path)


def _files(analysis: Analysis) -> list[ReportFile]:
    drawn = [chart(CHART_TOKENS, 60, _chart, analysis)] if analysis.token_bins else []
    return [*drawn, csv_file(input_length_table(analysis), 50)]


INPUT_LENGTH = Section(name="input length", text=input_length, files=_files)
