"""The test of a paired difference that the report uses, on many comparisons at once.

Each comparison is given by its cases' summed differences ``s_c`` and sizes ``n_c``
(scenarios); the difference is ``sum(s) / sum(n)``. Two tests ask whether it is 0:

- the case sign-flip permutation test (:mod:`inspect_medsp.stats.signflip`), with its inverted
  interval;
- the cluster-robust t test (:mod:`inspect_medsp.scoring.clustered`: the larger of CR1 and CR2,
  Student's t on the Bell-McCaffrey degrees of freedom), with its t interval.

The p-value is the larger of the two and the interval the union of the two, so 0 lies outside
the interval exactly when ``p < alpha``. Below :data:`~inspect_medsp.scoring.clustered.MIN_CASES`
cases there is no interval. The test is translation-equivariant: adding ``delta`` to every
scenario's difference (``s_c + delta * n_c``) moves the interval by ``delta`` and leaves its
width alone, which is what lets :mod:`inspect_medsp.stats.simpower` find the power of this test
at every true difference from one set of simulated comparisons.
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

import numpy as np

from inspect_medsp.scoring import MIN_CASES, small_samples, t_quantile, t_sf_two_sided
from inspect_medsp.stats.power import ALPHA, NO_SPREAD
from inspect_medsp.stats.signflip import PERMUTATIONS, SEED, sign_flip


class PairedTest(NamedTuple):
    """The test of each comparison (one entry per row of the case sums)."""

    difference: np.ndarray
    se: np.ndarray
    """Cluster-robust standard error of the difference."""
    df: np.ndarray
    """Degrees of freedom of the t test."""
    p_values: np.ndarray
    """Two-sided, the larger of the two tests' (NaN when not asked for or below 2 cases)."""
    low: np.ndarray
    """The union interval's ends (NaN below MIN_CASES cases)."""
    high: np.ndarray


@cache
def _rounded_quantile(p: float, df: float) -> float:
    """:func:`t_quantile` at a rounded ``df``, kept apart from its bounded cache (a simulation
    asks for the same few hundred again and again)."""
    return t_quantile(p, df)


def t_p_value(difference: float, se: float, df: float) -> float:
    """Two-sided p-value of the cluster-robust t test (1 or 0 when there is no spread)."""
    if math.isnan(se) or se <= NO_SPREAD:
        return 1.0 if abs(difference) <= NO_SPREAD else 0.0
    return t_sf_two_sided(difference / se, df)


def paired_test(
    case_sums: np.ndarray,
    case_sizes: np.ndarray,
    alpha: float = ALPHA,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
    p_values: bool = True,
    df_decimals: int | None = None,
    levels: np.ndarray | None = None,
) -> PairedTest:
    """The p-values and ``1 - alpha`` union intervals of comparisons with the same number of
    cases (shape ``(comparisons, cases)``).

    Args:
        p_values: Work out the p-values (a power simulation needs only the intervals).
        df_decimals: Round the t test's degrees of freedom to this many decimals for its
            quantile (a simulation of thousands of comparisons then reuses the quantiles).
        levels: Each row's Holm level (5% over its family's size), so that the permutation
            p-value is resolved where its draws would set a floor (see
            :mod:`inspect_medsp.stats.signflip`).
    """
    sums = np.atleast_2d(np.asarray(case_sums, dtype=float))
    sizes = np.atleast_2d(np.asarray(case_sizes, dtype=float))
    rows, n_clusters = sums.shape
    difference = sums.sum(axis=1) / sizes.sum(axis=1)
    se, df = small_samples(sums - difference[:, None] * sizes, sizes)
    nan = np.full(rows, math.nan)
    if n_clusters < 2:
        return PairedTest(difference, se, df, nan, nan.copy(), nan.copy())
    test = sign_flip(sums, sizes, permutations, seed, alpha, p_values, levels)
    p = nan.copy()
    if p_values:
        p_t = np.array([t_p_value(*v) for v in zip(difference, se, df, strict=True)])
        p = np.maximum(test.p_values, p_t)
    if n_clusters < MIN_CASES:
        return PairedTest(difference, se, df, p, nan.copy(), nan.copy())
    if df_decimals is None:
        quantiles = np.array([t_quantile(1 - alpha / 2, float(f)) for f in df])
    else:
        rounded = np.round(df, df_decimals)
        quantiles = np.array([_rounded_quantile(1 - alpha / 2, float(f)) for f in rounded])
    half = quantiles * se
    low = np.minimum(difference - half, test.low)
    high = np.maximum(difference + half, test.high)
    if p_values:
        # p >= alpha keeps 0 inside (the two agree up to round-off; this makes it exact)
        kept = p >= alpha
        low = np.where(kept, np.minimum(low, 0.0), low)
        high = np.where(kept, np.maximum(high, 0.0), high)
    return PairedTest(difference, se, df, p, low, high)
