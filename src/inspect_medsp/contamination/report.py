"""The report section "Has the model seen these cases?".

It reads the probe's logs (``inspect_medsp/medsp_contamination``) among the report's inputs
and, per model probed: the share of scenarios above the control on each probe with its
interval, the row test that decides whether the model recalls the cases (``rowtest.py``),
the scenarios most clearly recalled, and, for each leaderboard row of the same model,
whether its benchmark completion is higher on the recalled scenarios than on the rest (a
difference of means with a 95% interval from a case-cluster bootstrap within each stratum,
the report's own resampling, given when each stratum has ``MIN_CASES`` cases, as the leaderboard's).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from inspect_ai.log import read_eval_log
from pydantic import BaseModel, Field

from inspect_medsp.contamination.probes import PROBE_NAMES
from inspect_medsp.contamination.result import TASK_KEY, Contamination
from inspect_medsp.contamination.rowtest import NULL_FLOOR, ROW_ALPHA, RowTest, row_test
from inspect_medsp.measure import ReportAnalysis
from inspect_medsp.record import MedspSample, result_of, unscored_of
from inspect_medsp.report import Analysis, Page, Section, esc, table
from inspect_medsp.scoring import MIN_CASES, percentile_interval, resampled_sums

TASK_METADATA = TASK_KEY
"""Task metadata key: the settings, the prompts' hash and the dataset probed."""

TOP = 5
"""Scenarios listed as the most clearly recalled, per model."""


class ProbedScenario(BaseModel):
    """One scenario's probe result, as the report reads it."""

    id: str
    case: str
    result: Contamination | None = None
    unscored: str = ""

    @property
    def recalled(self) -> bool:
        """At least one probe above the control."""
        return self.result is not None and bool(self.result.recalled)


class RecallComparison(BaseModel):
    """A leaderboard row's completion on the recalled scenarios against the rest."""

    group: str
    recalled: int
    rest: int
    recalled_mean: float
    rest_mean: float
    difference: float
    """Recalled minus rest."""
    interval: tuple[float, float] | None = None
    """The 95% interval of the difference (None: a stratum has fewer than ``MIN_CASES``
    cases, too few for an interval that keeps its promise)."""


class ModelRecall(BaseModel):
    """Everything the section says of one model probed."""

    model: str
    logs: list[str]
    scenarios: list[ProbedScenario]
    comparisons: list[RecallComparison] = Field(default_factory=list)

    def share(self, probe: str) -> tuple[int, int]:
        """Scenarios above the control on ``probe``, and scenarios probed with it."""
        above, _, probed = self.counts(probe)
        return above, probed

    def counts(self, probe: str) -> tuple[int, int, int]:
        """Scenarios above the control on ``probe``, scenarios whose control is above the
        probe, and scenarios probed with it."""
        found = [
            o
            for s in self.scenarios
            if s.result is not None
            for o in s.result.outcomes
            if o.name == probe
        ]
        return sum(o.above for o in found), sum(o.below for o in found), len(found)

    @property
    def test(self) -> RowTest:
        """The row test over every scenario probed (``rowtest.py``)."""
        counts = {}
        for name in PROBE_NAMES:
            above, below, probed = self.counts(name)
            counts[name] = (probed, above, below)
        return row_test(counts)

    @property
    def flagged(self) -> bool:
        """The row test says the model recalls the cases: some probe's share of scenarios
        above the control is beyond the control's own rate, at a false-positive rate of
        ``ROW_ALPHA`` for the whole row (never one scenario alone)."""
        return self.test.flagged

    def most_recalled(self, n: int = TOP) -> list[ProbedScenario]:
        """The scenarios with the most probes above the control (then the largest share)."""
        found = [s for s in self.scenarios if s.recalled and s.result is not None]
        return sorted(
            found,
            key=lambda s: (-len(s.result.recalled), -s.result.share_above, s.id),  # type: ignore[union-attr]
        )[:n]


def read_probe_log(path: str) -> tuple[str, list[ProbedScenario]] | None:
    """The model probed and its scenarios, from one of the probe's logs; None for a log of
    another task (read once per version of the file)."""
    file = Path(path)
    stamp = file.stat().st_mtime_ns if file.is_file() else 0
    return _read_probe_log(path, stamp)


