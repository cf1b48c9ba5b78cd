"""MedSP metrics: macro (the paper's headline) and micro completion, with 95% intervals.

Everything a metric needs is in the score *value*, which Inspect's epoch reducers reduce:
``overall`` and each competency's completion, and ``<key>_completed`` / ``<key>_total`` item
counts (see :func:`score_value`). With several epochs the value of a scenario is its mean over
epochs, so macro is the mean over scenarios of each scenario's mean over epochs, and micro is
the sum over scenarios of each scenario's mean completed items over the sum of its mean items
(each scenario's epochs are averaged first, not pooled).

Intervals are 95% cluster-robust t intervals (:mod:`inspect_medsp.scoring.clustered`): the
*case* is the unit (several scenarios of one MedEdPORTAL case are not independent), the
standard error is the sandwich one over cases and the quantile is Student's t on ``C - 1``
degrees of freedom. With fewer than :data:`MIN_CASES` cases there is no interval (NaN).
The seeded case bootstrap (:func:`resampled_sums`) stays for statistics that are not a mean
(agreement, kappa).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric

from inspect_medsp.data import BASELINE, COMPETENCIES, PUBLISHED_KEY
from inspect_medsp.record import KEYS, ScoreValue
from inspect_medsp.scoring.clustered import MIN_CASES, clustered_ratio

__all__ = ["MIN_CASES"]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 1638


class Row(NamedTuple):
    """One scenario's completed and total items for one key (means over epochs)."""

    completed: float
    total: float
    case: str = ""


class Columns:
    """The rows of one key as arrays: completed and total items, and each row's case."""

    def __init__(self, completed: list[float], total: list[float], cases: list[str]) -> None:
        self.completed = np.asarray(completed, dtype=float)
        self.total = np.asarray(total, dtype=float)
        self.cases = cases

    @classmethod
    def of(cls, rows: Sequence[Row]) -> Columns:
        """Columns from rows; a row without a case is its own cluster."""
        return cls(
            [r.completed for r in rows],
            [r.total for r in rows],
            [r.case or f"#{i}" for i, r in enumerate(rows)],
        )

    def __len__(self) -> int:
        return len(self.cases)

    def macro(self) -> float:
        """Mean of per-scenario completion."""
        return float(np.mean(self.completed / self.total))

    def micro(self) -> float:
        """All completed items over all items."""
        return float(self.completed.sum() / self.total.sum())

    def interval(self, kind: str) -> tuple[float, float]:
        """The cluster-robust t interval of ``macro`` or ``micro`` over cases, a share's (on
        the logit scale, inside [0, 1]; NaN with fewer than :data:`MIN_CASES` cases)."""
        if kind == "macro":
            found = clustered_ratio(
                self.completed / self.total, np.ones(len(self)), self.cases, limits=(0.0, 1.0)
            )
        else:
            found = clustered_ratio(self.completed, self.total, self.cases, limits=(0.0, 1.0))
        return found.low, found.high


def score_value(counts: Mapping[str, tuple[int, int]]) -> dict[str, float]:
    """A scenario's score value as stored (see :class:`ScoreValue`).

    Args:
        counts: ``(completed, total)`` for ``overall`` and each competency the rubric has.
    """
    return ScoreValue.of(counts).stored()


def value_rows(value: ScoreValue | None, case: str = "") -> dict[str, Row]:
    """The per-key rows a score value carries (keys without counts are left out)."""
    rows: dict[str, Row] = {}
    for key in KEYS:
        counts = value.counts(key) if value is not None else None
        if counts is not None:
            rows[key] = Row(*counts, case)
    return rows


def case_of(sample_id: str | int | None) -> str:
    """The case a sample id ``<case_id>/<scenarioN>`` belongs to."""
    return str(sample_id).split("/")[0]


def of_the_baseline(score: SampleScore) -> bool:
    """Whether a sample played the case as published: a patient variant's encounter
    (``-T variants=``) is left out of the rubric's metrics, which are the benchmark's numbers;
    ``medsp-report`` compares each variant with the baseline in a section of its own."""
    return bool((score.sample_metadata or {}).get("variant", BASELINE) == BASELINE)


