"""Paired comparison of two runs over the same scenarios: the statistics, numpy only.

Two runs over the same scenarios are paired: each scenario gives one difference ``d = b - a``
of per-scenario completion (each run's epochs already averaged), and the question is the mean
of ``d``, not the two means side by side. Scenarios of one MedEdPORTAL case are not
independent, so everything here treats the *case* as the unit, with two tests of "the mean
difference is 0":

- a two-sided paired **permutation** test (:mod:`inspect_medsp.stats.signflip`): the sign of
  each case's summed difference is flipped at random (every sign pattern when there are at
  most :data:`EXACT_CASES` cases);
- the **cluster-robust t** test: the case-clustered standard error (the larger of the sandwich
  estimator with the finite-cluster correction ``C / (C - 1)``, the same formula as Inspect's
  ``stderr(cluster=...)``, and its bias-reduced form CR2) with Student's t on the
  Bell-McCaffrey degrees of freedom (``C - 1`` for cases of equal size; see
  :mod:`inspect_medsp.scoring.clustered`).

The p-value is the larger of the two, and the 95% interval is the union of the two tests'
inverted intervals (the permutation test's and ``difference +/- t(df) * se``), so 0 lies
outside the interval exactly when ``p < 0.05``; the interval is never narrower than the
cluster-robust t interval (:mod:`inspect_medsp.stats.pairtest` does both tests). Below
:data:`MIN_CASES` cases there is no interval. ``mdd`` is the true difference this test finds
with 80% power: up to :data:`~inspect_medsp.stats.simpower.SIMULATED_CASES` cases simulated
with the test itself from the observed cases (:mod:`inspect_medsp.stats.simpower`), above
from t quantiles on the test's degrees of freedom (:func:`inspect_medsp.stats.power.mdd`); the
coverage and power bench in ``bench/`` shows how both keep their promise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from inspect_medsp.scoring import MIN_CASES
from inspect_medsp.stats.pairtest import PairedTest, paired_test
from inspect_medsp.stats.power import ALPHA, NO_SPREAD, POWER, holm, mdd
from inspect_medsp.stats.signflip import EXACT_CASES, PERMUTATIONS, SEED, smallest_p
from inspect_medsp.stats.simpower import SIMULATED_CASES, simulated_mdd

__all__ = [
    "ALPHA",
    "EXACT_CASES",
    "MIN_CASES",
    "PERMUTATIONS",
    "POWER",
    "Paired",
    "Pairing",
    "cluster_index",
    "holm",
    "mdd",
    "paired_difference",
    "paired_differences",
]


class Paired(NamedTuple):
    """The paired difference ``b - a`` over the scenarios both runs scored."""

    scenarios: int
    cases: int
    a: float
    """Mean of ``a`` over the paired scenarios."""
    b: float
    difference: float
    ci_low: float
    """NaN below :data:`MIN_CASES` cases."""
    ci_high: float
    p_value: float
    """Two-sided, the larger of the permutation and the cluster-robust t p-values
    (uncorrected; NaN below 2 cases)."""
    se: float
    """Case-clustered standard error of ``difference``."""
    mdd: float
    """At two-sided 5% uncorrected unless another level is asked for (NaN when it cannot be
    given: below :data:`MIN_CASES` cases, no spread, or a design that cannot reach the level;
    see :func:`detectable_difference`)."""
    nonzero_cases: int = 0
    """Cases whose summed difference is not 0 (the only ones a sign flip changes)."""
    smallest_p: float = math.nan
    """The smallest p-value this design can reach (uncorrected)."""
    df: float = math.nan
    """Degrees of freedom of the t test (Bell-McCaffrey; ``C - 1`` for equal cases)."""
    clipped: bool = False
    """An end of the interval lay beyond what a difference of two shares can be (-1 or 1)
    and was set to it (only when every value of both runs is a share, in [0, 1])."""


def cluster_index(clusters: Sequence[str]) -> tuple[np.ndarray, int]:
    """Each row's cluster number (clusters sorted by name) and the number of clusters."""
    return _cluster_index(tuple(clusters))


@lru_cache(maxsize=64)
def _cluster_index(clusters: tuple[str, ...]) -> tuple[np.ndarray, int]:
    names, index = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
    index.flags.writeable = False
    return index, len(names)


class Pairing(NamedTuple):
    """One comparison to make: per-scenario values of two runs and each scenario's case."""

    a: Sequence[float] | np.ndarray
    b: Sequence[float] | np.ndarray
    clusters: Sequence[str]


def paired_difference(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    clusters: Sequence[str],
    seed: int = SEED,
    permutations: int = PERMUTATIONS,
) -> Paired:
    """The paired difference ``mean(b - a)`` with its interval, p-value, se and ``mdd``.

    Args:
        a: Per-scenario values of the first run (one per scenario, epochs averaged).
        b: The second run's values for the same scenarios, in the same order.
        clusters: Each scenario's case.

    The p-value needs two or more cases, the interval and ``mdd`` :data:`MIN_CASES`; with
    fewer they are NaN.
    """
    return paired_differences([Pairing(a, b, clusters)], seed, permutations)[0]


