"""Case-clustered means and their intervals.

A MedSP score is a ratio of sums over scenarios: macro completion is the mean of per-scenario
completion (numerators = completion, denominators = 1), micro is completed items over items.
Scenarios of one MedEdPORTAL case are not independent, so the *case* is the unit. The
standard error is cluster-robust (a sandwich over cases, for a ratio on its linearised
residuals ``y - R x``): the larger of the usual one with the finite-cluster factor
``C / (C - 1)`` (CR1) and the bias-reduced one (CR2, each case's residual sum scaled by
``1 / sqrt(1 - w_c / W)``, ``w_c`` its share of the weight). The 95% interval uses Student's t
with the Bell-McCaffrey degrees of freedom: ``C - 1`` when the cases weigh the same, fewer when
a few large cases dominate (MedSP's cases hold 1 to 30 scenarios, and a quick run on a handful
of cases is often mostly one or two of them). So the interval is never narrower than the
cluster-robust t interval on ``C - 1`` degrees of freedom.

The Bell-McCaffrey degrees of freedom assume every case varies alike. When cases differ a lot
(heavy-tailed case effects: one case far from the rest carries most of the variance) the
variance estimate rests on fewer cases than there are, and the interval undercovers (92-93%
at 6 to 30 cases in an independent simulation). So :func:`clustered_ratio` takes the smaller
of those degrees of freedom and the Welch-Satterthwaite plug-in on the cases' own CR2
contributions ``u_c = r_c^2 / (1 - h_c)``: ``(sum u)^2 / sum u^2``, which is ``C`` when they
are equal and near 1 when one case carries them all (see docs/statistics.md for the coverage
it gives). The interval keeps to what is possible when the caller says what that is
(``limits``): a share (``(0, 1)``: completion, agreement, a flip rate) gets its interval on the
logit scale (:func:`share_interval`), which follows the skew of a share near 0 or 1 and stays
inside (0, 1); any other range (``(-1, 1)`` for a difference of shares) clips the t interval,
and :attr:`ClusteredMean.clipped` says when it did. Below :data:`MIN_CASES` cases no interval
is given: with so few cases none keeps its promise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from inspect_medsp.scoring.tdist import t_quantile

LEVEL = 0.95
"""Confidence level of every interval."""
MIN_CASES = 6
"""Fewest cases with which an interval (or a detectable difference) is given."""

TOO_FEW = (
    f"fewer than {MIN_CASES} cases: no interval (with so few cases an interval cannot keep "
    "its 95% promise)"
)


class ClusteredMean(NamedTuple):
    """A ratio of sums with its case-clustered standard error and 95% t interval."""

    estimate: float
    se: float
    """Cluster-robust standard error (NaN below 2 cases)."""
    cases: int
    low: float
    """NaN below :data:`MIN_CASES` cases."""
    high: float
    df: float = math.nan
    """Degrees of freedom of the t quantile."""
    clipped: bool = False
    """An end of the t interval lay outside ``limits`` and was set to the limit."""


def cluster_numbers(clusters: Sequence[str]) -> tuple[np.ndarray, int]:
    """Each row's cluster number (clusters sorted by name) and the number of clusters."""
    names, index = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
    return index, len(names)


def clustered_se(residuals: np.ndarray, index: np.ndarray, n_clusters: int, scale: float) -> float:
    """``sqrt(C / (C - 1) * sum_c (sum of the cluster's residuals)^2) / scale`` (NaN below 2
    clusters): the sandwich standard error (CR1) of a mean (``scale`` = rows) or a ratio
    (``scale`` = the denominators' sum)."""
    if n_clusters < 2 or scale <= 0:
        return math.nan
    sums = np.bincount(index, weights=residuals, minlength=n_clusters)
    variance = float((sums**2).sum()) * n_clusters / (n_clusters - 1)
    return math.sqrt(variance) / scale


class SmallSample(NamedTuple):
    """The small-sample corrected standard error and degrees of freedom of a clustered mean."""

    se: float
    """The larger of CR1 and CR2."""
    df: float
    """Bell-McCaffrey degrees of freedom (``C - 1`` for clusters of equal weight)."""


def small_sample(residual_sums: np.ndarray, weights: np.ndarray, scale: float) -> SmallSample:
    """CR1, CR2 and the Bell-McCaffrey degrees of freedom of a weighted mean from each
    cluster's residual sum and weight (``scale``: the weights' total).

    For an intercept-only model the CR2 correction of cluster ``c`` is ``1 / sqrt(1 - h_c)``
    with ``h_c = w_c / W``, and the Bell-McCaffrey degrees of freedom
    ``(tr B)^2 / ||B||^2`` of ``B = D^(-1/2) (diag(w) - w w' / W) D^(-1/2)``,
    ``D = diag(1 - h)``, reduce to ``W^2 / (sum w_c^2 + (S^2 - T) / W^2)`` with
    ``S = sum w_c^2 / (1 - h_c)`` and ``T = sum w_c^4 / (1 - h_c)^2``.
    """
    n_clusters = len(residual_sums)
    if n_clusters < 2 or scale <= 0:
        return SmallSample(math.nan, math.nan)
    share = np.minimum(weights / scale, 1 - 1e-12)
    keep = 1.0 - share
    squares = residual_sums**2
    cr1 = float(squares.sum()) * n_clusters / (n_clusters - 1)
    cr2 = float((squares / keep).sum())
    s = float((weights**2 / keep).sum())
    t = float((weights**4 / keep**2).sum())
    df = scale**2 / (float((weights**2).sum()) + (s * s - t) / scale**2)
    return SmallSample(math.sqrt(max(cr1, cr2)) / scale, min(float(n_clusters - 1), df))


