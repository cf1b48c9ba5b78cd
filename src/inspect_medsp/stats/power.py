"""What a comparison can detect: the minimum detectable difference (``mdd``) of the test the
report uses, whether any difference is detectable at all, and Holm's correction.

``mdd`` is the true difference found with 80% power by a two-sided test at level ``alpha``
on ``C`` cases: ``(t(df, 1 - alpha / 2) + t(df, 0.80)) * se`` with Student's t on the test's
degrees of freedom (``C - 1`` for cases of equal size, fewer when a few large cases dominate:
see :mod:`inspect_medsp.scoring.clustered`); the normal quantiles, 2.80 * se, promise power
that a test on few cases does not have. A row corrected with Holm over ``m`` comparisons uses
``alpha / m``, the level Holm's first step asks for. It is not given (NaN) when the spread is
0 (nothing to estimate it from), below the minimum number of cases, or when the smallest
p-value the design can reach is 0.05 or more after Holm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_medsp.scoring import MIN_CASES, t_quantile

ALPHA = 0.05
POWER = 0.80
NO_SPREAD = 1e-9
"""A standard error at or below this (completion is between 0 and 1) is no spread at all:
what is left is rounding."""


def mdd_factor(
    cases: int, alpha: float = ALPHA, power: float = POWER, df: float | None = None
) -> float:
    """``t(df, 1 - alpha / 2) + t(df, power)`` (``df`` default ``C - 1``): ``mdd = factor *
    se``."""
    if cases < 2:
        return math.nan
    freedom = float(cases - 1) if df is None or math.isnan(df) else df
    return t_quantile(1 - alpha / 2, freedom) + t_quantile(power, freedom)


def mdd(
    se: float,
    cases: int,
    alpha: float = ALPHA,
    power: float = POWER,
    df: float | None = None,
) -> float:
    """The smallest true difference found with ``power`` by a two-sided test at ``alpha``
    (t quantiles on ``df`` degrees of freedom, default ``C - 1``); NaN when it cannot be
    estimated (no spread, or fewer than :data:`MIN_CASES` cases)."""
    if math.isnan(se) or se <= NO_SPREAD or cases < MIN_CASES:
        return math.nan
    return mdd_factor(cases, alpha, power, df) * se


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN and is not counted)."""
    known = [(p, i) for i, p in enumerate(p_values) if not math.isnan(p)]
    known.sort()
    m = len(known)
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted
