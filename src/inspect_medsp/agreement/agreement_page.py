"""The agreement folder: the CSV files, the summary as Markdown, and its chart in the
report's chart style."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from matplotlib.figure import Figure
from pydantic import BaseModel

from inspect_medsp.agreement.agreement import (
    AgreementReport,
    AgreementRow,
    Disagreement,
    Shift,
    analyse_agreement,
)
from inspect_medsp.report import (
    HATCHES,
    MAX_INCHES,
    PALETTE,
    Cell,
    Table,
    esc,
    save,
    short,
    table,
    wrap,
    write_csv,
)

CHART = "agreement.png"
TOP_SHOWN = 10
CSV_COLUMNS = (
    "comparison",
    "kind",
    "raters",
    "competency",
    "items",
    "unscored",
    "unjudged",
    "agreement",
    "agreement_ci_low",
    "agreement_ci_high",
    "unanimous",
    "kappa",
    "kappa_ci_low",
    "kappa_ci_high",
    "kappa_kind",
)


def _num(value: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def _ci(value: float, low: float, high: float, digits: int = 2) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isnan(low):
        return _num(value, digits)
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def agreement_chart(rows: Sequence[AgreementRow], path: Path) -> Path:
    """Percent agreement and kappa per competency for every comparison, with 95% intervals."""
    names = list(dict.fromkeys(r.comparison for r in rows))
    keys = list(dict.fromkeys(r.competency for r in rows))
    n = max(1, len(names))
    width_in = min(MAX_INCHES, max(8.0, 1.2 + len(keys) * (0.45 * n + 0.5)))
    fig = Figure(figsize=(width_in, 8.5 + 0.25 * n), layout="constrained")
    panels = fig.subplots(2, 1, sharex=True)
    bar = 0.8 / n
    for ax, (field, title) in zip(
        panels,
        (
            ("agreement", "agreement (share of verdicts that match, 0 to 1)"),
            ("kappa", "kappa (chance-corrected, -1 to 1)"),
        ),
        strict=True,
    ):
        for gi, name in enumerate(names):
            colour, hatch = PALETTE[gi % len(PALETTE)], HATCHES[gi % len(HATCHES)]
            mine = {r.competency: r for r in rows if r.comparison == name}
            xs, heights, lows, highs, texts = [], [], [], [], []
            for ki, key in enumerate(keys):
                row = mine.get(key)
                value = math.nan if row is None else float(getattr(row, field))
                low = math.nan if row is None else float(getattr(row, f"{field}_ci_low"))
                high = math.nan if row is None else float(getattr(row, f"{field}_ci_high"))
                xs.append(ki + (gi - (n - 1) / 2) * bar)
                heights.append(0.0 if math.isnan(value) else value)
                lows.append(0.0 if math.isnan(low) or math.isnan(value) else value - low)
                highs.append(0.0 if math.isnan(high) or math.isnan(value) else high - value)
                texts.append(_num(value))
            bars = ax.bar(
                xs,
                heights,
                bar * 0.95,
                label=wrap(name, 48) if field == "agreement" else None,
                color=colour,
                hatch=hatch,
                edgecolor="black",
                linewidth=0.6,
                alpha=0.85,
            )
            # the interval drawn apart from the bar, so each value's label sits at the value
            # (bar_label puts it at the top of the whisker when the bar carries yerr)
            ax.errorbar(
                xs, heights, yerr=[lows, highs], fmt="none", ecolor="black", elinewidth=0.8,
                capsize=2, zorder=3,
            )  # fmt: skip
            ax.bar_label(
                bars, labels=texts, padding=2, fontsize=7, rotation=90 if n > 3 else 0,
                bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none",
                      "alpha": 0.85},
                zorder=4,
            )  # fmt: skip
        lows = [float(getattr(r, f"{field}_ci_low")) for r in rows]
        lowest = min([0.0, *(v for v in lows if not math.isnan(v))])
        ax.set_ylim(lowest - (0.25 if lowest < 0 else 0.05), 1.2 if n > 3 else 1.15)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel(title)
        ax.yaxis.grid(True, linestyle=":", linewidth=0.6)
        ax.set_axisbelow(True)
    panels[1].set_xticks(range(len(keys)), keys)
    panels[1].set_xlabel("ACGME competency (overall: every item)")
    panels[0].set_title("Agreement on rubric verdicts (bars: 95% case-clustered intervals)")
    fig.legend(loc="outside lower center", ncols=min(2, n), fontsize=8, frameon=False)
    return save(fig, path)


HOW_TO_READ = [
    "## How to read this",
    "",
    "- agreement: the share of rater pairs giving the same verdict, averaged over items "
    "(for two raters, the share of items they agree on); unanimous: the share of items "
    "every rater agrees on.",
    "- kappa: agreement beyond chance; Cohen's for two raters, Fleiss' for more; n/a when "
    "every verdict was the same.",
    "- intervals: agreement and the differences in macro completion have the "
    "leaderboard's 95% case-clustered t interval; kappa, not a mean, a 95% percentile "
    "bootstrap resampling whole cases (1,000 resamples).",
    "- left out: items a rater could not score (its sample is unscored) or left unjudged; "
    "never counted as a verdict.",
    "- repeats: a log graded with `-S samples=k` gives k raters (its repeats); as a "
    "grader it counts with its majority verdicts.",
    "",
]
"""The page's last section: how to read each column."""