def read_values(scores: Sequence[SampleScore]) -> list[tuple[str, ScoreValue]]:
    """Every figure of each scored sample of the baseline (its metadata's ``figures``, or the
    value of a score written before version 4) with its sample's case (read once for every
    metric)."""
    return [
        (case_of(s.sample_id), v)
        for s in scores
        if of_the_baseline(s)
        and (v := ScoreValue.in_score(s.score.value, s.score.metadata)) is not None
    ]


def columns_by_key(
    scores: Sequence[SampleScore], values: Sequence[tuple[str, ScoreValue]] | None = None
) -> dict[str, Columns]:
    """Every scored sample's counts, under ``overall`` and each competency it has
    (``values``: the scores already read by :func:`read_values`)."""
    found: dict[str, tuple[list[float], list[float], list[str]]] = {k: ([], [], []) for k in KEYS}
    for case, value in read_values(scores) if values is None else values:
        for key, row in value_rows(value).items():
            column = found[key]
            column[0].append(row.completed)
            column[1].append(row.total)
            column[2].append(case)
    return {key: Columns(*column) for key, column in found.items()}


def resampled_sums(
    columns: Sequence[Sequence[float] | np.ndarray],
    clusters: Sequence[str],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> np.ndarray:
    """Each column summed over the rows of every cluster resample: shape ``(resamples,
    len(columns))``.

    Each resample draws as many clusters as there are, with replacement, and takes every row
    of a drawn cluster. Any statistic that is a function of column sums (a ratio, a kappa)
    is then computed on all resamples at once.
    """
    names, index = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
    n_clusters = len(names)
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(resamples, n_clusters))
    sums = [
        np.take(
            np.bincount(index, weights=np.asarray(c, dtype=float), minlength=n_clusters), draws
        ).sum(axis=1)
        for c in columns
    ]
    return np.stack(sums, axis=1)


