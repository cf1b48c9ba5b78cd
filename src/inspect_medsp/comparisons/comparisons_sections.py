"""The comparisons' sections of the report: "Paired differences" (differences.png,
comparisons.csv) and "Where the spread comes from" (variance.csv, and reliability.csv for the
reliability across epochs)."""

from __future__ import annotations

from pathlib import Path

from inspect_medsp.comparisons.differences_text import CHART_DIFFERENCES, differences_markdown
from inspect_medsp.comparisons.reliability import reliability_rows
from inspect_medsp.comparisons.reliability_text import reliability_markdown
from inspect_medsp.comparisons.spread import variance_rows
from inspect_medsp.comparisons.variance_text import variance_markdown
from inspect_medsp.report import Analysis, Cell, Page, Section, Table, chart, csv_file, esc, finite


def comparisons(analysis: Analysis) -> Table:
    """The paired differences ``difference = b - a`` of every pair of groups, overall and per
    competency. ``p_value`` is Holm-adjusted within ``holm_family`` (the overall rows over the
    pairs; the competency rows over every competency and pair), ``p_raw`` is not;
    ``smallest_p`` is the smallest p-value the design can reach after Holm; ``mdd`` is empty
    when ``mdd_note`` says why."""
    columns = ["group_a", "group_b", "competency", "scenarios", "cases", "a", "b",
               "difference", "ci_low", "ci_high", "p_value", "mdd", "p_raw", "holm_family",
               "smallest_p", "mdd_note"]  # fmt: skip
    rows: list[list[Cell]] = [
        [c.group_a, c.group_b, c.competency, d.scenarios, d.cases, d.a, d.b, d.difference,
         finite(d.ci_low), finite(d.ci_high), finite(c.p_value), finite(d.mdd),
         finite(d.p_value), c.family, finite(c.reachable_p), c.mdd_note]
        for c in analysis.comparisons
        for d in [c.paired]
    ]  # fmt: skip
    return Table(name="comparisons", columns=columns, rows=rows)


def variance(analysis: Analysis) -> Table:
    """Where the spread of per-scenario completion comes from, per group (variances in squared
    completion units; empty without epochs or repeats). With one epoch encounter noise is not
    measured: ``encounter_measured`` is false, ``epoch_variance`` and ``scenario_share`` are
    empty, and ``noise_sd_macro`` covers re-grading only."""
    columns = ["group", "scenarios", "epochs", "repeats", "scenario_variance",
               "epoch_variance", "grader_variance", "scenario_share", "epoch_share",
               "grader_share", "noise_sd_macro", "encounter_measured"]  # fmt: skip
    rows: list[list[Cell]] = [
        [r.group, v.scenarios, v.epochs, v.repeats, finite(v.scenario), finite(v.epoch),
         finite(v.grader), finite(r.scenario_share), finite(v.share(v.epoch)),
         finite(v.share(v.grader)), finite(r.noise_sd_macro), r.encounter_measured]
        for r in variance_rows([(g.label, g.samples) for g in analysis.groups])
        for v in [r.parts]
    ]  # fmt: skip
    return Table(name="variance", columns=columns, rows=rows)


def reliability(analysis: Analysis) -> Table:
    """Reliability across epochs per group that ran a scenario in two or more epochs: of each
    scenario's rubric items, the share met in all ``epochs`` encounters (``reliably_met``, with
    its 95% interval), in at least one (``ever_met``) and per encounter, each averaged over
    the ``scenarios`` counted (``left_out`` scenarios had fewer scored epochs), and of the items
    met at least once the share not met every time (``sometimes_of_done``)."""
    columns = ["group", "epochs", "scenarios", "left_out", "reliably_met",
               "reliably_met_ci_low", "reliably_met_ci_high", "ever_met",
               "per_encounter", "sometimes_of_done"]  # fmt: skip
    rows: list[list[Cell]] = [
        [r.group, r.epochs, r.scenarios, r.left_out, finite(r.reliably_met),
         finite(r.reliably_low), finite(r.reliably_high), finite(r.ever_met),
         finite(r.per_encounter), finite(r.unreliable_of_done)]
        for r in reliability_rows([(g.label, g.samples) for g in analysis.groups])
    ]  # fmt: skip
    return Table(name="reliability", columns=columns, rows=rows)


def _differences_chart(analysis: Analysis, path: Path) -> Path:
    from inspect_medsp.comparisons.differences_chart import differences_chart

    return differences_chart(analysis.comparisons, path)


def _differences(page: Page) -> list[str]:
    a = page.analysis
    return differences_markdown(a.comparisons, [g.label for g in a.groups], esc, page.charts)


def _spread(page: Page) -> list[str]:
    groups = [(g.label, g.samples) for g in page.analysis.groups]
    return [
        *variance_markdown(variance_rows(groups), esc),
        *reliability_markdown(reliability_rows(groups), esc),
    ]


DIFFERENCES = Section(
    name="paired differences",
    text=_differences,
    files=lambda a: [
        *([chart(CHART_DIFFERENCES, 30, _differences_chart, a)] if a.comparisons else []),
        csv_file(comparisons(a), 80),
    ],
)
SPREAD = Section(
    name="variance",
    text=_spread,
    files=lambda a: [csv_file(variance(a), 90), csv_file(reliability(a), 95)],
)
