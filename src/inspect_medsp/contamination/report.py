"""The findings of the report section "Has the model seen these cases?" (its text is
``recall_text.py``).

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
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from inspect_ai.log import read_eval_log
from pydantic import BaseModel, Field

from inspect_medsp.contamination.probes import PROBE_NAMES
from inspect_medsp.contamination.result import TASK_KEY, Contamination
from inspect_medsp.contamination.rowtest import RowTest, row_test
from inspect_medsp.measure import ReportAnalysis
from inspect_medsp.record import MedspSample, result_of, unscored_of
from inspect_medsp.report import Analysis
from inspect_medsp.scoring import MIN_CASES, percentile_interval, resampled_sums

TASK_METADATA = TASK_KEY
"""Task metadata key: the settings, the prompts' hash and the dataset probed."""

TOP = 5
"""Scenarios listed as the most clearly recalled, per model."""

SECTION_NAME = "contamination"
"""The section's name, which claims the probe's logs among the report's inputs."""


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


def probe_logs(analysis: ReportAnalysis) -> list[tuple[str, str, list[ProbedScenario]]]:
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
    return model_recall(probe_logs(analysis), groups)