def contribution_df(residual_sums: np.ndarray, weights: np.ndarray, scale: float) -> float:
    """The Welch-Satterthwaite degrees of freedom of the CR2 variance from the cases' own
    contributions ``u_c = r_c^2 / (1 - h_c)``: ``(sum u)^2 / sum u^2`` (at least 1; ``C - 1``
    when there is no spread)."""
    n_clusters = len(residual_sums)
    share = np.minimum(weights / scale, 1 - 1e-12)
    u = residual_sums**2 / (1.0 - share)
    total = float(u.sum())
    if total <= 0:
        return float(n_clusters - 1)
    return max(1.0, total * total / float((u * u).sum()))


def small_samples(residual_sums: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`small_sample` of many means at once, one per row of ``residual_sums`` and
    ``weights`` (shape ``(means, clusters)``, the weights' row totals the scales): the standard
    errors and the degrees of freedom, one per row."""
    n_clusters = residual_sums.shape[1]
    if n_clusters < 2:
        nan = np.full(residual_sums.shape[0], math.nan)
        return nan, nan.copy()
    scale = weights.sum(axis=1)
    share = np.minimum(weights / scale[:, None], 1 - 1e-12)
    keep = 1.0 - share
    squares = residual_sums**2
    cr1 = squares.sum(axis=1) * n_clusters / (n_clusters - 1)
    cr2 = (squares / keep).sum(axis=1)
    s = (weights**2 / keep).sum(axis=1)
    t = (weights**4 / keep**2).sum(axis=1)
    df = scale**2 / ((weights**2).sum(axis=1) + (s * s - t) / scale**2)
    se = np.sqrt(np.maximum(cr1, cr2)) / scale
    return se, np.minimum(float(n_clusters - 1), df)


SHARE = (0.0, 1.0)
"""The ``limits`` of a share: its interval is built on the logit scale (:func:`share_interval`)."""


def share_interval(
    numerator: float, denominator: float, se: float, level: float, df: float
) -> tuple[float, float]:
    """The t interval of a share on the logit scale, mapped back: ``logit(p~) +/- t(df) * se /
    (p~ (1 - p~))`` with ``p~ = (numerator + 0.5) / (denominator + 1)`` (half a count added
    either way, so a share of 0 or 1 has a logit), widened to hold the share itself. A share
    near 0 or 1 has a skewed sampling distribution; on the logit scale the interval follows
    the skew and stays inside (0, 1). With no spread between cases (``se`` 0) the interval is
    the share itself."""
    share = numerator / denominator
    if se == 0.0:  # no spread between cases: the interval is the share itself
        return share, share
    shrunk = (numerator + 0.5) / (denominator + 1.0)
    centre = math.log(shrunk / (1.0 - shrunk))
    half = t_quantile(0.5 + level / 2, df) * se / (shrunk * (1.0 - shrunk))
    low = 1.0 / (1.0 + math.exp(-(centre - half)))
    high = 1.0 / (1.0 + math.exp(-(centre + half)))
    return min(low, share), max(high, share)


def t_interval(
    estimate: float, se: float, cases: int, level: float = LEVEL, df: float | None = None
) -> tuple[float, float]:
    """``estimate +/- t(df) * se`` (``df`` default ``C - 1``); NaN below :data:`MIN_CASES`
    cases or without an ``se``."""
    if cases < MIN_CASES or math.isnan(se):
        return math.nan, math.nan
    half = t_quantile(0.5 + level / 2, cases - 1 if df is None else df) * se
    return estimate - half, estimate + half


def clustered_ratio(
    numerators: Sequence[float] | np.ndarray,
    denominators: Sequence[float] | np.ndarray,
    clusters: Sequence[str] | None = None,
    level: float = LEVEL,
    index: tuple[np.ndarray, int] | None = None,
    limits: tuple[float, float] | None = None,
) -> ClusteredMean:
    """``sum(numerators) / sum(denominators)`` with its cluster-robust t interval.

    Args:
        numerators: One value per row (scenario).
        denominators: One value per row (1 for a plain mean).
        clusters: Each row's case (default: every row its own case).
        index: The rows' cluster numbers and count, when already known.
        limits: What the ratio can possibly be (e.g. ``(0, 1)`` for a share): the interval is
            clipped to it, and :attr:`ClusteredMean.clipped` says when it was.
    """
    y = np.asarray(numerators, dtype=float)
    x = np.asarray(denominators, dtype=float)
    if not len(y):
        return ClusteredMean(math.nan, math.nan, 0, math.nan, math.nan)
    if index is None:
        index = cluster_numbers(clusters) if clusters is not None else (np.arange(len(y)), len(y))
    rows, n_clusters = index
    total = float(x.sum())
    if total <= 0:
        return ClusteredMean(math.nan, math.nan, n_clusters, math.nan, math.nan)
    ratio = float(y.sum()) / total
    sums = np.bincount(rows, weights=y - ratio * x, minlength=n_clusters)
    weights = np.bincount(rows, weights=x, minlength=n_clusters)
    found = small_sample(sums, weights, total)
    df = found.df
    if n_clusters >= 2:
        df = min(df, contribution_df(sums, weights, total))
    if limits == SHARE and n_clusters >= MIN_CASES and not math.isnan(found.se):
        low, high = share_interval(float(y.sum()), total, found.se, level, df)
        return ClusteredMean(ratio, found.se, n_clusters, low, high, df)
    low, high = t_interval(ratio, found.se, n_clusters, level, df)
    clipped = False
    if limits is not None and not math.isnan(low):
        clipped = low < limits[0] or high > limits[1]
        low, high = max(low, limits[0]), min(high, limits[1])
    return ClusteredMean(ratio, found.se, n_clusters, low, high, df, clipped)