@lru_cache(maxsize=256)
def _read_probe_log(path: str, stamp: int) -> tuple[str, list[ProbedScenario]] | None:
    header = read_eval_log(path, header_only=True)
    if TASK_METADATA not in (header.eval.metadata or {}):
        return None
    log = read_eval_log(path)
    found = []
    for sample in log.samples or []:
        scores = sample.scores or {}
        found.append(
            ProbedScenario(
                id=str(sample.id),
                case=str(sample.id).split("/")[0],
                result=result_of(scores, Contamination),
                unscored=unscored_of(scores, Contamination) or ("" if scores else "not scored"),
            )
        )
    return header.eval.model, found


def _completion(samples: Sequence[MedspSample]) -> dict[str, tuple[str, float]]:
    """Each scored scenario's completion (its epochs averaged) and its case."""
    values: dict[str, list[float]] = defaultdict(list)
    cases: dict[str, str] = {}
    for sample in samples:
        value = sample.score.value if sample.score is not None else None
        if value is None or not sample.scored:
            continue
        values[sample.id].append(float(value.overall))
        cases[sample.id] = sample.case_id
    return {sid: (cases[sid], sum(v) / len(v)) for sid, v in values.items()}


def compare(
    group: str, samples: Sequence[MedspSample], scenarios: Sequence[ProbedScenario]
) -> RecallComparison | None:
    """``group``'s completion on the recalled scenarios minus the rest's, over the scenarios
    both probed and scored; None when either stratum is empty.

    The interval resamples cases with replacement within each stratum (recalled, rest), the
    report's cluster bootstrap, and takes the 95% percentile interval of the difference."""
    completion = _completion(samples)
    probed = {s.id: s.recalled for s in scenarios if s.result is not None}
    both = sorted(set(completion) & set(probed))
    strata = {
        flag: [(completion[sid][0], completion[sid][1]) for sid in both if probed[sid] == flag]
        for flag in (True, False)
    }
    if not strata[True] or not strata[False]:
        return None
    means = {flag: float(np.mean([v for _, v in rows])) for flag, rows in strata.items()}
    comparison = RecallComparison(
        group=group,
        recalled=len(strata[True]),
        rest=len(strata[False]),
        recalled_mean=means[True],
        rest_mean=means[False],
        difference=means[True] - means[False],
    )
    if min(len({c for c, _ in rows}) for rows in strata.values()) < MIN_CASES:
        return comparison
    draws = []
    for seed, flag in enumerate((True, False)):
        rows = strata[flag]
        sums = resampled_sums(
            [[v for _, v in rows], [1.0] * len(rows)], [c for c, _ in rows], seed=seed + 1
        )
        draws.append(sums[:, 0] / sums[:, 1])
    interval = percentile_interval(draws[0] - draws[1])
    if np.isnan(interval[0]):
        return comparison
    return comparison.model_copy(update={"interval": interval})


def model_recall(
    probed: Sequence[tuple[str, str, list[ProbedScenario]]],
    groups: Sequence[tuple[str, str, Sequence[MedspSample]]],
) -> list[ModelRecall]:
    """Per model probed (``(log, model, scenarios)``; a scenario probed twice keeps its newest
    result), its recall, and the comparison for each leaderboard row of the same model
    (``(label, clinician, samples)``)."""
    by_model: dict[str, dict[str, ProbedScenario]] = defaultdict(dict)
    logs: dict[str, list[str]] = defaultdict(list)
    for path, model, scenarios in probed:
        logs[model].append(path)
        for s in scenarios:
            by_model[model][s.id] = s
    found = []
    for model, newest in by_model.items():
        listed = sorted(newest.values(), key=lambda s: s.id)
        comparisons = [
            c
            for label, clinician, samples in groups
            if clinician == model and (c := compare(label, samples, listed)) is not None
        ]
        found.append(
            ModelRecall(model=model, logs=logs[model], scenarios=listed, comparisons=comparisons)
        )
    return found