def agreement_markdown(report: AgreementReport) -> str:
    """The summary page: inputs, warnings, the agreement table, shifts and disagreements."""
    out = ["# How much can the grader be trusted?", ""]
    out += _inputs(report)
    out += _agreement(report)
    if report.shifts:
        out += _shifts(report)
    if report.disagreements:
        out += _disagreements(report)
    out += HOW_TO_READ
    return "\n".join(out)


def _inputs(report: AgreementReport) -> list[str]:
    """The logs compared, how many encounters each holds, and the warnings."""
    out: list[str] = []
    out += table(
        ["log", "clinician", "grader", "encounters", "scored", "grading repeats"],
        [
            [
                esc(g["name"]),
                esc(g["clinician"]),
                esc(g["grader"]),
                str(g["encounters"]),
                str(g["scored"]),
                str(g["repeats"]),
            ]
            for g in report.logs
        ],
    )
    out.append(
        f"Encounters compared: {report.encounters} (same sample id, epoch and recorded "
        f"Trajectory in every log); {report.left_out_encounters} in only some logs, left out."
    )
    if report.human_encounters:
        out.append(f"Encounters double-rated by clinicians: {report.human_encounters}.")
    out.append("")
    out += [f"- ⚠ {esc(w)}" for w in report.warnings]
    if report.warnings:
        out.append("")
    return out


def _agreement(report: AgreementReport) -> list[str]:
    """The agreement table: each comparison's agreement and kappa by competency."""
    out: list[str] = []
    out += ["## Agreement", "", f"![agreement]({CHART})", ""]
    out += table(
        [
            "comparison",
            "competency",
            "items",
            "left out (unscored / unjudged)",
            "agreement [95% CI]",
            "unanimous",
            "kappa [95% CI]",
        ],
        [
            [
                esc(r.comparison),
                r.competency,
                str(r.items),
                f"{r.unscored} / {r.unjudged}",
                _ci(r.agreement, r.agreement_ci_low, r.agreement_ci_high),
                _num(r.unanimous),
                f"{_ci(r.kappa, r.kappa_ci_low, r.kappa_ci_high)} ({r.kappa_kind})",
            ]
            for r in report.rows
        ],
    )
    return out


def _shifts(report: AgreementReport) -> list[str]:
    """How far the headline macro moves from one grader to another."""
    out: list[str] = []
    out += ["## How far the headline moves between graders", ""]
    out += table(
        [
            "reference",
            "other",
            "competency",
            "scenarios",
            "reference macro",
            "other macro",
            "difference [95% CI]",
        ],
        [
            [
                esc(s.reference),
                esc(s.other),
                s.competency,
                str(s.scenarios),
                _num(s.reference_macro, 3),
                _num(s.other_macro, 3),
                _ci(s.difference, s.ci_low, s.ci_high, 3),
            ]
            for s in report.shifts
        ],
    )
    return out


def _disagreements(report: AgreementReport) -> list[str]:
    """The items each comparison's raters disagree on most."""
    out: list[str] = []
    out += ["## Items the raters disagree on most", ""]
    for name in dict.fromkeys(d.comparison for d in report.disagreements):
        mine = [d for d in report.disagreements if d.comparison == name][:TOP_SHOWN]
        out += [f"**{esc(name)}**", ""]
        out += table(
            ["scenario", "item", "competency", "disagreed / compared"],
            [
                [
                    esc(d.sample_id),
                    f"[{d.number}] {esc(short(d.item, 160))}",
                    d.competency,
                    f"{d.disagreed} / {d.compared}",
                ]
                for d in mine
            ],
        )
    return out


def write_rows(path: Path, header: Sequence[str], rows: Sequence[BaseModel]) -> Path:
    """The models' fields under ``header`` as ``path`` (floats to 6 digits, NaN empty)."""
    cells: list[list[Cell]] = []
    for row in rows:
        data = row.model_dump()
        if isinstance(row, Disagreement):
            data["share"] = row.share
        cells.append([data[h] for h in header])
    return write_csv(Table(name=path.stem, columns=list(header), rows=cells), path.parent, 6)


def write_agreement(
    paths: Sequence[str], out: str | Path, human: Sequence[str] = ()
) -> AgreementReport:
    """Write ``agreement.csv``, ``disagreements.csv``, ``shifts.csv``, ``agreement.png`` and
    ``agreement.md`` into ``out``.

    Raises:
        AgreementError: See :func:`analyse_agreement`.
    """
    result = analyse_agreement(paths, human)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    files = [
        write_rows(folder / "agreement.csv", CSV_COLUMNS, result.rows),
        write_rows(
            folder / "disagreements.csv",
            (
                "comparison",
                "sample_id",
                "number",
                "competency",
                "item",
                "compared",
                "disagreed",
                "share",
            ),
            result.disagreements,
        ),
        write_rows(folder / "shifts.csv", tuple(Shift.model_fields), result.shifts),
        agreement_chart(result.rows, folder / "agreement.png"),
    ]
    md = folder / "agreement.md"
    md.write_text(agreement_markdown(result), encoding="utf-8")
    result.files = [str(p) for p in [*files, md]]
    return result