def percentile_interval(statistics: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap statistics (undefined ones, NaN, left out)."""
    finite = statistics[np.isfinite(statistics)]
    if not len(finite):
        return math.nan, math.nan
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def cluster_bootstrap(
    numerators: Sequence[float] | np.ndarray,
    denominators: Sequence[float] | np.ndarray,
    clusters: Sequence[str],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """95% percentile interval of ``sum(numerators) / sum(denominators)``, resampling clusters
    (see :func:`resampled_sums`). Macro completion is the case ``numerators = completion``,
    ``denominators = 1``; micro is ``completed`` over ``total``.
    """
    sums = resampled_sums([numerators, denominators], clusters, resamples, seed)
    return percentile_interval(sums[:, 0] / sums[:, 1])


def bootstrap_ci(
    values: Sequence[float], clusters: Sequence[str] | None = None
) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean of ``values`` (one per scenario),
    resampling ``clusters`` (default: each value its own cluster). Too narrow with few
    clusters: completion intervals use :func:`mean_ci`."""
    groups = list(clusters) if clusters is not None else [str(i) for i in range(len(values))]
    return cluster_bootstrap(values, [1.0] * len(values), groups)


def mean_ci(
    values: Sequence[float] | np.ndarray,
    clusters: Sequence[str] | None = None,
    limits: tuple[float, float] | None = (0.0, 1.0),
) -> tuple[float, float]:
    """The cluster-robust t interval of the mean of ``values`` (one per scenario: completion,
    a share, so on the logit scale and inside [0, 1] unless ``limits`` says otherwise; see
    :func:`~inspect_medsp.scoring.clustered.clustered_ratio`) over ``clusters`` (default: each
    value its own); NaN with fewer than :data:`MIN_CASES`."""
    found = clustered_ratio(values, np.ones(len(values)), clusters, limits=limits)
    return found.low, found.high


def completion_summary(
    rows_by_key: Mapping[str, Sequence[Row] | Columns], kind: str
) -> dict[str, float]:
    """``macro`` or ``micro`` with its interval, overall and per competency.

    Args:
        rows_by_key: One row per scenario, under ``overall`` and each competency (a scenario
            appears under a competency only if its rubric has it).
        kind: ``macro`` or ``micro``.
    """
    out: dict[str, float] = {}
    for key in KEYS:
        rows = rows_by_key.get(key)
        if rows is None or not len(rows):
            continue
        columns = rows if isinstance(rows, Columns) else Columns.of(rows)
        name = kind if key == "overall" else f"{key}_{kind}"
        low, high = columns.interval(kind)
        out[name] = columns.macro() if kind == "macro" else columns.micro()
        out[f"{name}_ci_low"] = low
        out[f"{name}_ci_high"] = high
    return out


def stability(values: Sequence[ScoreValue]) -> dict[str, float]:
    """How stable scenarios are across epochs (only scenarios scored in two or more).

    Returns:
        ``epoch_sd``: the mean over scenarios of the standard deviation of overall completion
        across a scenario's epochs; ``verdict_flip_rate``: the share of item verdicts that are
        not the same in every epoch. Empty when no scenario has two scored epochs.
    """
    repeated = [v for v in values if _number(v.epochs) >= 2]
    if not repeated:
        return {}
    flipped = sum(_number(v.flipped_items) for v in repeated)
    items = sum(_number(v.overall_total) for v in repeated)
    return {
        "epoch_sd": sum(_number(v.epoch_sd) for v in repeated) / len(repeated),
        "verdict_flip_rate": flipped / items if items else 0.0,
    }


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else 0.0


def published_of(scores: Sequence[SampleScore]) -> int | None:
    """The published size of the task the scores' samples belong to (None when unknown)."""
    sizes = {
        size
        for s in scores
        if isinstance(size := (s.sample_metadata or {}).get(PUBLISHED_KEY), int)
    }
    return sizes.pop() if len(sizes) == 1 else None


def provider_stops(
    scores: Sequence[SampleScore], values: Sequence[ScoreValue] | None = None
) -> dict[str, float]:
    """What the clinician model's provider did, when it did anything: ``context_exhausted``
    (encounters that ended because the clinician's prompt no longer fit its window),
    ``refused_turns`` (clinician turns its content filter refused) and ``refused_encounters``
    (encounters with a refused turn). With several epochs each scenario counts its mean over
    epochs (a scenario refused in any epoch is one refused encounter)."""
    if values is None:
        values = [v for _, v in read_values(scores)]
    context = sum(float(v.context_exhausted or 0) for v in values)
    refused = [float(v.refused_turns or 0) for v in values]
    out: dict[str, float] = {}
    if context:
        out["context_exhausted"] = context
    if any(refused):
        out["refused_turns"] = sum(refused)
        out["refused_encounters"] = float(sum(r > 0 for r in refused))
    return out


@metric
def medsp_summary() -> Metric:
    """The run's summary, short enough for a terminal: ``macro`` with its 95% interval,
    ``micro``, each competency's macro (``PC`` ... ``PROF``), the number of ``scenarios``
    scored (of ``published_scenarios``, the task's published size, which the samples carry)
    with several epochs their stability (``epoch_sd``, ``verdict_flip_rate``) and, when the
    clinician's provider cut encounters short or refused, :func:`provider_stops`.

    With nothing scored (yet: Inspect also computes it before the first sample is scored)
    ``macro`` is NaN, so the headline is still ``macro``.

    Per-competency micro and every interval are in :func:`macro`, :func:`micro` and the
    report (``medsp-report``).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        read = read_values(scores)
        columns = columns_by_key(scores, read)
        overall = columns["overall"]
        coverage: dict[str, float] = {"scenarios": len(overall)}
        if (published := published_of(scores)) is not None:
            coverage["published_scenarios"] = published
        if not len(overall):
            return {"macro": math.nan, **coverage}
        low, high = overall.interval("macro")
        # the viewer's results header shows the first five metrics in narrow columns, where
        # macro_ci_low and macro_ci_high would both read "macro_ci": the interval follows the
        # competencies (every value is the same in any order)
        out = {"macro": overall.macro(), "micro": overall.micro()}
        out |= {key: columns[key].macro() for key in COMPETENCIES if len(columns[key])}
        out |= {"macro_ci_low": low, "macro_ci_high": high}
        out |= coverage
        values = [v for _, v in read]
        return out | stability(values) | provider_stops(scores, values)

    return compute


@metric
def macro() -> Metric:
    """Mean per-scenario completion (the paper's headline), overall and per competency, with
    intervals; a competency is averaged only over scenarios whose rubric has it."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return completion_summary(columns_by_key(scores), "macro")

    return compute


@metric
def micro() -> Metric:
    """All completed items over all items, overall and per competency, with intervals."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return completion_summary(columns_by_key(scores), "micro")

    return compute