def is_probe_log(path: str) -> bool:
    """Whether ``path`` is a readable log of the probe (this section reads it; the core
    cannot, it is not a benchmark run)."""
    try:
        return read_probe_log(path) is not None
    except Exception:
        return False


def _probe_logs(analysis: ReportAnalysis) -> list[tuple[str, str, list[ProbedScenario]]]:
    """The probe's logs among the report's inputs (those the core lists as read by this
    section)."""
    found = []
    for path, section in analysis.read_by.items():
        if section == SECTION_NAME and (read := read_probe_log(path)) is not None:
            found.append((path, *read))
    return found


def recall_of(analysis: Analysis) -> list[ModelRecall]:
    """The section's findings for a report's analysis."""
    groups = [(g.label, g.clinician, g.samples) for g in analysis.groups]
    return model_recall(_probe_logs(analysis), groups)


PROBE_LABELS = {
    "continuation_patient": "Patient script",
    "continuation_environment": "Environment materials",
    "continuation_marking": "Marking guide",
    "checklist": "Checklist",
    "slot": "Masked values",
}
"""The section's column of each probe."""

FLAG = "⚠ recalls cases above the control"
"""The mark after a leaderboard row's clinician whose model the probe flagged."""


def leaderboard_marks(analysis: ReportAnalysis) -> Mapping[str, str]:
    """The leaderboard rows (group labels) whose clinician the probe flagged, with the
    mark."""
    flagged = {m.model for m in model_recall(_probe_logs(analysis), []) if m.flagged}
    return {g.label: FLAG for g in analysis.groups if g.clinician in flagged}


def _pct(n: int, of: int) -> str:
    return f"{n}/{of} ({n / of:.0%})" if of else "not probed"


def _cell(test: RowTest, name: str, above: int, probed: int) -> str:
    """A probe's share with its interval, or "not probed"."""
    if not probed:
        return "not probed"
    found = next(t for t in test.probes if t.name == name)
    low, high = found.interval
    return f"{_pct(above, probed)} [{low:.0%} to {high:.0%}]"


def _p(value: float) -> str:
    return "<0.0001" if value < 1e-4 else f"{value:.4f}" if value < 0.01 else f"{value:.2f}"


def test_lines(m: ModelRecall) -> list[str]:
    """The row test of one model, in words."""
    test = m.test
    verdict = f"**flagged** ({', '.join(test.reasons)})" if test.flagged else "**not flagged**"
    parts = [
        f"{t.name} {t.above}/{t.probed} above against a null rate of {t.null_rate:.0%} "
        f"(control above the probe in {t.below}), p = {_p(t.adjusted)}"
        for t in test.probes
    ]
    return [
        f"- Row test for {esc(m.model)}: {verdict} at a false-positive rate of "
        f"{ROW_ALPHA:.0%} for the whole row. " + "; ".join(parts) + " (one-sided exact "
        "binomial test of each probe's share above against the larger of the control's own "
        f"rate of beating the probe (its 95% upper bound) and {NULL_FLOOR:.0%}, Holm-adjusted "
        "over the probes; docs/contamination.md).",
    ]


def comparison_lines(m: ModelRecall, rows: Sequence[str]) -> list[str]:
    """The recalled-vs-rest comparison of a model's leaderboard rows, or why there is none."""
    probed = [s for s in m.scenarios if s.result is not None]
    recalled = sum(s.recalled for s in probed)
    out: list[str] = []
    if not rows:
        out.append(
            f"- Recalled vs rest: not compared: no leaderboard row of {esc(m.model)} is "
            "among the report's inputs."
        )
    elif not probed:
        out.append("- Recalled vs rest: not compared: no scenario was probed.")
    elif recalled == len(probed):
        out.append(
            f"- Recalled vs rest: not compared: all {len(probed)} scenarios probed are above "
            "the control on some probe, so there is no rest to compare with."
        )
    elif recalled == 0:
        out.append(
            f"- Recalled vs rest: not compared: none of the {len(probed)} scenarios probed is "
            "above the control on any probe, so there is no recalled stratum."
        )
    compared = {c.group for c in m.comparisons}
    for label in rows:
        if label not in compared and 0 < recalled < len(probed):
            out.append(
                f"- Recalled vs rest for leaderboard row {esc(label)}: not compared: none of "
                "its scored scenarios is on both sides."
            )
    for c in m.comparisons:
        ci = (
            f" (95% CI {c.interval[0]:+.1%} to {c.interval[1]:+.1%})"
            if c.interval is not None
            else f" (no interval: fewer than {MIN_CASES} cases on one side)"
        )
        out.append(
            f"- Leaderboard row {esc(c.group)}: macro completion {c.recalled_mean:.1%} on the "
            f"{c.recalled} recalled scenarios against {c.rest_mean:.1%} on the other "
            f"{c.rest}: a difference of {c.difference:+.1%}{ci}. A positive difference "
            "means part of the score may be memory, or knowledge the probe could not "
            "count out."
        )
    return out


