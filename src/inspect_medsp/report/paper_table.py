"""``table.md`` and ``table.tex``: the groups in the shape of the paper's main results table,
one row per group: macro completion per competency, overall macro and micro, each with its
95% interval, and the scenarios scored. A column's best value is bold only when every group
ran the same case set and its 95% interval lies wholly above every other group's (told apart
from noise); an interval that cannot be given is left out, never printed as ``[nan, nan]``."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from inspect_medsp.data import COMPETENCIES, sets_named
from inspect_medsp.report.analysis import Analysis
from inspect_medsp.report.files import ReportFile, document
from inspect_medsp.report.groups import GroupSummary

TABLE_MD = "table.md"
TABLE_TEX = "table.tex"
COLUMNS: tuple[tuple[str, str], ...] = (
    *((c, f"{c}_macro") for c in COMPETENCIES),
    ("Macro", "macro"),
    ("Micro", "micro"),
)
"""(heading, metric) of every number column, in the paper's order."""

_TEX = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "{": r"\{",
        "}": r"\}",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
)


def tex(text: str) -> str:
    """Text safe inside a LaTeX table cell."""
    return " ".join(text.split()).translate(_TEX)


def _known(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def _interval(group: GroupSummary, metric: str) -> tuple[float, float] | None:
    low, high = group.metric(f"{metric}_ci_low"), group.metric(f"{metric}_ci_high")
    if low is None or high is None or not (_known(low) and _known(high)):
        return None
    return low, high


def _best(groups: Sequence[GroupSummary], metric: str) -> float | None:
    """The column's best value when it is told apart from every other group's: all groups on
    one case set, and the best's 95% interval wholly above every other's (None otherwise)."""
    if len({g.case_set.key for g in groups}) != 1:
        return None
    found = [(v, g) for g in groups if _known(v := g.metric(metric))]
    if len(found) < 2:
        return None
    found.sort(key=lambda pair: -float(pair[0] or 0.0))
    top = _interval(found[0][1], metric)
    if top is None:
        return None
    for _, other in found[1:]:
        span = _interval(other, metric)
        if span is None or span[1] >= top[0]:
            return None
    return found[0][0]


def _cell(group: GroupSummary, metric: str) -> tuple[str, str] | None:
    """``(value, interval)`` in percent, or None when the group has no value."""
    value = group.metric(metric)
    if not _known(value):
        return None
    assert value is not None
    span = _interval(group, metric)
    interval = "" if span is None else f"[{span[0] * 100:.1f}, {span[1] * 100:.1f}]"
    return f"{value * 100:.1f}", interval


def _cells(
    group: GroupSummary,
    best: dict[str, float | None],
    *,
    missing: str,
    bold: Callable[[str], str],
    join: Callable[[str, str], str],
) -> list[str]:
    """One group's number cells in ``COLUMNS`` order: ``missing`` where it has no value, the
    column's best value made ``bold``, each value and its interval put together by ``join``."""
    cells = []
    for _, metric in COLUMNS:
        found = _cell(group, metric)
        if found is None:
            cells.append(missing)
            continue
        value, interval = found
        if best[metric] is not None and group.metric(metric) == best[metric]:
            value = bold(value)
        cells.append(join(value, interval))
    return cells


def table_markdown(groups: Sequence[GroupSummary]) -> str:
    """The table as Markdown (GitHub tables)."""
    best = {m: _best(groups, m) for _, m in COLUMNS}
    header = ["Model", *[h for h, _ in COLUMNS], "Scenarios"]
    sets = sets_named([g.case_set for g in groups])
    lines = [
        f"# Results: {sets}" if sets else "# MedSP results",
        "",
        "Completion (% of rubric items met; macro: mean over scenarios) with 95% cluster-"
        "robust t intervals over cases (none below 6 cases); competency columns are macro "
        "completion. A column's best value is in bold only when all groups ran the same "
        "case set and its interval lies wholly above every other group's.",
        "",
        "| " + " | ".join(header) + " |",
        "|---|" + "|".join("---:" for _ in header[1:]) + "|",
    ]
    for g in groups:
        cells = _cells(
            g,
            best,
            missing="n/a",
            bold=lambda value: f"**{value}**",
            join=lambda value, interval: f"{value} {interval}".strip(),
        )
        name = g.label.replace("|", "\\|")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {len(g.scored_ids)} |")
    return "\n".join(lines) + "\n"


def table_latex(groups: Sequence[GroupSummary]) -> str:
    """The table as a LaTeX ``table`` with ``booktabs`` rules (``\\usepackage{booktabs}``)."""
    best = {m: _best(groups, m) for _, m in COLUMNS}
    spec = "l" + "c" * len(COLUMNS) + "r"
    heads = " & ".join(["Model", *[h for h, _ in COLUMNS], "Scenarios"])
    lines = [
        "% MedSP results; needs \\usepackage{booktabs}",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        f"{heads} \\\\",
        "\\midrule",
    ]
    for g in groups:
        cells = _cells(
            g,
            best,
            missing="--",
            bold=lambda value: f"\\textbf{{{value}}}",
            join=lambda value, interval: (
                f"\\shortstack{{{value}\\\\{{\\scriptsize {interval}}}}}" if interval else value
            ),
        )
        lines.append(" & ".join([tex(g.label), *cells, str(len(g.scored_ids))]) + " \\\\")
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        "\\caption{Completion (\\% of rubric items met; macro: mean over scenarios) with 95\\% "
        "cluster-robust t intervals over cases below each value; competency columns are "
        "macro completion. A column's best value is in bold only when all groups ran the same "
        "case set and its interval lies wholly above every other group's.}",
        "\\label{tab:medsp-results}",
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"


def paper_files(analysis: Analysis) -> list[ReportFile]:
    """``table.md`` and ``table.tex``, named on one line of the Files list (written with the
    leaderboard)."""
    line = (
        f"- [{TABLE_MD}]({TABLE_MD}), [{TABLE_TEX}]({TABLE_TEX}): the groups in the shape of the "
        "paper's main results table, for a write-up"
    )
    return [
        document(TABLE_MD, 10, table_markdown(analysis.groups), line),
        document(TABLE_TEX, 20, table_latex(analysis.groups), ""),
    ]