def paired_differences(
    pairings: Sequence[Pairing],
    seed: int = SEED,
    permutations: int = PERMUTATIONS,
    alphas: Sequence[float] | None = None,
    detectable: bool = True,
) -> list[Paired]:
    """:func:`paired_difference` of many comparisons at once: those with the same number of
    cases share one matrix product for the permutations.

    Args:
        alphas: Each comparison's level for its ``mdd`` (default 5% for every one).
        detectable: Work out each ``mdd`` (off, they are NaN: a simulation that needs only the
            tests saves the time).
    """
    results: list[Paired | None] = [None] * len(pairings)
    batches: dict[int, list[tuple[int, np.ndarray, np.ndarray]]] = {}
    bounded = [False] * len(pairings)
    nan = math.nan
    for i, (a, b, clusters) in enumerate(pairings):
        a_values = np.asarray(a, dtype=float)
        b_values = np.asarray(b, dtype=float)
        if a_values.shape != b_values.shape or len(a_values) != len(clusters):
            raise ValueError("a, b and clusters must have one entry per scenario")
        if not len(a_values):
            results[i] = Paired(0, 0, nan, nan, nan, nan, nan, nan, nan, nan)
            continue
        d = b_values - a_values
        index, n_clusters = cluster_index(clusters)
        sums = np.bincount(index, weights=d, minlength=n_clusters)
        sizes = np.bincount(index, minlength=n_clusters).astype(float)
        nonzero = int(np.count_nonzero(np.abs(sums) > 1e-12))
        results[i] = Paired(
            scenarios=len(d),
            cases=n_clusters,
            a=float(a_values.mean()),
            b=float(b_values.mean()),
            difference=float(d.mean()),
            ci_low=nan,
            ci_high=nan,
            p_value=nan,
            se=nan,
            mdd=nan,
            nonzero_cases=nonzero,
            smallest_p=smallest_p(nonzero, n_clusters, permutations),
        )
        shares = bool(
            a_values.min() >= 0 and b_values.min() >= 0 and a_values.max() <= 1
            and b_values.max() <= 1
        )  # fmt: skip
        bounded[i] = shares
        batches.setdefault(n_clusters, []).append((i, sums, sizes))
    for _, batch in sorted(batches.items(), reverse=True):  # largest first: one sign draw
        sums = np.stack([item[1] for item in batch])
        sizes = np.stack([item[2] for item in batch])
        levels = None if alphas is None else np.array([alphas[item[0]] for item in batch])
        test = paired_test(sums, sizes, ALPHA, permutations, seed, levels=levels)
        for column, (i, *_) in enumerate(batch):
            done = results[i]
            assert done is not None
            alpha = ALPHA if alphas is None else alphas[i]
            results[i] = _finished(
                done, test, column, (sums[column], sizes[column]), alpha, bounded[i], detectable
            )
    return [r for r in results if r is not None]


def _finished(
    done: Paired,
    test: PairedTest,
    column: int,
    case_sums: tuple[np.ndarray, np.ndarray],
    alpha: float,
    shares: bool,
    detectable: bool,
) -> Paired:
    """``done`` with its interval, p-value and ``mdd`` from column ``column`` of ``test``
    (``case_sums``: its cases' sums of differences and sizes; ``shares``: both sides are
    shares, so the interval is clipped to +/-1 and an ``mdd`` above 1 is not given)."""
    se, df = float(test.se[column]), float(test.df[column])
    found = math.nan
    if detectable and done.smallest_p < alpha:
        found = detectable_difference(*case_sums, se, df, alpha)
        if shares and found > 1.0:
            found = math.nan  # no difference two shares can have is found with 80% power
    low, high = float(test.low[column]), float(test.high[column])
    clipped = shares and (low < -1.0 or high > 1.0)
    if clipped:
        low, high = max(low, -1.0), min(high, 1.0)
    return done._replace(
        ci_low=low,
        ci_high=high,
        clipped=clipped,
        p_value=float(test.p_values[column]),
        se=se,
        mdd=found,
        df=df,
    )


def detectable_difference(
    case_sums: np.ndarray, case_sizes: np.ndarray, se: float, df: float, alpha: float
) -> float:
    """``mdd`` at two-sided ``alpha``: simulated from the cases with the test itself up to
    :data:`SIMULATED_CASES` cases, from t quantiles above (NaN when it cannot be given)."""
    cases = len(case_sums)
    if cases < MIN_CASES or math.isnan(se) or se <= NO_SPREAD:
        return math.nan
    if cases <= SIMULATED_CASES:
        return simulated_mdd(case_sums, case_sizes, alpha)
    return mdd(se, cases, alpha, df=df)