CAVEAT = (
    "What a share means: continuations are compared with the case's text shuffled (text no "
    "one has written), verbatim (`run_margin` words in a row) or in the model's own words "
    "(`content_margin` of the passage's content words); the checklist and the masked values "
    "with a knowledge control, the same question without the case's title, source and "
    "passage (or, with `-T control_cases=`, an unpublished case). A checklist or slot hit "
    "above the knowledge control can still be knowledge: of the context only the probe "
    "showed. A single scenario above its control is not a finding: a row is flagged only "
    "by the row test over all its scenarios. Absence of recall is not proof that the model "
    "was not trained on the cases."
)
"""Said beside the numbers, every time the section shows."""


def recall_lines(
    found: Sequence[ModelRecall], rows: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The section's Markdown (``rows``: each model's leaderboard rows among the inputs)."""
    rows = rows or {}
    out = [
        "## Has the model seen these cases?",
        "",
        "From the contamination probe (`inspect_medsp/medsp_contamination`): each scenario's "
        "patient script, environment materials and marking guide continued from their "
        "opening words, its checklist listed from its title, and masked values guessed; each "
        "beside a control. A share is of the scenarios probed that are above the control by "
        "the probe's margins, with its 95% interval. The probe's logs are read here (the "
        "runs read, under Files, name them); a leaderboard row whose model the row test "
        f"flags is marked {FLAG}.",
        "",
        CAVEAT,
        "",
    ]
    header = ["Model", "Row test", *(PROBE_LABELS[p] for p in PROBE_NAMES)]
    body = []
    for m in found:
        test = m.test
        body.append(
            [
                esc(m.model),
                "⚠ flagged: recalls cases" if test.flagged else "not flagged",
                *[_cell(test, p, *m.share(p)) for p in PROBE_NAMES],
            ]
        )
    out += table(header, body)
    if out[-1] != "":
        out.append("")
    for m in found:
        out += test_lines(m)
        unscored = [s for s in m.scenarios if s.result is None]
        if unscored:
            listed = ", ".join(f"{s.id} [{s.unscored or 'no result'}]" for s in unscored)
            out += [f"- {esc(m.model)}: {len(unscored)} scenario(s) not probed: {esc(listed)}"]
        out += comparison_lines(m, rows.get(m.model, ()))
        out.append("")
        top = m.most_recalled()
        if top:
            out.append(f"Most clearly recalled by {esc(m.model)}:")
            out.append("")
            for s in top:
                assert s.result is not None
                shown = "; ".join(f"{o.name}: {o.shown}" for o in s.result.outcomes if o.above)
                count = len(s.result.recalled)
                probes = "probe" if count == 1 else "probes"
                out.append(f"- {esc(s.id)}: {count} {probes} above the control ({esc(shown)})")
            out.append("")
    return out


def _text(page: Page) -> list[str]:
    rows: dict[str, list[str]] = defaultdict(list)
    for g in page.analysis.groups:
        rows[g.clinician].append(g.label)
    return recall_lines(recall_of(page.analysis), rows)


def _shows(analysis: Analysis) -> bool:
    return bool(_probe_logs(analysis))


SECTION_NAME = "contamination"

CONTAMINATION_SECTION = Section(name=SECTION_NAME, text=_text, shows=_shows, reads=is_probe_log)
"""The section of ``medsp-report`` (shown when a probe's log is among the inputs)."""
