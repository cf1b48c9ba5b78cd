"""Agreement of yes/no verdicts: percent agreement, Cohen's and Fleiss' kappa, with intervals.

For ``m`` raters who all gave a verdict on an item, the item's agreement is the share of rater
pairs that agree, ``(n(n-1) + (m-n)(m-n-1)) / (m(m-1))`` with ``n`` raters saying met: 1 or 0
for two raters. Percent agreement is its mean over items (Fleiss' observed agreement).

Kappa corrects that for chance. Two raters: Cohen's kappa, chance from each rater's own rate
of "met". More raters: Fleiss' kappa, chance from the pooled rate. Kappa is undefined (NaN)
when chance agreement is 1, i.e. every verdict was the same.

Intervals resample cases like the completion metrics (``scoring.metrics.resampled_sums``):
each statistic is a function of column sums, computed on all resamples at once; resamples in
which kappa is undefined are left out of its interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel

from inspect_medsp.scoring import clustered_ratio, percentile_interval, resampled_sums

KappaKind = Literal["cohen", "fleiss"]


class Agreement(BaseModel):
    """How far the raters agree on a set of items."""

    items: int
    agreement: float
    agreement_ci: tuple[float, float]
    unanimous: float
    kappa: float
    kappa_ci: tuple[float, float]
    kappa_kind: KappaKind


def pair_agreement(votes: np.ndarray) -> np.ndarray:
    """Each item's share of agreeing rater pairs; ``votes`` is items x raters of 0/1."""
    m = votes.shape[1]
    met = votes.sum(axis=1)
    pairs: np.ndarray = (met * (met - 1) + (m - met) * (m - met - 1)) / (m * (m - 1))
    return pairs


def _columns(votes: np.ndarray) -> tuple[list[np.ndarray], KappaKind]:
    """The per-item columns whose sums give agreement and kappa."""
    ones = np.ones(len(votes))
    if votes.shape[1] == 2:
        return [pair_agreement(votes), ones, votes[:, 0], votes[:, 1]], "cohen"
    return [pair_agreement(votes), ones, votes.mean(axis=1)], "fleiss"


def kappa_of(sums: np.ndarray, kind: KappaKind) -> np.ndarray:
    """Kappa from column sums (one row per resample), NaN where chance agreement is 1."""
    n = sums[:, 1]
    observed = sums[:, 0] / n
    if kind == "cohen":
        a, b = sums[:, 2] / n, sums[:, 3] / n
        chance = a * b + (1 - a) * (1 - b)
    else:
        p = sums[:, 2] / n
        chance = p * p + (1 - p) * (1 - p)
    spare = 1 - chance
    defined = ~np.isclose(spare, 0.0, atol=1e-12)
    kappa: np.ndarray = np.where(
        defined, (observed - chance) / np.where(defined, spare, 1.0), math.nan
    )
    return kappa


def agreement(votes: Sequence[Sequence[int]] | np.ndarray, cases: Sequence[str]) -> Agreement:
    """Agreement of ``votes`` (items x raters, 1 met / 0 not met; every rater judged every
    item): the agreement share (a ratio of sums over items) with the case-clustered t interval
    the leaderboard uses, kappa (not a mean) with a 95% interval resampling ``cases`` (one per
    item)."""
    array = np.asarray(votes, dtype=float).reshape(len(cases), -1)
    m = array.shape[1]
    if m < 2:
        raise ValueError(f"agreement needs two or more raters, not {m}")
    kind: KappaKind = "cohen" if m == 2 else "fleiss"
    if not len(array):
        nan = (math.nan, math.nan)
        return Agreement(
            items=0,
            agreement=math.nan,
            agreement_ci=nan,
            unanimous=math.nan,
            kappa=math.nan,
            kappa_ci=nan,
            kappa_kind=kind,
        )
    columns, kind = _columns(array)
    whole = np.asarray([[float(c.sum()) for c in columns]])
    sums = resampled_sums(columns, cases)
    met = array.sum(axis=1)
    share = clustered_ratio(columns[0], columns[1], cases, limits=(0.0, 1.0))
    return Agreement(
        items=len(array),
        agreement=float(whole[0, 0] / whole[0, 1]),
        agreement_ci=(share.low, share.high),
        unanimous=float(np.mean((met == 0) | (met == m))),
        kappa=float(kappa_of(whole, kind)[0]),
        kappa_ci=percentile_interval(kappa_of(sums, kind)),
        kappa_kind=kind,
    )
